"""One context's history as a context policy sees it: its requests' recorded input, and each output's stay.

Requests are numbered as the transcript numbers them (`request_index`); an output is carried from its
first request (`first`) to the one before `end` (first + residency: until the session ends or the agent
compacts). Its position in a request is estimated from the requests: the outputs a request was the first
to carry sit at its end, in call order.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model import Usage


@dataclass(frozen=True, slots=True)
class Output:
    """One tool output in its context."""

    first: int  # the first request that carried it
    end: int  # the first request that no longer did
    tokens: int  # as the size caps left it (the recorded tokens with none)
    recorded: int  # as recorded
    tool: str
    uses: tuple[int, ...] = ()  # requests whose answer first wrote an item of it
    args_tokens: int = 0
    counted: bool = True  # False: a copy already counted in another file (scan.dedupe)


@dataclass(frozen=True)
class Timeline:
    """A context's requests (None where the transcript recorded no usage) and outputs, in order."""

    requests: tuple[Usage | None, ...]
    outputs: tuple[Output, ...]

    @property
    def billed(self) -> bool:
        """Whether every request has recorded usage: only then is its input known."""
        return bool(self.requests) and all(u is not None for u in self.requests)

    def base(self) -> list[int]:
        """Each request's input under the size caps alone: as recorded, less what the caps took off the
        outputs it carried (0 where no usage was recorded)."""
        cut = carried(self, [o.recorded - o.tokens for o in self.outputs])
        return [0 if u is None else max(0, u.input_total - c) for u, c in zip(self.requests, cut)]

    def arriving(self) -> list[int]:
        """Per request, what the size caps took off the outputs it was the first to carry (its uncached tail)."""
        out = [0] * len(self.requests)
        for o in self.outputs:
            if o.first < len(out):
                out[o.first] += o.recorded - o.tokens
        return out

    def positions(self, base: list[int]) -> list[int]:
        """Where each output starts in the requests' token stream (base coordinates), estimated: the
        outputs a request first carried end it."""
        out = [0] * len(self.outputs)
        tail: dict[int, int] = {}
        for i in range(len(self.outputs) - 1, -1, -1):
            o = self.outputs[i]
            tail[o.first] = tail.get(o.first, 0) + o.tokens
            at = base[o.first] if o.first < len(base) else 0
            out[i] = max(0, at - tail[o.first])
        return out


def shrank(before: int, now: int) -> bool:
    """Whether a context's input fell from `before` to `now` the way a compaction makes it fall (not the jitter of
    a request that carried a little less)."""
    return now < before - max(5_000, before // 5)


def turn_starts(timeline: Timeline) -> list[bool]:
    """Per request, whether it starts a turn: it carries no new tool output (the answer before it called no
    tool, so the user spoke)."""
    arrives = {o.first for o in timeline.outputs}
    return [r not in arrives for r in range(len(timeline.requests))]


def user_turns(timeline: Timeline) -> list[bool]:
    """Per request, whether it starts a turn as the transcript records it (the user spoke since the request
    before: Usage.turn_start), else as turn_starts guesses. The guess and the record part where the agent went on
    after an answer that called no tool, or where the user spoke while tools ran."""
    guessed = turn_starts(timeline)
    return [u.turn_start if u is not None and u.turn_start is not None else g
            for u, g in zip(timeline.requests, guessed)]


def carried(timeline: Timeline, weights: list[int], removed_at: list[int | None] | None = None) -> list[int]:
    """Per request, the sum of the weights of the outputs it carried (from `removed_at[i]` on only, when given)."""
    n = len(timeline.requests)
    delta = [0] * (n + 1)
    for i, (o, w) in enumerate(zip(timeline.outputs, weights)):
        start = o.first if removed_at is None else removed_at[i]
        if start is None or w == 0:
            continue
        start, end = min(start, n), min(o.end, n)
        if start < end:
            delta[start] += w
            delta[end] -= w
    out, running = [], 0
    for r in range(n):
        running += delta[r]
        out.append(running)
    return out


def build(usage: list[Usage], outputs: list[Output]) -> Timeline:
    """A Timeline from one context's usage records and outputs (requests numbered by request_index)."""
    indexed = {u.request_index: u for u in usage if u.request_index is not None}
    if not indexed and usage:  # a format that numbers no request: its usage records, in order
        indexed = dict(enumerate(sorted(usage, key=lambda u: u.line)))
    n = max([i + 1 for i in indexed] + [o.end for o in outputs] + [0])
    return Timeline(tuple(indexed.get(r) for r in range(n)), tuple(outputs))
