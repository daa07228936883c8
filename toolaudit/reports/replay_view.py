"""The replay view: the versioned JSON shape of a ReplayResult and what the text reports show."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from ..replay.fidelity import ORDER_REASON, reason_kind
from ..replay.summary import Menu, ReplayResult, ReplayRow
from .view import Lines, Section, View, meta_doc, num, pick, register, tokenizer_text
from .sim_data import money_line

# tools[] fields of `replay -f json`: a contract, like scan's and simulate's
REPLAY_FIELDS = (
    "tool", "calls", "replayed", "kept", "not_translated", "never_ran", "refused", "failed", "drifted", "checked",
    "tokens_before", "tokens_after",
    "tokens_saved", "saved_pct", "bytes_before", "bytes_after", "tokens_p50_before", "tokens_p50_after",
    "errors_before", "errors_after", "weighted_tokens_saved", "later_used",
)


def replay_row(row: ReplayRow) -> dict[str, Any]:
    """A ReplayRow with exactly the contract's fields, plus where the calls went."""
    doc = pick(row, REPLAY_FIELDS, {"saved_pct": 2})
    doc["as"] = list(row.as_tools)
    return doc


def _totals(row: ReplayRow) -> dict[str, Any]:
    doc = replay_row(row)
    for key in ("tool", "as"):
        del doc[key]
    doc.update(chars_before=row.chars_before, chars_after=row.chars_after,
               weighted_tokens_before=row.weighted_tokens_before,
               weighted_saved_pct=round(row.weighted_saved_pct, 2), unrecorded=row.unrecorded)
    return doc


def _menu(menu: Menu) -> dict[str, Any]:
    return {"mapping": menu.mapping, "tools": [{"name": t.name, "tokens": t.tokens} for t in menu.tools],
            "tokens_per_request": menu.tokens, "requests": menu.requests, "carried_tokens": menu.carried_tokens,
            "before_tokens_per_request": menu.before_tokens,
            "before_tools": [{"name": t.name, "tokens": t.tokens} for t in menu.before_tools]}


def replay_dict(result: ReplayResult) -> dict[str, Any]:
    """The JSON document of a replay (schema_version, meta, totals, tools[], menu[], reasons[]…)."""
    meta = result.meta
    return {
        "schema_version": meta.schema_version,
        "meta": meta_doc(meta, "replay", replay_spec=result.spec),
        "totals": _totals(result.totals),
        "tools": [replay_row(r) for r in result.tools],
        "menu": [_menu(m) for m in result.menus],
        "reasons": [{"status": s, "reason": r, "calls": n} for s, r, n in result.reasons],
        "new_errors": result.new_errors,
        "fixed_errors": result.fixed_errors,
        "error_changes": [e.__dict__ for e in result.error_changes],
        "files": result.files,
        "duplicates_dropped": result.duplicates_dropped,
        "skipped": {"count": result.skipped_count, "first": [str(s) for s in result.skipped]},
        "unrecognised": list(result.unrecognised),
        "errors": list(result.errors),
        "notes": list(result.notes),
        "before": result.before,
        **({"identity": identity_dict(result.identity, dict(result.uncertain_reproduced))}
           if result.identity is not None else {}),
        "drifted": [{"reason": r, "calls": n} for r, n in result.drift_reasons],
        **({"explain": [e.__dict__ for e in result.explained]} if result.explained else {}),
        **({"diffs": [d.__dict__ for d in result.diffs]} if result.diffs else {}),
        "not_replayed": [{"reason": r, "calls": n} for r, n in result.not_replayed],
        "newer_versions": [{"agent": a, "version": v, "emulated_as": e} for a, v, e in result.newer],
        **({"cost": result.dollars.as_dict()} if result.dollars is not None else {}),
    }


def _identity_row(row, uncertain: int) -> dict[str, Any]:
    return {"calls": row.calls, "replayed": row.replayed, "identical": row.identical, "order_only": row.order_only,
            "within_1pct": row.within_1pct, "uncertain_reproduced": uncertain,
            "reasons": [{"reason": r, "calls": n} for r, n in row.reasons]}


def identity_dict(report, uncertain: dict[str, int] | None = None) -> dict[str, Any]:
    """Fidelity: calls, replayed (in a known state), identical, within_1pct (and order_only) in all and per tool,
    with reasons; uncertain_reproduced: calls replayed in an uncertain state whose identity replay still matched the
    recording (the table counts them as replayed, the rate does not)."""
    uncertain = uncertain or {}
    return {**_identity_row(report.totals, sum(uncertain.values())),
            "tools": [{"tool": r.tool, **_identity_row(r, uncertain.get(r.tool, 0))} for r in report.tools]}


def _cells(r: ReplayRow) -> list[str]:
    went = f"{r.tool} → {','.join(r.as_tools)}" if r.as_tools and r.as_tools != (r.tool,) else r.tool
    return [went, num(r.calls), num(r.replayed), num(r.kept + r.not_translated + r.never_ran),
            num(r.refused + r.failed),
            num(r.tokens_before), num(r.tokens_after), f"{r.saved_pct:.1f}", num(r.bytes_before), num(r.bytes_after),
            f"{num(r.tokens_p50_before)} → {num(r.tokens_p50_after)}", f"{r.errors_before} → {r.errors_after}",
            num(r.weighted_tokens_saved), num(r.later_used)]


def _summary(result: ReplayResult) -> list[str]:
    t = result.totals
    lines = [
        f"replayed {t.replayed:,} of {t.calls:,} calls: tokens {t.tokens_before:,} → {t.tokens_after:,} "
        f"(saved {t.tokens_saved:,}, {t.saved_pct:.1f}%); bytes {t.bytes_before:,} → {t.bytes_after:,}; "
        f"context-weighted saved {t.weighted_tokens_saved:,} of {t.weighted_tokens_before:,} re-sent tokens "
        f"({t.weighted_saved_pct:.1f}%)",
        *([f"dollars: {money_line(result.dollars.as_dict(), 'the new tools')}"] if result.dollars else []),
        # the table's `kept` column, said the same way: every call whose recording stands, and why
        f"kept as recorded {t.kept + t.not_translated + t.never_ran:,} (no mapping {t.kept:,} · not translated "
        f"{t.not_translated:,} · never ran {t.never_ran:,}) · refused {t.refused:,} · failed {t.failed:,} · "
        f"errors {t.errors_before:,} → {t.errors_after:,} ({result.new_errors} new, {result.fixed_errors} fixed)",
    ]
    if t.later_used:
        lines.append(f"risk: later_used {t.later_used:,} (replayed outputs that lack something of the recorded one "
                     "the agent used later)")
    if t.unrecorded:
        kinds = [f"{result.from_calls_file:,} from a calls file" if result.from_calls_file else "",
                 f"{t.unrecorded - result.from_calls_file:,} whose result the transcript never recorded"
                 if t.unrecorded > result.from_calls_file else ""]
        lines.append(f"{t.unrecorded:,} calls had no recorded output ({', '.join(k for k in kinds if k)}): "
                     "their before counts 0")
    # drifted calls have a line of their own below, with their reasons
    others = [(why, n) for why, n in result.not_replayed if not (why == "drifted" and result.drift_reasons)]
    if others:
        lines.append("not replayed: " + " · ".join(f"{n:,} × {why}" for why, n in others))
    for agent, version, newest in result.newer:
        lines.append(f"note: {agent} {version} is newer than any version read: replayed with the newest emulation "
                     f"({newest})")
    lines += _identity_lines(result)
    for menu in result.menus:
        before = (f"{menu.before_tokens:,} → " if menu.before_tokens is not None else "")
        carried = (f"× {menu.requests:,} requests = {menu.carried_tokens:,} tokens" if menu.requests
                   else "(no model request recorded: nothing carried it)")
        lines.append(f"menu of {menu.mapping}: {len(menu.tools)} tools, {before}{menu.tokens:,} tokens per request "
                     + carried)
    by_status: dict[str, list[str]] = {}  # one line per status: its reasons, most calls first
    for status, reason, n in result.reasons[:8]:
        by_status.setdefault(status, []).append(f"{n:,} × {reason or '(no reason)'}")
    lines += [f"{status.replace('_', ' ')}: {' · '.join(parts)}" for status, parts in by_status.items()]
    for change in result.error_changes[:5]:
        lines.append(f"{'new' if change.new else 'fixed'} error: {change.tool} at {change.where}"
                     + (f" ({change.reason})" if change.reason else ""))
    lines += [f"note: {n}" for n in dict.fromkeys(result.notes)][:5]
    lines.append(f"files: {result.files} · duplicates dropped: {result.duplicates_dropped} · skipped lines: "
                 f"{result.skipped_count} · tokenizer: {tokenizer_text(result.meta)}")
    lines.append(_verdict(t, result.new_errors, result))
    return lines


def _identity_lines(result: ReplayResult) -> list[str]:
    """Fidelity of the agents' own tools re-run, what the variant was measured against, and the drifted calls."""
    lines = []
    report = result.identity
    if report is not None:
        t = report.totals
        rate = f"{t.rate:.1%}" if t.rate is not None else "n/a"
        per_tool = ", ".join(f"{r.tool} {r.within_1pct}/{r.replayed}" for r in report.tools if r.replayed)
        against = ", the variant's before" if result.before == "identity" and (result.spec or {}).get("tools") else ""
        lines.append(f"identity (the agents' own tools re-run now{against}): {t.replayed:,} of {t.calls:,} replayed in a known state, "
                     f"{t.identical:,} byte-identical, {t.order_only:,} reordered, {t.within_1pct:,} within ±1% "
                     f"tokens ({rate})" + (f" — {per_tool}" if per_tool else ""))
        if result.uncertain_reproduced:  # the table's replayed count holds them: said here, so the two agree
            n = sum(k for _, k in result.uncertain_reproduced)
            each = ", ".join(f"{tool} {k:,}" for tool, k in result.uncertain_reproduced)
            lines.append(f"  also replayed: {n:,} in an uncertain state whose identity replay still matched the "
                         f"recording (measured, outside the rate) — {each}")
        # said once: reordered calls are counted on the line above, drifted ones on their own line below
        shown = {ORDER_REASON} | ({r for r, _ in result.drift_reasons} if result.totals.drifted else set())
        rest = [(reason, n) for reason, n in t.reasons if reason not in shown]
        if rest:
            lines.append("  not identical: " + " · ".join(f"{n:,} × {reason}" for reason, n in rest[:5]))
    if result.before == "recorded" and report is not None:
        lines.append("before = the recording (--before recorded), not the identity replay")
    if result.totals.drifted:
        why = " · ".join(f"{n:,} × {reason}" for reason, n in result.drift_reasons[:5])
        lines.append(f"drifted: {result.totals.drifted:,} calls left out of the sizes and the saving ({why}; "
                     "--keep-drifted counts them)")
    return lines


def _diffs_section(result: ReplayResult) -> Section:
    """--diff's numbers, a row per call (#n names its diff below): a table, so a terminal never splits a number."""
    ids = ["tool", "recorded", "identity", "variant", "call", "session", "where"]
    rows = [[f"#{i} {d.tool}", num(d.tokens_recorded), num(d.tokens_identity) if d.tokens_identity is not None
             else "n/a", num(d.tokens_variant), d.call_id, d.session, d.where] for i, d in enumerate(result.diffs, 1)]
    return Section(["tool", "tokens recorded", "identity", "variant", "call", "session", "file:line"], rows,
                   title="Largest changes (texts redacted)", columns=ids, compact=tuple(ids),
                   shorten={4: 15, 5: 15, 6: 40})


def _diffs(result: ReplayResult) -> list[str]:
    out = []
    for i, d in enumerate(result.diffs, 1):
        out.append(f"#{i} {d.tool} {d.call_id} at {d.where}")
        out += [f"  {line}" for line in d.diff.splitlines()]
    return out


# what a user can do about the first reason nothing was replayed
ACTIONS = {
    "version": "name a version with ?version=",
    "not replayable": "these commands are not read-only or not emulated: replay the read-only tools",
    "unknown state": "a command before them may have changed what they read (the reasons above name it): replay "
                     "the calls before it, or name the state it left with --commit REV",
    "drifted": "the workspace is not the session's: check --workspace and --commit (or --at-session-start)",
    "never ran": "the agent answered them itself: nothing to replay",
    "no start commit": "pass --no-checkout to replay on the workspace as it is, or --commit REV",
    "path too long": "the recorded paths name no file a disk can hold",
    "refused": "see the reasons above (a path outside the workspace, an edit tool)",
    "failed": "see the reasons above",
}


def _why_none(result: ReplayResult) -> str:
    """The two commonest reasons no call was replayed, each with what to do: shell commands not replayable often
    stand beside read-only calls set aside for another reason, and that one is the reason a user can act on."""
    kinds = dict(result.not_replayed)
    if result.identity is not None:  # an identity run replays calls in an unknown state, then sets them aside
        uncertain = sum(n for why, n in result.identity.totals.reasons if why.startswith("uncertain"))
        kinds["unknown state"] = max(kinds.get("unknown state", 0), uncertain)
    top = sorted(((why, n) for why, n in kinds.items() if n), key=lambda kv: -kv[1])[:2]
    return "; ".join(f"{n:,} × {why} — {ACTIONS.get(why, 'see the reasons above')}" for why, n in top)


def _none_re_run(result: ReplayResult) -> str:
    """Why an identity replay re-ran no call in a known state, one clause per kind, the one a user can act on first:
    a session with no commit before it, the commonest cause of an unknown state (the command or the file, quoted),
    then the refusals (a path in another folder, a version), then the shell commands replay does not re-run, then
    the calls that never ran; each with its tools and what to do."""
    kinds: dict[str, Counter] = defaultdict(Counter)  # kind -> reason -> calls
    tools: dict[str, Counter] = defaultdict(Counter)  # kind -> tool -> calls
    for row in result.identity.tools:
        for why, n in row.reasons:
            kind = "unknown state" if why.startswith("uncertain") else "never ran" if why.startswith("never ran") \
                else reason_kind(why) or "refused"
            if kind != "no start commit":  # the session's own clause below, counted over every tool
                kinds[kind][why] += n
                tools[kind][row.tool] += n
    # refused before identity ran (the identity table of some versions leaves them out): the session's start state
    unstarted = dict(result.not_replayed).get("no start commit", 0)
    parts = [f"{unstarted:,} × no start commit — {ACTIONS['no start commit']}"] if unstarted else []
    for kind in ("unknown state", "version", "refused", "path too long", "not replayable", "never ran"):
        if not kinds[kind]:
            continue
        (why, n), = kinds[kind].most_common(1)
        each = ", ".join(f"{tool} {k:,}" for tool, k in tools[kind].most_common())
        commonest = "" if n == sum(kinds[kind].values()) else "the commonest "
        parts.append(f"{sum(kinds[kind].values()):,} × {kind} ({each}), {commonest}{_said(why)} — {_act(kind, why)}")
    return "; ".join(parts) or "see the reasons above"


_OUTSIDE = re.compile(r"path '(.+)' is outside the recorded working folder ")
_LACKED = "the clone lacks this file's content"  # replay.partial_checkout's reason
# Claude Code's per-project folder (auto memory, tool-results/ of large outputs) and its temporary folder
# (tasks/*.output of background commands, scratchpad/), on macOS, Linux or Windows
_AGENT_OWN = re.compile(r"[/\\]\.claude[/\\]projects[/\\]|/tmp/claude-\d+/")


def _said(why: str) -> str:
    """One reason in a verdict's words: a path outside the folder named, the whole folder (the state's `.`) said."""
    outside = _OUTSIDE.match(why)
    if outside:
        return f"a path outside the session's folder, {_middle(outside.group(1), 80)}"
    said = why.removeprefix("uncertain: ").removeprefix("not replayable: ").removeprefix("never ran: ")
    return _middle("the whole folder: " + said[3:] if said.startswith(".: ") else said, 160)


def _middle(text: str, width: int) -> str:
    """`text` cut in its middle to `width` characters, so that a quoted command keeps its start and its end."""
    return text if len(text) <= width else text[: width // 2 - 1] + "…" + text[-(width - width // 2):]


def _act(kind: str, why: str) -> str:
    """What a user can do about one reason no call was re-run."""
    if kind == "not replayable":
        return "replay re-runs only read-only commands in the workspace: nothing to compare for them"
    if kind == "never ran":
        return "the recording says they never ran: nothing to compare"
    if _LACKED in why:  # a partial clone or a snapshot without its largest files: the content exists upstream
        return "the clone lacks files the session read: fetch them (a clone without --filter) and replay again"
    if "before it began (work no commit holds)" in why or "a commit written after the session began adds it" in why:
        return ("work no commit held when the session began: replay it on a copy of that folder with --no-checkout, or "
                "name a commit that holds the work with --commit REV")
    if "git ignores it" in why:
        return "files only the recording machine had: replay on a folder that holds them with --no-checkout"
    if "outside the recorded working folder" in why or "outside the workspace" in why:
        if _AGENT_OWN.search(why):  # its memory, saved outputs, background task outputs: no copy to map onto
            return "Claude Code's own files on the recording machine, which no commit holds: nothing to compare"
        return "another folder than the session's: map it onto a copy with --path-map FROM=TO"
    if "it worked in another folder" in why:  # replay.nested_repo: no path of the repository's
        return "replay it with the repository it worked in as --workspace, or map its folder with --path-map FROM=TO"
    if "recorded git branch changed" in why:
        return "name the commit that branch was at with --commit REV"
    if kind == "unknown state":
        return "replay the calls before it, or name the state it left with --commit REV"
    if "REDACTED" in why:
        return "the recording hid part of the path: nothing to compare"
    if "not emulated" in why:
        return "replay does not emulate this form of the call: nothing to compare"
    return ACTIONS.get(kind, "see the reasons above")


def _verdict(t: ReplayRow, new_errors: int, result: ReplayResult) -> str:
    spec = result.spec or {}
    if spec.get("identity") and not spec.get("tools") and not spec.get("translate") and result.identity is not None:
        # --identity alone: no new tool, the question is whether the set-up reproduces the recording
        f = result.identity.totals
        also = sum(k for _, k in result.uncertain_reproduced)
        if not f.replayed:
            why = _none_re_run(result)
            if also:  # re-run, but in a state a command before them may have changed: no rate stands on them
                return (f"verdict: no call of a known agent tool could be re-run in a known state: {why} ({also:,} "
                        "of those in an unknown state, re-run anyway, matched the recording)")
            return f"verdict: no call of a known agent tool could be re-run: {why}"
        return (f"verdict: the agents' own tools, re-run now, reproduce {f.within_1pct:,} of {f.replayed:,} calls "
                f"replayed in a known state within ±1% tokens ({f.rate:.1%}; {f.identical:,} byte for byte"
                + (f"; {also:,} more in an uncertain state matched" if also else "") + "): "
                + ("a sound base for a variant" if f.rate >= 0.95 else "check the reasons above before a variant"))
    if not t.replayed:
        if result.not_replayed:
            return f"verdict: nothing was replayed: {_why_none(result)}"
        return "verdict: nothing was replayed; check the --tool mappings against the tools listed above"
    if t.unrecorded >= t.replayed:
        return (f"verdict: nothing recorded to compare with: the {t.replayed:,} replayed calls had no recorded output; "
                f"the new tools answered with {t.tokens_after:,} tokens in all")
    change = "smaller" if t.tokens_saved > 0 else "larger" if t.tokens_saved < 0 else "the same size"
    versus = ""
    if result.before == "identity" and result.identity is not None and result.identity.totals.replayed:
        versus = "; before = the agents' own tools re-run in the same state where emulated"
    aside = t.calls - t.replayed
    behind = (f"over {t.replayed:,} replayed calls, {t.checked:,} of them checked against the identity replay"
              + (f"; {aside:,} set aside, listed above" if aside else ""))
    verdict = (f"verdict: the new tools' outputs are {change} "
               f"({abs(t.saved_pct):.1f}% {'fewer' if t.tokens_saved >= 0 else 'more'} tokens {behind}{versus})")
    if new_errors:  # an error message is short: a saving made of errors is no saving
        verdict += (f", but {new_errors:,} replayed calls became errors: check --workspace (the repository "
                    "the sessions worked in) before trusting the saving")
    return verdict


def _explain_section(result: ReplayResult) -> Section:
    """--explain's numbers, a row per call (#n names it in the lines below)."""
    ids = ["tool", "before", "after", "bytes_before", "bytes_after", "status", "where"]
    rows = [[f"#{i} {e.tool} → {e.as_tool}", num(e.tokens_before), num(e.tokens_after),
             num(e.bytes_before), num(e.bytes_after), e.status, e.where] for i, e in enumerate(result.explained, 1)]
    return Section(["tool", "tokens before", "after", "bytes before", "after", "status", "file:line"], rows,
                   title="Replayed calls (previews redacted)", columns=ids, compact=tuple(ids), shorten={6: 40})


def _explain(result: ReplayResult) -> list[str]:
    out = []
    for i, e in enumerate(result.explained, 1):
        out.append(f"#{i} {e.tool} → {e.as_tool} at {e.where}" + (f" — {e.reason}" if e.reason else ""))
        if e.used_at:
            out.append(f"  the new output lacks something the agent used later, at {e.used_at}")
        out.append(f"  args: {e.args}")
        out.append(f"  before: {e.before}")
        out.append(f"  after:  {e.after}")
    return out


@register
class ReplayView(View):
    """`replay`: per recorded tool, how its calls fared and their sizes before → after."""

    kind = "replay"
    title = "toolaudit replay"

    def headline(self, result: ReplayResult) -> tuple[str, list[str]]:
        lines = _summary(result)
        first = [line for line in lines if line.startswith("verdict:")] + lines[:1]
        warned = [line for line in lines if line.startswith("risk:")]
        if result.new_errors:
            warned.insert(0, f"{result.new_errors:,} calls became errors")
        return ("warn" if warned else "info"), first + warned

    def doc(self, result: ReplayResult) -> dict:
        return replay_dict(result)

    def csv_rows(self, result: ReplayResult) -> list[dict]:
        cost = {f"tool_output_{k}": v for k, v in result.dollars.as_dict().items()
                if k in ("before_usd", "after_usd", "saved_usd")} if result.dollars else {}
        rows = [replay_row(r) for r in result.tools] + [{**replay_row(result.totals), "as": [], **cost}]
        return [{**{k: v for k, v in row.items() if k != "as"}, "as": ",".join(row["as"]),
                 "tokenizer": tokenizer_text(result.meta)} for row in rows]

    def blocks(self, result: ReplayResult) -> list:
        tok = "tokens" + (" (est.)" if result.meta.estimated else "")
        headers = ["tool", "calls", "replayed", "kept", "refused/failed", f"{tok} before", "after", "saved %",
                   "bytes before", "bytes after", "p50 before → after", "errors", "weighted saved", "later_used"]
        # on a terminal: the sizes, the saving and its risk first; counts of kept and refused calls, bytes and
        # medians when there is room (--wide: all)
        ids = ["tool", "calls", "replayed", "kept", "refused", "before", "after", "saved%", "bytes_before",
               "bytes_after", "p50", "errors", "weighted", "later_used"]
        compact = ("tool", "calls", "replayed", "before", "after", "saved%", "later_used", "weighted", "errors",
                   "kept", "refused")
        out: list = [Section(headers, [_cells(r) for r in result.tools], _cells(result.totals), columns=ids,
                             compact=compact, keep=("before", "saved%", "later_used")),  # size, saving, risk last
                     Lines(_summary(result))]
        if result.explained:
            out += [_explain_section(result), Lines(_explain(result), code=True)]
        if result.diffs:
            out += [_diffs_section(result), Lines(_diffs(result), code=True)]
        return out
