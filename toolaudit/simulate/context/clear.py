"""Context editing as Anthropic's Messages API defines it (`clear_tool_uses_20250919`).

When a request's input passes `trigger` tokens, the oldest tool results beyond the last `keep` tool uses
are replaced by a placeholder (their calls' inputs too with `inputs=true`); tools matching an `exclude`
glob are spared; a clearing happens only when it frees at least `clear_at_least` tokens. Our reading of a
server-side rule that sees the whole history each time: a result once cleared stays cleared (the input
only grows until a compaction), and results wait to be cleared until together they free `clear_at_least`,
which is what makes that setting spare cache writes. Input is counted as toolaudit counts the request
(the recorded usage, less what the size caps took off).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Callable

from .effect import Effect, by_removal
from .timeline import Timeline

PLACEHOLDER = "[cleared to save context]"


@dataclass(frozen=True)
class Clear:
    """clear:trigger=T,keep=K[,clear_at_least=C][,exclude=GLOB…][,inputs=true]"""

    trigger: int = 100_000
    keep: int = 3
    clear_at_least: int = 0
    exclude: tuple[str, ...] = ()
    inputs: bool = False
    placeholder: str = PLACEHOLDER
    name = "clear"

    def spared(self, tool: str) -> bool:
        """Whether an `exclude` glob (any case) spares the tool."""
        return any(fnmatchcase(tool.lower(), glob.lower()) for glob in self.exclude)

    def apply(self, timeline: Timeline, base: list[int], positions: list[int], count: Callable[[str], int]) -> Effect:
        """Request by request, what passing `trigger` clears."""
        outputs, p = timeline.outputs, count(self.placeholder)
        removed: list[int | None] = [None] * len(outputs)
        arrived: list[int] = []  # the outputs carried so far, in call order
        by_first: dict[int, list[int]] = {}
        for i, o in enumerate(outputs):
            by_first.setdefault(o.first, []).append(i)
        for r, total in enumerate(base):
            arrived.extend(by_first.get(r, ()))
            if not total or total <= self.trigger:
                continue
            live = [i for i in arrived if outputs[i].end > r]
            kept = set(live[-self.keep:]) if self.keep else set()
            new = [i for i in live if i not in kept and removed[i] is None and not self.spared(outputs[i].tool)]
            freed = sum(outputs[i].tokens + (outputs[i].args_tokens if self.inputs else 0) - p for i in new)
            if new and freed >= max(self.clear_at_least, 1):
                for i in new:
                    removed[i] = r
        return by_removal(timeline, base, positions, removed, p, inputs=self.inputs)

    def stays(self, request: int, end: int) -> int:
        """How many requests an output fetched again at `request` would be carried: until `keep` newer tool
        uses push it out, taken as `keep` requests."""
        return max(1, min(max(self.keep, 1), end - request - 1))

    def describe(self) -> str:
        """One line for the report."""
        extra = f", at least {self.clear_at_least:,} tokens at a time" if self.clear_at_least else ""
        spared = f", sparing {', '.join(self.exclude)}" if self.exclude else ""
        inputs = " and their inputs" if self.inputs else ""
        return (f"clear: past {self.trigger:,} input tokens, tool results{inputs} beyond the last {self.keep} "
                f"tool uses cleared{extra}{spared}")
