"""Terminal table (rich): boxed, coloured and fitted to the terminal's width there; plain aligned text when piped.

On a terminal a table whose view names its columns (Section.columns) shows its compact set
(scan: tool, calls, tokens, share, a bar of the share, p95, max), or `--wide` (every column
of the piped table) or `--columns a,b,c`; columns that do not fit are dropped, least
important first, and numbers are never cut: only the first column (a tool name) may be
shortened with `…`, when nothing else is left to drop. Piped, the full plain table is
printed as it always was (scripts read it), or the `--columns` asked for.
"""

from __future__ import annotations

import io
import re
import shutil
import textwrap
from dataclasses import dataclass, replace
from typing import Any

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from ..errors import UsageError
from .base import Reporter, reporters
from .view import Section, middle, view_of, visible_blocks

BAR = "bar"
BAR_WIDTH = 10
_EIGHTHS = " ▏▎▍▌▋▊▉"
NAME_CAP = 30  # a name is shortened to this before any column is dropped
MIN_NAME = 8  # a shortened first column keeps at least this many characters


@dataclass(frozen=True)
class Layout:
    """Which columns the terminal table shows: the compact set (default), `wide` (all), or `columns` by name."""

    wide: bool = False
    columns: tuple[str, ...] = ()

    @classmethod
    def parse(cls, wide: bool, columns: str | None, choices: tuple[str, ...]) -> Layout:
        """From `--wide` and `--columns a,b,c`; a UsageError naming the choices for an unknown column."""
        names = tuple(c.strip().lower() for c in (columns or "").split(",") if c.strip())
        unknown = [n for n in names if n not in choices]
        if unknown:
            raise UsageError(f"--columns: unknown column {unknown[0]!r}; choose from {', '.join(choices)}",
                             slug="unknown-column")
        if wide and names:
            raise UsageError("--wide shows every column and --columns chooses some: give one", slug="columns")
        return cls(wide, names)


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    """A bar of `width` cells filled to `fraction` (0 to 1), in eighths of a cell."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[part] if part else "")).ljust(width)


def _select(section: Section, names: list[str]) -> Section:
    """The section with only the named columns (the first is always kept), a bar column drawn where named."""
    ids = section.columns or []
    cells = []
    for name in names:
        if name == BAR:
            cells.append(("", [bar(f) for f in section.bar or []], ""))
        elif name in ids:
            i = ids.index(name)
            cells.append((section.headers[i], [row[i] for row in section.rows],
                          section.footer[i] if section.footer else ""))
    rows = [list(row) for row in zip(*(column for _, column, _ in cells))] if cells else []
    footer = [f for _, _, f in cells] if section.footer else None
    return replace(section, headers=[h for h, _, _ in cells], rows=rows, footer=footer,
                   columns=[n for n in names if n == BAR or n in ids])


def _chosen(section: Section, layout: Layout, fit: bool) -> list[str]:
    """The columns to show, the first column first."""
    ids = section.columns or []
    if layout.columns:
        names = list(layout.columns)
    elif fit and not layout.wide and section.compact:
        names = list(section.compact)
    else:
        names = list(ids)
    return [ids[0]] + [n for n in names if n != ids[0]]


def _drop_order(section: Section, names: list[str]) -> list[str]:
    """Which shown columns go first when the table is too wide: those outside the compact set (right to
    left), then the bar, then the compact ones right to left, those the section keeps last; never the first."""
    outside = [n for n in reversed(names[1:]) if n not in section.compact]
    if section.drop:  # the section's own order (scan --by session: a session's project and tokens go last)
        return outside + [n for n in section.drop if n in names[1:]]
    inside = [n for n in reversed(names[1:]) if n in section.compact and n != BAR]
    inside = [n for n in inside if n not in section.keep] + [n for n in inside if n in section.keep]
    return outside + ([BAR] if BAR in names else []) + inside


def _table(section: Section, color: bool, name_width: int | None = None) -> Table:
    footer = section.footer
    table = Table(box=box.SIMPLE_HEAD if color else None, show_footer=footer is not None,
                  header_style="bold" if color else "", pad_edge=False, show_edge=not color,
                  collapse_padding=color)  # coloured: two spaces between columns, as piped
    for i, head in enumerate(section.headers):
        first = i == 0
        # numbers fold rather than end in `…`: a cut number reads as a different number
        name = (section.columns or [""])[i:i + 1]
        words = first or name == [BAR] or (bool(name) and name[0] in section.left)
        table.add_column(head, justify="left" if words else "right",
                         footer=footer[i] if footer else "", no_wrap=first or section.columns is not None,
                         overflow="ellipsis" if first else "fold", width=name_width if first else None)
    for row in section.rows:
        table.add_row(*row)
    return table


def column_groups(section: Section, console: Console, color: bool, names: list[str]) -> list[list[str]]:
    """`names` (the first column first) as groups that each fit the terminal beside the first column, in
    order: `--wide` on a narrow terminal prints one table per group rather than rows the terminal wraps."""
    first, groups, group = names[0], [], []
    for name in names[1:]:
        trial = [first, *group, name]
        if group and _natural(console, _table(_select(section, trial), color)) > console.width:
            groups.append([first, *group])
            group = []
        group.append(name)
    return groups + ([[first, *group]] if group or not groups else [])


def _natural(console: Console, table: Table) -> int:
    """The width a table takes when nothing limits it."""
    return Measurement.get(console, console.options.update_width(10_000), table).maximum


def fitted(section: Section, console: Console, color: bool, layout: Layout) -> tuple[Table, int, list[str]]:
    """The section's table, the width to print it at, on a terminal, and the headers of the columns it dropped.

    The compact set drops its least important columns until the table fits (keeping the first
    and one number), then shortens the first column. --wide and --columns drop nothing. What
    still does not fit is printed at its own width: the terminal wraps the line, no number is cut.
    """
    names = _chosen(section, layout, fit=True)
    chosen = list(names)
    table = _table(_select(section, names), color)
    natural = _natural(console, table)
    if natural > console.width and not (layout.wide or layout.columns):
        # a long name (a 40-char MCP tool) loses its middle before a column the table promises is dropped
        section = replace(section, rows=[[middle(row[0], NAME_CAP), *row[1:]] for row in section.rows])
        table = _table(_select(section, names), color)
        natural = _natural(console, table)
    while natural > console.width and len(names) > 2 and not (layout.wide or layout.columns):
        names.remove(_drop_order(section, names)[0])
        table = _table(_select(section, names), color)
        natural = _natural(console, table)
    ids = section.columns or []
    dropped = [section.headers[ids.index(n)] if n in ids else "the share bar" for n in chosen
               if n not in names and (n in ids or n == BAR)]
    if natural <= console.width or layout.wide or layout.columns:  # asked for: all of it, at its own width
        return table, max(console.width, natural), dropped
    shown = _select(section, names)
    widest = max([len(r[0]) for r in shown.rows] + [len(shown.headers[0])] + ([len(shown.footer[0])] if shown.footer else []))
    name_width = max(MIN_NAME, widest - (natural - console.width))
    if name_width < widest:  # long names lose their middle (mcp__server__tool keeps server and tool apart)
        shown = replace(shown, rows=[[middle(row[0], name_width), *row[1:]] for row in shown.rows])
        table = _table(shown, color, name_width)
        natural = _natural(console, table)
    return table, max(console.width, natural), dropped


@reporters.register
class TableReport(Reporter):
    """`-f table` (default): the result's tables and summary lines."""

    key = "table"
    description = "rich table fitted to a terminal, the full plain table when piped"

    def render(self, result: Any, *, color: bool = False, width: int | None = None,
               layout: Layout | None = None) -> str:
        buf = io.StringIO()
        layout = layout or Layout()
        # a terminal (color, or a width given): its width; piped, wide enough that no number or file:line is cut
        fit = color or width is not None
        console = Console(file=buf, force_terminal=color, no_color=not color,
                          width=width or (shutil.get_terminal_size((200, 24)).columns if color else 10_000),
                          highlight=False, emoji=False, markup=False)
        for i, block in enumerate(visible_blocks(view_of(result).blocks(result))):
            if block.title or (i and isinstance(block, Section)):
                console.print()
            if block.title:
                console.print(block.title + ":", style="bold" if color else None)
            if isinstance(block, Section):
                if fit and block.ids:  # a session's id by its first characters: its project names it
                    from ..scan.sessions import short_id

                    block = replace(block, rows=[[short_id(cell) if i in block.ids else cell for i, cell in enumerate(row)]
                                                 for row in block.rows])
                if fit and block.shorten:
                    block = replace(block, rows=[[middle(cell, block.shorten[i]) if i in block.shorten else cell
                                                  for i, cell in enumerate(row)] for row in block.rows])
                if fit and block.columns is None:  # every table fits: columns drop from the right, no number folds
                    ids = [f"column {i}" for i in range(len(block.headers))]
                    block = replace(block, columns=ids, compact=tuple(ids))
                if block.columns is None:
                    console.print(_table(block, color))
                elif fit:
                    table, at, dropped = fitted(block, console, color, layout)
                    if at > console.width:  # --wide or --columns past the terminal: one table per columns group
                        names = _chosen(block, layout, fit=True)
                        for n, group in enumerate(column_groups(block, console, color, names)):
                            if n:
                                console.print()
                            console.print(_table(_select(block, group), color))
                    else:
                        console.print(table)
                    if dropped:
                        console.print(f"(not shown: {', '.join(dropped)}; --wide shows all)",
                                      style="dim" if color else None)
                else:
                    console.print(_table(_select(block, _chosen(block, layout, fit=False)), color))
            else:
                for line in block.lines:
                    # on a terminal a long line wraps between words (the terminal itself would cut a number
                    # in two), a path longer than the terminal after one of its `/`; piped, one line stays one line
                    for part in folded(line, console.width) if fit else [line]:
                        console.print(part, soft_wrap=not fit, overflow="fold")
        return buf.getvalue()


class _AtSlashes(textwrap.TextWrapper):
    """Wraps between words, and a word longer than a line (a path) after one of its `/`s rather than mid-name."""

    def _split(self, text: str) -> list[str]:
        chunks: list[str] = []
        for chunk in re.split(r"(\s+)", text):
            if len(chunk) > self.width and "/" in chunk:
                chunks += re.findall(r"[^/]*/|[^/]+", chunk)  # each piece ends at a `/`; joined, no space between
            elif chunk:
                chunks.append(chunk)
        return chunks


def folded(line: str, width: int) -> list[str]:
    """`line` in lines of at most `width` characters for a terminal: itself when each of its words fits (rich wraps
    it between words), else wrapped here, a word longer than the width (a path in a reason) after its `/`s: rich
    would cut it mid-name (`…/20260731090000_out` / `fits_styled_item.sql`)."""
    if width < 2 or all(len(word) <= width for word in line.split()):
        return [line]
    return _AtSlashes(width, break_on_hyphens=False).wrap(line) or [line]
