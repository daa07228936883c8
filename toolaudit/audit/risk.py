"""What a cut would have hidden: failure signals, broken JSON, and evidence of later use.

The `later_used` rule, exactly: an *item* is
- a path: a run of path characters with at least one `/` (e.g. `src/app/main.py`, `/etc/hosts`),
- a file name with an extension (`main.py`, `package.json`),
- a `file:line` reference (`main.py:42`), which also yields the file,
- the base name of a path that has an extension (`src/app/main.py` yields `main.py`),
- an identifier of 6+ characters that looks like code, not prose: it contains `_`, a
  digit, or a lower-to-upper case change (`parse_args`, `getUser`, `sha256sum`),
- a number of 3+ digits.
Line-number gutters of file reads (`    12→`) are not items.
An item is *hidden* by a cut when it is in the full output, not in the capped output,
not in the call's own arguments, and not in anything the model wrote or sent as
arguments earlier in the same context (session and agent). A call counts as
`later_used` when one of its hidden items appears later in that context, in the
model's text or in a later call's arguments.
"""

from __future__ import annotations

import json
import re

_FAILURE = re.compile(
    r"""Traceback \(most recent call last\)
    | \b(?:[A-Za-z]*Error|error|ERROR|Exception):
    | \bFAILED\b | \bFAIL:
    | \b\d+\ failed\b
    | [Ee]xit\ (?:code|status)[:\ ]+[1-9]\d*
    | exited\ with\ code\ [1-9]\d*
    | <returncode>[1-9]\d*</returncode>
    | "exit_code":\ ?[1-9]\d*
    | \bpanicked\ at\b
    """,
    re.X,
)

# Items are classified token by token: patterns anchored on short tokens cannot backtrack
# across a long run of word characters (a hex or base64 blob) the way one text-wide
# alternation did.
_SPLIT = re.compile(r"[\s\"'`()\[\]{}<>,;|=*]+")
_FILELINE = re.compile(r"([\w./@~+-]*\w\.\w{1,8}):(\d+)(?::\d+)?")
_PATH = re.compile(r"[\w.@~+-]*(?:/[\w.@~+-]+)+/?")
_FILE = re.compile(r"\w[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}")
_IDENT = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]{5,}(?![A-Za-z0-9_])")
_NUMBER = re.compile(r"(?<![\w.])\d{3,}(?!\w)")
_CODE_LIKE = re.compile(r"_|\d|[a-z][A-Z]")
# line-number gutters of file reads (`    12→`, `  12|`, `12\t`): numbering, not content
_GUTTER = re.compile(r"(?m)^[ \t]*\d+(?:→|\||\t)")
_MAX_TOKEN = 512  # longer tokens are blobs (base64, hex), not evidence


def failure_lines(text: str) -> set[str]:
    """The lines of `text` that carry a failure signal (traceback, error:, FAILED, exit code…)."""
    if not _FAILURE.search(text):
        return set()
    return {line.strip() for line in text.splitlines() if _FAILURE.search(line)}


def errors_cut(before: str, after: str) -> bool:
    """True when a failure signal line of the full output is missing from the capped one."""
    lines = failure_lines(before)
    return bool(lines) and any(line not in after for line in lines)


def _parses(text: str) -> bool:
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return False
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def json_broken(before: str, after: str) -> bool:
    """True when the full output was valid JSON and the capped output is not."""
    return after is not before and _parses(before) and not _parses(after)


def _basename(path: str) -> str | None:
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name if "." in name.strip(".") else None


def items(text: str) -> set[str]:
    """The evidence items of `text` (see the module docstring for the rule)."""
    found: set[str] = set()
    for token in _SPLIT.split(_GUTTER.sub("", text)):
        token = token.strip(".:!?")
        if len(token) < 3 or len(token) > _MAX_TOKEN:
            continue
        line = _FILELINE.match(token)
        if line is not None:
            found.add(f"{line.group(1)}:{line.group(2)}")
            token = line.group(1)
        if "/" in token and len(token) >= 4 and _PATH.fullmatch(token):
            found.add(token.rstrip("/"))
            base = _basename(token)
            if base:
                found.add(base)  # `checkout.py` names `src/shop/checkout.py`
        elif _FILE.fullmatch(token):
            found.add(token)
        for ident in _IDENT.findall(token):
            if _CODE_LIKE.search(ident):
                found.add(ident)
        found.update(_NUMBER.findall(token))
    return found


def hidden_items(before: str, after: str, known: set[str]) -> set[str]:
    """Items in the full output that the capped output and what the model already knew lack."""
    if after is before:
        return set()
    return items(before) - items(after) - known
