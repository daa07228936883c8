"""Markdown report: a GitHub-flavoured table and the summary, for PR comments and docs."""

from __future__ import annotations

from typing import Any

from .base import Reporter, reporters
from .scan_data import billing_cells, summary_lines, table_cells, top_cells
from .sim_data import explain_lines, sim_cells, sim_summary_lines


def md_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Lines of a Markdown table; `|` in cells is escaped."""
    esc = [[c.replace("|", "\\|") for c in row] for row in rows]
    align = ["---"] + ["---:"] * (len(headers) - 1)
    return ["| " + " | ".join(r) + " |" for r in [headers, align, *esc]]


@reporters.register
class MarkdownReport(Reporter):
    """`-f markdown`: the table with a bold totals row, then the summary lines."""

    key = "markdown"
    description = "GitHub-flavoured Markdown (PR comments, docs)"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        simulate = getattr(result, "kind", "scan") == "simulate"
        headers, rows, totals = sim_cells(result) if simulate else table_cells(result)
        bold = [[f"**{c}**" if c else "" for c in totals]] if totals else []
        title = "### toolaudit simulate" if simulate else "### toolaudit scan"
        lines = [title, ""] + md_table(headers, rows + bold) + [""]
        lines += [f"- {line}" for line in (sim_summary_lines(result) if simulate else summary_lines(result))]
        if simulate and result.explained:
            lines += ["", "#### What the cut hid", "", "```"] + explain_lines(result) + ["```"]
        billing = None if simulate else billing_cells(result)
        if billing is not None:
            lines += ["", f"#### Billed usage by {result.meta.by}", ""] + md_table(*billing)
        if not simulate and result.top:
            lines += ["", "#### Largest calls", ""] + md_table(*top_cells(result))
        return "\n".join(lines) + "\n"
