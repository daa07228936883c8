"""What every chart of the HTML report shares: the Chart record, its SVG, sizes, and the bar helpers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import altair as alt
import vl_convert

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


def pct(value: float | None) -> str:
    """A percentage to one decimal, `n/a` for None."""
    return "n/a" if value is None else f"{value:.1f}%"


def spec_of(chart: alt.TopLevelMixin) -> dict:
    """The chart's Vega-Lite spec with the report's font, padding, axes and legends."""
    # room inside the SVG for labels a browser draws wider than vl-convert measured them (a machine without
    # Arial draws DejaVu Sans): the page scales the SVG to a phone's width, and what sticks out is cut off
    # legends under the plot, in two columns: beside it they widened each chart by a tool name, and a phone
    # shrinks the whole SVG to its width
    return (chart.configure(font=FONT, padding=PADDING).configure_view(stroke=None)
            .configure_axis(labelLimit=LABELS).configure_legend(labelLimit=LEGEND, orient="bottom", columns=2)
            .to_dict())


def others(rows: list[dict], key: str, fields: tuple[str, ...], label: str = "tools") -> list[dict]:
    """The first TOP rows, and one `others (k tools)` row adding up each field of the rest."""
    if len(rows) <= TOP:
        return rows
    rest = rows[TOP:]
    summed = {f: sum(r.get(f) or 0 for r in rest) for f in fields}
    return rows[:TOP] + [{key: f"others ({len(rest)} {label})", **summed}]


def bars(values: list[dict], x: str, y: str, title: str, **color: Any) -> alt.Chart:
    """Horizontal bars, rows in data order; `color`/`yOffset` group bars within a row when given."""
    enc: dict[str, Any] = {"x": alt.X(f"{x}:Q", title=title, axis=alt.Axis(labelExpr=SHORT)),
                           "y": alt.Y(f"{y}:N", sort=None, title=None),
                           "tooltip": [alt.Tooltip(f"{y}:N"), alt.Tooltip(f"{x}:Q", format=",")]}
    enc.update(color)
    return alt.Chart(alt.Data(values=values)).mark_bar().encode(**enc).properties(
        width=WIDTH, height=alt.Step(STEP))


def paired(rows: list[dict], key: str, fields: tuple[str, str], labels: list[str], title: str) -> alt.Chart:
    """Two bars per row (before/after, A/B), grouped with yOffset; a missing value draws no bar."""
    values = [{key: r[key], "series": label, "tokens": r[f]} for r in rows
              for f, label in zip(fields, labels) if r.get(f) is not None]
    scale = alt.Scale(domain=labels, range=["#9ecae9", "#4c78a8"])
    return bars(values, "tokens", key, title, color=alt.Color("series:N", scale=scale, sort=labels, title=None),
                 yOffset=alt.YOffset("series:N", sort=labels))
