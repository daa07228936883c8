"""Charts for the HTML report: Vega-Lite specs (Altair) built from a view's JSON document, as inline SVG.

Every chart reads only the numbers of `view.doc(result)` (never transcript content) and comes with
the same numbers as a table. Specs are rendered offline by vl-convert, which bundles the Vega
engine; the SVG needs no script to be seen. Tool names are data values, never field names, and
vl-convert escapes them in the SVG text (tests/test_html_report.py checks it). Every text of the document
reaches a chart through `charts_for`, as `visible` text: vl-convert aborts the process on a control
character or a noncharacter (U+FFFE) in a label (tests/test_names_are_data.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import altair as alt
import vl_convert

from .view import amount, visible

TOP = 12  # tools or tasks shown by name; the rest add up to one "others" row
STACKED = 8  # tools named in the stacked chart over time
MAX_BUCKETS = 62  # a span of more days than this: weeks, then months, so each bar is a few pixels wide at least
MIN_BAR = 7  # pixels per day, week or month of the time axis, at the least
WIDTH = 420
STEP = 16  # pixels per bar row
BEFORE_AFTER = ["before", "after"]
SIDES = ["A", "B"]
SHORT = "format(datum.value, '~s')"  # axis numbers as 16k, 1.2M: short labels never run into each other
LABELS = 220  # pixels of a tool name before it is cut with "…"
LEGEND = 170  # pixels of a legend's label: two columns fit under a chart
PADDING = {"left": 48, "right": 32, "top": 5, "bottom": 5}
# metric-compatible faces first, so text measured at render time fits where the browser draws it
FONT = "Arial, Helvetica, 'Liberation Sans', sans-serif"


@dataclass(frozen=True)
class Chart:
    """One chart: its title, Vega-Lite spec, and the numbers it draws as a captioned table."""

    title: str
    spec: dict
    caption: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


def svg(spec: dict) -> str:
    """The chart as an SVG document (vl-convert: offline, no script in the result, no data URL allowed)."""
    return vl_convert.vegalite_to_svg(spec, allowed_base_urls=[])


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}%"


def _spec(chart: alt.TopLevelMixin) -> dict:
    # room inside the SVG for labels a browser draws wider than vl-convert measured them (a machine without
    # Arial draws DejaVu Sans): the page scales the SVG to a phone's width, and what sticks out is cut off
    # legends under the plot, in two columns: beside it they widened each chart by a tool name, and a phone
    # shrinks the whole SVG to its width
    return (chart.configure(font=FONT, padding=PADDING).configure_view(stroke=None)
            .configure_axis(labelLimit=LABELS).configure_legend(labelLimit=LEGEND, orient="bottom", columns=2)
            .to_dict())


def _others(rows: list[dict], key: str, fields: tuple[str, ...], label: str = "tools") -> list[dict]:
    """The first TOP rows, and one `others (k tools)` row adding up each field of the rest."""
    if len(rows) <= TOP:
        return rows
    rest = rows[TOP:]
    summed = {f: sum(r.get(f) or 0 for r in rest) for f in fields}
    return rows[:TOP] + [{key: f"others ({len(rest)} {label})", **summed}]


def _bars(values: list[dict], x: str, y: str, title: str, **color: Any) -> alt.Chart:
    """Horizontal bars, rows in data order; `color`/`yOffset` group bars within a row when given."""
    enc: dict[str, Any] = {"x": alt.X(f"{x}:Q", title=title, axis=alt.Axis(labelExpr=SHORT)),
                           "y": alt.Y(f"{y}:N", sort=None, title=None),
                           "tooltip": [alt.Tooltip(f"{y}:N"), alt.Tooltip(f"{x}:Q", format=",")]}
    enc.update(color)
    return alt.Chart(alt.Data(values=values)).mark_bar().encode(**enc).properties(
        width=WIDTH, height=alt.Step(STEP))


def _paired(rows: list[dict], key: str, fields: tuple[str, str], labels: list[str], title: str) -> alt.Chart:
    """Two bars per row (before/after, A/B), grouped with yOffset; a missing value draws no bar."""
    values = [{key: r[key], "series": label, "tokens": r[f]} for r in rows
              for f, label in zip(fields, labels) if r.get(f) is not None]
    scale = alt.Scale(domain=labels, range=["#9ecae9", "#4c78a8"])
    return _bars(values, "tokens", key, title, color=alt.Color("series:N", scale=scale, sort=labels, title=None),
                 yOffset=alt.YOffset("series:N", sort=labels))


# --- scan ------------------------------------------------------------------------------------------

def tools_chart(doc: dict) -> Chart:
    """Tokens per tool: the largest TOP, then the rest as one bar."""
    rows = _others([{k: t[k] for k in ("tool", "calls", "tokens", "share")} for t in doc["tools"]],
                   "tool", ("calls", "tokens", "share"))
    spec = _spec(_bars(rows, "tokens", "tool", "tool-output tokens"))
    return Chart("Tokens per tool", spec, "Tool-output tokens per tool, largest first",
                 ("tool", "calls", "tokens", "share"),
                 tuple((r["tool"], amount(r["calls"]), amount(r["tokens"]), f"{r['share']:.1%}") for r in rows))


def groups_chart(doc: dict) -> Chart | None:
    """Tokens per `--by` group (family, model, session, agent, file, collector), largest first; None by tool
    or by a period (the time chart shows periods)."""
    by = doc["meta"].get("by", "tool")
    if by in ("tool", "day", "week", "month") or not doc.get("groups"):
        return None
    rows = _others([{by: str(g[by]), "calls": g["calls"], "tokens": g["tokens"], "share": g["share"]}
                    for g in doc["groups"]], by, ("calls", "tokens", "share"), label=f"{by}s")
    spec = _spec(_bars(rows, "tokens", by, "tool-output tokens"))
    return Chart(f"Tokens per {by}", spec, f"Tool-output tokens per {by}, largest first", (by, "calls", "tokens", "share"),
                 tuple((r[by], amount(r["calls"]), amount(r["tokens"]), f"{r['share']:.1%}") for r in rows))


def distribution_chart(doc: dict) -> Chart:
    """p50, p95 and max tokens per call of the largest tools (symlog scale: 0 stays on it)."""
    tools = doc["tools"][:TOP]
    stats = [("p50", "tokens_p50"), ("p95", "tokens_p95"), ("max", "tokens_max")]
    values = [{"tool": t["tool"], "stat": name, "tokens": t[f]} for t in tools for name, f in stats]
    names = [name for name, _ in stats]
    top = max((t["tokens_max"] for t in tools), default=0)
    ticks = [0] + [10 ** k for k in range(len(str(max(top, 1))))]  # 0, 1, 10, 100… up to the largest
    x = alt.X("tokens:Q", scale=alt.Scale(type="symlog"), title="tokens per call (symlog scale)",
              axis=alt.Axis(values=ticks, labelExpr="format(datum.value, ',')"))
    base = alt.Chart(alt.Data(values=values)).encode(y=alt.Y("tool:N", sort=None, title=None))
    spread = base.transform_filter(alt.datum.stat != "p95").mark_rule(color="#bbb").encode(
        x=alt.X("min(tokens):Q", scale=alt.Scale(type="symlog")), x2="max(tokens):Q")
    points = base.mark_point(filled=True, size=60).encode(
        x=x, color=alt.Color("stat:N", sort=names, scale=alt.Scale(domain=names), title=None),
        shape=alt.Shape("stat:N", sort=names, scale=alt.Scale(domain=names)),
        tooltip=["tool:N", "stat:N", alt.Tooltip("tokens:Q", format=",")])
    spec = _spec(alt.layer(spread, points).properties(width=WIDTH, height=alt.Step(STEP + 4)))
    return Chart("Tokens per call", spec, f"p50, p95 and max tokens per call of the {len(tools)} largest tools",
                 ("tool", "calls", "p50", "p95", "max"),
                 tuple((t["tool"], amount(t["calls"]), amount(t["tokens_p50"]), amount(t["tokens_p95"]), amount(t["tokens_max"]))
                       for t in tools))


def _units(first: str, last: str, unit: str) -> int:
    """How many days, weeks or months the dates `first` to `last` (ISO) span, both ends counted."""
    from datetime import date

    a, b = date.fromisoformat(first), date.fromisoformat(last)
    if unit == "month":
        return (b.year - a.year) * 12 + b.month - a.month + 1
    if unit == "week":  # Monday to Monday
        return ((b.toordinal() - b.weekday()) - (a.toordinal() - a.weekday())) // 7 + 1
    return (b - a).days + 1


def _bucket(days: list[str], by: str | None = None) -> tuple[str, Callable[[str], str]]:
    """Per day while the dates span at most MAX_BUCKETS days, then per ISO week (its Monday), then per month:
    the span counts, not the days with data (9 days over 14 months drew 1-px slivers). `--by week` or
    `--by month` asks for that unit."""
    from datetime import date, timedelta

    def week(day: str) -> str:
        d = date.fromisoformat(day)
        return (d - timedelta(days=d.weekday())).isoformat()

    if by in ("week", "month"):
        unit = by
    else:
        first, last = min(days), max(days)
        unit = next((u for u in ("day", "week") if _units(first, last, u) <= MAX_BUCKETS), "month")
    return unit, {"day": lambda day: day, "week": week, "month": lambda day: day[:7]}[unit]


def _bucket_end(start: str, unit: str) -> str:
    """The first day after the day, week (from its Monday) or month `start` (an ISO date, or YYYY-MM)."""
    from datetime import date, timedelta

    if unit == "month":
        year, month = int(start[:4]), int(start[5:7])
        return f"{year + month // 12}-{month % 12 + 1:02d}-01"
    return (date.fromisoformat(start) + timedelta(days=7 if unit == "week" else 1)).isoformat()


def time_chart(doc: dict) -> Chart | None:
    """Tokens per day (UTC; per week or month over a long span), stacked by tool; None without dated calls."""
    days = doc.get("days") or []
    if not days:
        return None
    totals: dict[str, int] = {}
    for d in days:
        totals[d["tool"]] = totals.get(d["tool"], 0) + d["tokens"]
    ranked = sorted(totals, key=lambda t: (-totals[t], t))
    named = ranked[:STACKED]
    other = f"others ({len(ranked) - STACKED} tools)" if len(ranked) > STACKED else None
    unit, bucket = _bucket([d["day"] for d in days], doc["meta"].get("by"))
    first, last = min(d["day"] for d in days), max(d["day"] for d in days)
    span = _units(first, last, unit)  # the axis's days, weeks or months, gaps included
    sums: dict[tuple[str, str], int] = {}
    for d in days:
        key = (bucket(d["day"]), d["tool"] if d["tool"] in named else other)
        sums[key] = sums.get(key, 0) + d["tokens"]
    groups = named + ([other] if other else [])
    buckets = sorted({b for b, _ in sums})
    # on a real date scale (UTC): each bar spans its day, week or month, and a span without data is a gap
    values = [{unit: b, "end": _bucket_end(b, unit), "tool": g, "tokens": sums[(b, g)], "rank": i}
              for b in buckets for i, g in enumerate(groups) if (b, g) in sums]
    chart = alt.Chart(alt.Data(values=values)).mark_bar().encode(
        x=alt.X(f"{unit}:T", scale=alt.Scale(type="utc"), axis=alt.Axis(format="%Y-%m-%d" if unit != "month" else "%Y-%m"),
                title=f"{unit} (UTC)" if unit == "day" else f"{unit} (UTC, from)"),
        x2="end:T",
        y=alt.Y("sum(tokens):Q", title="tool-output tokens", axis=alt.Axis(labelExpr=SHORT)),
        color=alt.Color("tool:N", sort=groups, scale=alt.Scale(domain=groups), title=None),
        order=alt.Order("rank:Q"),
        tooltip=[alt.Tooltip(f"{unit}:N"), "tool:N", alt.Tooltip("tokens:Q", format=",")],
    ).properties(width=max(WIDTH, MIN_BAR * span), height=220)
    rows = tuple((b, *(amount(sums.get((b, g), 0)) for g in groups), amount(sum(sums.get((b, g), 0) for g in groups)))
                 for b in buckets)
    note = (f"One bar per {unit} (UTC{', from Monday' if unit == 'week' else ''}): the dated calls run from {first} "
            f"to {last}, {_units(first, last, 'day'):,} days" + (f", {span:,} {unit}s" if unit != "day" else "") + ".")
    undated = doc["totals"]["tokens"] - sum(d["tokens"] for d in days)
    note += f" {undated:,} tokens of calls without a timestamp are not shown." if undated else ""
    return Chart(f"Tokens per {unit}", _spec(chart), f"Tool-output tokens per {unit} (UTC) and tool",
                 (unit, *groups, "all"), rows, note)


def bill_chart(doc: dict) -> Chart | None:
    """Billed input split into uncached, cache write and cache read, beside the tool outputs' share."""
    usage = doc.get("usage")
    if not usage or not usage.get("input_total"):
        return None
    total = usage["input_total"]
    parts = [("uncached", usage["input_uncached"]), ("cache write", usage["cache_write"]),
             ("cache read", usage["cache_read"])]
    values = [{"row": "billed input", "part": p, "tokens": v, "order": i} for i, (p, v) in enumerate(parts)]
    share = usage.get("tool_output_share")
    names = [p for p, _ in parts]
    if share is not None:
        values.append({"row": "tool outputs (est.)", "part": "tool outputs (est.)", "tokens": round(share * total),
                       "order": 3})
        names.append("tool outputs (est.)")
    chart = _bars(values, "tokens", "row", "input tokens",
                  color=alt.Color("part:N", sort=names, scale=alt.Scale(
                      domain=names, range=["#4c78a8", "#f58518", "#9ecae9", "#e45756"]), title=None),
                  order=alt.Order("order:Q")).properties(height=alt.Step(28))
    rows = [(p, amount(v), f"{v / total:.1%}") for p, v in parts]
    if share is not None:
        rows.append(("tool outputs (estimated)", amount(round(share * total)), f"{share:.1%}"))
    return Chart("The bill: billed input", _spec(chart),
                 f"Billed input tokens over {usage['requests']:,} requests, and the tool outputs' share",
                 ("part", "tokens", "of billed input"), tuple(rows),
                 "tool outputs: toolaudit's tokens of the outputs requests carried, against the provider's "
                 f"billed input of the same sessions ({usage.get('share_calls', 0):,} calls; an estimate)")


def scan_charts(doc: dict) -> list[Chart]:
    """Tokens per tool, per call, over time, and the bill."""
    if not doc["tools"]:
        return []
    found = [groups_chart(doc), tools_chart(doc), distribution_chart(doc), time_chart(doc), bill_chart(doc)]
    return [c for c in found if c is not None]


# --- simulate, replay --------------------------------------------------------------------------------

def before_after_chart(tools: list[dict], what: str) -> Chart:
    """Tokens before and after per tool (largest before first), the rest as one row."""
    rows = _others(list(tools), "tool", ("tokens_before", "tokens_after"))
    spec = _spec(_paired(rows, "tool", ("tokens_before", "tokens_after"), BEFORE_AFTER, "tool-output tokens"))
    table = tuple((r["tool"], amount(r["tokens_before"]), amount(r["tokens_after"]),
                   _pct(100.0 * (r["tokens_before"] - r["tokens_after"]) / r["tokens_before"]
                        if r["tokens_before"] else None)) for r in rows)
    return Chart("Before and after, per tool", spec, f"Tool-output tokens before and after {what}, per tool",
                 ("tool", "before", "after", "saved"), table)


def _number(value: Any) -> float | None:
    """A swept value as a number (the JSON holds them as written: "2000", "0.4"), or None for a word."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _two_axes(doc: dict, left: list[tuple[str, str]], left_title: str, right: list[tuple[str, str]],
              right_title: str, short: bool = False) -> dict:
    """A sweep's series against the swept value: `left` solid on the left axis, `right` dashed on the right one
    (each a list of (label, field of the sweep rows))."""
    sweep = doc["sweep"]
    name = doc["meta"]["sweep"]
    order = [str(v["value"]) for v in sweep]
    numeric = all(_number(v["value"]) is not None for v in sweep)
    # a numeric parameter on a quantitative axis: 2,000 and 20,000 spaced by value, not as equal steps
    x = alt.X("value:Q", title=name) if numeric else alt.X("value:O", sort=order, title=name)

    def layer(series, title, dash, colors):
        values = [{"value": _number(v["value"]) if numeric else str(v["value"]), "series": s, "y": v[f]}
                  for v in sweep for s, f in series]
        labels = [s for s, _ in series]
        axis = alt.Axis(labelExpr=SHORT) if short else alt.Axis()
        return alt.Chart(alt.Data(values=values)).mark_line(point=True, strokeDash=dash).encode(
            x=x, y=alt.Y("y:Q", title=title, axis=axis),
            color=alt.Color("series:N", sort=labels, scale=alt.Scale(domain=labels, range=colors), title=None),
            tooltip=[alt.Tooltip("value:Q" if numeric else "value:O", format="," if numeric else ""), "series:N",
                     alt.Tooltip("y:Q", format=",")])

    return _spec(alt.layer(layer(left, left_title, [1, 0], ["#4c78a8", "#9ecae9"]),
                           layer(right, right_title, [5, 3], ["#e45756", "#f58518"])
                           ).resolve_scale(y="independent", color="independent").properties(width=WIDTH, height=240))


def sweep_chart(doc: dict) -> Chart:
    """Saved % and weighted saved % against the swept value; later_used and errors_cut on a second axis."""
    sweep, name = doc["sweep"], doc["meta"]["sweep"]
    spec = _two_axes(doc, [("saved %", "saved_pct"), ("weighted saved %", "weighted_saved_pct")], "saved %",
                     [("later_used", "later_used"), ("errors_cut", "errors_cut")], "calls (later_used, errors_cut)")
    rows = tuple((str(v["value"]), _pct(v["saved_pct"]), _pct(v["weighted_saved_pct"]), amount(v["later_used"]),
                  amount(v["errors_cut"]), _pct(v["affected_pct"])) for v in sweep)
    return Chart(f"Sweep of {name}", spec, f"What each value of {name} saves, and what it risks",
                 (name, "saved %", "weighted saved %", "later_used", "errors_cut", "affected %"), rows,
                 "solid: tokens saved (left axis); dashed: cut calls that hid something used later or a "
                 "failure signal (right axis). The knee is where the dashed lines rise faster than the solid.")


def context_sweep_chart(doc: dict) -> Chart:
    """A context policy's sweep: net saving and refetch tokens against the value; refetched outputs and cache
    invalidations on a second axis; dollars before and after in the table."""
    sweep, name = doc["sweep"], doc["meta"]["sweep"]
    spec = _two_axes(doc, [("net saved", "net_tokens_saved"), ("refetch tokens", "refetch_tokens")], "tokens",
                     [("refetched", "refetched"), ("cache invalidations", "cache_invalidations")],
                     "outputs, requests", short=True)
    usd = lambda v: "n/a" if v is None else f"${v:,.2f}"  # noqa: E731
    rows = tuple((str(v["value"]), amount(v["net_tokens_saved"]), amount(v["refetch_tokens"]), amount(v["refetched"]),
                  amount(v["cache_invalidations"]), usd(v["cost_before_usd"]), usd(v["cost_after_usd"])) for v in sweep)
    return Chart(f"Sweep of {name}", spec, f"What each value of {name} saves net, and what it costs back",
                 (name, "net saved", "refetch tokens", "refetched", "cache invalidations", "cost before", "cost after"),
                 rows, "solid: tokens (left axis); dashed: refetched outputs and cache invalidations (right axis).")


def context_chart(context: dict) -> Chart:
    """A context policy's input by kind, before (recorded) and after."""
    kinds = (("uncached input", "uncached"), ("cache write 5m", "cache_write_5m"), ("cache write 1h", "cache_write_1h"),
             ("cache read", "cache_read"), ("output", "output"))
    rows = [{"kind": label, "before": context["input_before"][key], "after": context["input_after"][key]}
            for label, key in kinds]
    spec = _spec(_paired(rows, "kind", ("before", "after"), BEFORE_AFTER, "tokens (the provider's)"))
    return Chart("The bill by kind of input, before and after", spec,
                 f"Tokens by kind before (recorded) and after the context policy: {context['policy']}",
                 ("kind", "before", "after"), tuple((r["kind"], amount(r["before"]), amount(r["after"])) for r in rows))


def simulate_charts(doc: dict) -> list[Chart]:
    """A sweep's curve, or before/after per tool (and by kind of input, with a context policy)."""
    if doc["meta"].get("sweep"):
        if "." in doc["meta"]["sweep"] and "net_tokens_saved" in doc["sweep"][0]:
            return [context_sweep_chart(doc)]
        return [sweep_chart(doc)]
    found = [context_chart(doc["context"])] if doc.get("context") else []
    if doc["tools"] and any(t["tokens_saved"] for t in doc["tools"]) or not found:
        found += [before_after_chart(doc["tools"], "the policy")] if doc["tools"] else []
    return found


def menu_chart(doc: dict) -> Chart | None:
    """Definition tokens per tool of the recorded menu and the replayed one; None without a menu."""
    values = []
    for menu in doc.get("menu") or []:
        values += [{"tool": t["name"], "series": "recorded", "tokens": t["tokens"]} for t in menu["before_tools"]]
        values += [{"tool": t["name"], "series": "replayed", "tokens": t["tokens"]} for t in menu["tools"]]
    if not values:
        return None
    labels = ["recorded", "replayed"]
    chart = _bars(values, "tokens", "tool", "definition tokens per request",
                  color=alt.Color("series:N", sort=labels, scale=alt.Scale(domain=labels, range=["#9ecae9", "#4c78a8"]),
                                  title=None), yOffset=alt.YOffset("series:N", sort=labels))
    rows = tuple((v["series"], v["tool"], amount(v["tokens"])) for v in values)
    per = "; ".join(f"{m['mapping']}: {amount(m['before_tokens_per_request'])} → {amount(m['tokens_per_request'])} tokens "
                    f"per request × {m['requests']:,} requests" for m in doc["menu"])
    return Chart("Tool menu", _spec(chart), "Tool definition tokens per request, recorded and replayed",
                 ("menu", "tool", "tokens"), rows, per)


def replay_charts(doc: dict) -> list[Chart]:
    """Before/after per recorded tool, and the menu when an implementation offers one."""
    menu = menu_chart(doc)
    found = []
    if doc["tools"]:
        chart = before_after_chart(doc["tools"], "the replay")
        if menu is None:  # say why the menu chart is missing
            chart = replace(chart, note="No tool menu: only an MCP server lists its tools (tools/list); "
                                        "builtin, python and cmd implementations carry none.")
        found.append(chart)
    return found + ([menu] if menu else [])


# --- compare, ci -------------------------------------------------------------------------------------

def compare_charts(doc: dict) -> list[Chart]:
    """Per-task median output tokens per run, A against B (the TOP largest tasks)."""
    rows = []
    for task in doc["tasks"]:
        m = task["metrics"]["tokens"]
        rows.append({"task": task["task"], "a": m["a"] and m["a"]["median"], "b": m["b"] and m["b"]["median"],
                     "pct": m["pct_change"]})
    if not rows:
        return []
    rows.sort(key=lambda r: (-max(r["a"] or 0, r["b"] or 0), r["task"]))
    shown = rows[:TOP * 2]
    spec = _spec(_paired(shown, "task", ("a", "b"), SIDES, "median output tokens per run"))
    a, b = doc["sides"]["a"]["path"], doc["sides"]["b"]["path"]
    note = f"A = {a}; B = {b}" + (f"; the {len(shown)} largest of {len(rows)} tasks" if len(rows) > len(shown) else "")
    return [Chart("Per task: median output tokens, A against B", spec, "Median tool-output tokens per run, per task",
                  ("task", "A median", "B median", "change"),
                  tuple((r["task"], amount(r["a"]), amount(r["b"]), _pct(r["pct"])) for r in shown), note)]


FAILED = ("fail", "vanished")


def checks_chart(doc: dict) -> Chart | None:
    """Each check's change in percent, failed checks first; None without checks."""
    checks = sorted(doc["checks"], key=lambda c: (c["status"] not in FAILED, -abs(c["change_pct"] or 0)))
    if not checks:
        return None
    shown = checks[:TOP * 2]
    values = [{"check": f"{c['scope']} · {c['metric']}", "status": c["status"], "change": c["change_pct"]}
              for c in shown if c["change_pct"] is not None]
    palette = {"fail": "#e45756", "vanished": "#b279a2", "pass": "#54a24b"}
    statuses = [s for s in palette if any(v["status"] == s for v in values)] + sorted(
        {v["status"] for v in values} - set(palette))
    chart = _bars(values, "change", "check", "change against the baseline (%)",
                  color=alt.Color("status:N", sort=statuses, scale=alt.Scale(
                      domain=statuses, range=[palette.get(s, "#bab0ac") for s in statuses]), title=None))
    rows = tuple((c["status"], c["scope"], c["metric"], amount(c["baseline"]), amount(c["current"]), _pct(c["change_pct"]),
                  c["limit"]) for c in shown)
    summary = doc.get("summary") or {}
    note = summary.get("text") or f"{sum(c['status'] in FAILED for c in checks)} of {len(checks)} checks failed"
    note += f"; the first {len(shown)} shown (-f json lists all)" if len(checks) > len(shown) else ""
    return Chart("Checks, failed first", _spec(chart), "Each check: baseline, now, change and limit",
                 ("status", "scope", "metric", "baseline", "now", "change", "limit"), rows, note)


def ci_charts(doc: dict) -> list[Chart]:
    """The checks (failed first), then tokens per tool, baseline against now."""
    found = [checks_chart(doc)]
    if doc["tools"]:
        rows = _others(list(doc["tools"]), "tool", ("baseline_tokens", "current_tokens"))
        spec = _spec(_paired(rows, "tool", ("baseline_tokens", "current_tokens"), ["baseline", "now"],
                             "tool-output tokens"))
        found.append(Chart("Per tool: baseline against now", spec, "Tool-output tokens per tool, baseline and now",
                           ("tool", "baseline", "now"),
                           tuple((r["tool"], amount(r["baseline_tokens"]), amount(r["current_tokens"])) for r in rows)))
    return [c for c in found if c is not None]


CHARTS: dict[str, Callable[[dict], list[Chart]]] = {
    "scan": scan_charts, "simulate": simulate_charts, "replay": replay_charts, "compare": compare_charts,
    "ci": ci_charts,
}


def advise_charts(doc: dict) -> list[Chart]:
    """Each recommendation's sweep: net tokens saved per value, the chosen one marked, out-of-budget values apart."""
    found = []
    for i, rec in enumerate(doc["recommendations"], 1):
        curve = rec["curve"]
        if len(curve) < 2:
            continue
        order = [p["value"] for p in curve]
        values = [{"value": p["value"], "net": p["net_tokens_saved"], "risk %": None if p["risk"] is None else 100 * p["risk"],
                   "point": "chosen" if rec["policy"].endswith(p["value"]) or rec["policy"] == p["value"]
                   else ("in budget" if p["in_budget"] else "over budget")} for p in curve]
        base = alt.Chart(alt.Data(values=values)).encode(x=alt.X("value:O", sort=order, title="value"))
        line = base.mark_line(color="#9ecae9").encode(y=alt.Y("net:Q", title="net tokens saved", axis=alt.Axis(
            labelExpr=SHORT)))
        points = base.mark_point(filled=True, size=90).encode(
            y="net:Q", color=alt.Color("point:N", scale=alt.Scale(domain=["chosen", "in budget", "over budget"],
                                                                  range=["#1a7f37", "#4c78a8", "#e45756"]),
                                       title=None), tooltip=["value:O", alt.Tooltip("net:Q", format=","),
                                                             alt.Tooltip("risk %:Q", format=".1f"), "point:N"])
        spec = _spec(alt.layer(line, points).properties(width=WIDTH, height=180))
        name = ", ".join(rec["tools"]) or "the context"
        found.append(Chart(f"#{i} {rec['policy']} on {name}", spec, f"The sweep behind #{i}: net saving per value",
                           ("value", "net tokens saved", "risk", "point"),
                           tuple((v["value"], amount(v["net"]), "unknown" if v["risk %"] is None else f"{v['risk %']:.1f}%",
                                  v["point"]) for v in values)))
    return found


CHARTS["advise"] = advise_charts


def labelled(value: Any) -> Any:
    """A view's JSON document with every string in it (names, values, titles) as `visible` text."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {key: labelled(item) for key, item in value.items()}
    if isinstance(value, list):
        return [labelled(item) for item in value]
    return value


def charts_for(kind: str, doc: dict) -> list[Chart]:
    """The charts of a view's document: the one way names enter a chart, each made `visible` first."""
    return CHARTS[kind](labelled(doc))
