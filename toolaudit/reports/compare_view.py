"""The compare view: A against B, medians per run overall, per task and per tool."""

from __future__ import annotations

import math
from typing import Any

from ..compare.engine import METRICS, USD, CompareCost, CompareResult, Delta, Row, SideSummary, Stat
from .view import Lines, Section, View, amount, meta_doc, register, tokenizer_text

LABELS = {"tokens": "output tokens", "bytes": "output bytes", "calls": "calls", "billed_input": "billed input"}
CSV_FIELDS = ("scope", "key", "metric", "a_n", "a_median", "a_min", "a_max", "b_n", "b_median", "b_min",
              "b_max", "change", "pct_change")


def _value(v: float | None) -> int | float | None:
    """A JSON number: an int when whole (most medians are), else rounded to 2 places."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return int(v) if float(v).is_integer() else round(v, 2)


def stat_dict(s: Stat | None) -> dict[str, Any] | None:
    """{median, min, max, n}, or None when the side has no value."""
    return None if s is None else {"median": _value(s.median), "min": _value(s.min), "max": _value(s.max), "n": s.n}


def delta_dict(d: Delta) -> dict[str, Any]:
    """{a, b, change, pct_change} of one metric."""
    return {"a": stat_dict(d.a), "b": stat_dict(d.b), "change": _value(d.change),
            "pct_change": None if d.pct is None else round(d.pct, 2)}


def row_dict(row: Row, key_name: str) -> dict[str, Any]:
    """A Row: its key, then one {a, b, change, pct_change} per metric."""
    doc: dict[str, Any] = {key_name: row.key} if key_name else {}
    doc["metrics"] = {d.metric: delta_dict(d) for d in row.deltas}
    return doc


def side_dict(side: SideSummary) -> dict[str, Any]:
    """What one side held: path, input kind, runs, tasks, runs with usage, files, skipped lines."""
    return {"path": side.label, "input": "records" if side.records else "transcripts", "runs": side.runs,
            "tasks": side.tasks, "runs_with_usage": side.usage_runs, "files": side.files,
            "skipped_lines": side.skipped}


def compare_dict(result: CompareResult) -> dict[str, Any]:
    """The JSON document of a comparison (schema_version, meta, sides, overall, by_task, tasks, tools, runs).

    `runs[]`: side, task, run (the session), file (the run's main transcript below A or B;
    with the session it tells apart runs that share a session id), then the METRICS.
    """
    meta = result.meta
    return {
        "schema_version": meta.schema_version,
        "meta": meta_doc(meta, "compare", group_by=result.group_by,
                         median="middle value; mean of the two middle values for an even n"),
        "sides": {"a": side_dict(result.a), "b": side_dict(result.b)},
        "overall": row_dict(result.overall, ""),
        "by_task": row_dict(result.by_task, ""),
        "tasks": [row_dict(r, "task") for r in result.tasks],
        "tools": [row_dict(r, "tool") for r in result.tools],
        "runs": [{k: _value(v) if k in METRICS else _usd(v) if k == USD else v for k, v in rec.items()}
                 for rec in result.runs.to_dict("records")],
        **({"cost": cost_dict(result.cost)} if result.cost is not None else {}),
    }


def _usd(v: float | None) -> float | None:
    return None if v is None or math.isnan(v) else round(v, 8)


def cost_dict(cost: CompareCost) -> dict[str, Any]:
    """`cost`: each side's tool-output dollars (estimated), the median per run A → B, and why a side has none."""
    run = cost.per_run
    stat = lambda s: None if s is None else {"median": _usd(s.median), "min": _usd(s.min), "max": _usd(s.max),  # noqa: E731
                                             "n": s.n}
    return {"prices": cost.prices, "currency": "USD", "estimated": True, "a_usd": _usd(cost.a_usd),
            "b_usd": _usd(cost.b_usd), "a_unpriced_calls": cost.a_unpriced_calls,
            "b_unpriced_calls": cost.b_unpriced_calls,
            "per_run": {"a": stat(run.a), "b": stat(run.b), "change": _usd(run.change),
                        "pct_change": None if run.pct is None else round(run.pct, 2)},
            "unknown_models": list(cost.unknown_models), "why_not": cost.why_not}


def _change(v: float | None) -> str:
    return "n/a" if v is None else ("+" if v > 0 else "") + amount(v)


def _pct(d: Delta) -> str:
    """`↑ 12.5%`, `↓ 40.0%`, `=`; `↑ from 0` when A is 0; n/a without both medians."""
    if d.change is None:
        return "n/a"
    if d.pct is None:
        return "=" if d.change == 0 else "↑ from 0"
    arrow = "↑" if d.pct > 0 else "↓" if d.pct < 0 else "="
    return f"{arrow} {abs(d.pct):.1f}%"


def _range(s: Stat | None) -> str:
    return "" if s is None else f"{amount(s.min)}–{amount(s.max)}"


HEADERS = ["metric", "n A", "n B", "A median", "B median", "change", "% change", "A min–max", "B min–max"]


def _cells(d: Delta, estimated: bool) -> list[str]:
    label = LABELS[d.metric] + (" (est.)" if estimated and d.metric == "tokens" else "")
    return [label, str(d.a.n if d.a else 0), str(d.b.n if d.b else 0), amount(d.a and d.a.median),
            amount(d.b and d.b.median), _change(d.change), _pct(d), _range(d.a), _range(d.b)]


def _shown(row: Row, billed: bool) -> list[Delta]:
    """The row's metrics, without billed input when neither side has usage."""
    return [d for d in row.deltas if billed or d.metric != "billed_input"]


def _keyed(rows: tuple[Row, ...], name: str, estimated: bool, billed: bool, title: str) -> Section:
    """One line per metric of each row; the key only on its first line."""
    lines = []
    for row in rows:
        for i, d in enumerate(_shown(row, billed)):
            lines.append([row.key if i == 0 else "", *_cells(d, estimated)])
    return Section([name, *HEADERS], lines, title=title)


def notes(result: CompareResult) -> list[str]:
    """Which paths are A and B, how runs were grouped, and what is unknown."""
    out = []
    for tag, side in (("A", result.a), ("B", result.b)):
        kind = ("records file: tokens as its scan counted them; no usage" if side.records
                else f"{side.files} file{'s' if side.files != 1 else ''}")
        out.append(f"{tag} = {side.label} ({kind}) · runs: {side.runs} · tasks: {side.tasks} · "
                   f"runs with billed usage: {side.usage_runs} · skipped lines: {side.skipped}")
    grouping = ("one task (all runs)" if result.group_by == "0" else
                f"task = path component {result.group_by} of each run's main file below its root"
                if result.group_by.isdigit() else
                f"task = {result.group_by[3:]!r} matched in each run's main file's path below its root")
    out.append(f"grouped by {result.group_by}: {grouping}; a run is one session of one transcript "
               f"(its subagent files included)")
    runs = result.runs
    shared = runs[runs.duplicated(["side", "task", "run"], keep=False)]["side"].value_counts()
    if len(shared):  # one task instance run in several folders: the files tell the runs apart
        counts = ", ".join(f"{tag} {int(shared.get(side, 0))}" for tag, side in (("A", "a"), ("B", "b")))
        out.append(f"runs that share a session id within a task, told apart by their files: {counts}")
    only = {tag: [r.key for r in result.tasks if getattr(r.deltas[0], side) is None]
            for tag, side in (("A", "b"), ("B", "a"))}
    for tag, keys in only.items():
        if keys:
            more = f" … {len(keys) - 10} more" if len(keys) > 10 else ""
            out.append(f"only in {tag}: {', '.join(keys[:10])}{more}")
    t = result.by_task.metric("tokens")
    if t.a is not None and t.b is not None:
        tasks = f"{t.a.n} task{'s' if t.a.n != 1 else ''}"
        out.append(f"median of per-task medians ({tasks} on both sides): output tokens "
                   f"{amount(t.a.median)} → {amount(t.b.median)} ({_pct(t)})")
    if result.cost is not None:
        from .html_verdict import compare_money

        line = compare_money({"cost": cost_dict(result.cost)})
        out.append(line if line.startswith("dollars") else f"dollars: {line}")
    out.append(f"median per run: the middle value, the mean of the two middle ones for an even n · "
               f"tokenizer: {tokenizer_text(result.meta)}")
    return out


@register
class CompareView(View):
    """`compare`: the headline medians, then per task and per tool, then notes."""

    kind = "compare"
    title = "toolaudit compare"


    def headline(self, result: CompareResult) -> tuple[str, list[str]] | None:
        both = [r for r in result.tasks if all(getattr(r.deltas[0], side) is not None for side in ("a", "b"))]
        if result.tasks and not both:
            return "warn", ["no task is on both sides: the per-task medians compare nothing (see the notes)"]
        return None
    def doc(self, result: CompareResult) -> dict:
        return compare_dict(result)

    def csv_rows(self, result: CompareResult) -> list[dict]:
        rows = []
        scoped = [("overall", result.overall), ("by_task", result.by_task)]
        scoped += [("task", r) for r in result.tasks] + [("tool", r) for r in result.tools]
        for scope, row in scoped:
            for d in row.deltas:
                a, b = stat_dict(d.a) or {}, stat_dict(d.b) or {}
                rows.append(dict(zip(CSV_FIELDS, (
                    scope, row.key if scope in ("task", "tool") else "", d.metric,
                    a.get("n", 0), a.get("median"), a.get("min"), a.get("max"),
                    b.get("n", 0), b.get("median"), b.get("min"), b.get("max"),
                    _value(d.change), None if d.pct is None else round(d.pct, 2)))))
        if result.cost is not None:  # each side's tool-output dollars per run (estimated)
            run = cost_dict(result.cost)["per_run"]
            a, b = run["a"] or {}, run["b"] or {}
            rows.append(dict(zip(CSV_FIELDS, (
                "overall", "", USD, a.get("n", 0), a.get("median"), a.get("min"), a.get("max"), b.get("n", 0),
                b.get("median"), b.get("min"), b.get("max"), run["change"], run["pct_change"]))))
        return rows

    def blocks(self, result: CompareResult) -> list:
        est = result.meta.estimated
        billed = bool(result.a.usage_runs or result.b.usage_runs)
        headline = Section(["all runs", *HEADERS[1:]], [_cells(d, est) for d in _shown(result.overall, billed)])
        out = [headline, _keyed(result.tasks, "task", est, billed, "Per task (median per run)")]
        if result.tools:
            out.append(_keyed(result.tools, "tool", est, False,
                              "Per tool (median per run, over the runs that called it)"))
        return out + [Lines(notes(result))]
