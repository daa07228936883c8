"""Failure signals: the lines a failed command or test prints, found in linear time.

A *failure signal* is what a failed command or test prints, never the bare word: a
traceback; `error:`, `fatal:`, `SomethingError: message` or `java.x.SomeException:` at
the start of a line (or after a compiler's `file:line:col:`), unless what follows is a
value or a type (`error: null`, `error: string;`: source code, not a failure); `FAILED`,
`FAIL:`, `--- FAIL:`, `npm ERR!`, `panic:`, pytest's `E   ` at line start; anywhere, a
non-zero exit (`Exit code: 2`, `exited with code 1`, `<returncode>1</returncode>`,
`"exit_code": 1`), `N failed` (N > 0), `test result: FAILED`, `panicked at`. Each is
found from a literal (a plain substring search) and confirmed on its line, or on a
window of WINDOW chars around it in a longer line, so the work is linear in the output.
"""

from __future__ import annotations

import re

from ahocorasick_rs import AhoCorasick, BytesAhoCorasick

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
