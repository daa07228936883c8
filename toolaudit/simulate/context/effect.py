"""What a context policy did to one context: each request's input after it, where it changed a request's
prefix, and when each output left (the common answer of every policy; bill.py prices it)."""

from __future__ import annotations

from dataclasses import dataclass

from .timeline import Timeline, carried


@dataclass(frozen=True)
class Effect:
    """One policy on one context."""

    totals: tuple[int, ...]  # each request's input after the policy (0 where no usage was recorded)
    cut_at: tuple[int | None, ...]  # per request: the token position where the policy changed its prefix
    removed_at: tuple[int | None, ...]  # per output: the first request that no longer carried it whole
    placeholders: tuple[int, ...]  # per request: how many placeholders it carried
    tool_tokens: tuple[int, ...]  # per request: the tool-output tokens it still carried (placeholders included)
    summaries: tuple[tuple[int, int, int], ...] = ()  # compaction: (request, input read, summary tokens) asked before it
    # per request: the tokens taken off its new tail (the outputs it was the first to carry), not off the cached prefix
    tail_removed: tuple[int, ...] = ()


def by_removal(timeline: Timeline, base: list[int], positions: list[int], removed_at: list[int | None],
               placeholder: int, inputs: bool = False) -> Effect:
    """The Effect of taking outputs out one by one (masking, clearing): each removed output leaves a
    placeholder (and takes its call's arguments with it when `inputs`).

    A request's prefix changes at the first output it no longer carries whole that the request before it
    still did: its position, less what the removals before it took off, is where the cache is cut.
    """
    outputs, n = timeline.outputs, len(timeline.requests)
    gain = [o.tokens + (o.args_tokens if inputs else 0) - placeholder for o in outputs]
    saved = carried(timeline, gain, removed_at)
    totals = tuple(max(0, b - s) if b else 0 for b, s in zip(base, saved))
    first_cut: dict[int, int] = {}  # request -> the output it was the first to drop, earliest in the context
    tail = timeline.arriving()
    for i, (o, m) in enumerate(zip(outputs, removed_at)):
        if m is not None and m == o.first and m < n:
            tail[m] += gain[i]  # dropped as it came: taken off the request's new tail
        if m is not None and o.first < m < o.end and (m not in first_cut or positions[i] < positions[first_cut[m]]):
            first_cut[m] = i
    cut_at: list[int | None] = [None] * n
    for r, i in first_cut.items():
        if r >= n:
            continue
        before = sum(gain[j] for j in range(len(outputs)) if positions[j] < positions[i] and removed_at[j] is not None
                     and removed_at[j] < r < outputs[j].end)
        args = outputs[i].args_tokens if inputs else 0
        cut_at[r] = max(0, positions[i] - args - before)
    counts = carried(timeline, [1] * len(outputs), removed_at)
    tools = carried(timeline, [o.tokens for o in outputs])
    left = carried(timeline, [o.tokens - placeholder for o in outputs], removed_at)
    return Effect(totals, tuple(cut_at), tuple(removed_at), tuple(counts), tuple(t - s for t, s in zip(tools, left)),
                  tail_removed=tuple(tail))


def unchanged(timeline: Timeline, base: list[int]) -> Effect:
    """No context policy: the size caps alone."""
    return by_removal(timeline, base, [0] * len(timeline.outputs), [None] * len(timeline.outputs), 0)
