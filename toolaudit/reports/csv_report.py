"""CSV report: one row per group (scan) or tool (simulate), then TOTAL; one row per value when sweeping."""

from __future__ import annotations

import csv
import io
from typing import Any

from .base import Reporter, reporters
from .scan_data import row_dict
from .sim_data import sim_dict, sim_row


@reporters.register
class CsvReport(Reporter):
    """`-f csv`: the per-group rows and a TOTAL row, for spreadsheets."""

    key = "csv"
    description = "one row per group, then TOTAL"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        if getattr(result, "kind", "scan") == "simulate":
            rows = sim_dict(result)["sweep"] if result.sweep else (
                [sim_row(r) for r in result.variants[0].tools] + [sim_row(result.variants[0].totals)])
        else:
            key = result.meta.by
            rows = [row_dict(r, key) for r in result.rows] + [row_dict(result.totals, key)]
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buf.getvalue()
