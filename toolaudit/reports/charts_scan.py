"""The scan report's charts: tokens per tool and per group, the distribution per call, tokens over time, the bill."""

from __future__ import annotations

from typing import Callable

import altair as alt

from .chart_parts import MAX_BUCKETS, MIN_BAR, SHORT, STACKED, STEP, TOP, WIDTH, Chart, bars, others, spec_of
from .view import amount


def tools_chart(doc: dict) -> Chart:
    """Tokens per tool: the largest TOP, then the rest as one bar."""
    rows = others([{k: t[k] for k in ("tool", "calls", "tokens", "share")} for t in doc["tools"]],
                   "tool", ("calls", "tokens", "share"))
    spec = spec_of(bars(rows, "tokens", "tool", "tool-output tokens"))
    return Chart("Tokens per tool", spec, "Tool-output tokens per tool, largest first",
                 ("tool", "calls", "tokens", "share"),
                 tuple((r["tool"], amount(r["calls"]), amount(r["tokens"]), f"{r['share']:.1%}") for r in rows))


def groups_chart(doc: dict) -> Chart | None:
    """Tokens per `--by` group (family, model, session, agent, file, collector), largest first; None by tool
    or by a period (the time chart shows periods)."""
    by = doc["meta"].get("by", "tool")
    if by in ("tool", "day", "week", "month") or not doc.get("groups"):
        return None
    rows = others([{by: str(g[by]), "calls": g["calls"], "tokens": g["tokens"], "share": g["share"]}
                    for g in doc["groups"]], by, ("calls", "tokens", "share"), label=f"{by}s")
    spec = spec_of(bars(rows, "tokens", by, "tool-output tokens"))
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
    spec = spec_of(alt.layer(spread, points).properties(width=WIDTH, height=alt.Step(STEP + 4)))
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
    return Chart(f"Tokens per {unit}", spec_of(chart), f"Tool-output tokens per {unit} (UTC) and tool",
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
    chart = bars(values, "tokens", "row", "input tokens",
                  color=alt.Color("part:N", sort=names, scale=alt.Scale(
                      domain=names, range=["#4c78a8", "#f58518", "#9ecae9", "#e45756"]), title=None),
                  order=alt.Order("order:Q")).properties(height=alt.Step(28))
    rows = [(p, amount(v), f"{v / total:.1%}") for p, v in parts]
    if share is not None:
        rows.append(("tool outputs (estimated)", amount(round(share * total)), f"{share:.1%}"))
    return Chart("The bill: billed input", spec_of(chart),
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
