"""Terminal table (rich): boxed and coloured on a terminal, plain aligned text when piped."""

from __future__ import annotations

import io
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from .base import Reporter, reporters
from .scan_data import billing_cells, summary_lines, table_cells, top_cells
from .sim_data import explain_lines, sim_cells, sim_summary_lines


def _table(headers: list[str], rows: list[list[str]], color: bool, footer: list[str] | None = None) -> Table:
    table = Table(box=box.SIMPLE_HEAD if color else None, show_footer=footer is not None,
                  header_style="bold" if color else "", pad_edge=False)
    for i, head in enumerate(headers):
        table.add_column(head, justify="left" if i == 0 else "right",
                         footer=footer[i] if footer else "", no_wrap=i == 0)
    for row in rows:
        table.add_row(*row)
    return table


@reporters.register
class TableReport(Reporter):
    """`-f table` (default): a row per tool sorted by tokens, a totals row, a summary."""

    key = "table"
    description = "rich table on a terminal, plain text when piped"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        buf = io.StringIO()
        console = Console(file=buf, force_terminal=color, no_color=not color, width=width or 200,
                          highlight=False, emoji=False, markup=False)
        simulate = getattr(result, "kind", "scan") == "simulate"
        headers, rows, totals = sim_cells(result) if simulate else table_cells(result)
        console.print(_table(headers, rows, color, footer=totals))
        for line in sim_summary_lines(result) if simulate else summary_lines(result):
            console.print(line, soft_wrap=True)
        if simulate and result.explained:
            console.print()
            for line in explain_lines(result):
                console.print(line, soft_wrap=True)
        billing = None if simulate else billing_cells(result)
        if billing is not None:
            console.print()
            console.print(_table(*billing, color))
        if not simulate and result.top:
            console.print()
            console.print(_table(*top_cells(result), color))
        return buf.getvalue()
