"""Observation masking: an output older than the last `keep` turns is replaced by a placeholder.

As SWE-agent's and The Complexity Trap's masking does it (arXiv 2508.21433, window 10): a turn is one
model request, so the output first carried by request k is carried whole by requests k … k+keep−1 and
by a placeholder from request k+keep on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .effect import Effect, by_removal
from .timeline import Timeline

PLACEHOLDER = "Old environment output: (lines omitted)"


@dataclass(frozen=True)
class Mask:
    """mask:keep=N[,placeholder=TEXT]"""

    keep: int = 10
    placeholder: str = PLACEHOLDER
    name = "mask"

    def apply(self, timeline: Timeline, base: list[int], positions: list[int], count: Callable[[str], int]) -> Effect:
        """Every output leaves `keep` requests after it came."""
        removed = [o.first + self.keep if o.first + self.keep < o.end else None for o in timeline.outputs]
        return by_removal(timeline, base, positions, removed, count(self.placeholder))

    def stays(self, request: int, end: int) -> int:
        """How many requests an output fetched again at `request` would be carried (until masked again)."""
        return max(1, min(self.keep, end - request - 1))  # carried from the request after the one that asked

    def describe(self) -> str:
        """One line for the report."""
        return f"mask: outputs older than the last {self.keep} turns replaced by a placeholder"
