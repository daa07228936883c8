"""Match and byte limit for search outputs: at most N results, the whole response within a byte budget.

A result is a `path:line:content` line; when an output has none, a file list's lines are
(path characters only, with a `/` or an extension). Any other output (a file read, pretty
JSON, a log) is not a search result and is left unchanged. Context lines
left at the end of a cut belonged to matches that went, so they go too. JSON search
results (a `matches` list, or hermes-agent's densified `matches_text` rows) keep their
first N matches, stay valid JSON and carry the notice under a `notice` key. When anything
was cut, a notice asking the model to narrow the search is appended, and it counts inside
the byte budget: the response, notice included, never exceeds `max_bytes`, and the cut
never splits a UTF-8 character.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, ClassVar

from ...errors import UsageError
from .base import (ORDER_MATCHES, CountTokens, Policy, cut_bytes, dump_json_like, load_json, nbytes,
                   policies, render)
from .preview import _DENSE_ROW, _parse_context, parse_match

DEFAULT_NOTICE = "[toolaudit: {omitted} {unit} omitted; narrow your search]"
# a file-list line: path characters only, with a directory separator or an extension
_PATH_LINE = re.compile(r"(?=[^/]*[/.])[\w./\\@+~%=,-]+")


def result_lines(bodies: list[str]) -> tuple[list[int], bool] | None:
    """Indexes of the result lines and whether they are `path:line:content` matches.

    None when the output is neither a search result nor a file list (fewer than half
    of its non-empty lines are results).
    """
    results = [i for i, body in enumerate(bodies) if parse_match(body)]
    if results:
        return results, True
    lines = [i for i, body in enumerate(bodies) if body.strip() and body != "--"]
    results = [i for i in lines if _PATH_LINE.fullmatch(bodies[i].strip())]
    return (results, False) if results and len(results) >= 0.5 * len(lines) else None


@policies.register
@dataclass(frozen=True)
class MatchLimit(Policy):
    """Keep at most `max_matches` results and the whole response within `max_bytes`, notice included.

    Notice fields: {omitted} and {unit} (matches not shown in full, or bytes when only
    non-result text was cut), {shown}, {total}, {limit}.
    """

    key: ClassVar[str] = "match-limit"
    summary: ClassVar[str] = (
        "--max-matches N --max-bytes N: at most N search results, the whole response (notice included) "
        "within the byte budget, cut on a character boundary, with a notice to narrow the search"
    )
    order: ClassVar[int] = ORDER_MATCHES

    max_matches: int | None = None
    max_bytes: int | None = None
    notice: str = DEFAULT_NOTICE

    def __post_init__(self) -> None:
        if self.max_matches is None and self.max_bytes is None:
            raise UsageError("a match limit needs --max-matches or --max-bytes", slug="bad-policy")
        if any(v is not None and v < 0 for v in (self.max_matches, self.max_bytes)):
            raise UsageError("match limits must not be negative", slug="bad-policy")

    def _notice(self, omitted: int, unit: str, total: int) -> str:
        return render(self.notice, omitted=omitted, unit=unit, shown=total - omitted if unit == "matches" else total,
                      total=total, limit="" if self.max_matches is None else self.max_matches)

    def _fits(self, text: str) -> bool:
        return self.max_bytes is None or nbytes(text) <= self.max_bytes

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The limited response, or `text` itself when it was within both limits."""
        if not text:
            return text
        doc = load_json(text)
        if isinstance(doc, dict) and (isinstance(doc.get("matches"), list) or isinstance(doc.get("matches_text"), str)):
            out = self._apply_json(text, doc)
            if out is not None:
                return out
        return self._apply_text(text)

    # --- text ---------------------------------------------------------------------------

    def _apply_text(self, text: str) -> str:
        pieces = text.split("\n")
        bodies = [p[:-1] if p.endswith("\r") else p for p in pieces]
        found = result_lines(bodies)
        if found is None:  # a file read, pretty JSON, a log: not this policy's to cut
            return text
        results, matched = found
        paths = {parse_match(bodies[i])[0].rsplit(":", 1)[0] for i in results} if matched else set()
        total = len(results)
        kept, omitted = text, 0
        if self.max_matches is not None and total > self.max_matches:
            cut_at = results[self.max_matches]
            kept = _trim_context("\n".join(pieces[:cut_at]) + "\n" if cut_at else "", paths)
            omitted = total - self.max_matches
        if omitted == 0 and self._fits(text):
            return text
        out = _append(kept, self._notice(omitted, "matches", total))
        if self._fits(out):
            return out
        # where each result line ends (without its newline): a result is shown when the cut keeps all of it
        starts, pos = [], 0
        for piece in pieces:
            starts.append(pos)
            pos += len(piece) + 1
        ends = [starts[i] + len(bodies[i]) for i in results]
        return self._byte_cut(text, kept, total, lambda part: total - bisect_right(ends, len(part)), paths)

    def _byte_cut(self, text: str, kept: str, total: int, omitted_in, paths: set[str] = frozenset()) -> str:
        reserve = 0
        for _ in range(10):  # the notice's length depends on the count it states
            part = _trim_context(cut_bytes(kept, max(self.max_bytes - reserve, 0)), paths)
            omitted = omitted_in(part)
            unit = "matches" if omitted else "bytes"
            notice = self._notice(omitted or nbytes(text) - nbytes(part), unit, total)
            needed = nbytes(notice) + 1  # + a newline before it
            if needed <= reserve:
                break
            reserve = needed
        out = _append(part, notice)
        # the notice alone over the budget: the budget still wins
        return out if self._fits(out) else cut_bytes(out if reserve <= self.max_bytes else notice, self.max_bytes)

    # --- JSON ---------------------------------------------------------------------------

    def _apply_json(self, text: str, doc: dict[str, Any]) -> str | None:
        """The limited JSON; None when even no match at all would not fit (the caller cuts bytes)."""
        if isinstance(doc.get("matches"), list):
            items = doc["matches"]

            def build(k: int) -> dict:
                return {**doc, "matches": items[:k]}
        else:
            lines = doc["matches_text"].split("\n")
            rows = [i for i, line in enumerate(lines) if _DENSE_ROW.fullmatch(line)]
            items = rows

            def build(k: int) -> dict:
                keep = lines[: rows[k]] if k < len(rows) else lines
                while k < len(rows) and keep and not _DENSE_ROW.fullmatch(keep[-1]):
                    keep = keep[:-1]  # a path header whose rows were all cut
                return {**doc, "matches_text": "\n".join(keep)}

        total = len(items)
        k = total if self.max_matches is None else min(total, self.max_matches)
        if k == total and self._fits(text):
            return text

        def dump(k: int) -> str:
            value = build(k)
            if k < total:
                value["notice"] = self._notice(total - k, "matches", total)
            return dump_json_like(value, text)

        if self._fits(dump(k)):
            return dump(k)
        lo, hi = 0, k  # the most matches that fit: binary search, fewer always fit better
        if not self._fits(dump(0)):
            return None
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if self._fits(dump(mid)) else (lo, mid - 1)
        return dump(lo)


def _trim_context(part: str, paths: set[str]) -> str:
    """`part` without the context lines and separators at its end: they belonged to matches that were cut."""
    if not paths:
        return part
    pieces = part.split("\n")
    last = pieces.pop()  # "" when `part` ends with a newline, else a line the byte cut split

    def is_context(line: str) -> bool:
        line = line.removesuffix("\r")
        return line == "--" or _parse_context(line, paths) is not None

    if not any(parse_match(line.removesuffix("\r")) for line in pieces + [last]):
        # no match left: every context line belonged to a cut match; keep what came before the first
        first = next((i for i, line in enumerate(pieces + [last]) if is_context(line)), None)
        if first is None:
            return part
        pieces, last = pieces[:first], ""
    elif last and not is_context(last):
        return part
    while pieces and is_context(pieces[-1]):
        pieces.pop()
    return "\n".join(pieces) + "\n" if pieces else ""


def _append(part: str, notice: str) -> str:
    return part + ("" if not part or part.endswith("\n") else "\n") + notice
