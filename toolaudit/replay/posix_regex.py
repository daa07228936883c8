"""GNU grep regular expressions (basic and extended) rewritten for ripgrep's Rust regex syntax.

A translated `grep` call is answered by a ripgrep-based tool, so the pattern must mean there
what it meant to grep: in a basic regex `\\|`, `\\(`, `\\{` are operators and `|`, `+`, `?`,
`(`, `{` are literal characters; in a bracket expression a backslash is a literal; a leading
`*` is a literal (in an extended regex a leading repetition is dropped, as GNU grep ignores
it); `^`/`$` in the middle of a basic regex are literals. What ripgrep cannot
express (backreferences, collating elements) raises ValueError with a short reason.
"""

from __future__ import annotations

import re

_INTERVAL = re.compile(r"\{\d+(,\d*)?\}|\{,\d+\}")
_GNU_ESCAPES = set("wWsSbB<>")  # GNU extensions Rust's regex spells the same way


def to_rust(pattern: str, basic: bool) -> str:
    """`pattern` as grep reads it (basic regex when `basic`, else extended), in ripgrep syntax."""
    out: list[str] = []
    i, n = 0, len(pattern)
    start = True  # where `*` is a literal and, in a basic regex, `^` an anchor
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 == n:
                raise ValueError("trailing backslash in regex")
            d = pattern[i + 1]
            i += 2
            if basic and d in "|(){}?+":
                out.append(d)
                start = d in "(|"
                continue
            out.append(_escape(d))
            start = False
            continue
        i += 1
        if c == "[":
            text, i = _bracket(pattern, i)
            out.append(text)
        elif start and not basic and (c in "*+?" or (c == "{" and _INTERVAL.match(pattern, i - 1))):
            # nothing to repeat: GNU grep -E repeats the empty string, so the operator is dropped
            m = _INTERVAL.match(pattern, i - 1)
            i = m.end() if c == "{" and m else i
            continue
        elif start and c == "*":
            out.append(r"\*")  # nothing to repeat: a basic regex reads it as the character
        elif basic and c in "|(){}?+":
            out.append("\\" + c)
        elif c == "^":
            out.append("^" if start or not basic else r"\^")
            continue  # `^*`: still nothing to repeat
        elif c == "$":
            at_end = i == n or not basic or pattern[i:i + 2] in ("\\)", "\\|")
            out.append("$" if at_end else r"\$")
        elif c == "{":  # extended: an interval, or a literal brace as GNU grep reads it
            m = _INTERVAL.match(pattern, i - 1)
            out.append(m.group(0) if m else r"\{")
            i = m.end() if m else i
        elif c == "}":
            out.append(r"\}")
        else:
            out.append(c)
        start = not basic and c in "(|"
    return "".join(out)


def _escape(d: str) -> str:
    """A backslash and `d` outside brackets."""
    if d.isdigit():
        raise ValueError("backreference in regex")
    if d == "`":
        return r"\A"
    if d == "'":
        return r"\z"
    if d in _GNU_ESCAPES:
        return "\\" + d
    if d.isalnum() or d == "_":
        return d  # a stray backslash: GNU grep matches the letter itself
    return "\\" + d  # escaped punctuation: the character


def _bracket(pattern: str, i: int) -> tuple[str, int]:
    """The bracket expression opened just before `i`, and the index after its `]`."""
    n = len(pattern)
    out = ["["]
    if i < n and pattern[i] == "^":
        out.append("^")
        i += 1
    if i < n and pattern[i] == "]":
        out.append(r"\]")
        i += 1
    while i < n and pattern[i] != "]":
        c = pattern[i]
        if c == "[" and i + 1 < n and pattern[i + 1] in ":=.":
            end = pattern.find(pattern[i + 1] + "]", i + 2)
            if end < 0:
                raise ValueError("unterminated bracket in regex")
            if pattern[i + 1] != ":":
                raise ValueError("collating element in regex")
            out.append(pattern[i:end + 2])  # [:alpha:] and friends: the same in Rust
            i = end + 2
            continue
        # literal in POSIX, special in a Rust class (escapes, nesting, && and ~~ set operators)
        out.append("\\" + c if c in "\\[&~" else c)
        i += 1
    if i >= n:
        raise ValueError("unterminated bracket in regex")
    out.append("]")
    return "".join(out), i + 1
