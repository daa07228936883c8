"""The ci view: the verdict first, the failed checks, then tools baseline → now."""

from __future__ import annotations

import math
from typing import Any

from .. import __version__
from ..gate.checks import NOT_IN_BASELINE, TOO_FEW, GateResult, Outcome
from .html_verdict import dollars, signed
from .view import Lines, Section, View, register

SHOWN_TOOLS = 10
SHOWN_ERRORS = 5
ICON = {"pass": "✅", "fail": "❌", "not comparable": "⚠️", "nothing measured": "⚠️"}


def _tokens_field(doc: dict) -> str:
    return "tokens" if doc.get("meta", {}).get("command", "scan") == "scan" else "tokens_after"


def tool_changes(result: GateResult) -> list[dict[str, Any]]:
    """Per tool: baseline and current tokens and calls, largest current first, ties by name (new and vanished too)."""
    field = _tokens_field(result.baseline)
    base = {t["tool"]: t for t in result.baseline.get("tools", [])}
    now = {t["tool"]: t for t in result.current.get("tools", [])}
    rows = []
    for tool in sorted(set(base) | set(now), key=lambda t: (-(now.get(t, {}).get(field) or 0), t)):
        b, c = base.get(tool, {}).get(field, 0), now.get(tool, {}).get(field, 0)
        rows.append({"tool": tool, "baseline_tokens": b, "current_tokens": c, "change": c - b,
                     "change_pct": round(100.0 * (c - b) / b, 2) if b else None,
                     "baseline_calls": base.get(tool, {}).get("calls", 0), "current_calls": now.get(tool, {}).get("calls", 0)})
    return rows


def _arrow(change: float) -> str:
    return "↑" if change > 0 else "↓" if change < 0 else "="


def _cells(row: dict) -> list[str]:
    pct = row["change_pct"]
    return [row["tool"], f"{row['baseline_tokens']:,}", f"{row['current_tokens']:,}", f"{row['change']:+,}",
            ("new" if not row["baseline_tokens"] and row["current_tokens"] else "–") if pct is None else f"{pct:+.1f}%",
            _arrow(row["change"])]


HEADERS = ["tool", "baseline tokens", "now", "change", "%", ""]


def _outcome_dict(o: Outcome) -> dict[str, Any]:
    pct = o.change_pct
    return {"check": o.check, "scope": o.scope, "metric": o.metric, "baseline": o.baseline, "current": o.current,
            "change": o.change, "change_pct": None if pct is None or math.isinf(pct) else round(pct, 2),
            "limit": o.limit, "passed": o.passed, "status": o.status, "message": o.message()}


def check_counts(result: GateResult) -> str:
    """`1 of 4 checks passed (failed: tokens.total:+5%, *:tokens.max:+10% ×2; passed: *:tokens.max:+10%)`: the
    judged checks (one per scope), the failed and the passed apart; the one sentence every format shows."""
    judged = [o for o in result.outcomes if not o.skipped]
    skipped = len(result.outcomes) - len(judged)

    def named(passed: bool) -> str:
        counts: dict[str, int] = {}
        for o in judged:
            if o.passed == passed:
                counts[o.check] = counts.get(o.check, 0) + 1
        return ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in counts.items())

    parts = [f"failed: {named(False)}" if named(False) else "", f"passed: {named(True)}" if named(True) else ""]
    return (f"{sum(o.passed for o in judged)} of {len(judged)} checks passed"
            + (f", {skipped} not judged" if skipped else "") + f" ({'; '.join(p for p in parts if p)})")


def cost_line(result: GateResult) -> str | None:
    """The tool outputs' dollars now and in the baseline (estimated), or why there are none; None without a cost."""
    return None if result.cost is None else cost_text(result.cost.as_dict())


def cost_text(cost: dict) -> str:
    """A gate's `cost` (its JSON form) in words: now against the baseline, estimated; or why not priced."""
    if cost["current_usd"] is None:
        return f"dollars: not priced: {cost['why_not']}"
    line = f"tool outputs cost ≈ {dollars(cost['current_usd'])} now"
    if cost["baseline_usd"] is not None:
        line += f" against {dollars(cost['baseline_usd'])} in the baseline ({signed(cost['change_usd'])})"
    else:
        line += " (the baseline carries no dollars: write it again to keep them)"
    line += f"; estimated, {cost['prices']}"
    return line + (f"; {cost['unpriced_calls']:,} calls without a price" if cost["unpriced_calls"] else "")


def verdict_lines(result: GateResult) -> list[str]:
    """The verdict, then why: failed checks, or what made the comparison meaningless; then what was not judged."""
    lines = [f"{ICON[result.verdict]} toolaudit ci: {result.verdict.upper()} against {result.baseline_path}"]
    if result.not_comparable:
        lines.append(f"not comparable: {result.not_comparable}")
    if result.nothing_measured:
        lines.append(result.nothing_measured)
    errors = result.current.get("errors", [])
    lines += [f"could not read: {e}" for e in errors[:SHOWN_ERRORS]]
    if len(errors) > SHOWN_ERRORS:
        lines.append(f"could not read: {len(errors) - SHOWN_ERRORS} more (see -f json)")
    failed = [o for o in result.outcomes if not o.passed]
    lines += [f"failed: {o.message()}" for o in failed]
    lines += [f"not judged: {o.message()}" for o in result.outcomes if o.skipped == NOT_IN_BASELINE]
    few = sorted({o.scope for o in result.outcomes if o.skipped == TOO_FEW})
    if few:
        least = next(o.min_calls for o in result.outcomes if o.skipped == TOO_FEW)
        lines.append(f"too few calls to judge (fewer than {least}, --min-calls): {', '.join(few)}")
    if result.outcomes:
        lines.append(check_counts(result))
    money = cost_line(result)
    if money:
        lines.append(money)
    if result.new_tools:
        lines.append("new tools: " + ", ".join(result.new_tools))
    if result.vanished_tools:
        lines.append("vanished tools: " + ", ".join(result.vanished_tools))
    return lines


@register
class GateView(View):
    """`ci`: verdict, failed checks, the per-tool change table."""

    kind = "ci"
    title = "toolaudit ci"


    def headline(self, result: GateResult) -> tuple[str, list[str]]:
        lines = verdict_lines(result)
        first = lines[0].removeprefix(ICON[result.verdict]).strip()  # the HTML says it in words, not an emoji
        status = {"pass": "pass", "fail": "fail"}.get(result.verdict, "warn")
        return status, [first, *(line for line in lines[1:] if line.startswith(("failed:", "not comparable", "could not")))]
    def doc(self, result: GateResult) -> dict:
        return {
            "schema_version": result.baseline.get("schema_version"),
            "meta": {"tool": "toolaudit", "command": "ci", "version": __version__, "baseline": result.baseline_path,
                     "measured": result.current.get("meta", {}).get("command"),
                     "tokenizer": result.current.get("meta", {}).get("tokenizer")},
            "verdict": result.verdict,
            "not_comparable": result.not_comparable,
            "nothing_measured": result.nothing_measured,
            "checks": [_outcome_dict(o) for o in result.outcomes],
            "summary": {"passed": sum(o.passed for o in result.outcomes if not o.skipped),
                        "judged": sum(1 for o in result.outcomes if not o.skipped),
                        "not_judged": sum(1 for o in result.outcomes if o.skipped), "text": check_counts(result)},
            "tools": tool_changes(result),
            "new_tools": list(result.new_tools),
            "vanished_tools": list(result.vanished_tools),
            "errors": list(result.current.get("errors", [])),
            **({"cost": result.cost.as_dict()} if result.cost is not None else {}),
        }

    def csv_rows(self, result: GateResult) -> list[dict]:
        return [_outcome_dict(o) for o in result.outcomes]

    def blocks(self, result: GateResult) -> list:
        return [Lines(verdict_lines(result)), Section(HEADERS, [_cells(r) for r in tool_changes(result)])]

    def markdown(self, result: GateResult) -> str:
        from .markdown_report import md_table, md_text

        lines = [f"### {md_text(verdict_lines(result)[0])}", ""]
        lines += [f"- {md_text(line)}" for line in verdict_lines(result)[1:]] + [""]
        rows = [_cells(r) for r in tool_changes(result)]
        lines += md_table(HEADERS, rows[:SHOWN_TOOLS])
        if len(rows) > SHOWN_TOOLS:
            lines += ["", f"<details><summary>{len(rows) - SHOWN_TOOLS} more tools</summary>", ""]
            lines += md_table(HEADERS, rows[SHOWN_TOOLS:]) + ["", "</details>"]
        return "\n".join(lines) + "\n"
