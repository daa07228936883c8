"""A context policy over every context of a simulation: inputs and dollars before → after with the
prompt-cache model, what had to be fetched again, and the cache model's fit to the recorded usage.

Before is the session as it ran (its recorded requests as billed); after adds the size caps and the context
policy: each request's recorded split less what they took off it (prompt_cache.shifted). A request copied
into several files counts once (scan.dedupe.request_key), and so does an output (the call's dedupe): each
file's context is still modelled whole, copies and all, since its cache saw them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Callable

from ...model import Usage
from ...scan.dedupe import digest, request_key
from .. import prompt_cache
from .effect import Effect, unchanged
from .timeline import Timeline, carried, turn_starts

PRICED = 65_536  # distinct priced splits remembered, at most
KINDS = ("uncached", "cache_write_5m", "cache_write_1h", "cache_read", "output")


@dataclass
class Kinds:
    """Input tokens by kind, and output tokens."""

    uncached: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0
    output: int = 0

    @property
    def input(self) -> int:
        """All input tokens."""
        return self.uncached + self.cache_write_5m + self.cache_write_1h + self.cache_read

    def add(self, split: prompt_cache.Split, hour: float, output: int) -> None:
        """One request's split (`hour`: the share of its writes that are 1-hour ones)."""
        self.uncached += split.uncached
        self.cache_read += split.read
        long = round(split.write * hour)
        self.cache_write_1h += long
        self.cache_write_5m += split.write - long
        self.output += output

    def as_dict(self) -> dict:
        """The JSON form."""
        return {**{k: getattr(self, k) for k in KINDS}, "input": self.input}

    def merge(self, other: "Kinds") -> None:
        """Add another's counts."""
        for k in KINDS:
            setattr(self, k, getattr(self, k) + getattr(other, k))


@dataclass(frozen=True)
class RequestRow:
    """One request under the policy (`--per-request`): what it would still carry."""

    source: str
    session: str
    agent: str
    request: int
    model: str | None
    input_before: int
    input_after: int
    outputs_carried: int
    output_tokens: int  # the tool-output tokens it would carry, placeholders included
    placeholders: int
    cache_read: int
    cache_write: int
    uncached: int
    cut_at: int | None


@dataclass
class ContextTally:
    """One variant's sums over every context."""

    policy: str
    contexts: int = 0
    billed_contexts: int = 0
    requests: int = 0
    before: Kinds = field(default_factory=Kinds)  # as recorded
    modelled: Kinds = field(default_factory=Kinds)  # the cache model with no policy: its fit to `before`
    after: Kinds = field(default_factory=Kinds)
    cost_before: Decimal | None = None
    cost_after: Decimal | None = None
    unpriced_requests: int = 0
    removed_by_caps: int = 0  # input tokens the size caps took off the billed requests
    tool_tokens_before: int = 0  # tool-output tokens × requests that carried them (every context)
    tool_tokens_after: int = 0
    removed_calls: int = 0  # outputs the policy took out of the context before their stay ended
    refetched: int = 0
    refetch_tokens: int = 0
    cache_invalidations: int = 0
    compactions: int = 0
    acted_contexts: int = 0  # contexts the policy changed (a removal or a compaction)
    rows: list[RequestRow] | None = None

    def merge(self, other: "ContextTally") -> None:
        """Add one context's tally (its rows too, when both keep them)."""
        for name in ("contexts", "billed_contexts", "requests", "unpriced_requests", "removed_by_caps",
                     "tool_tokens_before", "tool_tokens_after", "removed_calls", "refetched", "refetch_tokens",
                     "cache_invalidations", "compactions", "acted_contexts"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("before", "modelled", "after"):
            getattr(self, name).merge(getattr(other, name))
        self.cost_before = _plus(self.cost_before, other.cost_before)
        self.cost_after = _plus(self.cost_after, other.cost_after)
        if self.rows is not None and other.rows:
            self.rows.extend(other.rows)

    @property
    def gross_tokens_saved(self) -> int:
        """Input tokens the caps and the policy took off the billed requests (summary requests added back)."""
        return self.before.input - self.after.input

    @property
    def net_tokens_saved(self) -> int:
        """The gross saving less what fetching removed outputs again would have re-sent."""
        return self.gross_tokens_saved - self.refetch_tokens


class Pricer:
    """Dollars of a modelled request: as billed (tiers), writes at the provider's cache-write price, or as
    uncached input where the provider charges none (OpenAI, Gemini)."""

    def __init__(self, model: str | None = None) -> None:
        self.model = model
        self._writes: dict[str, bool] = {}
        # the same split is priced again and again (before, under each policy, every request a policy left
        # alone): genai-prices takes ~0.2 ms a call, so each distinct one is priced once
        self._known: dict[tuple, Decimal | None] = {}

    def cost(self, u: Usage, split: prompt_cache.Split, hour: float, output: int) -> Decimal | None:
        """What `u` would have cost split as `split` with `output` output tokens; None when unpriced."""
        from ...scan.billing import charges_cache_writes, request_cost

        name = u.model or self.model
        if name is None:
            return None
        if name not in self._writes:
            self._writes[name] = charges_cache_writes(name)
        write, uncached = (split.write, split.uncached) if self._writes[name] else (0, split.uncached + split.write)
        long = round(write * hour)
        key = (name, uncached, write, split.read, output, long)
        if key not in self._known:
            if len(self._known) >= PRICED:
                self._known.clear()  # bounded: a fleet's corpus must not grow it without end
            modelled = replace(u, input_uncached=uncached, cache_write=write, cache_read=split.read, output=output,
                               cache_write_1h=long)
            self._known[key] = request_cost(modelled, name)
        return self._known[key]


def _plus(total: Decimal | None, cost: Decimal | None) -> Decimal | None:
    return total if cost is None else (total or Decimal(0)) + cost


def _hour(u: Usage) -> float:
    """The share of a request's cache writes that were 1-hour writes (its modelled writes keep it)."""
    return u.cache_write_1h / u.cache_write if u.cache_write else 0.0


class ContextRun:
    """Every context of a simulation through one policy: `add` each file's contexts, then read `tally` (and,
    with `by_group`, `groups`: one tally per group a context is added with, e.g. its collector)."""

    def __init__(self, policy, count: Callable[[str], int], *, pricer: Pricer | None = None,
                 per_request: bool = False, label: str = "", by_group: bool = False) -> None:
        self.policy, self.count, self.pricer, self.label = policy, count, pricer, label
        self.tally = self._new(per_request)
        self.groups: dict[str, ContextTally] | None = {} if by_group else None

    def _new(self, per_request: bool = False) -> ContextTally:
        return ContextTally(policy=self.policy.name if self.policy is not None else "none",
                            rows=[] if per_request else None)

    def add(self, key: tuple, timeline: Timeline, counted: list[bool], group: str | None = None) -> None:
        """One context (source, session, agent); `counted[r]`: whether request r is counted here (not a copy)."""
        base = timeline.base()
        positions = timeline.positions(base)
        effect = self.policy.apply(timeline, base, positions, self.count) if self.policy else unchanged(timeline, base)
        one = self._new(self.tally.rows is not None)  # this context's sums, worked out once, added where they go
        one.contexts = 1
        one.acted_contexts = int(any(m is not None for m in effect.removed_at) or bool(effect.summaries))
        billed = any(u is not None for u in timeline.requests)
        self._outputs(one, timeline, effect, billed)
        if billed:
            one.billed_contexts = 1
            self._bill(one, key, timeline, base, effect, counted)
        self.tally.merge(one)
        if self.groups is not None and group is not None:
            self.groups.setdefault(group, self._new()).merge(one)

    def _outputs(self, t: ContextTally, timeline: Timeline, effect: Effect, billed: bool) -> None:
        stays = getattr(self.policy, "stays", None)
        t.tool_tokens_before += sum(carried(timeline, [o.recorded for o in timeline.outputs]))
        t.tool_tokens_after += sum(effect.tool_tokens)
        for o, m in zip(timeline.outputs, effect.removed_at):
            if not o.counted or m is None or not o.first <= m < o.end:
                continue
            t.removed_calls += 1
            use = next((j for j in o.uses if m <= j < o.end), None)
            if use is not None and stays is not None:
                t.refetched += 1
                if billed:  # the net saving is the billed contexts': their refetches are what it is net of
                    t.refetch_tokens += o.tokens * stays(use, o.end)

    def _bill(self, t: ContextTally, key: tuple, timeline: Timeline, base: list[int], effect: Effect,
              counted: list[bool]) -> None:
        known = [r for r, u in enumerate(timeline.requests) if u is not None]
        requests = [timeline.requests[r] for r in known]
        starts = turn_starts(timeline)
        # alone, with no policy: its fit to the record
        modelled = prompt_cache.splits(requests, starts=[starts[r] for r in known])
        # after: each request's recorded split less what the policy took off it (prompt_cache.shifted)
        after = prompt_cache.shifted(requests, [effect.totals[r] for r in known], [effect.cut_at[r] for r in known],
                                     [effect.tail_removed[r] for r in known])
        if not any(u.cache_write for u in requests):
            # a provider that charges no cache write (OpenAI, Gemini: automatic caching): what is not read is input
            modelled, after = ([prompt_cache.Split(s.read, 0, s.uncached + s.write) for s in splits]
                               for splits in (modelled, after))
        summaries = {r: (read, out) for r, read, out in effect.summaries}
        if t.rows is not None:  # what each request still carries whole: those it carried, less those taken out
            whole = [c - g for c, g in zip(carried(timeline, [1] * len(timeline.outputs)),
                                           carried(timeline, [1] * len(timeline.outputs), effect.removed_at))]
        for r, u, m, a in zip(known, requests, modelled, after):
            if not counted[r]:
                continue
            hour = _hour(u)
            b = prompt_cache.Split(u.cache_read, u.cache_write, u.input_uncached)
            t.requests += 1
            t.before.add(b, hour, u.output)
            t.modelled.add(m, hour, u.output)
            t.after.add(a, hour, u.output)
            t.removed_by_caps += u.input_total - base[r]
            t.cache_invalidations += effect.cut_at[r] is not None
            extra = summaries.get(r)
            if extra is not None:  # the request that asked for the summary: the context so far, read from the cache
                t.compactions += 1
                t.after.add(prompt_cache.Split(extra[0], 0, 0), 0.0, extra[1])
            if self.pricer is not None:
                self._price(t, u, b, a, hour, extra)
            if t.rows is not None:
                t.rows.append(RequestRow(key[0], key[1], key[2], r, u.model, u.input_total, a.total, whole[r],
                                         effect.tool_tokens[r], effect.placeholders[r], a.read, a.write, a.uncached,
                                         effect.cut_at[r]))

    def _price(self, t: ContextTally, u: Usage, before, after, hour: float, extra) -> None:
        pricer = self.pricer
        cost = pricer.cost(u, before, hour, u.output)
        if cost is None:
            t.unpriced_requests += 1
            return
        t.cost_before = _plus(t.cost_before, cost)
        t.cost_after = _plus(t.cost_after, pricer.cost(u, after, hour, u.output))
        if extra is not None:
            t.cost_after = _plus(t.cost_after, pricer.cost(u, prompt_cache.Split(extra[0], 0, 0), 0.0, extra[1]))


def request_counted(seen: set[bytes], u: Usage | None) -> bool:
    """Whether request `u` is counted here: the first copy of it in the simulation."""
    if u is None:
        return False
    key = digest(request_key(u))
    if key in seen:
        return False
    seen.add(key)
    return True
