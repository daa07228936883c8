"""Markdown report: GitHub-flavoured tables and bullets, for PR comments and docs."""

from __future__ import annotations

from typing import Any

from .base import Reporter, reporters
from .view import Section, view_of


def md_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Lines of a Markdown table; `|` in cells is escaped."""
    esc = [[c.replace("|", "\\|") for c in row] for row in rows]
    align = ["---"] + ["---:"] * (len(headers) - 1)
    return ["| " + " | ".join(r) + " |" for r in [headers, align, *esc]]


def md_blocks(blocks: list) -> list[str]:
    """Markdown lines for a view's blocks: tables (totals in bold), bullets, code blocks."""
    lines: list[str] = []
    for block in blocks:
        if block.title:
            lines += [f"#### {block.title}", ""]
        if isinstance(block, Section):
            bold = [[f"**{c}**" if c else "" for c in block.footer]] if block.footer else []
            lines += md_table(block.headers, block.rows + bold)
        elif block.code:
            lines += ["```", *block.lines, "```"]
        else:
            lines += [f"- {line}" for line in block.lines]
        lines.append("")
    return lines


@reporters.register
class MarkdownReport(Reporter):
    """`-f markdown`: a title, then the result's tables and lines."""

    key = "markdown"
    description = "GitHub-flavoured Markdown (PR comments, docs)"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        view = view_of(result)
        own = view.markdown(result)
        if own is not None:
            return own
        return "\n".join([f"### {view.title}", "", *md_blocks(view.blocks(result))]).rstrip() + "\n"
