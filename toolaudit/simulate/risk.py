"""What a cut would have hidden: failure signals, broken JSON, and evidence of later use.

Failure signals are found by `signals`, evidence items by `items` (each module states its rule).

Codex 0.4x-0.5x stores shell output as `{"output": ..., "metadata": {...}}`; Codex cut
the inner text, so the checks read the inner text of such outputs, and a cut that keeps
the wrapper valid breaks no JSON.

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

import orjson
from ahocorasick_rs import AhoCorasick, BytesAhoCorasick

from .items import items, missing_from, occurs_as_item  # noqa: F401 (missing_from: the engine reads it here)
from .policies.codex import codex_inner
from .signals import failure_lines


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
            known = self._has[item] = pos != -1 and occurs_as_item(self.text, item, pos)
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
        """The items found in `text`'s text and confirmed as items of it (occurs_as_item).

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
        return {self.items[i] for i, start in firsts.items() if occurs_as_item(text, self.items[i], start)}


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
