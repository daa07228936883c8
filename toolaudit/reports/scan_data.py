"""The scan view: the versioned JSON shape of a ScanResult and what the text reports show."""

from __future__ import annotations

from typing import Any

from ..model import GroupRow, ScanResult
from .view import Lines, Section, View, meta_doc, num, pick, register, tokenizer_text

# tools[] fields: a contract that CI gates and other tools read (README: JSON schema)
TOOL_FIELDS = (
    "tool", "calls", "tokens", "share", "tokens_mean", "tokens_p50", "tokens_p95",
    "tokens_max", "chars", "bytes", "error_calls", "agent_truncated_calls",
)
# what groups[] add per session with --by session: which session is which (GroupRow; null where unknown)
SESSION_FIELDS = ("project", "agent", "start")
# what totals add to them (read from the ScanResult; they lack "tool" and "share")
SCAN_TOTALS = (
    "files", "sessions", "duplicates_dropped", "unpaired_calls", "orphan_results", "images", "image_bytes",
    "carried_tokens", "residency_known_calls", "runs", "tokens_per_run_median", "tokens_per_run_p90",
)


def row_dict(row: GroupRow, key_name: str) -> dict[str, Any]:
    """A GroupRow as a dict whose first field is named after the grouping (`tool`, `session`...); a session's
    project, agent and start follow its id."""
    about = pick(row, SESSION_FIELDS) if key_name == "session" else {}
    return {key_name: row.key, **about, **pick(row, TOOL_FIELDS[1:], {"share": 6, "tokens_mean": 2})}


def scan_dict(result: ScanResult) -> dict[str, Any]:
    """The JSON document of a scan (schema_version, meta, totals, tools, skipped...)."""
    meta = result.meta
    totals = row_dict(result.totals, "tool")
    del totals["tool"], totals["share"]
    totals.update(pick(result, SCAN_TOTALS, {"tokens_per_run_median": 2}))
    doc: dict[str, Any] = {
        "schema_version": meta.schema_version,
        "meta": meta_doc(meta, "scan", by=meta.by, collectors=result.collectors),
        "totals": totals,
        "tools": [row_dict(row, "tool") for row in result.tools],
    }
    if meta.by != "tool":
        doc["groups"] = [row_dict(row, meta.by) for row in result.rows]
    doc["skipped"] = {
        "count": result.skipped_count,
        "first": [str(s) for s in result.skipped],
    }
    doc["unrecognised"] = list(result.unrecognised)
    doc["errors"] = list(result.errors)
    if result.undated:
        doc["undated_dropped"] = result.undated
    if result.outside:
        doc["window_dropped"] = {"calls_and_requests": result.outside, "newest": result.newest}
    bill = result.bill
    if bill is not None:
        doc["usage"] = {**bill.total.as_dict(), "tool_output_share": _share(result),
                        "tool_output_share_estimated": True, "share_calls": bill.carried_calls,
                        "calls_without_usage": bill.calls_without_usage}
        if bill.groups:
            doc["usage"]["by"] = meta.by
            doc["usage"]["groups"] = [{meta.by: key, **b.as_dict()} for key, b in bill.groups.items()]
        if bill.priced:
            from ..scan.billing import prices_version

            doc["cost"] = {
                "prices": prices_version(), "currency": "USD", "estimated_tool_costs": True,
                "billed_usd": None if bill.total.cost is None else float(round(bill.total.cost, 8)),
                "tools": [c.as_dict(tool) for tool, c in sorted(
                    bill.tools.items(), key=lambda kv: -(kv[1].first + kv[1].resent))],
                "unknown_models": sorted(bill.unknown_models),
            }
    if result.menu is not None:
        doc["menu"] = menu_dict(result.menu)
    if result.tool_refs is not None:
        refs = result.tool_refs
        doc["tool_references"] = {
            "calls": refs.calls, "loads": refs.loads,
            "tools": [{"tool": name, "loads": n} for name, n in refs.tools],
            "definition_tokens": refs.known_tokens if not refs.unknown else None,
            "known_definition_tokens": refs.known_tokens, "unknown_definitions": refs.unknown,
        }
    if result.notes:
        doc["notes"] = list(result.notes)
    doc["days"] = [{"day": d.day, "tool": d.tool, "calls": d.calls, "tokens": d.tokens} for d in result.days]
    if result.top:
        doc["top"] = [
            {
                "tool": m.tool, "session": m.session, "agent": m.agent, "file": m.source,
                "line": m.line, "tokens": m.tokens, "chars": m.chars, "bytes": m.bytes,
                "args_preview": m.args_preview,
                **({"output_preview": m.output_preview} if m.output_preview is not None else {}),
            }
            for m in result.top
        ]
    return doc


def menu_dict(menu) -> dict[str, Any]:
    """The tool definitions requests carried (scan.summary.Menu): in all, then per tool."""
    return {
        "tools": len(menu.definitions), "menus": menu.menus, "sessions": menu.sessions,
        "requests": menu.requests, "tokens_per_request": menu.tokens_per_request,
        "carried_tokens": menu.carried_tokens,
        "definitions": [{"tool": d.tool, "tokens": d.tokens, "requests": d.requests,
                         "carried_tokens": d.carried_tokens, "versions": d.versions} for d in menu.definitions],
    }


def menu_line(menu) -> str:
    """One line: the definitions' tokens per request, times the requests that carried them."""
    sign = "=" if menu.tokens_per_request * menu.requests == menu.carried_tokens else "≈"
    where = f"{menu.menus} menus, " if menu.menus > 1 else ""
    return (f"tool definitions: {len(menu.definitions)} tools, {menu.tokens_per_request:,} tokens per request "
            f"× {menu.requests:,} requests {sign} {menu.carried_tokens:,} input tokens "
            f"({where}{menu.sessions} session{'s' if menu.sessions != 1 else ''}"
            + ("; --top N lists the largest" if not menu.top else "") + ")")


def references_line(refs) -> str:
    """One line: the tool definitions results loaded (ToolSearch), and whether their size is known."""
    size = (f"{refs.known_tokens:,} definition tokens" if not refs.unknown else
            f"definitions' size unknown for {refs.unknown:,} (not recorded in these transcripts)"
            + (f"; {refs.known_tokens:,} tokens for the rest" if refs.known_tokens else ""))
    return (f"tool definitions loaded by results (tool_reference, e.g. ToolSearch): {refs.loads:,} in "
            f"{refs.calls:,} call{'s' if refs.calls != 1 else ''}, {len(refs.tools)} tools; {size}; "
            "not counted as output tokens")


def menu_cells(menu) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the largest tool definitions (scan --top N: the first N)."""
    headers = ["tool definition", "tokens", "requests", "carried tokens"]
    return headers, [[d.tool + (f" ({d.versions} versions)" if d.versions > 1 else ""), num(d.tokens),
                      num(d.requests), num(d.carried_tokens)] for d in menu.definitions[:menu.top]]


def _share(result: ScanResult) -> float | None:
    """Tool-output tokens carried by requests over the billed input tokens of the same contexts.

    Only calls whose session has usage records count (different tokenizers: an estimate).
    """
    total = result.bill.total.input_total if result.bill else 0
    return round(result.bill.carried / total, 4) if total else None


def _billed(sums) -> str:
    """Billed dollars of a group's requests (scan.billing.Billing), `*` when some had no price (the note under the
    table counts them: a count in the cell widened the column past 80); blank for none."""
    if sums is None:
        return ""
    return _usd(sums.cost) + ("*" if sums.unpriced_requests and sums.cost is not None else "")


def _usd(value) -> str:
    return f"${value:,.2f}" if value is not None else "n/a"


def _tool_usd(costs: list) -> str:
    """The estimated dollars of tools' outputs: `n/a (N calls)` when none of their calls had a price, never $0.00."""
    unpriced = sum(c.unpriced_calls for c in costs)
    if not any(c.priced_calls for c in costs):
        return f"n/a ({unpriced:,} call{'s' if unpriced != 1 else ''})" if unpriced else "n/a"
    return _usd(sum((c.first + c.resent for c in costs), 0)) + (f" (+{unpriced:,} unpriced)" if unpriced else "")


# the terminal table's column names, and what it shows by default (reports.table_report)
TOOL_COLUMNS = ("tool", "calls", "tokens", "share", "mean", "p50", "p95", "max", "chars", "bytes", "errors",
                "agent-cut", "cost")
SCAN_COMPACT = ("tool", "calls", "tokens", "share", "bar", "cost", "p95", "max")  # dropped from the right
# --by session: which session is which first (as ccusage's session report), and its billed dollars with --cost;
# the share bar, p95, max, the estimate and the counts go before the session's project, agent, start and tokens
SESSION_COLUMNS = ("session", "project", "agent", "start", *TOOL_COLUMNS[1:], "billed")
SCAN_COLUMNS = (*TOOL_COLUMNS, "project", "agent", "start", "billed")  # what --columns may name
SESSION_COMPACT = ("session", "project", "agent", "start", "calls", "tokens", "share", "billed", "cost", "bar", "p95",
                   "max")
SESSION_DROP = ("bar", "max", "p95", "cost", "share", "calls", "agent", "start", "billed", "project", "tokens")
# a terminal shortens a longer id (not a UUID: those show 8) or project in the middle; 16 + 15 leave room at 80
# columns for the agent, a start date, tokens and billed dollars beside them
ID_WIDTH, PROJECT_WIDTH = 16, 15


def start_day(start: str | None) -> str:
    """A session's start as the table shows it: its UTC date (the JSON has the time)."""
    return start[:10] if start else ""


def table_cells(result: ScanResult) -> tuple[list[str], list[list[str]], list[str]]:
    """Headers, one list of cells per row, and the totals cells, for the text reports."""
    tok = "tokens" + (" (estimated)" if result.meta.estimated else "")
    headers = [result.meta.by, "calls", tok, "share", "mean", "p50", "p95", "max",
               "chars", "bytes", "errors", "agent-cut"]
    priced = result.bill is not None and result.bill.priced
    # the calls' estimated dollars per row: by tool, or by whatever --by groups them
    tools = (result.bill.tools if result.meta.by == "tool" else result.bill.group_tools) if priced else {}
    if priced:
        headers.append("cost (est.)")

    by_session = result.meta.by == "session"
    billed = result.bill.groups if by_session and priced else None  # each session's billed dollars
    if by_session:
        headers[1:1] = ["project", "agent", "start UTC"]  # 9 wide: the date (10) sets the width

    def cells(row: GroupRow, share: bool = True) -> list[str]:
        about = [row.project or "", row.agent or "", start_day(row.start)] if by_session else []
        out = [
            row.key, *about, num(row.calls), num(row.tokens), f"{row.share:.1%}" if share else "",
            num(row.tokens_mean), num(row.tokens_p50), num(row.tokens_p95), num(row.tokens_max),
            num(row.chars), num(row.bytes), num(row.error_calls), num(row.agent_truncated_calls),
        ]
        if priced:
            costs = [tools[row.key]] if row.key in tools else (list(tools.values()) if not share else [])
            out.append(_tool_usd(costs))
        if billed is not None:
            out.append(_billed(billed.get(row.key)) if share else _billed(result.bill.total))
        return out

    if billed is not None:
        headers.append("billed")
    return headers, [cells(r) for r in result.rows], cells(result.totals, share=False)


def billing_cells(result: ScanResult) -> tuple[list[str], list[list[str]]] | None:
    """Provider usage per session, model or agent (with --by), and billed dollars with --cost."""
    bill = result.bill
    if bill is None or not bill.groups:
        return None
    headers = [result.meta.by, "requests", "input (uncached)", "cache write", "cache read", "output"]
    if bill.priced:
        headers.append("billed")
    projects = {row.key: row.project for row in result.rows} if result.meta.by == "session" else None
    if projects is not None:  # which session is which (one with requests but no tool call has no row: blank)
        headers.insert(1, "project")
    rows = []
    for key, b in bill.groups.items():
        row = [key, *([projects.get(key) or ""] if projects is not None else []), num(b.requests),
               num(b.input_uncached), num(b.cache_write), num(b.cache_read), num(b.output)]
        if bill.priced:
            row.append(_billed(b))
        rows.append(row)
    return headers, rows


def summary_lines(result: ScanResult) -> list[str]:
    """The lines under the table: counts, tokenizer, skipped lines and their first reasons."""
    meta = result.meta
    lines = [
        f"files: {result.files} · sessions: {result.sessions} · calls: {result.totals.calls} · "
        f"duplicates dropped: {result.duplicates_dropped} · unpaired calls: {result.unpaired_calls} · "
        f"orphan results: {result.orphan_results} · skipped lines: {result.skipped_count}",
        f"tokenizer: {tokenizer_text(meta)}"
        + (f" · images: {result.images} ({result.image_bytes:,} bytes, not counted as tokens)" if result.images else ""),
    ]
    if result.residency_known_calls:
        lines.append(
            f"re-sent: outputs were carried by later requests for {result.carried_tokens:,} input tokens in all "
            f"(tokens × requests that carried them, {result.residency_known_calls} calls)"
        )
    bill = result.bill
    if bill is not None:
        t = bill.total
        share = _share(result)
        lines.append(
            f"billed (provider usage): {t.requests:,} requests; input {t.input_total:,} tokens "
            f"(uncached {t.input_uncached:,}, cache write {t.cache_write:,}"
            + (f" of which 1-hour {t.cache_write_1h:,}" if t.cache_write_1h else "") + f", cache read {t.cache_read:,}); "
            f"output {t.output:,}" + (f"; tool outputs ≈ {share:.1%} of billed input (estimated: "
                                      f"{meta.tokenizer} tokens against the provider's; {bill.carried_calls} calls"
                                      + (f", {bill.calls_without_usage} more in sessions without usage"
                                         if bill.calls_without_usage else "") + ")" if share is not None else ""))
        if bill.priced:
            from ..scan.billing import prices_version

            first = sum((c.first for c in bill.tools.values()), 0)
            again = sum((c.resent for c in bill.tools.values()), 0)
            lines.append(f"cost ({prices_version()}): billed {_billed(t)}"
                         + (f" (*: {t.unpriced_requests:,} requests without a price left out)"
                            if t.unpriced_requests else "")
                         + f"; tool outputs (estimated) {_usd(first)} first sent + {_usd(again)} re-sent")
            if bill.unknown_models:
                lines.append("no price for: " + ", ".join(sorted(bill.unknown_models))
                             + " (use --model NAME when the transcript lacks it)")
    if result.menu is not None:
        lines.append(menu_line(result.menu))
    if result.tool_refs is not None:
        lines.append(references_line(result.tool_refs))
    lines.extend(f"note: {note}" for note in result.notes)
    if result.undated:
        lines.append(f"--since/--until left out {result.undated} calls or requests without a timestamp")
    if result.outside:
        lines.append(f"--since/--until left out {result.outside:,} dated calls or requests outside the window; "
                     f"the newest of all is {result.newest}")
    return lines


def top_cells(result: ScanResult) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the `--top` table."""
    headers = ["tool", "tokens", "session", "file:line", "args"]
    rows = [[m.tool, num(m.tokens), m.session, f"{m.source}:{m.line}", m.args_preview] for m in result.top]
    if any(m.output_preview is not None for m in result.top):
        headers.append("output (redacted)")
        for row, m in zip(rows, result.top):
            row.append((m.output_preview or "")[:80])
    return headers, rows


@register
class ScanView(View):
    """`scan`: the per-tool table, the summary, billed usage, the largest calls."""

    kind = "scan"
    title = "toolaudit scan"

    def doc(self, result: ScanResult) -> dict:
        return scan_dict(result)

    def csv_rows(self, result: ScanResult) -> list[dict]:
        key = result.meta.by
        bill = result.bill if result.bill is not None and result.bill.priced and key == "tool" else None
        rows = []
        for row in list(result.rows) + [result.totals]:
            out = row_dict(row, key)
            if bill is not None:  # --cost: the tool's estimated dollars, first + re-sent
                costs = [bill.tools[row.key]] if row.key in bill.tools else (
                    list(bill.tools.values()) if row is result.totals else [])
                out["cost_usd_estimated"] = (float(round(sum((c.first + c.resent for c in costs), 0), 8))
                                             if any(c.priced_calls for c in costs) else "")  # n/a: no price
            if result.menu is not None and key == "tool":  # the definition beside the outputs
                out.update(_definition_columns(result.menu, row, row is result.totals))
            out["tokenizer"] = tokenizer_text(result.meta)  # says `estimated` where it is
            rows.append(out)
        return rows

    def blocks(self, result: ScanResult) -> list:
        headers, rows, totals = table_cells(result)
        if result.meta.by == "session":
            table = Section(headers, rows, totals, columns=list(SESSION_COLUMNS[:len(headers)]), compact=SESSION_COMPACT, drop=SESSION_DROP,
                            left=("project", "agent", "start"), bar=[r.share for r in result.rows],
                            shorten={0: ID_WIDTH, 1: PROJECT_WIDTH}, ids=(0,))
        else:
            table = Section(headers, rows, totals, columns=list(TOOL_COLUMNS[:len(headers)]), compact=SCAN_COMPACT,
                            bar=[r.share for r in result.rows])
        out: list = [table, Lines(summary_lines(result))]
        billing = billing_cells(result)
        if billing is not None:
            headers, rows = billing
            words = {"columns": [f"column {i}" for i in range(len(headers))], "left": ("column 1",), "ids": (0,)} \
                if result.meta.by == "session" else {}  # a session's short id, its project aligned as words
            out.append(Section(headers, rows, title=f"Billed usage by {result.meta.by}", **words))
        if result.top:
            # on a terminal, ids and paths shortened in the middle (a long path wrapped one row over five lines)
            headers, rows = top_cells(result)
            names = ["tool", "tokens", "session", "file", "args", "output"][:len(headers)]
            # a terminal drops from the right (args first, tokens never) and shortens ids in the middle
            out.append(Section(headers, rows, title="Largest calls", columns=names, compact=tuple(names),
                               shorten={0: 32, 2: 15, 3: 40}, ids=(2,)))
        if result.menu is not None and result.menu.top:
            out.append(Section(*menu_cells(result.menu), title="Largest tool definitions"))
        return out


def _definition_columns(menu, row: GroupRow, total: bool) -> dict[str, Any]:
    """CSV: a tool's definition tokens, requests and carried tokens (TOTAL: the whole menu's)."""
    if total:
        return {"definition_tokens": menu.tokens_per_request, "definition_requests": menu.requests,
                "definition_carried_tokens": menu.carried_tokens}
    found = next((d for d in menu.definitions if d.tool == row.key), None)
    if found is None:
        return {"definition_tokens": "", "definition_requests": "", "definition_carried_tokens": ""}
    return {"definition_tokens": found.tokens, "definition_requests": found.requests,
            "definition_carried_tokens": found.carried_tokens}
