"""CSV report: one row per tool or group, then TOTAL (one row per value when sweeping)."""

from __future__ import annotations

import csv
import io
from typing import Any

from .base import Reporter, reporters
from .view import view_of


@reporters.register
class CsvReport(Reporter):
    """`-f csv`: the rows of the result's main table, for spreadsheets and plots."""

    key = "csv"
    description = "one row per tool or group, then TOTAL"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        rows = view_of(result).csv_rows(result)
        buf = io.StringIO()
        if rows:
            # every row's fields, first seen first (a TOTAL row may add some: a context policy's totals)
            writer = csv.DictWriter(buf, fieldnames=list(dict.fromkeys(k for row in rows for k in row)),
                                    lineterminator="\n")
            writer.writeheader()
            writer.writerows({k: inert(v) for k, v in row.items()} for row in rows)
        return buf.getvalue()


_FORMULA = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads a cell starting with as a formula


def inert(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula (a project folder named `=HYPERLINK(…)`) with a `'`
    before it, as OWASP advises; numbers, and text that reads as one (`-3`), unchanged."""
    if not isinstance(value, str) or not value.startswith(_FORMULA):
        return value
    try:
        float(value)
        return value
    except ValueError:
        return "'" + value
