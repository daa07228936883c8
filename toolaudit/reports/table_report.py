"""Terminal table (rich): boxed and coloured on a terminal, plain aligned text when piped."""

from __future__ import annotations

import io
import shutil
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from .base import Reporter, reporters
from .view import Section, view_of


def _table(section: Section, color: bool) -> Table:
    footer = section.footer
    table = Table(box=box.SIMPLE_HEAD if color else None, show_footer=footer is not None,
                  header_style="bold" if color else "", pad_edge=False)
    for i, head in enumerate(section.headers):
        table.add_column(head, justify="left" if i == 0 else "right",
                         footer=footer[i] if footer else "", no_wrap=i == 0)
    for row in section.rows:
        table.add_row(*row)
    return table


@reporters.register
class TableReport(Reporter):
    """`-f table` (default): the result's tables and summary lines."""

    key = "table"
    description = "rich table on a terminal, plain text when piped"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        buf = io.StringIO()
        # on a terminal, its width; piped, wide enough that no number or file:line is cut
        console = Console(file=buf, force_terminal=color, no_color=not color,
                          width=width or (shutil.get_terminal_size((200, 24)).columns if color else 10_000),
                          highlight=False, emoji=False, markup=False)
        for i, block in enumerate(view_of(result).blocks(result)):
            if block.title or (i and isinstance(block, Section)):
                console.print()
            if block.title:
                console.print(block.title + ":", style="bold" if color else None)
            if isinstance(block, Section):
                console.print(_table(block, color))
            else:
                for line in block.lines:
                    console.print(line, soft_wrap=True)
        return buf.getvalue()
