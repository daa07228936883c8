"""Aggregate simulated cuts per tool and per policy map: savings beside what was hidden.

`weighted_tokens_saved` is tokens saved × residency: an output is re-sent with every
later request of its context until the session ends or is compacted, so this is the
saving on the bill. A call whose residency is unknown (no request positions in its
format) is weighted 1 and counted in `residency_unknown_calls`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Iterable

from ..results import Exportable, rows_frame
from ..model import Measurement, ScanMeta, Skipped
from .context.run import ContextRun, ContextTally, request_counted
from .context.timeline import Output, Timeline, build
from .engine import Cut, SimFile
from ..scan.dedupe import Dedupe
from ..scan.menu import keep_menu
from ..scan.billing import OutputDollars, OutputTally
from ..scan.stats import Savings

SKIPPED_SHOWN = 20


@dataclass(frozen=True)
class SimRow(Savings):
    """Savings and risk of one tool (or the total) under one policy map."""

    tool: str
    calls: int = 0
    affected_calls: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    chars_before: int = 0
    chars_after: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    weighted_tokens_saved: int = 0
    weighted_tokens_before: int = 0
    agent_truncated_calls: int = 0
    errors_cut: int = 0
    json_broken: int = 0
    later_used: int = 0
    residency_unknown_calls: int = 0
    selected_calls: int = 0  # calls a policy applied to (its tool selected), whether or not it cut them

    @property
    def affected_pct(self) -> float:
        return 100.0 * self.affected_calls / self.calls if self.calls else 0.0


@dataclass
class _Acc:
    values: Counter = field(default_factory=Counter)

    def add(self, m: Measurement, cut: Cut) -> None:
        weight = m.residency if m.residency is not None else 1
        v = self.values
        v["calls"] += 1
        v["affected_calls"] += cut.affected
        v["tokens_before"] += m.tokens
        v["tokens_after"] += cut.tokens_after
        v["chars_before"] += m.chars
        v["chars_after"] += cut.chars_after
        v["bytes_before"] += m.bytes
        v["bytes_after"] += cut.bytes_after
        v["weighted_tokens_saved"] += (m.tokens - cut.tokens_after) * weight
        v["weighted_tokens_before"] += m.tokens * weight
        v["agent_truncated_calls"] += m.agent_truncated
        v["errors_cut"] += cut.errors_cut
        v["json_broken"] += cut.json_broken
        v["later_used"] += cut.later_used
        v["residency_unknown_calls"] += m.residency is None
        v["selected_calls"] += cut.selected

    def row(self, tool: str) -> SimRow:
        return SimRow(tool, **self.values)


@dataclass(frozen=True)
class Variant:
    """The result of one policy map: per-tool rows (largest saving first) and totals; with a context
    policy, what it did to the contexts and the bill."""

    label: str
    policies: tuple[str, ...]
    totals: SimRow
    tools: tuple[SimRow, ...]
    context: ContextTally | None = None
    dollars: OutputDollars | None = None  # what its caps save, priced as scan prices tool outputs (estimated)


@dataclass(frozen=True)
class Explained:
    """One affected call shown by --explain."""

    tool: str
    where: str
    tokens_before: int
    tokens_after: int
    chars_before: int
    chars_after: int
    hidden: tuple[str, ...]
    hidden_preview: str | None
    used_at: str | None


@dataclass
class SimCollected:
    """Every file folded in, deduplicated by call id (the first copy wins)."""

    labels: list[str]
    policies: list[tuple[str, ...]]
    explain: int = 0
    files: int = 0
    skipped_count: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    unrecognised: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    agent_cut: Counter = field(default_factory=Counter)
    explained: list[Explained] = field(default_factory=list)
    follows_session: bool = False  # a map's preset takes each session's recorded cap: count them
    recorded: dict[str, bool] = field(default_factory=dict)  # session -> it recorded its own cap
    # context policies: per variant, (the policy map it runs on, a ContextRun); empty without --context
    context: list[tuple[int, ContextRun]] = field(default_factory=list)
    context_swept: bool = False  # the variants are a context policy's swept values, on one map
    model: str | None = None  # prices the calls whose transcript names no model (--model)

    def __post_init__(self) -> None:
        self.dedupe = Dedupe()
        self._tools = [dict() for _ in self.labels]
        self._totals = [_Acc() for _ in self.labels]
        self._dollars = [OutputTally(self.model) for _ in self.labels]
        self._requests: set[bytes] = set()  # the requests counted so far (scan.dedupe.request_key digests)
        self.collectors: dict[str, Counter] = {}  # tool -> calls per collector (which agent's sessions: advise)
        self.models: dict[str, Counter] = {}  # tool -> calls per model (what its tokens cost: advise)
        self.sessions: dict[str, set] = {}  # tool -> the sessions that called it (the evidence behind advice)
        self.fields: dict[str, Counter] = {}  # MCP tool -> tokens per JSON key path (with fields: advise)
        self.menus: dict[tuple, object] = {}  # the tool definitions requests carried, once per session (scan.menu)

    def add(self, sim: SimFile) -> None:
        """Fold one file's calls and cuts in."""
        if sim.error is not None:
            (self.unrecognised if "recognises" in sim.error else self.errors).append(f"{sim.source}: {sim.error}")
            return
        self.files += 1
        for session, recorded in sim.sessions:
            self.recorded[session] = self.recorded.get(session, False) or recorded
        for skip in sim.skipped:
            self.skipped_count += 1
            if len(self.skipped) < SKIPPED_SHOWN:
                self.skipped.append(skip)
        kept = []
        for i, m in enumerate(sim.calls):
            kept.append(self.dedupe.answered(m.dedupe_key))
            if not kept[-1]:  # scan's dedupe: the same copies dropped, the same count
                continue
            self.collectors.setdefault(m.tool, Counter())[m.collector] += 1
            self.models.setdefault(m.tool, Counter())[m.model] += 1
            self.sessions.setdefault(m.tool, set()).add(m.session)
            if sim.trace is not None and sim.trace.shares and sim.trace.shares[i]:
                self.fields.setdefault(m.tool, Counter()).update(dict(sim.trace.shares[i]))
            if m.truncated_by:
                self.agent_cut[m.truncated_by] += 1
            for v, cuts in enumerate(sim.cuts):
                cut = cuts[i]
                self._tools[v].setdefault(m.tool, _Acc()).add(m, cut)
                self._totals[v].add(m, cut)
                self._dollars[v].add(m.model, m.tokens, cut.tokens_after, m.residency)
            first = sim.cuts[0][i] if sim.cuts else None
            if first is not None and first.affected and len(self.explained) < self.explain:
                self.explained.append(Explained(
                    m.tool, f"{m.source}:{m.line}", m.tokens, first.tokens_after, m.chars, first.chars_after,
                    first.hidden, first.hidden_preview, first.used_at))
        for key in sim.unanswered:
            self.dedupe.unanswered(key, key)
        if sim.trace is not None:
            for menu in sim.trace.menus:
                keep_menu(self.menus, menu)
        if self.context and sim.trace is not None:
            self._contexts(sim, kept)

    def _contexts(self, sim: SimFile, kept: list[bool]) -> None:
        """Each context of the file through every context policy variant."""
        tl = sim.trace
        usage: dict[tuple, list] = {}
        for u in tl.usage:
            usage.setdefault((u.source, u.session, u.agent), []).append(u)
        calls: dict[tuple, list[int]] = {}
        for i, m in enumerate(sim.calls):
            if m.request_index is not None and m.residency is not None:
                calls.setdefault((m.source, m.session, m.agent), []).append(i)
        for key in sorted(usage.keys() | calls.keys(), key=lambda k: tuple(map(str, k))):
            timelines: dict[int, Timeline] = {}  # per policy map: the outputs as its caps left them
            counted: list[bool] | None = None
            for m, run in self.context:
                if m not in timelines:
                    cuts = sim.cuts[m]
                    timelines[m] = build(usage.get(key, []), [
                        Output(sim.calls[i].request_index, sim.calls[i].request_index + sim.calls[i].residency,
                               cuts[i].tokens_after, sim.calls[i].tokens, sim.calls[i].tool, tl.uses[i],
                               tl.args_tokens[i], kept[i]) for i in calls.get(key, [])])
                if counted is None:  # every map's timeline has the same requests: each counted once here
                    counted = [request_counted(self._requests, u) for u in timelines[m].requests]
                run.add(key, timelines[m], counted, sim.collector)

    @property
    def duplicates(self) -> int:
        """Copies of a call dropped (scan.dedupe)."""
        return self.dedupe.duplicates

    def size_variants(self) -> list[Variant]:
        """One Variant per policy map, tools sorted by tokens saved (no context policy)."""
        out = []
        for label, policies, tools, totals, dollars in zip(self.labels, self.policies, self._tools, self._totals,
                                                           self._dollars):
            rows = sorted((acc.row(tool) for tool, acc in tools.items()), key=lambda r: (-r.tokens_saved, -r.tokens_before, r.tool))
            out.append(Variant(label, policies, totals.row("TOTAL"), tuple(rows), dollars=dollars.finish()))
        return out

    def variants(self) -> list[Variant]:
        """One Variant per policy map (or per context policy, when those are swept), tools sorted by tokens saved."""
        out = self.size_variants()
        if not self.context:
            return out
        if self.context_swept:
            return [replace(out[m], label=run.label, context=run.tally) for m, run in self.context]
        return [replace(v, context=run.tally) for v, (_, run) in zip(out, self.context)]


def collect(sims: Iterable[SimFile], labels: list[str], policies: list[tuple[str, ...]], explain: int = 0,
            follows_session: bool = False) -> SimCollected:
    """Fold SimFiles into one SimCollected."""
    collected = SimCollected(labels, policies, explain, follows_session=follows_session)
    for sim in sims:
        collected.add(sim)
    return collected


@dataclass(frozen=True)
class SimResult(Exportable):
    """The whole answer of `simulate`: one Variant per policy map (several when sweeping).

    `.to_pandas()`: one row per (variant, tool); `"totals"`: one per variant; `"explained"`; `"requests"` (with a
    context policy and `per_request`): each request's counterfactual context.
    """

    frames = {"tools": lambda r: _variant_frame(r, lambda v: v.tools),
              "totals": lambda r: _variant_frame(r, lambda v: (v.totals,)),
              "explained": lambda r: rows_frame(r.explained),
              # with a context policy and per_request: each request's counterfactual context (first variant)
              "requests": lambda r: rows_frame((r.variants[0].context.rows or ()) if r.variants[0].context else ())}

    meta: ScanMeta
    variants: tuple[Variant, ...]
    files: int
    duplicates_dropped: int
    skipped_count: int
    skipped: tuple[Skipped, ...] = ()
    unrecognised: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    agent_cut: tuple[tuple[str, int], ...] = ()  # how often each agent's own cap fired
    explained: tuple[Explained, ...] = ()
    preset: str | None = None
    sweep: str | None = None  # the swept parameter; variant labels hold its values
    spec: dict | None = None  # policymap.spec_of: what decides the policies, to run them again
    kind: str = "simulate"
    # (recorded, default): sessions whose own recorded cap the preset applied, and those that got
    # the model family's default; None when no preset follows the session
    session_caps: tuple[int, int] | None = None
    context: str | None = None  # the context policy, described (None: none asked for)


def _variant_frame(result: "SimResult", rows):
    """Each variant's rows, its label (the swept value; "" for one policy) first."""
    import pandas as pd

    frames = [rows_frame(rows(v), {"variant": v.label}) for v in result.variants]
    return pd.concat(frames, ignore_index=True) if frames else rows_frame(())


def result(collected: SimCollected, meta, *, preset: str | None = None, sweep: str | None = None,
           spec: dict | None = None, context: str | None = None) -> SimResult:
    """The SimResult of everything collected."""
    return SimResult(
        meta=meta, variants=tuple(collected.variants()), files=collected.files,
        duplicates_dropped=collected.duplicates, skipped_count=collected.skipped_count,
        skipped=tuple(collected.skipped), unrecognised=tuple(collected.unrecognised),
        errors=tuple(collected.errors), agent_cut=tuple(sorted(collected.agent_cut.items())),
        explained=tuple(collected.explained), preset=preset, sweep=sweep, spec=spec,
        session_caps=_session_caps(collected), context=context,
    )


def _session_caps(collected: SimCollected) -> tuple[int, int] | None:
    if not collected.follows_session:
        return None
    recorded = sum(collected.recorded.values())
    return recorded, len(collected.recorded) - recorded
