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
            writer.writerows(rows)
        return buf.getvalue()
