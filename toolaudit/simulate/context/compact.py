"""Compaction: when a request's input would pass `at` tokens, everything before it but the fixed prefix
(system prompt and tool definitions) is replaced by a summary of `summary` tokens.

As Claude Code's auto-compact, Codex's `model_auto_compact_token_limit` and OpenHands' condensers do it.
The summary is asked for by one more request, which reads the context so far from the cache and writes
`summary` output tokens; the fixed prefix is what a request right after a compaction the session recorded
read from the cache (what the agent's own compaction kept), else the first request's input, at most 40,000
tokens (`fixed_prefix`). A compaction the session itself recorded (its input shrank) starts the count again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .effect import Effect
from .timeline import Timeline, carried, shrank

SUMMARY = 3_000  # tokens of a summary when none is given: the corpus' one recorded Claude Code summary is 2,474


FIXED_MAX = 40_000  # a fixed prefix larger than this is a resumed context's history, not a system prompt


def fixed_prefix(timeline: Timeline) -> int:
    """What a compaction keeps before the summary (system prompt, tool definitions): what a request right after
    a compaction the session recorded read from the cache, where there is one; else the first request's input,
    at most FIXED_MAX (a resumed context starts with its history)."""
    known = [u for u in timeline.requests if u is not None]
    after = [b.cache_read for a, b in zip(known, known[1:]) if shrank(a.input_total, b.input_total) and b.cache_read > 0]
    if after:
        return min(after)
    return min(known[0].input_total, FIXED_MAX) if known else 0


@dataclass(frozen=True)
class Compact:
    """compact:at=T[,summary=S]"""

    at: int = 160_000
    summary: int = SUMMARY
    name = "compact"

    def apply(self, timeline: Timeline, base: list[int], positions: list[int], count: Callable[[str], int]) -> Effect:
        """Request by request: compact before any request whose input would pass `at`."""
        outputs, n = timeline.outputs, len(base)
        fixed = fixed_prefix(timeline)
        totals, cut_at, summaries = [0] * n, [None] * n, []
        removed: list[int | None] = [None] * len(outputs)
        gone, last = 0, None  # tokens taken off by compactions since the last recorded one; the last request seen
        for r, total in enumerate(base):
            if not total:
                continue
            if last is not None and shrank(base[last], total):
                gone = 0  # the session compacted here itself
            after = total - gone
            if last is not None and after >= self.at:
                region = totals[last]  # the context so far, as the request before carried it
                freed = region - min(fixed, region) - self.summary
                if freed > 0:
                    gone += freed
                    after -= freed
                    cut_at[r] = min(fixed, region)
                    summaries.append((r, region, self.summary))
                    for i, o in enumerate(outputs):
                        if o.first < r < o.end and removed[i] is None:
                            removed[i] = r
            totals[r] = max(0, after)
            last = r
        tools = carried(timeline, [o.tokens for o in outputs])
        tools = [t - g for t, g in zip(tools, carried(timeline, [o.tokens for o in outputs], removed))]
        return Effect(tuple(totals), tuple(cut_at), tuple(removed), tuple([0] * n), tuple(tools),
                      summaries=tuple(summaries), tail_removed=tuple(timeline.arriving()))

    def stays(self, request: int, end: int) -> int:
        """How many requests an output fetched again at `request` would be carried: to the end of its stay."""
        return max(1, end - request - 1)

    def describe(self) -> str:
        """One line for the report."""
        return f"compact: past {self.at:,} input tokens, the context before it replaced by a {self.summary:,}-token summary"
