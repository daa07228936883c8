"""JavaScript's tokens, string escapes and `undefined` as a code-mode cell's V8 reads them (agents.codex_cell reads the
statements they make)."""

from __future__ import annotations

import re
from typing import Any

from .shell_words import NotReplayable

_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<name>[A-Za-z_$][\w$]*)
  | (?P<num>\d+(?:\.\d+)?)
  | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<tmpl>`(?:[^`\\]|\\.)*`)
  | (?P<op>===|!==|&&|\|\||[{}()\[\];,.:=!+])
""", re.S | re.X)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])")
KEYWORDS = {"const", "let", "var", "if", "else", "for", "await", "true", "false", "null", "undefined"}


def unescape(body: str) -> str:
    """A JavaScript string literal's text (between its quotes): its escapes read as JavaScript reads them."""
    def one(found: re.Match) -> str:
        esc = found.group(1)
        if esc[0] == "u":
            point = int(esc[2:-1] if esc[1] == "{" else esc[1:], 16)
            if point > 0x10FFFF:  # past the last code point: JavaScript's own SyntaxError
                raise NotReplayable("exec code holds an escape past the last code point")
            return chr(point)
        if esc[0] == "x":
            return chr(int(esc[1:], 16))
        if esc in ("\n", "\r\n", "\u2028", "\u2029"):  # a line continuation
            return ""
        return _ESCAPES.get(esc, esc)
    return _ESCAPE.sub(one, body)


def tokens(code: str) -> list[tuple[str, Any]]:
    out, at = [], 0
    while at < len(code):
        found = _TOKEN.match(code, at)
        if found is None:
            raise NotReplayable(f"exec code beyond what replay reads ({code[at:at + 12]!r})")
        at = found.end()
        kind = found.lastgroup
        text = found.group(kind)
        if kind == "ws":
            continue
        if kind == "str":
            out.append(("lit", unescape(text[1:-1])))
        elif kind == "num":
            out.append(("lit", float(text) if "." in text else int(text)))
        elif kind == "tmpl":
            out.append(("tmpl", text[1:-1]))
        elif kind == "name" and text in ("true", "false", "null", "undefined"):
            out.append(("lit", {"true": True, "false": False, "null": None, "undefined": Undefined}[text]))
        else:
            out.append((kind if kind == "name" and text not in KEYWORDS else "op", text))
    return out


class _Undefined:
    """JavaScript's undefined (None stands for null)."""

    def __repr__(self) -> str:
        return "undefined"


Undefined = _Undefined()
