"""Head/tail cap: keep the start and the end of an output, say how much of the middle went.

Sizes: chars = code points, bytes = UTF-8, lines = lines as `tail -n` sees them (a final
newline ends the last line; `count_empty_last_line` counts the empty piece after it as
one more line, as JS agents such as Roo do). A cut keeps a prefix and a suffix of the
original; the marker (and optional header/footer) goes between and around them.
By default the marker is added after the budget (head + tail ≤ limit, the marker on
top), as most agents do; `marker_in_budget` fits header, marker and footer inside a
chars/bytes limit instead, so the whole response stays within it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ...errors import UsageError
from .base import (ORDER_CAP, CountTokens, Policy, cut_bytes, cut_bytes_tail, cut_chars,
                   cut_chars_tail, nbytes, policies, render)

DEFAULT_MARKER = "\n[toolaudit: {omitted} {unit} omitted; ask again with a narrower range]\n"


@policies.register
@dataclass(frozen=True)
class HeadTail(Policy):
    """Keep a head and a tail within chars, bytes and/or lines, with a marker between.

    Template fields for header, marker and footer: {omitted} and {unit} (what went, in
    the unit that bound), {limit}, {total}, {excess} (total - limit), {head}, {tail}
    (units kept at each end), {total_lines}.
    """

    key: ClassVar[str] = "head-tail"
    summary: ClassVar[str] = (
        "--max-chars/--max-bytes/--max-lines N with --head-ratio R (default 0.4), "
        "--head-lines N, --tail-lines N: keep head and tail, mark what was omitted"
    )
    order: ClassVar[int] = ORDER_CAP
    family: ClassVar[str] = "cap"

    max_chars: int | None = None
    max_bytes: int | None = None
    max_lines: int | None = None
    head_lines: int | None = None
    tail_lines: int | None = None
    head_ratio: float = 0.4
    marker: str = DEFAULT_MARKER
    header: str = ""
    footer: str = ""
    marker_in_budget: bool = False
    cut_at_limit: bool = False  # cut when size >= limit, not only > (mini-swe-agent's `length < 10000`)
    count_empty_last_line: bool = False  # "a\nb\n" is 3 lines, not 2 (Roo's line count)

    def __post_init__(self) -> None:
        if self.max_chars is not None and self.max_bytes is not None:
            raise UsageError("give --max-chars or --max-bytes, not both", slug="bad-policy")
        if self.max_lines is not None and (self.head_lines is not None or self.tail_lines is not None):
            raise UsageError("give --max-lines or --head-lines/--tail-lines, not both", slug="bad-policy")
        limits = (self.max_chars, self.max_bytes, self.max_lines, self.head_lines, self.tail_lines)
        if all(v is None for v in limits):
            raise UsageError("a head/tail cap needs a limit", slug="bad-policy")
        if any(v is not None and v < 0 for v in limits):
            raise UsageError("head/tail limits must not be negative", slug="bad-policy")
        if not 0.0 <= self.head_ratio <= 1.0:
            raise UsageError(f"--head-ratio must be within 0..1, not {self.head_ratio}", slug="bad-policy")

    # --- the plan: which prefix and suffix of the text survive ---------------------------

    @property
    def _size_unit(self) -> str | None:
        return "chars" if self.max_chars is not None else "bytes" if self.max_bytes is not None else None

    def _over(self, size: int, limit: int) -> bool:
        return size >= limit if self.cut_at_limit else size > limit

    def _line_split(self) -> tuple[int, int] | None:
        if self.max_lines is not None:
            head = math.floor(self.max_lines * self.head_ratio)
            return head, self.max_lines - head
        if self.head_lines is None and self.tail_lines is None:
            return None
        return self.head_lines or 0, self.tail_lines or 0

    def _segments(self, text: str) -> list[str]:
        """The lines of `text`, each with its newline."""
        segments = [line + "\n" for line in text.split("\n")]
        segments[-1] = segments[-1][:-1]
        if not segments[-1] and not self.count_empty_last_line:
            segments.pop()
        return segments

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """Head + marker + tail (inside header/footer), or `text` itself when within every limit."""
        if not text:
            return text
        unit = self._size_unit
        size_of = len if unit == "chars" else nbytes
        limit = self.max_chars if unit == "chars" else self.max_bytes
        split = self._line_split()
        over_size = unit is not None and self._over(size_of(text), limit)
        if split is None and not over_size:  # within a size-only cap: no need to count lines
            return text
        n_lines = None
        if split is not None or "total_lines" in self.header + self.marker + self.footer:
            n_lines = text.count("\n") + (0 if text.endswith("\n") and not self.count_empty_last_line else 1)
        over_lines = split is not None and self._over(n_lines, sum(split))
        if not (over_lines or over_size):
            return text

        head, tail = text, ""
        if over_lines:
            h, t = split
            segments = self._segments(text)
            head = "".join(segments[:h])
            tail = "".join(segments[n_lines - t :]) if t else ""
        fields = dict(total_lines=n_lines)  # counted only when a line limit or a template needs it
        if unit is not None and (over_size or size_of(head) + size_of(tail) > limit):
            if not over_lines:
                head = tail = text  # both ends come from the whole text
            return self._size_cut(text, head, tail, over_lines, unit, limit, fields)
        omitted = n_lines - (split[0] + split[1])
        fields.update(omitted=omitted, unit="lines", limit=sum(split), total=n_lines,
                      excess=n_lines - sum(split), head=split[0], tail=split[1])
        return self._assemble(head, tail, fields)

    def _size_cut(self, text: str, head: str, tail: str, lend: bool, unit: str, limit: int,
                  fields: dict) -> str:
        size_of = len if unit == "chars" else nbytes
        cut, cut_tail = (cut_chars, cut_chars_tail) if unit == "chars" else (cut_bytes, cut_bytes_tail)
        total, frame = size_of(text), 0
        for _ in range(10):  # the marker's own length depends on the count it states
            budget = max(limit - frame, 0)
            h_budget = math.floor(budget * self.head_ratio)
            t_budget = budget - h_budget
            if lend:  # after a line cut, a short end lends its unused share to the other
                if size_of(head) <= h_budget:
                    t_budget = budget - size_of(head)
                elif size_of(tail) <= t_budget:
                    h_budget = budget - size_of(tail)
            new_head, new_tail = cut(head, h_budget), cut_tail(tail, t_budget)
            fields.update(omitted=total - size_of(new_head) - size_of(new_tail), unit=unit, limit=limit,
                          total=total, excess=total - limit, head=size_of(new_head), tail=size_of(new_tail))
            if not self.marker_in_budget:
                break
            needed = size_of(self._assemble("", "", fields))
            if needed <= frame:
                break
            frame = needed
        if self.marker_in_budget and frame > limit:  # the marker alone is over the limit
            return cut(self._assemble("", "", fields), limit)
        return self._assemble(new_head, new_tail, fields)

    def _assemble(self, head: str, tail: str, fields: dict) -> str:
        return (render(self.header, **fields) + head + render(self.marker, **fields) + tail
                + render(self.footer, **fields))
