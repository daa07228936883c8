"""The simulate view: the versioned JSON shape of a SimResult and what the text reports show."""

from __future__ import annotations

from typing import Any

from ..scan.billing import usd
from ..simulate.context.run import ContextTally
from ..simulate.summary import SimResult, SimRow, Variant
from .view import Lines, Section, View, meta_doc, num, pick, register, tokenizer_text

# tools[] fields of `simulate -f json`: a contract, like scan's
SIM_FIELDS = (
    "tool", "calls", "affected_calls", "tokens_before", "tokens_after", "tokens_saved", "saved_pct",
    "chars_before", "chars_after", "bytes_before", "bytes_after", "weighted_tokens_saved",
    "agent_truncated_calls", "errors_cut", "json_broken", "later_used",
)
# what totals add to them (and lack: "tool")
SIM_TOTALS = ("affected_pct", "weighted_tokens_before", "weighted_saved_pct", "residency_unknown_calls")


# what totals gain with a context policy (--context)
CONTEXT_TOTALS = ("refetched", "refetch_tokens", "net_tokens_saved", "cache_invalidations", "cost_before_usd",
                  "cost_after_usd")
KIND_FIELDS = ("uncached", "cache_write_5m", "cache_write_1h", "cache_read", "output", "input")
# the top-level `context` object's counts
CONTEXT_COUNTS = ("contexts", "billed_contexts", "requests", "gross_tokens_saved", "removed_by_caps",
                  "tool_tokens_before", "tool_tokens_after", "removed_calls", "compactions", "unpriced_requests")


def context_totals(t: ContextTally) -> dict[str, Any]:
    """The fields a context policy adds to totals (dollars null where nothing had a price)."""
    return {"refetched": t.refetched, "refetch_tokens": t.refetch_tokens, "net_tokens_saved": t.net_tokens_saved,
            "cache_invalidations": t.cache_invalidations, "cost_before_usd": usd(t.cost_before),
            "cost_after_usd": usd(t.cost_after)}


def _error(modelled: int, recorded: int) -> float | None:
    return round((modelled - recorded) / recorded, 6) if recorded else None


def context_doc(t: ContextTally, policy: str) -> dict[str, Any]:
    """The `context` object: the policy, inputs by kind before → after, and the cache model's fit."""
    m, r = t.modelled, t.before
    doc: dict[str, Any] = {"policy": policy, **{k: getattr(t, k) for k in CONTEXT_COUNTS},
                           "input_before": r.as_dict(), "input_modelled": m.as_dict(), "input_after": t.after.as_dict(),
                           "cache_model": {"reads_error": _error(m.cache_read, r.cache_read),
                                           "writes_error": _error(m.cache_write_5m + m.cache_write_1h,
                                                                  r.cache_write_5m + r.cache_write_1h),
                                           "uncached_error": _error(m.uncached, r.uncached)}}
    if t.rows is not None:
        doc["per_request"] = [row.__dict__ for row in t.rows]
    return doc


def sim_row(row: SimRow) -> dict[str, Any]:
    """A SimRow with exactly the contract's fields."""
    return pick(row, SIM_FIELDS, {"saved_pct": 2})


def sim_totals(row: SimRow, variant: Variant | None = None) -> dict[str, Any]:
    """Totals: the contract's fields plus the percentages and the residency note (and a context policy's)."""
    doc = sim_row(row)
    del doc["tool"]
    doc.update(pick(row, SIM_TOTALS, {"affected_pct": 2, "weighted_saved_pct": 2}))
    if variant is not None and variant.context is not None:
        doc.update(context_totals(variant.context))
    return doc


def _cost(variant: Variant) -> dict[str, Any]:
    """`cost`: what the variant's caps save in tool-output dollars (scan's estimate), where it was priced."""
    return {"cost": variant.dollars.as_dict()} if variant.dollars is not None else {}


def _cost_cells(cost: dict | None) -> dict[str, Any]:
    """A CSV row's tool-output dollars (estimated): before, after, saved."""
    return {f"tool_output_{k}": cost[k] for k in ("before_usd", "after_usd", "saved_usd")} if cost else {}


def money_line(cost: dict, what: str) -> str:
    """A change's tool-output dollars in words, or why none (html_verdict's words), without the `dollars: ` its
    callers put before it (no_price's own made replay print `dollars: dollars: not priced`)."""
    from .html_verdict import no_price, output_change

    return output_change(cost, what) if cost["saved_usd"] is not None else no_price(cost).removeprefix("dollars: ")


def sim_dict(result: SimResult) -> dict[str, Any]:
    """The JSON document of a simulation (schema_version, meta, totals, tools…; sweep[] when sweeping)."""
    meta = result.meta
    first = result.variants[0]
    doc: dict[str, Any] = {
        "schema_version": meta.schema_version,
        "meta": meta_doc(meta, "simulate", preset=result.preset, policies=list(first.policies), sweep=result.sweep,
                         policy_spec=result.spec),
    }
    if result.session_caps is not None:
        doc["meta"]["session_caps"] = dict(zip(("recorded", "default"), result.session_caps))
    if result.sweep:
        doc["sweep"] = [{"value": v.label, **sim_totals(v.totals, v), **_cost(v)} for v in result.variants]
        doc["variants"] = [{"value": v.label, "policies": list(v.policies), "totals": sim_totals(v.totals, v),
                            "tools": [sim_row(r) for r in v.tools], **_cost(v),
                            **({"context": context_doc(v.context, result.context)} if v.context else {})}
                           for v in result.variants]
    else:
        doc["totals"] = sim_totals(first.totals, first)
        doc["tools"] = [sim_row(r) for r in first.tools]
        doc.update(_cost(first))
        if first.context is not None:
            doc["context"] = context_doc(first.context, result.context)
            doc["cache_model"] = doc["context"]["cache_model"]  # the model's fit, where a check looks first
    doc["agent_truncated"] = dict(result.agent_cut)
    doc["files"] = result.files
    doc["duplicates_dropped"] = result.duplicates_dropped
    doc["skipped"] = {"count": result.skipped_count, "first": [str(s) for s in result.skipped]}
    doc["unrecognised"] = list(result.unrecognised)
    doc["errors"] = list(result.errors)
    if result.explained:
        doc["explain"] = [e.__dict__ for e in result.explained]
    return doc


# the terminal table's column names (--columns), and what it shows by default, dropped from the right
SIM_COLUMNS = ("tool", "calls", "affected", "before", "after", "saved", "saved%", "weighted", "agent-cut",
               "errors_cut", "json_broken", "later_used")
SIM_COMPACT = ("tool", "calls", "before", "after", "saved%", "bar", "later_used", "errors_cut", "affected")


def sim_cells(result: SimResult) -> tuple[list[str], list[list[str]], list[str] | None]:
    """Headers, rows and totals cells: per tool, or per swept value."""
    tok = "tokens" + (" (est.)" if result.meta.estimated else "")
    if result.sweep:
        headers = [result.sweep, "saved %", "weighted saved %", "affected %", f"{tok} after",
                   "errors_cut", "json_broken", "later_used", "saved $ (est.)"]
        rows = [[v.label, f"{v.totals.saved_pct:.1f}", f"{v.totals.weighted_saved_pct:.1f}",
                 f"{v.totals.affected_pct:.1f}", num(v.totals.tokens_after), num(v.totals.errors_cut),
                 num(v.totals.json_broken), num(v.totals.later_used),
                 _dollars(v.dollars.saved if v.dollars else None)] for v in result.variants]
        return headers, rows, None
    headers = ["tool", "calls", "affected", f"{tok} before", "after", "saved", "saved %", "weighted saved",
               "agent-cut", "errors_cut", "json_broken", "later_used"]

    def cells(r: SimRow) -> list[str]:
        return [r.tool, num(r.calls), f"{r.affected_calls} ({r.affected_pct:.0f}%)", num(r.tokens_before),
                num(r.tokens_after), num(r.tokens_saved), f"{r.saved_pct:.1f}", num(r.weighted_tokens_saved),
                num(r.agent_truncated_calls), num(r.errors_cut), num(r.json_broken), num(r.later_used)]

    first = result.variants[0]
    chosen = [r for r in first.tools if r.selected_calls]
    rest = [r for r in first.tools if not r.selected_calls]
    if not chosen or not rest or len(rest) < 2:
        return headers, [cells(r) for r in first.tools], cells(first.totals)
    # the tools no policy applied to (--tool Grep: the other 36): one line, not a row each
    calls, tokens = sum(r.calls for r in rest), sum(r.tokens_before for r in rest)
    others = [f"{len(rest)} others, untouched", num(calls), "0 (0%)", num(tokens), num(tokens), "0", "0.0", "0",
              num(sum(r.agent_truncated_calls for r in rest)), "0", "0", "0"]
    return headers, [cells(r) for r in chosen] + [others], cells(first.totals)


def sim_summary_lines(result: SimResult) -> list[str]:
    """Policies, the bill view, agents' own caps, skipped lines."""
    first = result.variants[0]
    t = first.totals
    lines = []
    if not result.sweep:
        lines.append("policy: " + "; ".join(first.policies) + (f" (preset {result.preset})" if result.preset else ""))
        lines.append(
            f"saved {t.tokens_saved:,} of {t.tokens_before:,} tokens ({t.saved_pct:.1f}%) in {t.affected_calls} of "
            f"{t.calls} calls; context-weighted: {t.weighted_tokens_saved:,} of {t.weighted_tokens_before:,} "
            f"re-sent tokens ({t.weighted_saved_pct:.1f}%)")
        lines.append(f"risk: {t.later_used} cut calls hid something the agent used later; "
                     f"{t.errors_cut} lost a failure signal; {t.json_broken} broke JSON")
        if first.dollars is not None and not _context_only(result):
            lines.append("dollars: " + money_line(first.dollars.as_dict(), "these caps"))
        if result.preset and t.calls and not t.affected_calls:
            # the usual case of an agent's preset on that agent's own sessions: say why, and what to try
            fired = ", ".join(f"{agent} cut {n}" for agent, n in result.agent_cut)
            ran = f"; the outputs were recorded under the agent's own caps ({fired})" if fired else ""
            lines.append(f"note: preset {result.preset} cut nothing: no output here is over its caps{ran}. A tighter "
                         "cap shows what one would save: `--max-chars 5000`, or `toolaudit advise`")
    if result.session_caps is not None:
        recorded, default = result.session_caps
        lines.append(f"session caps: recorded truncation_policy in {recorded} sessions, "
                     f"the model family's default in {default}")
    if t.residency_unknown_calls:
        lines.append(f"residency unknown for {t.residency_unknown_calls} calls (weighted once)")
    if result.agent_cut:
        fired = ", ".join(f"{agent} {n}" for agent, n in result.agent_cut)
        lines.append(f"already cut by the agent (left as they were, never credited): {fired}")
    meta = result.meta
    lines.append(f"files: {result.files} · duplicates dropped: {result.duplicates_dropped} · "
                 f"skipped lines: {result.skipped_count} · tokenizer: "
                 + (meta.tokenizer_label or meta.tokenizer + (" (estimated)" if meta.estimated else "")))
    return lines


def _dollars(value) -> str:
    return "n/a" if value is None else f"${value:,.2f}"


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def context_section(result: SimResult) -> Section:
    """The bill before → after a context policy, by kind of input (one policy), or per swept value."""
    if result.sweep:
        # the saving, the bill after and the risk first: on a narrow terminal the rest goes
        ids = ["value", "net", "net%", "after$", "refetched", "invalidations", "gross", "refetch", "before$"]
        rows = []
        for v in result.variants:
            t = v.context
            rows.append([v.label, num(t.net_tokens_saved), _pct(t.net_tokens_saved, t.before.input),
                         _dollars(t.cost_after), num(t.refetched), num(t.cache_invalidations),
                         num(t.gross_tokens_saved), num(t.refetch_tokens), _dollars(t.cost_before)])
        return Section([result.sweep, "net saved", "net %", "cost after", "refetched", "cache invalidations",
                        "gross saved", "refetch tokens", "cost before"], rows, title="Context policy and bill",
                       columns=ids, compact=tuple(ids), keep=("net", "net%", "after$", "refetched"))
    t = result.variants[0].context
    rows = []
    for label, key in (("uncached input", "uncached"), ("cache write 5m", "cache_write_5m"),
                       ("cache write 1h", "cache_write_1h"), ("cache read", "cache_read"), ("input", "input"),
                       ("output", "output")):
        before, modelled, after = (getattr(k, key) for k in (t.before, t.modelled, t.after))
        rows.append([label, num(before), num(after), num(after - before), num(modelled)])
    rows.append(["cost", _dollars(t.cost_before), _dollars(t.cost_after),
                 "n/a" if t.cost_before is None or t.cost_after is None else f"{t.cost_after - t.cost_before:+,.2f}",
                 ""])
    ids = ["kind", "before", "after", "change", "modelled"]
    return Section(["tokens (provider's)", "before (recorded)", "after", "change", "cache model, no policy"], rows,
                   title="Context policy and bill", columns=ids, compact=tuple(ids))


def context_verdict(result: SimResult) -> str | None:
    """The first line a reader needs of a context policy: what it does to the bill in dollars (a rise said as
    a rise), then the tokens; None for a sweep (its table is the answer) or no context policy."""
    t = result.variants[0].context
    if t is None or result.sweep:
        return None
    tokens = f"net {t.net_tokens_saved:,} input tokens ({_pct(t.net_tokens_saved, t.before.input)})"
    if t.cost_before is None or t.cost_after is None or not t.cost_before:
        return f"verdict: {tokens} saved; no dollars (no price for these requests' models: --model NAME)"
    change = t.cost_after - t.cost_before
    share = f"{abs(change) / t.cost_before:.1%}"
    if change > 0:
        why = f", {t.cache_invalidations:,} cache invalidations writing again what was cached" \
            if t.cache_invalidations else ""
        return (f"verdict: the bill RISES {_dollars(t.cost_before)} → {_dollars(t.cost_after)} (+{_dollars(change)}, "
                f"+{share}) though {tokens} leave the context{why}")
    if not change:
        return f"verdict: the bill is unchanged at {_dollars(t.cost_before)}; {tokens} saved"
    return (f"verdict: the bill falls {_dollars(t.cost_before)} → {_dollars(t.cost_after)} (−{_dollars(-change)}, "
            f"−{share}); {tokens} saved")


def context_lines(result: SimResult) -> list[str]:
    """What the context policy removed, what it cost back, and how far the cache model is from the record."""
    lines = [f"context policy: {result.context}"]
    if result.sweep:
        return lines
    t = result.variants[0].context
    fit = context_doc(t, result.context)["cache_model"]
    lines.append(f"input {t.before.input:,} → {t.after.input:,} tokens over {t.requests:,} requests in "
                 f"{t.billed_contexts} of {t.contexts} contexts with usage: gross saved {t.gross_tokens_saved:,} "
                 f"(size caps {t.removed_by_caps:,}), refetch {t.refetch_tokens:,} (estimated), net "
                 f"{t.net_tokens_saved:,} ({_pct(t.net_tokens_saved, t.before.input)})")
    lines.append(f"removed {t.removed_calls:,} outputs before their stay ended; {t.refetched:,} were used later and "
                 f"would have been fetched again; {t.cache_invalidations:,} cache invalidations"
                 + (f"; {t.compactions:,} compactions" if t.compactions else ""))
    lines.append(f"tool outputs carried (all contexts, × requests): {t.tool_tokens_before:,} → {t.tool_tokens_after:,} "
                 f"tokens ({_pct(t.tool_tokens_before - t.tool_tokens_after, t.tool_tokens_before)} fewer)")
    errors = [f"{name} {fit[name + '_error']:+.1%}" for name in ("reads", "writes", "uncached")
              if fit[name + "_error"] is not None]
    if errors:
        lines.append("cache model against the recorded usage: " + ", ".join(errors)
                     + " (after does not rest on it: it is each request's recorded split less what was taken off)")
    if t.unpriced_requests:
        lines.append(f"{t.unpriced_requests:,} requests had no price (use --model NAME where the transcript names none)")
    return lines


def _context_only(result: SimResult) -> bool:
    """A context policy without any size policy."""
    return result.variants[0].context is not None and not any(v.totals.selected_calls for v in result.variants)


def explain_section(result: SimResult) -> Section:
    """--explain's numbers, a row per call (#n names it in the lines below): a table, so a terminal never
    splits a number."""
    ids = ["tool", "before", "after", "chars_before", "chars_after", "used", "where"]
    rows = [[f"#{i} {e.tool}", num(e.tokens_before), num(e.tokens_after), num(e.chars_before), num(e.chars_after),
             "yes" if e.used_at else "no", e.where] for i, e in enumerate(result.explained, 1)]
    return Section(["tool", "tokens before", "after", "chars before", "after", "used later", "file:line"], rows,
                   title="What the cut hid", columns=ids, compact=tuple(ids), shorten={6: 40})


def explain_lines(result: SimResult) -> list[str]:
    """--explain: each affected call (its numbers in explain_section), what was hidden (redacted), where it was used."""
    out = []
    for i, e in enumerate(result.explained, 1):
        out.append(f"#{i} {e.tool} at {e.where}")
        if e.hidden:
            out.append("  hidden items: " + ", ".join(e.hidden))
        if e.hidden_preview:
            out.append(f"  removed text starts: {e.hidden_preview}")
        out.append(f"  used later at {e.used_at}" if e.used_at else "  not seen used later")
    return out


@register
class SimView(View):
    """`simulate`: per tool (or per swept value) savings beside risk, then what the cuts hid."""

    kind = "simulate"
    title = "toolaudit simulate"

    def doc(self, result: SimResult) -> dict:
        return sim_dict(result)

    def csv_rows(self, result: SimResult) -> list[dict]:
        first = result.variants[0]
        rows = [{**{k: v for k, v in row.items() if k != "cost"}, **_cost_cells(row.get("cost"))}
                for row in sim_dict(result)["sweep"]] if result.sweep else [sim_row(r) for r in first.tools] + [
            {**sim_row(first.totals), **(context_totals(first.context) if first.context else {}),
             **_cost_cells(_cost(first).get("cost"))}]
        return [{**row, "tokenizer": tokenizer_text(result.meta)} for row in rows]

    def headline(self, result: SimResult) -> tuple[str, list[str]] | None:
        lines = [] if _context_only(result) else [
            line for line in sim_summary_lines(result) if line.startswith(("saved ", "risk: "))]
        t = result.variants[0].totals
        risky = t.later_used or t.errors_cut or t.json_broken
        c = result.variants[0].context
        if c is not None and not result.sweep:
            lines = [context_verdict(result), *lines, *context_lines(result)[1:3]]
            risky = risky or c.refetched or (c.cost_after or 0) > (c.cost_before or 0)
        return ("warn" if risky else "info", lines) if lines else None

    def blocks(self, result: SimResult) -> list:
        verdict = context_verdict(result)
        first = [Lines([verdict])] if verdict else []  # the dollar verdict is the first line a reader sees
        if _context_only(result):  # no size policy: the per-tool table would say nothing was cut
            lines = [line for line in sim_summary_lines(result) if not line.startswith(("policy: ", "saved ", "risk: "))]
            return [*first, context_section(result), Lines(context_lines(result) + lines)]
        headers, rows, totals = sim_cells(result)
        table = Section(headers, rows, totals)
        if not result.sweep:  # the per-tool table fits the terminal (reports.table_report); a sweep's is narrow
            table = Section(headers, rows, totals, columns=list(SIM_COLUMNS), compact=SIM_COMPACT,
                            keep=("before", "saved%", "later_used", "errors_cut"),  # the size, its saving and risk
                            bar=[r.saved_pct / 100 for r in result.variants[0].tools])
        out: list = [*first, table, Lines(sim_summary_lines(result))]
        if result.variants[0].context is not None:
            out += [context_section(result), Lines(context_lines(result))]
        if result.explained:
            out += [explain_section(result), Lines(explain_lines(result), code=True)]
        return out
