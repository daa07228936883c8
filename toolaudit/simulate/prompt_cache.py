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
# OpenAI: "cached prefixes generally remain active for 5 to 10 minutes of inactivity" (up to an hour off-peak;
# `prompt_cache_retention: "24h"` extends it). Codex sends `prompt_cache_key` (its conversation id) and no
# retention (codex-rs core/src/client.rs), so in-memory retention applies. The gap from which a request's read
# stops at the stable prefix, fitted on the Codex sessions of docs/simulate.md's fitted-on sets: of their requests
# after 2 minutes idle or more, 15 minutes classes the most as hit or miss (42 wrong of 273; 10 minutes: 50)
AUTOMATIC_TTL_S = 900.0
SHRINK = 1_000  # an automatic cache's prompt that fell by more than this was edited before its end (a compaction)
OPENAI_BLOCK = 128  # OpenAI's cache hits grow in 128-token steps
# OpenAI's reads fall short of the whole previous prompt by a few blocks: the median shortfall per request over
# the Codex sessions the rule was fitted on (docs/simulate.md, the cache model's fit)
OPENAI_SHORTFALL = 384
GEMINI_BLOCK = 2048  # Gemini's implicit hits came in steps of about 2,048 tokens (gemini-3-pro in ../shared/corpus)


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
    uncached_recorded: int = 0
    uncached_modelled: int = 0

    @property
    def reads_error(self) -> float | None:
        """(modelled − recorded) / recorded reads; None without recorded reads."""
        return (self.reads_modelled - self.reads_recorded) / self.reads_recorded if self.reads_recorded else None

    @property
    def writes_error(self) -> float | None:
        """(modelled − recorded) / recorded writes; None without recorded writes."""
        return (self.writes_modelled - self.writes_recorded) / self.writes_recorded if self.writes_recorded else None

    @property
    def uncached_error(self) -> float | None:
        """(modelled − recorded) / recorded uncached input; None without recorded uncached input."""
        if not self.uncached_recorded:
            return None
        return (self.uncached_modelled - self.uncached_recorded) / self.uncached_recorded


def _ttl(u: Usage) -> float:
    """How long the entry a request wrote lives: an hour when most of its writes were 1-hour writes."""
    return TTL_1H_S if u.cache_write and u.cache_write_1h * 2 >= u.cache_write else TTL_S


def provider_of(requests: list[Usage]) -> str:
    """Whose prompt cache a context's requests went through: "anthropic" (explicit writes), "openai" (automatic
    prefix caching: GPT, o-series, Codex) or "gemini" (implicit caching); by the model's name, else by whether any
    request recorded a cache write (only Anthropic's cache charges them)."""
    for u in requests:
        name = (u.model or "").lower().rpartition("/")[2]
        if name.startswith(("claude", "anthropic")):
            return "anthropic"
        if name.startswith(("gpt", "o1", "o3", "o4", "codex", "chatgpt")):
            return "openai"
        if name.startswith("gemini"):
            return "gemini"
    return "anthropic" if any(u.cache_write for u in requests) else "openai"


def splits(requests: list[Usage], totals: list[int] | None = None, cut_at: list[int | None] | None = None,
           starts: list[bool] | None = None) -> list[Split]:
    """Each request's read / write / uncached tokens, for one context's requests in order, by its provider's
    rule (provider_of): Anthropic's explicit writes, or OpenAI's and Gemini's automatic prefix reads.

    `totals`: each request's input under a policy (default: as recorded); `cut_at`: where a policy changed
    the request's prefix (a removal at token p: at most p tokens of it can be read), None where it did not;
    `starts`: which requests start a turn (the user spoke; OpenAI drops the turns before's reasoning there) as the
    caller guesses them, overruled where the transcript records it (Usage.turn_start); None: turns not counted.
    """
    provider = provider_of(requests)
    if provider == "openai":
        return _automatic(requests, totals, cut_at, OPENAI_BLOCK, OPENAI_SHORTFALL, recorded_turns(requests, starts))
    if provider == "gemini":
        return _automatic(requests, totals, cut_at, GEMINI_BLOCK)
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


def recorded_turns(requests: list[Usage], guessed: list[bool] | None) -> list[bool] | None:
    """Which requests start a turn: as recorded (a user message came before the request) where the format records
    it, else as guessed; None when nothing is guessed (turns not counted)."""
    if guessed is None:
        return None
    return [g if u.turn_start is None else u.turn_start for u, g in zip(requests, guessed)]


def _automatic(requests: list[Usage], totals: list[int] | None, cut_at: list[int | None] | None, block: int,
               shortfall: int = 0, starts: list[bool] | None = None) -> list[Split]:
    """Automatic prefix caching (OpenAI, Gemini): nothing is written or charged for writing; a request reads the
    whole previous prompt of its model — its input and the answer appended to it (visible output: reasoning is
    not sent back) — as far as its own input goes, in `block`-token steps, less `shortfall` tokens. A shrink nobody explains (a
    compaction, or a turn rewritten) keeps only the context's first read (the system prompt and tools), and so
    does a gap of AUTOMATIC_TTL_S or more; a policy's change at token p leaves at most p. Where `starts` says a
    request starts a turn, the reasoning of the turn before leaves the prompt (the Responses API keeps a turn's
    reasoning items only within it): the prefix breaks where that turn's first reasoning sat, at the input of its
    first request that reasoned, and no more than that is read."""
    out: list[Split] = []
    alive: dict[str | None, tuple[int, int, datetime | None]] = {}  # model -> (previous prompt, its input, when)
    first: dict[str | None, int] = {}
    reasoned: int | None = None  # this turn's first request that reasoned: its input (where the reasoning begins)
    for i, u in enumerate(requests):
        if starts is not None and starts[i]:
            broken, reasoned = reasoned, None
        else:
            broken = None
        total = totals[i] if totals is not None else u.input_total
        now = when_of(u.ts)
        entry = alive.get(u.model)
        if entry is None:
            read = min(u.cache_read, total)  # what other sessions left, as recorded
            first[u.model] = read
        else:
            prompt, before, then = entry
            cut = cut_at[i] if cut_at is not None else None
            expired = now is not None and then is not None and (now - then).total_seconds() >= AUTOMATIC_TTL_S
            if cut is not None and not expired:
                read = min(prompt, cut, total) // block * block
            elif expired or total < before - SHRINK:
                read = min(first[u.model], total)
            else:
                read = max(0, min(prompt, total) // block * block - shortfall)
            if broken is not None:
                read = min(read, max(0, broken // block * block - shortfall))
        out.append(Split(read, 0, total - read))
        alive[u.model] = (total + max(0, u.output - u.reasoning), total, now)
        if u.reasoning and reasoned is None:
            reasoned = total
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


def _counts(requests: list[Usage], starts: list[bool] | None = None) -> list[int]:
    modelled = splits(requests, starts=starts)
    if not any(u.cache_write for u in requests):  # no cache writes charged: what is not read is uncached input
        modelled = [Split(s.read, 0, s.uncached + s.write) for s in modelled]
    return [1, len(requests), sum(u.cache_read for u in requests), sum(s.read for s in modelled),
            sum(u.cache_write for u in requests), sum(s.write for s in modelled),
            sum(u.input_uncached for u in requests), sum(s.uncached for s in modelled)]


def context_fit(requests: list[Usage], starts: list[bool] | None = None) -> Fit:
    """The model against one context's recorded reads, writes and uncached input (no policy; `starts` as in
    splits)."""
    return Fit(*_counts(requests, starts))


def fit(usage: Iterable[Usage]) -> Fit:
    """The model against the recorded reads, writes and uncached input of every context in `usage` (no policy)."""
    counts = [0] * 8
    for requests in contexts(usage).values():
        counts = [a + b for a, b in zip(counts, _counts(requests))]
    return Fit(*counts)
