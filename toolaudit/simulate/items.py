"""Evidence items: the paths, files, identifiers and numbers of a text that the model may use later.

The `later_used` rule, exactly: an *item* is
- a path: a run of path characters with at least one `/` (e.g. `src/app/main.py`, `/etc/hosts`),
- a file name with an extension (`main.py`, `package.json`),
- a `file:line` reference (`main.py:42`), which also yields the file,
- the base name of a path that has an extension (`src/app/main.py` yields `main.py`),
- an identifier of 6+ characters that looks like code, not prose: it contains `_`, a
  digit, or a lower-to-upper case change (`parse_args`, `getUser`, `sha256sum`),
- a number of 3+ digits.
Line-number gutters of file reads (`    12→`) are not items.
What a cut hides and what counts as later use: see `risk`.
"""

from __future__ import annotations

import re

_SEPARATOR = r"\s\"'`()\[\]{}<>,;|=*"  # what items never hold: tokens lie between runs of these
_SPLIT = re.compile(f"[{_SEPARATOR}]+")
_FILELINE = re.compile(r"([\w./@~+-]*\w\.\w{1,8}):(\d+)(?::\d+)?")
_PATH = re.compile(r"[\w.@~+-]*(?:/[\w.@~+-]+)+/?")
_FILE = re.compile(r"\w[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}")
_IDENT = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]{5,}(?![A-Za-z0-9_])")
_NUMBER = re.compile(r"(?<![\w.])\d{3,}(?!\w)")
_CODE_LIKE = re.compile(r"_|\d|[a-z][A-Z]")
# line-number gutters of file reads (`    12→`, `  12|`, `12\t`): numbering, not content
_GUTTER = re.compile(r"(?m)^[ \t]*\d+(?:→|\||\t)")
_MAX_TOKEN = 512  # longer tokens are blobs (base64, hex), not evidence
_LOOK_BACK = 4 * _MAX_TOKEN  # how far back _is_item looks for a token's start
_NEAR = 64  # where _is_item looks for it first
_LAST_SPLIT = re.compile(f"[{_SEPARATOR}][^{_SEPARATOR}]*\\Z")  # the last separator before the end


def _basename(path: str) -> str | None:
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name if "." in name.strip(".") else None


def _ungutter(text: str) -> str:
    """`text` without its line-number gutters; no regex pass over a text that holds none of their ends."""
    if "\t" in text or "|" in text or "→" in text:
        return _GUTTER.sub("", text)
    return text


def items(text: str) -> set[str]:
    """The evidence items of `text` (see the module docstring for the rule)."""
    # the rule is per token, so each distinct token is classified once (and remembered)
    found: set[str] = set()
    for token in set(_SPLIT.split(_ungutter(text))):
        got = _TOKEN_ITEMS.get(token)
        if got is None:
            if len(_TOKEN_ITEMS) >= TOKEN_CACHE:
                _TOKEN_ITEMS.clear()
            got = _TOKEN_ITEMS[token] = _token_items(token)
        if got:
            found.update(got)
    return found


TOKEN_CACHE = 65536  # tokens whose items are remembered, at most (a few MB)
_TOKEN_ITEMS: dict[str, tuple[str, ...]] = {}


def _token_items(token: str) -> tuple[str, ...]:
    """The items one token (a piece of text between separators) yields."""
    token = token.strip(".:!?")
    if len(token) < 3 or len(token) > _MAX_TOKEN:
        return ()
    found: list[str] = []
    line = _FILELINE.match(token)
    if line is not None:
        found.append(f"{line.group(1)}:{line.group(2)}")
        token = line.group(1)
    if "/" in token and len(token) >= 4 and _PATH.fullmatch(token):
        found.append(token.rstrip("/"))
        base = _basename(token)
        if base:
            found.append(base)  # `checkout.py` names `src/shop/checkout.py`
    elif _FILE.fullmatch(token):
        found.append(token)
    found.extend(ident for ident in _IDENT.findall(token) if _CODE_LIKE.search(ident))
    found.extend(_NUMBER.findall(token))
    return tuple(found)


OCCURRENCES = 1000  # places an item's text is looked at, at most, before it is taken as no item


def occurs_as_item(text: str, item: str, pos: int | None = None) -> bool:
    """True when `item` is an item of `text`: some occurrence's surroundings yield it.

    `pos`: where its text first occurs, when already found.
    """
    pos, seen = text.find(item) if pos is None else pos, 0
    while pos != -1 and seen < OCCURRENCES:
        # the line around the occurrence, at most a token's length either side: items are per token
        start = max(text.rfind("\n", max(pos - _MAX_TOKEN, 0), pos) + 1, pos - _MAX_TOKEN, 0)
        end = text.find("\n", pos, pos + len(item) + _MAX_TOKEN)
        end = min(pos + len(item) + _MAX_TOKEN, len(text)) if end == -1 else end
        piece = text[start:end]
        if start and text[start - 1] != "\n":  # mid-line: drop the token cut in two, and no gutter rule
            cut = _SPLIT.search(piece, 0, pos - start)
            piece = " " + piece[cut.end():] if cut else ""  # no boundary: a blob's token, never an item
        if end < len(text) and text[end] != "\n":  # the same at the end
            cut = _LAST_SPLIT.search(piece, len(piece) - (end - pos - len(item)))
            piece = piece[:cut.start()] if cut else piece
        if item in items(piece):
            return True
        seen += 1
        pos = text.find(item, pos + 1)
    return False


def missing_from(after: str, present: set[str]) -> set[str]:
    """The items of `present` that are not items of `after`."""
    found, stripped = set(), None
    for item in present:
        if item in after:  # as text: is it an item there too?
            stripped = _ungutter(after) if stripped is None else stripped
            if _is_item(after, stripped, item):
                continue
        found.add(item)
    return found


def _is_item(text: str, stripped: str, item: str) -> bool:
    """`item in items(text)`, `stripped` being `text` without its gutters, from only the tokens
    that hold the item's text: items are per token, and a token holds every item it yields."""
    if not item or _SPLIT.search(item):
        return False  # a token holds no separator: no item has one
    pos = stripped.find(item)
    while pos != -1:
        low = max(pos - _LOOK_BACK, 0)
        # the last separator before it is most often near: the regex reads every char it is given
        before = _LAST_SPLIT.search(stripped, max(pos - _NEAR, low), pos) or _LAST_SPLIT.search(stripped, low, pos)
        if before is None and low > 0:  # a token longer than looked back at: classify them all
            return item in items(text)
        start = before.start() + 1 if before else 0
        end = _SPLIT.search(stripped, pos)
        token = stripped[start:end.start() if end else len(stripped)]
        got = _TOKEN_ITEMS.get(token)
        if got is None:
            got = _token_items(token)
        if item in got:
            return True
        pos = stripped.find(item, (end.end() if end else len(stripped)))  # on to the next token
    return False
