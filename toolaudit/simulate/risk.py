"""What a cut would have hidden: failure signals, broken JSON, and evidence of later use.

A *failure signal* is what a failed command or test prints, never the bare word: a
traceback; `error:`, `fatal:`, `SomethingError: message` or `java.x.SomeException:` at
the start of a line (or after a compiler's `file:line:col:`), unless what follows is a
value or a type (`error: null`, `error: string;`: source code, not a failure); `FAILED`,
`FAIL:`, `--- FAIL:`, `npm ERR!`, `panic:`, pytest's `E   ` at line start; anywhere, a
non-zero exit (`Exit code: 2`, `exited with code 1`, `<returncode>1</returncode>`,
`"exit_code": 1`), `N failed` (N > 0), `test result: FAILED`, `panicked at`. Each is
found from a literal (a plain substring search) and confirmed on its line, or on a
window of WINDOW chars around it in a longer line, so the work is linear in the output.

Codex 0.4x-0.5x stores shell output as `{"output": ..., "metadata": {...}}`; Codex cut
the inner text, so the checks read the inner text of such outputs, and a cut that keeps
the wrapper valid breaks no JSON.

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
Only the items the model writes later can make a call `later_used`, so simulate looks
those up in a cut output (`Full.has_item`: where their text occurs) rather than
extracting every item of it, earliest written first, and stops at the first place one is
hidden (simulate._first_hidden): one `find` per item, then, past a few in a long output, one
Aho-Corasick pass for all the items still to come (Full.locate_ahead); `--explain`, which
lists hidden items, extracts them all.
"""

from __future__ import annotations

import json
import re

import orjson
from ahocorasick_rs import AhoCorasick, BytesAhoCorasick

from .policies.codex import codex_inner

WINDOW = 240  # chars looked at on each side of a signal's literal in a long line

_AT_START = re.compile(r"""
    (?:[\w./\\-]+(?::\d+){1,2}:\ ?|[\w./\\-]+\(\d+,\d+\):\ )?           # file:line:col: of a compiler
    (?:error|Error|ERROR|fatal|FATAL)(?:\[\w+\]|\ [A-Z]+\d+)?:(?P<msg>.*)    # error: m, error[E0425]:, error TS2304:
  | (?:[\w$]+\.)*\w*(?:Error|Exception)\b:(?P<msg2>.*)                    # ValueError: m, java.io.IOException: m
  | Exception\ in\ thread | Caused\ by:\ \S | npm\ ERR! | E\ {3,}\S | panic:\ \S
  | FAIL(?:ED)?(?::|$|[ \t]+(?=[^\s=(:])) | [ \t]*---\ FAIL:
""", re.X)
_ANYWHERE = re.compile(r"""
    Traceback\ \(most\ recent\ call\ last\)
  | [Ee]xit\ (?:code|status)[:\ ]+-?[1-9]\d* | exited\ with\ code\ -?[1-9]\d*
  | <returncode>-?[1-9]\d*</returncode> | "exit_code":\ ?-?[1-9]\d*
  | \bpanicked\ at\b | (?<![\w.])[1-9]\d*\ failed\b | test\ result:\ FAILED
""", re.X)
_ANYWHERE_LITERALS = ("xit", "Traceback", "<returncode>", "panicked at", " failed", "test result: FAILED")
_ENDS_FAILED = re.compile(r"\ \.\.\.\ (?:FAILED|FAIL|ERROR)[ \t]*$")
# what follows `error:` in source code: a value, a type, or nothing (a YAML or object key)
_CODE_VALUE = re.compile(r"""\s*(?:null|None|nil|undefined|true|false|True|False|-?\d[\d.]*|""|''|\{\}|\[\]
    |[\w.$<>\[\]]+(?:\s*\|\s*[\w.$<>\[\]]+)*\s*[;,])?\s*[,;{]?\s*""", re.X)


def _confirm(piece: str, at_start: bool, at_end: bool) -> bool:
    """True when `piece` (a line, or a window of a long one) carries a failure signal."""
    # every _ANYWHERE match holds one of these literals: most pieces skip the regex
    if any(literal in piece for literal in _ANYWHERE_LITERALS) and _ANYWHERE.search(piece):
        return True
    if at_end and " ... " in piece and _ENDS_FAILED.search(piece):
        return True
    found = _AT_START.match(piece) if at_start else None
    if found is None:
        return False
    msg = found.group("msg") if found.group("msg") is not None else found.group("msg2")
    return msg is None or not _CODE_VALUE.fullmatch(msg)


# What a piece must hold to carry a signal, by the literal each needle holds (a needle can be
# in the text only when its literal is): every _ANYWHERE match holds one of _ANYWHERE_LITERALS,
# every _ENDS_FAILED match `FAIL` or ` ... ERROR`, every _AT_START match one of the rest.
_NEEDLES = {
    "rror": ("rror:", "rror["), "RROR": ("RROR:", "RROR[", " ... ERROR"), "fatal": ("fatal:", "fatal["),
    "FATAL": ("FATAL:", "FATAL["), "xception": ("xception:", "Exception in thread"), "FAIL": ("FAIL",),
    "ERR!": ("npm ERR!",), "E   ": ("E   ",), "panic": ("panic: ", "panicked at"), "Traceback": ("Traceback",),
    "xit": ("xit",), "returncode": ("<returncode>",), "failed": (" failed",),
}
_LITERALS = tuple(_NEEDLES)  # the literals every signal contains
_SPACED = {literal: re.compile(literal + r" [A-Z]+\d+:") for literal in ("rror", "RROR", "fatal", "FATAL")}  # error TS2304:
_ANY_NEEDLES = ("Caused by: ",)  # holds no literal: its line is looked at when any literal is in the text
# every needle, each `literal ` of _SPACED (a probe its regex confirms), in one automaton
_NEEDLE_LIST = sorted({n for needles in _NEEDLES.values() for n in needles} | set(_ANY_NEEDLES)) + \
    [literal + " " for literal in _SPACED]
_PROBES = [None] * (len(_NEEDLE_LIST) - len(_SPACED)) + list(_SPACED.values())
_NEEDLE_SEARCH = AhoCorasick(_NEEDLE_LIST)
_NEEDLE_BYTES = BytesAhoCorasick([needle.encode() for needle in _NEEDLE_LIST])  # for ASCII texts


def _places(search: AhoCorasick, in_bytes: BytesAhoCorasick | None, text: str) -> list[tuple[int, int, int]]:
    """Every place of every pattern of `search` in `text`, overlapping: (pattern, start, end), in chars.

    An ASCII text, whose char and byte offsets agree, is read as bytes by `in_bytes` (the same
    patterns, UTF-8): ~1.6x as fast as the automaton over a str.
    """
    if in_bytes is not None and text.isascii():
        return in_bytes.find_matches_as_indexes(text.encode(), overlapping=True)
    return search.find_matches_as_indexes(text, overlapping=True)


def failure_lines(text: str, memo: dict | None = None) -> set[str]:
    """The lines of `text` (windows of long lines) that carry a failure signal, stripped.

    Only the lines holding a needle (_NEEDLES) are looked at: a piece lies within one line,
    and one without a needle cannot carry a signal. Every needle's every place is found in one
    Aho-Corasick pass (before, one substring search per literal to learn which are present, then
    one per needle of those: 13 to 30 passes over each output). `memo` remembers each piece's
    answer across calls (a cut output's lines are its full output's): a line repeated in a log
    is confirmed once.
    """
    found: set[str] = set()
    hits = _places(_NEEDLE_SEARCH, _NEEDLE_BYTES, text)  # overlapping: no needle hides another
    if not hits:
        return found
    memo = {} if memo is None else memo
    looked: set[tuple[int, int]] = set()
    size, lo, hi, done = len(text), 0, -1, False  # the line [lo, hi) of the last hit, and whether it was taken
    for index, pos, _ in sorted(hits, key=lambda hit: hit[1]):
        if pos >= hi:  # a new line: found from where the last one ended, so each char is read about once
            lo = text.rfind("\n", max(hi, 0), pos) + 1
            hi = text.find("\n", pos)
            hi = size if hi == -1 else hi
            done = False
        if done:
            continue
        spaced = _PROBES[index]
        if spaced is not None and not spaced.match(text, pos):  # `rror ` not followed by `TS2304:`
            continue
        done = True
        # a literal absent from the text is absent from its lines: all of them may be tried
        if hi - lo <= WINDOW:  # a short line is one piece, whichever literal meets it
            piece = text[lo:hi]
            if any(literal in piece for literal in _LITERALS):
                _check((piece, True, True), found, memo)
        else:
            _look(text, lo, hi, found, looked, memo)
    return found


def _look(text: str, line: int, stop: int, found: set[str], looked: set, memo: dict) -> None:
    """Confirm the pieces of the line text[line:stop] around each literal (_LITERALS) in it, into `found`.

    A piece never crosses a newline, so a line's pieces are those the scan of the whole
    text would meet in it.
    """
    size = len(text)
    for literal in _LITERALS:
        pos = text.find(literal, line, stop)
        while pos != -1:
            low = max(pos - WINDOW, 0)
            start = text.rfind("\n", low, pos) + 1 or low
            end = text.find("\n", pos, pos + WINDOW)
            end = min(pos + WINDOW, size) if end == -1 else end
            if (start, end) not in looked:  # another literal on the same line: already looked at
                looked.add((start, end))
                _check((text[start:end], start == 0 or text[start - 1] == "\n", end == size or text[end] == "\n"),
                       found, memo)
            # on from the end of what was looked at: each char is looked at a bounded number of times
            pos = text.find(literal, max(end, pos + 1), stop)


def _check(key: tuple[str, bool, bool], found: set[str], memo: dict) -> None:
    """Add the piece of `key` (piece, at line start, at line end), stripped, to `found` when it
    carries a signal; `memo` keeps the answer."""
    failed = memo.get(key)
    if failed is None:
        failed = memo[key] = _confirm(*key)
    if failed:
        found.add(key[0].strip())


def inner(text: str) -> str:
    """The text a check reads: the inner output of a Codex JSON wrapper, else `text` itself."""
    found = codex_inner(text)
    return text if found is None else found[1]


def _parses(text: str) -> bool:
    """True when `text` is a JSON object or array, as `json.loads` reads JSON.

    orjson, ~5x as fast, tries first: what it accepts json.loads accepts too (it is the
    stricter: no NaN, no lone surrogate, 64-bit numbers); only what it refuses is asked of
    json.loads.
    """
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return False
    try:
        orjson.loads(text)
        return True
    except ValueError:
        pass
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


class Full:
    """One full (uncapped) output and what the checks need of it, each worked out once, on first use.

    simulate keeps one per cut output, so every policy map (a sweep's values) reuses the
    failure lines, the JSON parse and the evidence lookups of the full text.
    """

    __slots__ = ("text", "_inner", "_failures", "_parses", "_items", "_has", "_nowhere", "_ahead", "_located", "_first",
                 "confirmed")

    def __init__(self, text: str) -> None:
        self.text = text
        self._inner: str | None = None
        self._failures: set[str] | None = None
        self._parses: tuple[bool, bool] | None = None
        self._items: set[str] | None = None
        self._has: dict[str, bool] = {}
        self._nowhere: set[str] = set()  # items looked up whose text is nowhere in the text
        self._ahead = False  # whether locate_ahead has decided
        self._located: set[str] = set()  # items locate_ahead looked for: their first place is in _first, or they are nowhere
        self._first: dict[str, int] = {}
        self.confirmed: dict = {}  # failure_lines' answer per piece, for the full and each cut of it

    @property
    def inner(self) -> str:
        """The text Codex cut: the wrapper's output, or the whole text."""
        if self._inner is None:
            self._inner = inner(self.text)
        return self._inner

    @property
    def failures(self) -> set[str]:
        """failure_lines of the inner text."""
        if self._failures is None:
            self._failures = failure_lines(self.inner, self.confirmed)
        return self._failures

    @property
    def parses(self) -> tuple[bool, bool]:
        """(the text is JSON, the inner text is JSON)."""
        if self._parses is None:
            whole = _parses(self.text)
            self._parses = (whole, _parses(self.inner) if self.inner is not self.text else whole)
        return self._parses

    @property
    def items(self) -> set[str]:
        """Every evidence item of the text (only --explain needs them all: see has_item)."""
        if self._items is None:
            self._items = items(self.text)
        return self._items

    def has_item(self, item: str) -> bool:
        """True when `item` is an evidence item of the text, looked up where its text occurs."""
        known = self._has.get(item)
        if known is None:
            pos = self._first.get(item, -1) if item in self._located else self.text.find(item)
            if pos == -1:
                self._nowhere.add(item)
            known = self._has[item] = pos != -1 and _occurs_as_item(self.text, item, pos)
        return known

    def locate_ahead(self, groups: list[list[str]]) -> None:
        """Find where each item of `groups` not looked up yet first occurs, in one pass, for has_item.

        A `find` of an item absent from the text reads all of it: past a few lookups of a long
        text, the items still to come are found together by one Aho-Corasick automaton, read
        LOCATE_CHUNK chars at a time (overlapping matches: one item's place never hides
        another's), stopping once every item is found. Only once per text.
        """
        if self._ahead or len(self._has) < LOCATE_AFTER or len(self.text) < LOCATE_TEXT:
            return
        self._ahead = True  # fewer items than pay now: fewer still later (and every map asks again)
        wanted = list({item for group in groups for item in group if item and item not in self._has})
        if len(wanted) < LOCATE_ITEMS:
            return
        self._located.update(wanted)
        if self.text.isascii():  # read as bytes, as _places does; an item outside ASCII is in no such text
            text, patterns = self.text.encode(), [item.encode("utf-8", "surrogatepass") for item in wanted]
            search: AhoCorasick | BytesAhoCorasick = BytesAhoCorasick(patterns)
        else:
            text, patterns, search = self.text, wanted, AhoCorasick(wanted)
        reach, first = max(map(len, patterns)) - 1, self._first
        for start in range(0, len(text), LOCATE_CHUNK):
            # a chunk runs on by the longest item less one: a place across its end is found whole
            for index, pos, _ in search.find_matches_as_indexes(text[start:start + LOCATE_CHUNK + reach],
                                                                 overlapping=True):
                item = wanted[index]
                if first.get(item, pos + start + 1) > pos + start:  # matches come by end, not start
                    first[item] = pos + start
            if len(first) == len(wanted):
                break

    def held(self, items: list[str]) -> set[str]:
        """The `items` that are items of the text (has_item).

        Shortest first: an item holding the text of one that is nowhere in the text is
        nowhere either, so it is not looked up (the items the model writes at one place come
        together: a path, its file name, an identifier in it).
        """
        found: set[str] = set()
        nowhere: list[str] = []
        for item in sorted(items, key=len):
            if any(gone in item for gone in nowhere):
                continue
            if self.has_item(item):
                found.add(item)
            elif item in self._nowhere:
                nowhere.append(item)
        return found


# when Full.locate_ahead finds the items to come in one pass instead of one `find` each: after
# LOCATE_AFTER finds, in a text of LOCATE_TEXT chars or more, for LOCATE_ITEMS items or more
# (a find reads ~3 GB/s, the automaton ~0.25 GB/s and ~2 us to add an item: measured on c100)
LOCATE_AFTER, LOCATE_TEXT, LOCATE_ITEMS = 8, 20_000, 16
LOCATE_CHUNK = 1 << 16  # chars read by the automaton at once: bounds the list of matches it returns


class ItemSearch:
    """Which of many items (those a context's model wrote) are items of a text, in one pass over it."""

    def __init__(self, items: list[str]) -> None:
        self.items = [item for item in items if item]
        self._bytes = BytesAhoCorasick([item.encode("utf-8", "surrogatepass") for item in self.items])
        self._chars: AhoCorasick | None = None

    def items_in(self, text: str) -> set[str]:
        """The items found in `text`'s text and confirmed as items of it (_occurs_as_item).

        Read LOCATE_CHUNK chars at a time, as Full.locate_ahead does: a long output of numbers matches a 3-digit
        item everywhere, and the list of every match at once would grow with the text."""
        if not self.items:
            return set()
        if text.isascii():
            data, search = text.encode(), self._bytes
        else:
            self._chars = self._chars or AhoCorasick(self.items)
            data, search = text, self._chars
        reach = max(map(len, self.items)) - 1
        firsts: dict[int, int] = {}
        for start in range(0, len(data), LOCATE_CHUNK):
            for index, pos, _ in search.find_matches_as_indexes(data[start:start + LOCATE_CHUNK + reach],
                                                                overlapping=True):
                if index not in firsts or start + pos < firsts[index]:
                    firsts[index] = start + pos
        return {self.items[i] for i, start in firsts.items() if _occurs_as_item(text, self.items[i], start)}


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


def errors_cut(full: Full, after: str) -> bool:
    """True when a failure signal line of the full output is missing from the capped one."""
    return bool(full.failures) and not full.failures <= failure_lines(inner(after), full.confirmed)


def json_broken(full: Full, after: str) -> bool:
    """True when the full output (or the inner text of a Codex wrapper) was JSON and the capped one is not."""
    if after is full.text:
        return False
    whole, inside = full.parses
    if full.inner is not full.text:  # a wrapper: broken when it no longer parses, or its JSON content broke
        after_inner = codex_inner(after)
        if after_inner is None:
            return whole
        return inside and not _parses(after_inner[1])
    return whole and not _parses(after)


# Items are classified token by token: patterns anchored on short tokens cannot backtrack
# across a long run of word characters (a hex or base64 blob) the way one text-wide
# alternation did.
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


def _occurs_as_item(text: str, item: str, pos: int | None = None) -> bool:
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
