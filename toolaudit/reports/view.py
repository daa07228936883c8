"""Views: what each kind of result (scan, simulate, ci, compare) shows, for every report format.

A view gives the JSON document, the CSV rows, and an ordered list of blocks — tables
(`Section`) and lines (`Lines`) — that the table and Markdown reports lay out alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from importlib import import_module
from typing import Any, ClassVar


@dataclass
class Section:
    """A table: headers, rows of cells, an optional totals row, an optional title."""

    headers: list[str]
    rows: list[list[str]]
    footer: list[str] | None = None
    title: str | None = None
    # for the terminal table (reports.table_report) only: a stable name per column (--columns), the
    # columns a terminal shows by default, most important first ("bar" draws `bar`: a fraction per row)
    columns: list[str] | None = None
    compact: tuple[str, ...] = ()
    bar: list[float] | None = None
    # for the terminal table only: column index -> the width its cells are shortened to in the middle (`middle`)
    shorten: dict[int, int] | None = None
    # for the terminal table only: compact columns dropped last when the width runs out (simulate's saving and risk)
    keep: tuple[str, ...] = ()
    # columns (by `columns` name) of words, aligned left like the first; the rest are numbers, aligned right
    left: tuple[str, ...] = ()
    # for the terminal table only: columns (indexes) of session ids, shown short (a UUID by its first 8 characters)
    ids: tuple[int, ...] = ()
    # for the terminal table only: the order compact columns go in when the width runs out (default: right to
    # left, `keep` last)
    drop: tuple[str, ...] = ()


@dataclass
class Lines:
    """Lines of text: bullets in Markdown, or a code block when `code`."""

    lines: list[str]
    title: str | None = None
    code: bool = False


class View:
    """How one kind of result is shown."""

    kind: ClassVar[str] = ""
    title: ClassVar[str] = ""

    def doc(self, result: Any) -> dict:
        """The versioned JSON document."""
        raise NotImplementedError

    def csv_rows(self, result: Any) -> list[dict]:
        """One dict per CSV row."""
        raise NotImplementedError

    def blocks(self, result: Any) -> list[Section | Lines]:
        """Tables and lines, in the order they are shown."""
        raise NotImplementedError

    def markdown(self, result: Any) -> str | None:
        """A Markdown layout of its own, or None for the common one."""
        return None

    def headline(self, result: Any) -> tuple[str, list[str]] | None:
        """What a reader needs first (the HTML report's top): a status ("pass", "fail", "warn" or "info")
        and the verdict's lines, taken from the lines the other formats show; None for nothing to lead with."""
        return None


# control characters, the bidirectional controls that reorder what a terminal or a page shows, line and
# paragraph separators, lone surrogates (no UTF-8 encodes them) and Unicode's noncharacters (U+FFFE…):
# vl-convert's renderer aborts the process on a control character or a noncharacter in a chart's text
_NONCHARACTERS = "".join(f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(17))
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                        f"\ud800-\udfff\ufdd0-\ufdef{_NONCHARACTERS}]")


def visible(text: str) -> str:
    """`text` with control and bidi characters written as escapes (`\\x1b`, `\\u202e`), newlines as `\\n`:
    names are data (a tool's name is whatever a transcript or a server says), never terminal commands."""
    text = text.replace("\n", "\\n") if "\n" in text else text
    return _INVISIBLE.sub(_escape, text)


def _escape(m: re.Match) -> str:
    """One invisible character as the escape Python would write for it."""
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible_blocks(blocks: list) -> list:
    """The blocks with every cell and line passed through `visible` (code blocks keep their newlines)."""
    out = []
    for block in blocks:
        if isinstance(block, Section):
            fix = [visible(c) for c in block.headers]
            out.append(replace(block, headers=fix, rows=[[visible(c) for c in row] for row in block.rows],
                               footer=[visible(c) for c in block.footer] if block.footer else block.footer))
        else:
            out.append(replace(block, lines=[visible(line) for line in block.lines]))
    return out


def middle(text: str, width: int) -> str:
    """`text` in at most `width` characters, its middle replaced by `…` (ids and paths differ at their ends:
    two long session ids stay told apart); `-f json` keeps them whole."""
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return f"{text[:head]}…{text[len(text) - (width - 1 - head):]}"


def num(value: float) -> str:
    """A count as the text reports show it: thousands separated, no decimals."""
    return f"{value:,.0f}" if isinstance(value, (int, float)) else str(value)


def amount(value: float | None) -> str:
    """A median or other measured number: n/a when missing, no decimals when whole, else one."""
    return "n/a" if value is None else f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def pick(row: Any, names: tuple[str, ...], digits: dict[str, int] | None = None) -> dict[str, Any]:
    """The attributes `names` of a record, in that order; those in `digits` rounded to that many places.

    How a view turns a summary row into its JSON contract's fields (scan's TOOL_FIELDS,
    simulate's SIM_FIELDS, replay's REPLAY_FIELDS), so each field list is written once.
    """
    digits = digits or {}
    return {n: round(getattr(row, n), digits[n]) if n in digits else getattr(row, n) for n in names}


def meta_doc(meta, command: str, **extra: Any) -> dict[str, Any]:
    """A JSON document's `meta`: what made it (toolaudit, the command, version, tokenizer, inputs), then `extra`."""
    return {"tool": "toolaudit", "command": command, "version": meta.version, "tokenizer": meta.tokenizer,
            "engine": meta.engine, "estimated": meta.estimated, "tokenizer_label": meta.tokenizer_label or meta.tokenizer,
            "created": meta.created, "inputs": list(meta.inputs), **extra}


def tokenizer_text(meta) -> str:
    """How the summary names the tokenizer: exact with its engine, or estimated and how."""
    if meta.tokenizer == "approx":
        return "approx (estimated: chars/4)"
    if meta.estimated:
        return meta.tokenizer_label or f"{meta.tokenizer} (estimated)"
    return f"{meta.tokenizer} (exact, engine {meta.engine})"


views: dict[str, View] = {}
# result kind -> the module that registers its view, imported on first use
VIEW_MODULES = {"scan": "scan_data", "simulate": "sim_data", "ci": "gate_view", "compare": "compare_view",
                "replay": "replay_view", "advise": "advise_view"}


def register(view: type[View]) -> type[View]:
    """Class decorator: make a view the one for its kind."""
    views[view.kind] = view()
    return view


def view_of(result: Any) -> View:
    """The view for a result, by its `kind`."""
    kind = getattr(result, "kind", "scan")
    if kind not in views and kind in VIEW_MODULES:
        import_module(f"{__package__}.{VIEW_MODULES[kind]}")
    return views[kind]
