"""The prompt cache between an agent's requests, modelled from the requests alone: how many input tokens of
each request were read from the cache, written to it, or sent uncached.

Anthropic's rule, as Claude Code uses it (a breakpoint at the end of each request): a request reads from the
cache the prefix the previous request of the same model left there (that request's reads + writes), when
that entry is still alive (5 minutes, or 1 hour after 1-hour writes), writes the rest of its input but for
the uncached tail, and reads nothing when the prefix changed (the context shrank: a compaction; or a
policy removed something at position p: then at most p tokens are read). The first request of a model in a
context takes its recorded read as given: what other sessions left in the cache is not in the transcript.
With no policy, `fit` says how far this model is from the recorded reads and writes (the anchor a context
policy's bill stands on: docs/bill.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from ..model import Usage
from ..scan.periods import when_of

TTL_S = 300.0  # Anthropic's default cache lifetime
TTL_1H_S = 3600.0  # after 1-hour cache writes


@dataclass(frozen=True)
class Split:
    """One request's input tokens, by kind."""

    read: int
    write: int
    uncached: int

    @property
    def total(self) -> int:
        """All its input tokens."""
        return self.read + self.write + self.uncached


@dataclass(frozen=True)
class Fit:
    """How well the model reproduces recorded reads and writes (relative errors of the totals)."""

    contexts: int
    requests: int
    reads_recorded: int
    reads_modelled: int
    writes_recorded: int
    writes_modelled: int

    @property
    def reads_error(self) -> float | None:
        """(modelled − recorded) / recorded reads; None without recorded reads."""
        return (self.reads_modelled - self.reads_recorded) / self.reads_recorded if self.reads_recorded else None

    @property
    def writes_error(self) -> float | None:
        """(modelled − recorded) / recorded writes; None without recorded writes."""
        return (self.writes_modelled - self.writes_recorded) / self.writes_recorded if self.writes_recorded else None


def _ttl(u: Usage) -> float:
    """How long the entry a request wrote lives: an hour when most of its writes were 1-hour writes."""
    return TTL_1H_S if u.cache_write and u.cache_write_1h * 2 >= u.cache_write else TTL_S


def splits(requests: list[Usage], totals: list[int] | None = None, cut_at: list[int | None] | None = None
           ) -> list[Split]:
    """Each request's read / write / uncached tokens, for one context's requests in order.

    `totals`: each request's input under a policy (default: as recorded); `cut_at`: where a policy changed
    the request's prefix (a removal at token p: at most p tokens of it can be read), None where it did not.
    """
    out: list[Split] = []
    alive: dict[str | None, tuple[int, datetime | None, float]] = {}  # model -> (cached prefix, when, ttl)
    for i, u in enumerate(requests):
        total = totals[i] if totals is not None else u.input_uncached + u.cache_write + u.cache_read
        cacheable = max(0, total - u.input_uncached)
        now = when_of(u.ts)
        entry = alive.get(u.model)
        if entry is None:
            read = min(u.cache_read, cacheable)  # the first of its model: what other sessions left, as recorded
        else:
            prefix, then, ttl = entry
            expired = now is not None and then is not None and (now - then).total_seconds() > ttl
            cut = cut_at[i] if cut_at is not None else None
            if expired:
                read = 0
            elif cut is not None:  # the policy's change explains a shrink: the prefix before it is still there
                read = min(prefix, cut, cacheable)
            else:  # a shrink nobody explains is a compaction: a new prefix
                read = 0 if cacheable < prefix else prefix
        out.append(Split(read, cacheable - read, total - cacheable))
        alive[u.model] = (cacheable, now, _ttl(u))
    return out


def shifted(requests: list[Usage], totals: list[int], cut_at: list[int | None], tail_removed: list[int]
            ) -> list[Split]:
    """Each request's split under a policy, as its recorded split less what the policy took off: what it took
    off the outputs the request was the first to carry (`tail_removed`) comes off the new tail, the rest off
    the prefix the request read from the cache; and where the policy changed the prefix at token p (`cut_at`),
    at most p tokens are read, the rest written again. No change gives back the recorded split exactly; the
    provider's own misses (an expiry, an automatic cache that hit less than the whole prefix) stay misses."""
    out = []
    for u, total, cut, tail in zip(requests, totals, cut_at, tail_removed):
        inside = max(0, u.input_total - total - tail)
        read = max(0, u.cache_read - inside)
        if cut is not None:
            read = min(read, cut)
        read = min(read, total)
        rest = total - read
        uncached = min(u.input_uncached, rest)
        out.append(Split(read, rest - uncached, uncached))
    return out


def contexts(usage: Iterable[Usage]) -> dict[tuple, list[Usage]]:
    """The requests of each context (file, session, agent), in request order."""
    found: dict[tuple, list[Usage]] = {}
    for u in usage:
        found.setdefault((u.source, u.session, u.agent), []).append(u)
    for requests in found.values():
        requests.sort(key=lambda u: (u.request_index is None, u.request_index or 0, u.line))
    return found


def fit(usage: Iterable[Usage]) -> Fit:
    """The model against the recorded reads and writes of every context in `usage` (no policy)."""
    counts = [0, 0, 0, 0, 0, 0]
    for requests in contexts(usage).values():
        modelled = splits(requests)
        counts[0] += 1
        counts[1] += len(requests)
        counts[2] += sum(u.cache_read for u in requests)
        counts[3] += sum(s.read for s in modelled)
        counts[4] += sum(u.cache_write for u in requests)
        counts[5] += sum(s.write for s in modelled)
    return Fit(*counts)
