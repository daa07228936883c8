"""Charts for the HTML report: Vega-Lite specs (Altair) built from a view's JSON document, as inline SVG.

Every chart reads only the numbers of `view.doc(result)` (never transcript content) and comes with
the same numbers as a table. Specs are rendered offline by vl-convert, which bundles the Vega
engine; the SVG needs no script to be seen. Tool names are data values, never field names, and
vl-convert escapes them in the SVG text (tests/test_html_report.py checks it). Every text of the document
reaches a chart through `charts_for`, as `visible` text: vl-convert aborts the process on a control
character or a noncharacter (U+FFFE) in a label (tests/test_names_are_data.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import altair as alt

from .chart_parts import BEFORE_AFTER, SHORT, SIDES, TOP, WIDTH, Chart, bars, others, paired, pct, spec_of, svg  # noqa: F401
from .charts_scan import scan_charts, time_chart  # noqa: F401 (time_chart: tests and the report read it here)
from .view import amount, visible

# the scan report's charts are in charts_scan, what they all share in chart_parts (svg: html_report reads it here)

# --- simulate, replay --------------------------------------------------------------------------------

def before_after_chart(tools: list[dict], what: str) -> Chart:
    """Tokens before and after per tool (largest before first), the rest as one row."""
    rows = others(list(tools), "tool", ("tokens_before", "tokens_after"))
    spec = spec_of(paired(rows, "tool", ("tokens_before", "tokens_after"), BEFORE_AFTER, "tool-output tokens"))
    table = tuple((r["tool"], amount(r["tokens_before"]), amount(r["tokens_after"]),
                   pct(100.0 * (r["tokens_before"] - r["tokens_after"]) / r["tokens_before"]
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

    return spec_of(alt.layer(layer(left, left_title, [1, 0], ["#4c78a8", "#9ecae9"]),
                           layer(right, right_title, [5, 3], ["#e45756", "#f58518"])
                           ).resolve_scale(y="independent", color="independent").properties(width=WIDTH, height=240))


def sweep_chart(doc: dict) -> Chart:
    """Saved % and weighted saved % against the swept value; later_used and errors_cut on a second axis."""
    sweep, name = doc["sweep"], doc["meta"]["sweep"]
    spec = _two_axes(doc, [("saved %", "saved_pct"), ("weighted saved %", "weighted_saved_pct")], "saved %",
                     [("later_used", "later_used"), ("errors_cut", "errors_cut")], "calls (later_used, errors_cut)")
    rows = tuple((str(v["value"]), pct(v["saved_pct"]), pct(v["weighted_saved_pct"]), amount(v["later_used"]),
                  amount(v["errors_cut"]), pct(v["affected_pct"])) for v in sweep)
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
    spec = spec_of(paired(rows, "kind", ("before", "after"), BEFORE_AFTER, "tokens (the provider's)"))
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
    chart = bars(values, "tokens", "tool", "definition tokens per request",
                  color=alt.Color("series:N", sort=labels, scale=alt.Scale(domain=labels, range=["#9ecae9", "#4c78a8"]),
                                  title=None), yOffset=alt.YOffset("series:N", sort=labels))
    rows = tuple((v["series"], v["tool"], amount(v["tokens"])) for v in values)
    per = "; ".join(f"{m['mapping']}: {amount(m['before_tokens_per_request'])} → {amount(m['tokens_per_request'])} tokens "
                    f"per request × {m['requests']:,} requests" for m in doc["menu"])
    return Chart("Tool menu", spec_of(chart), "Tool definition tokens per request, recorded and replayed",
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
    spec = spec_of(paired(shown, "task", ("a", "b"), SIDES, "median output tokens per run"))
    a, b = doc["sides"]["a"]["path"], doc["sides"]["b"]["path"]
    note = f"A = {a}; B = {b}" + (f"; the {len(shown)} largest of {len(rows)} tasks" if len(rows) > len(shown) else "")
    return [Chart("Per task: median output tokens, A against B", spec, "Median tool-output tokens per run, per task",
                  ("task", "A median", "B median", "change"),
                  tuple((r["task"], amount(r["a"]), amount(r["b"]), pct(r["pct"])) for r in shown), note)]


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
    chart = bars(values, "change", "check", "change against the baseline (%)",
                  color=alt.Color("status:N", sort=statuses, scale=alt.Scale(
                      domain=statuses, range=[palette.get(s, "#bab0ac") for s in statuses]), title=None))
    rows = tuple((c["status"], c["scope"], c["metric"], amount(c["baseline"]), amount(c["current"]), pct(c["change_pct"]),
                  c["limit"]) for c in shown)
    summary = doc.get("summary") or {}
    note = summary.get("text") or f"{sum(c['status'] in FAILED for c in checks)} of {len(checks)} checks failed"
    note += f"; the first {len(shown)} shown (-f json lists all)" if len(checks) > len(shown) else ""
    return Chart("Checks, failed first", spec_of(chart), "Each check: baseline, now, change and limit",
                 ("status", "scope", "metric", "baseline", "now", "change", "limit"), rows, note)


def ci_charts(doc: dict) -> list[Chart]:
    """The checks (failed first), then tokens per tool, baseline against now."""
    found = [checks_chart(doc)]
    if doc["tools"]:
        rows = others(list(doc["tools"]), "tool", ("baseline_tokens", "current_tokens"))
        spec = spec_of(paired(rows, "tool", ("baseline_tokens", "current_tokens"), ["baseline", "now"],
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
        spec = spec_of(alt.layer(line, points).properties(width=WIDTH, height=180))
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
