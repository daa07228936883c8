"""HTML report: one self-contained file, the verdict first (with dollars, or why none: html_verdict), charts as
inline SVG beside their tables, then the text report's tables; it reads on a phone without sideways scrolling.

No script, no stylesheet or font to fetch: a Content-Security-Policy forbids any load, so the
file reads the same offline, forever. Every text from a result is escaped here (`text`: control
characters written out as `\x1b`, then HTML-escaped); the charts' SVG comes escaped from vl-convert.
"""

from __future__ import annotations

from html import escape as _escape
from typing import Any

from ..errors import UsageError
from .base import Reporter, reporters
from .html_verdict import verdict
from .view import Lines, Section, view_of, visible

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
STYLE = """
html{-webkit-text-size-adjust:100%}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff;
overflow-wrap:anywhere}
main,footer{max-width:1200px;margin:0 auto;padding:0 24px}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:17px;margin:28px 0 8px}
h3{font-size:15px;margin:20px 0 6px}
.meta,.note,footer{color:#59636e;font-size:13px}
.pair{display:flex;flex-wrap:wrap;gap:16px 24px;align-items:flex-start}
.pair>*{min-width:0;max-width:100%}
figure{margin:0;padding:0}
figure svg{display:block;max-width:100%;height:auto}
.scroll{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px;overflow-wrap:normal}
caption{text-align:left;font-weight:600;padding:0 0 4px;color:#59636e}
th,td{padding:2px 8px;border-bottom:1px solid #eaeef2;text-align:right}
thead th{vertical-align:bottom;min-width:3.5em}
th:first-child,td:first-child{text-align:left;max-width:420px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
thead th{border-bottom:2px solid #d0d7de}
tfoot td{font-weight:600;border-top:2px solid #d0d7de}
ul{padding-left:20px}
pre{background:#f6f8fa;padding:10px;overflow-x:auto;font-size:12px;overflow-wrap:normal}
footer{padding:24px 24px 32px}
.verdict{margin:16px 0 8px;padding:8px 14px;border-left:6px solid #0969da;background:#ddf4ff}
.verdict.pass{border-color:#1a7f37;background:#dafbe1}
.verdict.fail{border-color:#cf222e;background:#ffebe9}
.verdict.warn{border-color:#9a6700;background:#fff8c5}
.verdict .badge{font-weight:700;margin:0 0 2px;letter-spacing:.04em}
.verdict ul{margin:0}
@media (max-width:600px){main,footer{padding:0 12px}th:first-child,td:first-child{max-width:45vw}
.verdict{padding:8px 10px}}
""".strip()
# status -> the word the verdict box leads with (text, not an emoji a machine's fonts may lack)
BADGE = {"pass": "PASS", "fail": "FAIL", "warn": "CHECK", "info": "RESULT"}
# the text formats' status emoji, said in words in HTML
WORDS = {"✅": "PASS", "❌": "FAIL", "⚠️": "WARNING", "⚠": "WARNING"}


def escape(text: str) -> str:
    """`text` for a page: control, bidi and noncharacters written as escapes (`visible`), then HTML-escaped."""
    return _escape(visible(str(text)))


def _charts():
    """The charts module, or a one-line usage error naming the install command when the extra is missing."""
    try:
        from . import charts
    except ImportError as exc:
        if exc.name not in ("altair", "vl_convert"):
            raise
        raise UsageError("-f html needs the html extra: pip install -e '.[html]' (from a clone of toolaudit)",
                         slug="html-extra") from None
    return charts


def table(headers, rows, footer=None, caption: str | None = None) -> str:
    """An HTML table, every cell escaped."""
    out = ['<div class="scroll"><table>']
    if caption:
        out.append(f"<caption>{escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f'<th scope="col">{escape(h)}</th>' for h in headers) + "</tr></thead>")
    out.append("<tbody>" + "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                                   for row in rows) + "</tbody>")
    if footer:
        out.append("<tfoot><tr>" + "".join(f"<td>{escape(c)}</td>" for c in footer) + "</tr></tfoot>")
    return "".join(out) + "</table></div>"


def chart_html(chart, index: int, svg: str) -> str:
    """A chart's section: title, the SVG, its table beside it, and a note."""
    head = f'chart-{index}'
    note = f'<p class="note">{escape(chart.note)}</p>' if chart.note else ""
    return (f'<section class="chart" data-chart="{index}" aria-labelledby="{head}"><h2 id="{head}">{escape(chart.title)}</h2>'
            f'<div class="pair"><figure role="group" aria-labelledby="{head}">{svg}</figure>'
            f"{table(chart.headers, chart.rows, caption=chart.caption)}</div>{note}</section>")


def blocks_html(blocks: list) -> str:
    """The text report's tables and lines, as the Markdown report lays them out."""
    out = []
    for block in blocks:
        if block.title and not isinstance(block, Section):  # a table's title is its caption
            out.append(f"<h3>{escape(block.title)}</h3>")
        if isinstance(block, Section):
            out.append(table(block.headers, block.rows, block.footer, block.title))
        elif isinstance(block, Lines) and block.code:
            out.append("<pre>" + "\n".join(escape(line) for line in block.lines) + "</pre>")
        else:
            out.append("<ul>" + "".join(f"<li>{escape(_words(line))}</li>" for line in block.lines) + "</ul>")
    return "\n".join(out)


def _words(text: str) -> str:
    """`text` with the status emoji of the text formats as words."""
    for mark, word in WORDS.items():
        text = text.replace(mark, word)
    return text


def verdict_html(title: str, verdict: tuple[str, list[str]]) -> str:
    """The box a page leads with: the report's title, its status as a word, then the verdict's lines."""
    status, lines = verdict
    items = "".join(f"<li>{escape(_words(line))}</li>" for line in lines)
    return (f'<section class="verdict {status}" id="verdict" aria-label="verdict"><h1>{escape(title)}</h1>'
            f'<p class="badge">{BADGE[status]}</p><ul>{items}</ul></section>')


def _meta_line(doc: dict) -> str:
    meta = doc.get("meta", {})
    parts = [f"toolaudit {escape(str(meta.get('version', '')))}"]
    if meta.get("tokenizer_label") or meta.get("tokenizer"):
        parts.append("tokenizer " + escape(str(meta.get("tokenizer_label") or meta["tokenizer"])))
    if meta.get("inputs"):
        parts.append("inputs: " + escape(", ".join(map(str, meta["inputs"]))))
    if meta.get("baseline"):
        parts.append("baseline: " + escape(str(meta["baseline"])))
    if meta.get("created"):
        parts.append(f'created <time class="created">{escape(meta["created"])}</time>')
    return " · ".join(parts)


@reporters.register
class HtmlReport(Reporter):
    """`-f html`: one offline HTML file, charts (inline SVG) each beside its table, then every table."""

    key = "html"
    description = "one self-contained HTML file: charts as inline SVG beside their tables (html extra)"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        charts = _charts()
        view = view_of(result)
        doc = view.doc(result)
        found = charts.charts_for(view.kind, doc)
        sections = [chart_html(c, i, charts.svg(c.spec)) for i, c in enumerate(found, 1)]
        lead = verdict(view.kind, view.headline(result), doc)
        return "\n".join([
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(view.title)}</title><style>{STYLE}</style></head><body><main>",
            verdict_html(view.title, lead),  # the verdict first, with dollars or why none, before any chart
            f'<p class="meta">{_meta_line(doc)}</p>',
            *sections,
            '<section class="details"><h2>Details</h2>', blocks_html(view.blocks(result)), "</section>",
            "</main><footer>Written by toolaudit: one file, no scripts, nothing loaded from the network. "
            "Charts: Vega-Lite, rendered to SVG by vl-convert.</footer></body></html>",
        ]) + "\n"
