"""The recommendations: per tool the knee of its cap sweep, the context policy that saves most net, and the
MCP tools whose outputs cost most per call with the fields that make them (and whose definitions cost most,
where transcripts record them); ranked by net saving.

A cap's knee is the smallest cap whose risk stays in budget: the share of the tool's calls where the cut
hid something the agent used later (`later_used`) at most `max_later_used`. Its saving is context-weighted
(tokens saved × the requests that re-sent them). A context policy stays in budget when the outputs it
removed and the agent used later (`refetched`) are at most `max_refetch` of all calls, and it is never
recommended when it raises the priced bill: its saving is net of refetches and of the cache writes its
invalidations cost.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..model import ScanMeta
from ..results import Exportable, rows_frame
from ..scan.billing import usd
from ..scan.families import mcp_server
from ..simulate.context import describe, spec_of
from ..simulate.summary import SimCollected, SimRow
from . import settings
from .settings.base import Setting

FIELDS_SHOWN = 5
MCP_MIN = 500  # tokens per call below which an MCP tool's outputs are not worth a finding
DEFINITION_MIN = 300  # tokens below which an MCP tool's definition is not worth a finding


@dataclass(frozen=True)
class Point:
    """One value of a recommendation's sweep: its saving and risk (the HTML draws the curve)."""

    value: str
    net_tokens_saved: int
    risk: float
    in_budget: bool


@dataclass(frozen=True)
class Recommendation:
    """One change worth making."""

    kind: str  # cap, context, mcp
    tools: tuple[str, ...]
    policy: str  # what simulate would be asked: max_chars=5000, mask:keep=10, …
    net_tokens_saved: int
    risk: float  # later_used (cap) or refetched (context) share of calls
    setting: Setting | None
    why: str  # one line of evidence
    policy_file: str | None = None  # where no setting exists: the table for `simulate --policy-file`
    curve: tuple[Point, ...] = ()
    cost_before_usd: float | None = None
    cost_after_usd: float | None = None
    fields: tuple[tuple[str, int], ...] = ()  # mcp: JSON key paths by tokens
    per_char: float = 0.0  # cap: the tools' tokens per char (a setting in tokens is the cap × this)
    cap: int = 0  # cap: the chars chosen


@dataclass(frozen=True)
class AdviceResult(Exportable):
    """What `toolaudit advise` prints: recommendations ranked by net saving, and what they rest on."""

    frames = {"recommendations": lambda r: rows_frame(
        [{**{k: getattr(x, k) for k in ("kind", "policy", "net_tokens_saved", "risk", "why")},
          "tools": ",".join(x.tools), "setting": x.setting.name if x.setting else None} for x in r.recommendations])}

    meta: ScanMeta
    recommendations: tuple[Recommendation, ...]
    calls: int
    files: int
    agents: tuple[tuple[str, int], ...]  # collector -> calls
    budget: tuple[float, float]  # (max_later_used, max_refetch)
    rejected: tuple[str, ...] = ()  # candidates left out, and why
    skipped_count: int = 0
    errors: tuple[str, ...] = ()
    unrecognised: tuple[str, ...] = ()
    kind: str = "advise"


def _agent(counts: Counter | None) -> str | None:
    return counts.most_common(1)[0][0] if counts else None


def _caps(sink: SimCollected, options, agents: dict[str, Counter]) -> list[Recommendation]:
    """Per tool, the knee of the cap sweep."""
    variants = sink.size_variants()[:len(options.caps)]
    by_tool: dict[str, list[tuple[int, SimRow]]] = {}
    for cap, variant in zip(options.caps, variants):
        for row in variant.tools:
            by_tool.setdefault(row.tool, []).append((cap, row))
    out = []
    for tool, points in by_tool.items():
        calls = points[0][1].calls
        if calls < options.min_calls:
            continue
        # a cut that hid something used later, or a failure signal, is a risky one (counted apart: an upper bound)
        risks = [(row.later_used + row.errors_cut) / calls for _, row in points]
        curve = tuple(Point(str(cap), row.weighted_tokens_saved, risk, risk <= options.max_later_used)
                      for (cap, row), risk in zip(points, risks))
        knee = next((i for i, p in enumerate(curve) if p.in_budget and p.net_tokens_saved > 0), None)
        if knee is None:
            continue
        (cap, row), risk = points[knee], risks[knee]
        tokens_per_char = row.tokens_before / row.chars_before if row.chars_before else 0.25
        agent = _agent(agents.get(tool))
        setting = settings.for_cap(agent, tool, cap, round(cap * tokens_per_char))
        out.append(Recommendation(
            "cap", (tool,), f"max_chars={cap}", row.weighted_tokens_saved, risk,
            setting, f"{tool} ({agent}): {row.affected_calls} of {calls} calls cut at {cap:,} chars save "
            f"{row.weighted_tokens_saved:,} re-sent tokens; {row.later_used} hid something used later, "
            f"{row.errors_cut} a failure signal",
            None if setting else f'["{tool}"]\nmax_chars = {cap}', curve, per_char=tokens_per_char, cap=cap))
    return _one_per_setting(out, agents)


def _one_per_setting(recs: list[Recommendation], agents: dict[str, Counter]) -> list[Recommendation]:
    """One recommendation per (agent, setting): a setting that governs several tools (Codex's one output limit,
    Claude Code's MCP limit, OpenHands' message cap) takes the largest of their knees, so that each of them stays
    in budget, and its saving and risk are theirs at that value."""
    groups: dict[tuple[str, str], list[Recommendation]] = {}
    for rec in recs:
        if rec.setting is not None:
            groups.setdefault((rec.setting.agent, rec.setting.name), []).append(rec)
    merged = {id(r) for members in groups.values() if len(members) > 1 for r in members}
    out = [r for r in recs if id(r) not in merged]
    for members in groups.values():
        if len(members) < 2:
            continue
        cap = max(r.cap for r in members)
        points = [next((p for p in r.curve if p.value == str(cap)), None) for r in members]
        saved = sum(p.net_tokens_saved for p in points if p is not None)
        risk = max((p.risk for p in points if p is not None), default=0.0)
        tools = tuple(t for r in members for t in r.tools)
        per_char = sum(r.per_char for r in members) / len(members)
        agent = _agent(agents.get(tools[0]))  # the collector whose sessions these tools came from
        setting = settings.for_cap(agent, tools[0], cap, round(cap * per_char))
        out.append(Recommendation(
            "cap", tools, f"max_chars={cap}", saved, risk, setting,
            f"{', '.join(tools)} ({agent}): one setting for all of them; at {cap:,} chars, the largest of their knees, "
            f"they save {saved:,} re-sent tokens", None, (), per_char=per_char, cap=cap))
    return out


def _context(sink: SimCollected, options, agents: Counter) -> tuple[list[Recommendation], list[str]]:
    """Per agent (collector), the context policy that saves most net of refetches, within budget and without
    raising that agent's bill."""
    runs = [run for _, run in sink.context][1:]  # the first is no policy: the record
    out, rejected = [], []
    for agent, calls in agents.most_common():
        tallies = [(run.policy, run.groups.get(agent)) for run in runs]
        tallies = [(p, t) for p, t in tallies if t is not None]
        fit = []
        for policy, t in tallies:
            label = f"{agent}: {spec_of(policy)}"
            if t.net_tokens_saved <= 0:
                continue
            if t.refetched / calls > options.max_refetch:
                rejected.append(f"{label}: {t.refetched} refetched outputs ({t.refetched / calls:.1%} of calls) "
                                f"over the budget of {options.max_refetch:.1%}")
            elif t.cost_before is not None and t.cost_after is not None and t.cost_after > t.cost_before:
                rejected.append(f"{label}: saves {t.net_tokens_saved:,} tokens but raises the bill "
                                f"${usd(t.cost_before):,.2f} → ${usd(t.cost_after):,.2f} (the cache reads it loses)")
            else:
                fit.append((policy, t))
        if not fit:
            continue
        policy, t = max(fit, key=lambda pt: pt[1].net_tokens_saved)
        kept = {id(c) for _, c in fit}
        curve = tuple(Point(spec_of(p), c.net_tokens_saved, c.refetched / calls, id(c) in kept)
                      for p, c in tallies if p.name == policy.name)
        why = (f"{agent} sessions, {describe(policy)}: input {t.before.input:,} → {t.after.input:,} tokens, "
               f"{t.refetched} refetched, {t.cache_invalidations} cache invalidations")
        out.append(Recommendation("context", (), spec_of(policy), t.net_tokens_saved, t.refetched / calls,
                                  settings.for_context(agent, policy), why, None, curve, usd(t.cost_before),
                                  usd(t.cost_after)))
    return out, rejected


def _mcp(sink: SimCollected, agents: dict[str, Counter]) -> list[Recommendation]:
    """MCP tools of MCP_MIN tokens per call or more (largest first), with the JSON fields that make their size."""
    rows = [row for row in sink.size_variants()[-1].tools
            if mcp_server(row.tool) is not None and row.calls and row.tokens_before / row.calls >= MCP_MIN]
    out = []
    for row in sorted(rows, key=lambda r: (-r.tokens_before / r.calls, r.tool)):
        per_call = row.tokens_before // row.calls
        shares = sink.fields.get(row.tool, Counter())
        total = sum(shares.values())
        top = tuple(shares.most_common(FIELDS_SHOWN))
        said = ", ".join(f"{name} {100 * tokens / total:.0f}%" for name, tokens in top) if total else "not JSON"
        out.append(Recommendation(
            "mcp", (row.tool,), "trim its largest fields", 0, 0.0,
            settings.for_mcp(_agent(agents.get(row.tool)), per_call),
            f"{row.tool}: {row.calls} calls, {per_call:,} tokens per call, {row.weighted_tokens_before:,} re-sent; "
            f"fields by tokens: {said}", fields=top))
    return out


def _definitions(menu, agents: dict[str, Counter]) -> list[Recommendation]:
    """MCP tools whose definitions cost most: tokens × the requests that carried them (where recorded)."""
    if menu is None:
        return []
    found = [d for d in menu.definitions if mcp_server(d.tool) is not None and d.tokens >= DEFINITION_MIN]
    return [Recommendation("mcp", (d.tool,), "shorten the definition", 0, 0.0, None,
                           f"{d.tool}: its definition is {d.tokens:,} tokens, carried by {d.requests:,} requests "
                           f"({d.carried_tokens:,} tokens in all)")
            for d in sorted(found, key=lambda d: (-d.carried_tokens, d.tool))]


def rank(sink: SimCollected, options, meta: ScanMeta, menu=None) -> AdviceResult:
    """Every recommendation, ranked by net saving (MCP findings after, largest per call first)."""
    agents = {tool: counts for tool, counts in sink.collectors.items()}
    overall: Counter = Counter()
    for counts in agents.values():
        overall.update(counts)
    caps = _caps(sink, options, agents)
    context, rejected = _context(sink, options, overall)
    ranked = (sorted(caps + context, key=lambda r: -r.net_tokens_saved)[:options.top] + _mcp(sink, agents)[:3]
              + _definitions(menu, agents)[:3])
    return AdviceResult(meta, tuple(ranked), sum(overall.values()), sink.files, tuple(overall.most_common()),
                        (options.max_later_used, options.max_refetch), tuple(rejected), sink.skipped_count,
                        tuple(sink.errors), tuple(sink.unrecognised))
