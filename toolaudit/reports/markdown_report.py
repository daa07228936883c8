"""Markdown report: GitHub-flavoured tables and bullets, for PR comments and docs."""

from __future__ import annotations

import re
from typing import Any

from .base import Reporter, reporters
from .view import Section, view_of, visible


# what could make markup of a name: HTML, links and images, emphasis, code, headings, tables, strikethrough
_MARKUP = re.compile(r"([\\`*_\[\]<>#|!~])")


# GitHub turns `@name` into a mention (a notification) and `@org/team` into a team's: a zero-width space
# after the `@` keeps the text as written and notifies nobody (a backslash does not stop a mention)
MENTION_BREAK = "@\u200b"


def md_text(text: str) -> str:
    """`text` as literal Markdown: control and bidi characters escaped, every markup character backslashed (a
    tool named `<img src=x>` or `[x](http://y)` must not reach a PR comment as markup), `@` made no mention."""
    return _MARKUP.sub(r"\\\1", visible(text)).replace("@", MENTION_BREAK)


def md_table(headers: list[str], rows: list[list[str]], left: set[int] = frozenset()) -> list[str]:
    """Lines of a Markdown table; every cell literal (md_text); the first column and those in `left` (indexes)
    aligned left, the rest (numbers) right."""
    esc = [[md_text(c) for c in row] for row in rows]
    align = ["---"] + ["---" if i in left else "---:" for i in range(1, len(headers))]
    return ["| " + " | ".join(r) + " |" for r in [[md_text(h) for h in headers], align, *esc]]


def md_fence(lines: list[str]) -> list[str]:
    """A code block that no line can close: its fence longer than any run of backticks in it."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *(visible(line) for line in lines), fence]


def md_blocks(blocks: list) -> list[str]:
    """Markdown lines for a view's blocks: tables (totals in bold), bullets, code blocks."""
    lines: list[str] = []
    for block in blocks:
        if block.title:
            lines += [f"#### {md_text(block.title)}", ""]
        if isinstance(block, Section):
            lines += md_table(block.headers, block.rows,
                              {i for i, name in enumerate(block.columns or ()) if name in block.left})
            if block.footer:
                lines.append("| " + " | ".join(f"**{md_text(c)}**" if c else "" for c in block.footer) + " |")
        elif block.code:
            lines += md_fence(block.lines)
        else:
            lines += [f"- {md_text(line)}" for line in block.lines]
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
