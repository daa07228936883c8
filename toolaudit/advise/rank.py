"""The recommendations: per agent setting the knee of its sweep, the context policy that saves most net, and
the MCP tools whose outputs cost most per call with the fields that make them (and whose definitions cost
most, where transcripts record them); ranked by dollars where prices exist, then by tokens.

A setting's sweep is simulated with the transformation the setting applies, on every tool it governs (acting.py):
Claude Code's Bash keeps the head, a refused Read is read again in parts, OpenHands' message cap cuts every
observation. Its knee is the smallest value whose risk stays in budget: the share of the governed tools' calls
where the cut hid something the agent used later (`later_used`) or a failure signal, at most `max_later_used`.
Its saving is context-weighted (tokens saved × the requests that re-sent them). A context policy stays in
budget when the outputs it removed and the agent used later (`refetched`) are at most `max_refetch` of all
calls, and it is never recommended when it raises the priced bill. A risk with nothing measured behind it (a
refusal the agent answers by reading again; a context policy that acted in fewer than MIN_CONTEXTS contexts or
removed nothing the agent could have used later) is None: unknown, not 0. Recommendations that save less than
`min_net_tokens`, and tools or policies the agent offers no setting for, are left out and listed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..model import ScanMeta
from ..results import Exportable, rows_frame
from ..scan.billing import usd
from ..scan.families import mcp_server
from ..simulate.context import agent_compaction, describe, spec_of
from ..simulate.summary import SimCollected, SimRow
from . import settings
from .acting import CHARS_PER_TOKEN, refused
from .settings.base import Setting

FIELDS_SHOWN = 5
MIN_CONTEXTS = 2  # a context policy's risk rests on the contexts it acted in: fewer is nothing measured
MCP_MIN = 500  # tokens per call below which an MCP tool's outputs are not worth a finding
DEFINITION_MIN = 300  # tokens below which an MCP tool's definition is not worth a finding


@dataclass(frozen=True)
class Point:
    """One value of a recommendation's sweep: its saving and risk (the HTML draws the curve)."""

    value: str
    net_tokens_saved: int
    risk: float | None  # None: nothing measured
    in_budget: bool


@dataclass(frozen=True)
class Recommendation:
    """One change worth making."""

    kind: str  # cap, context, mcp
    tools: tuple[str, ...]
    policy: str  # what simulate would be asked: max_chars=5000, mask:keep=10, …
    net_tokens_saved: int
    risk: float | None  # later_used + errors_cut (cap) or refetched (context) share of calls; None: not measured
    setting: Setting | None
    why: str  # one line of evidence
    policy_file: str | None = None  # where no setting exists: the table for `simulate --policy-file`
    curve: tuple[Point, ...] = ()
    cost_before_usd: float | None = None
    cost_after_usd: float | None = None
    fields: tuple[tuple[str, int], ...] = ()  # mcp: JSON key paths by tokens
    per_char: float = 0.0  # cap: the tools' tokens per char
    cap: int = 0  # cap: the chars chosen
    saved_usd: float | None = None  # what the net saving is worth (None: no price)
    evidence: tuple[int, int] = (0, 0)  # (sessions, events): the sessions and the calls or compactions behind it


def _frame_row(x: Recommendation) -> dict:
    """One recommendation as a notebook row: what to set, where, to what, and what it is worth."""
    setting = x.setting
    return {"kind": x.kind, "tools": ",".join(x.tools), "agent": setting.agent if setting else None,
            "setting": setting.name if setting else None, "value": setting.value if setting else None,
            "where": setting.where if setting else None, "policy": x.policy, "net_tokens_saved": x.net_tokens_saved,
            "saved_usd": x.saved_usd, "cost_before_usd": x.cost_before_usd, "cost_after_usd": x.cost_after_usd,
            "risk": x.risk, "evidence_sessions": x.evidence[0], "evidence_events": x.evidence[1], "why": x.why}


@dataclass(frozen=True)
class AdviceResult(Exportable):
    """What `toolaudit advise` prints: recommendations ranked by net saving, and what they rest on."""

    frames = {"recommendations": lambda r: rows_frame([_frame_row(x) for x in r.recommendations])}

    meta: ScanMeta
    recommendations: tuple[Recommendation, ...]
    calls: int
    files: int
    agents: tuple[tuple[str, int], ...]  # collector -> calls
    budget: tuple[float, float]  # (max_later_used, max_refetch)
    floor: int = 0  # the least net saving a recommendation needs (tokens)
    rejected: tuple[str, ...] = ()  # candidates left out, and why
    skipped_count: int = 0
    errors: tuple[str, ...] = ()
    unrecognised: tuple[str, ...] = ()
    kind: str = "advise"


def _agent(counts: Counter | None) -> str | None:
    return counts.most_common(1)[0][0] if counts else None


def _usd(sink: SimCollected, rows: list[SimRow], model: str | None) -> float | None:
    """What the tokens a cap takes off `rows` are worth: their first appearance at the cache-write price, every
    re-send at the cache-read price, each tool at its most common model's price; None where none has one."""
    from ..scan.billing import token_prices

    total, priced = 0.0, False
    for row in rows:
        name = _agent(sink.models.get(row.tool)) or model
        prices = token_prices(name) if name else None
        if prices is None:
            continue
        first, again = prices
        saved = row.tokens_before - row.tokens_after
        total += float(saved * first + (row.weighted_tokens_saved - saved) * again)
        priced = True
    return round(total, 6) if priced else None


def _sessions(sink: SimCollected, tools: tuple[str, ...]) -> int:
    return len(set().union(*(sink.sessions.get(t, set()) for t in tools)))


def _caps(sink: SimCollected, options, agents: dict[str, Counter]) -> tuple[list[Recommendation], list[str]]:
    """Per agent setting, the knee of its own sweep (acting); for an agent toolaudit knows no settings of (a
    harness of one's own), per tool the knee of a head-and-tail cut, as a policy file."""
    n = len(options.caps)
    variants = sink.size_variants()
    generic, own = variants[:n], variants[n:2 * n]
    rows: dict[str, list[SimRow]] = {}
    mine: dict[str, list[SimRow]] = {}
    for variant, into in ((generic, rows), (own, mine)):
        for v in variant:
            for row in v.tools:
                into.setdefault(row.tool, []).append(row)
    out, rejected = [], []
    groups: dict[tuple[str, str], list[str]] = {}
    for tool, points in rows.items():
        agent = _agent(agents.get(tool))
        if settings.knows(agent):
            setting = settings.for_cap(agent, tool, options.caps[0], options.caps[0] // CHARS_PER_TOKEN)
            if setting is None:
                if points[0].calls >= options.min_calls:
                    rejected.append(f"{tool} ({agent}): {agent} has no setting that caps it")
                continue
            # one group per setting of one agent, whichever of its collectors read the sessions (OpenHands V0, V1)
            groups.setdefault((setting.agent, setting.name), []).append((tool, agent))
            continue
        rec = _generic(sink, options, tool, agent, points)
        if rec is not None:
            out.append(rec)
    for (_, name), members in groups.items():
        members.sort()
        rec, why_not = _setting_knee(sink, options, members[0][1], tuple(t for t, _ in members), mine,
                                     {t: a for t, a in members})
        if rec is not None:
            out.append(rec)
        elif why_not:
            rejected.append(why_not)
    return out, rejected


def _generic(sink: SimCollected, options, tool: str, agent: str | None, points: list[SimRow]) -> Recommendation | None:
    """A head-and-tail cut's knee for a tool of an agent with no known settings: a policy file to try."""
    calls = points[0].calls
    if calls < options.min_calls:
        return None
    risks = [(row.later_used + row.errors_cut) / calls for row in points]
    curve = tuple(Point(str(cap), row.weighted_tokens_saved, risk, risk <= options.max_later_used)
                  for cap, row, risk in zip(options.caps, points, risks))
    knee = next((i for i, p in enumerate(curve) if p.in_budget and p.net_tokens_saved >= options.min_net_tokens), None)
    if knee is None:
        return None
    cap, row, risk = options.caps[knee], points[knee], risks[knee]
    return Recommendation(
        "cap", (tool,), f"max_chars={cap}", row.weighted_tokens_saved, risk, None,
        f"{tool} ({agent}): {row.affected_calls} of {calls} calls cut at {cap:,} chars (head and tail) save "
        f"{row.weighted_tokens_saved:,} re-sent tokens; {row.later_used} hid something used later, "
        f"{row.errors_cut} a failure signal", f'["{tool}"]\nmax_chars = {cap}', curve,
        per_char=row.tokens_before / row.chars_before if row.chars_before else 0.25, cap=cap,
        saved_usd=_usd(sink, [row], options.model), evidence=(_sessions(sink, (tool,)), row.affected_calls))


def _setting_knee(sink: SimCollected, options, agent: str, tools: tuple[str, ...], mine: dict[str, list[SimRow]],
                  collectors: dict[str, str] | None = None) -> tuple[Recommendation | None, str | None]:
    """One setting over every tool it governs, swept as the agent applies it: the smallest value in budget that
    saves at least the floor (or why there is none). `collectors`: each tool's collector (default `agent`)."""
    collectors = collectors or {}
    calls = sum(mine[t][0].calls for t in tools if t in mine)
    label = f"{', '.join(tools)} ({agent})"
    if calls < options.min_calls:
        return None, None
    if all(refused(collectors.get(t, agent), t) for t in tools):
        return None, (f"{label}: the setting refuses and the agent reads the content again in parts; "
                      "no saving or risk is measured")
    curve = []
    for k, cap in enumerate(options.caps):
        rows = [mine[t][k] for t in tools if t in mine]
        saved = sum(r.weighted_tokens_saved for r in rows)
        affected = sum(r.affected_calls for r in rows)
        risk = sum(r.later_used + r.errors_cut for r in rows) / calls if affected else None
        curve.append(Point(str(cap), saved, risk, risk is not None and risk <= options.max_later_used))
    knee = next((k for k, p in enumerate(curve) if p.in_budget and p.net_tokens_saved >= options.min_net_tokens), None)
    if knee is None:
        best = max(curve, key=lambda p: p.net_tokens_saved)
        return None, (f"{label}: no value in budget saves {options.min_net_tokens:,} tokens (at most "
                      f"{best.net_tokens_saved:,} at {int(best.value):,} chars)")
    cap = options.caps[knee]
    rows = [mine[t][knee] for t in tools if t in mine]
    point = curve[knee]
    affected = sum(r.affected_calls for r in rows)
    hidden = sum(r.later_used for r in rows)
    failures = sum(r.errors_cut for r in rows)
    setting = settings.for_cap(agent, tools[0], cap, cap // CHARS_PER_TOKEN)
    why = (f"{label}: {setting.name} = {setting.value} as {agent} applies it cuts {affected} of {calls} calls and "
           f"saves {point.net_tokens_saved:,} re-sent tokens; {hidden} hid something used later, {failures} a "
           "failure signal")
    chars = sum(r.chars_before for r in rows)
    return Recommendation("cap", tools, f"max_chars={cap}", point.net_tokens_saved, point.risk, setting, why, None,
                          tuple(curve), per_char=sum(r.tokens_before for r in rows) / chars if chars else 0.25,
                          cap=cap, saved_usd=_usd(sink, rows, options.model),
                          evidence=(_sessions(sink, tools), affected)), None


def _context(sink: SimCollected, options, agents: Counter) -> tuple[list[Recommendation], list[str]]:
    """Per agent (collector), the context policy with a setting in that agent that saves most net of
    refetches, at least the floor, within budget and without raising that agent's bill."""
    runs = [run for _, run in sink.context][1:]  # the first is no policy: the record
    out, rejected = [], []
    for agent, calls in agents.most_common():
        tallies = [(run.policy, run.groups.get(agent)) for run in runs]
        tallies = [(p, t) for p, t in tallies if t is not None]
        fit, unset = [], set()
        tallies = [(p, t) for p, t in tallies if p.name != "compact" or p == agent_compaction(agent, p.at)]
        for policy, t in tallies:
            label = f"{agent}: {spec_of(policy)}"
            if settings.knows(agent) and settings.for_context(agent, policy) is None:
                unset.add(policy.name)
                continue
            if t.net_tokens_saved < options.min_net_tokens:
                continue
            if t.refetched / calls > options.max_refetch:
                rejected.append(f"{label}: {t.refetched} refetched outputs ({t.refetched / calls:.1%} of calls) "
                                f"over the budget of {options.max_refetch:.1%}")
            elif t.cost_before is not None and t.cost_after is not None and t.cost_after > t.cost_before:
                rejected.append(f"{label}: saves {t.net_tokens_saved:,} tokens but raises the bill "
                                f"${usd(t.cost_before):,.2f} → ${usd(t.cost_after):,.2f} (the cache reads it loses)")
            else:
                fit.append((policy, t))
        rejected += [f"{agent}: {name}: {agent} has no setting for it" for name in sorted(unset)]
        if not fit:
            continue
        policy, t = max(fit, key=lambda pt: (_saved_usd(pt[1]) or 0.0, pt[1].net_tokens_saved))
        kept = {id(c) for _, c in fit}
        curve = tuple(Point(spec_of(p), c.net_tokens_saved, _context_risk(c, calls), id(c) in kept)
                      for p, c in tallies if p.name == policy.name)
        events = t.compactions if policy.name == "compact" else t.removed_calls
        why = (f"{agent} sessions, {describe(policy)}: input {t.before.input:,} → {t.after.input:,} tokens, "
               f"{t.refetched} refetched, {t.cache_invalidations} cache invalidations; it acted in "
               f"{t.acted_contexts} of {t.billed_contexts} contexts with usage")
        out.append(Recommendation("context", (), spec_of(policy), t.net_tokens_saved, _context_risk(t, calls),
                                  settings.for_context(agent, policy), why, None, curve, usd(t.cost_before),
                                  usd(t.cost_after), saved_usd=_saved_usd(t),
                                  evidence=(t.acted_contexts, events)))
    return out, rejected


def _context_risk(t, calls: int) -> float | None:
    """Refetched outputs over calls, or None when nothing stands behind it: the policy acted in fewer than
    MIN_CONTEXTS contexts, or removed no output the agent could still have used."""
    if t.acted_contexts < MIN_CONTEXTS or t.removed_calls == 0:
        return None
    return t.refetched / calls


def _saved_usd(t) -> float | None:
    before, after = usd(t.cost_before), usd(t.cost_after)
    return None if before is None or after is None else round(before - after, 6)


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
        # a finding, not a measured change: the server's fields are what to trim (a cap on MCP outputs, where the
        # agent has one, is a setting recommendation of its own, swept as the agent applies it)
        out.append(Recommendation(
            "mcp", (row.tool,), "trim its largest fields", 0, None, None,
            f"{row.tool}: {row.calls} calls, {per_call:,} tokens per call, {row.weighted_tokens_before:,} re-sent; "
            f"fields by tokens: {said}", fields=top, evidence=(_sessions(sink, (row.tool,)), row.calls)))
    return out


def _definitions(menu, agents: dict[str, Counter]) -> list[Recommendation]:
    """MCP tools whose definitions cost most: tokens × the requests that carried them (where recorded)."""
    if menu is None:
        return []
    found = [d for d in menu.definitions if mcp_server(d.tool) is not None and d.tokens >= DEFINITION_MIN]
    return [Recommendation("mcp", (d.tool,), "shorten the definition", 0, None, None,
                           f"{d.tool}: its definition is {d.tokens:,} tokens, carried by {d.requests:,} requests "
                           f"({d.carried_tokens:,} tokens in all)")
            for d in sorted(found, key=lambda d: (-d.carried_tokens, d.tool))]


def _order(r: Recommendation) -> tuple:
    """Dollars where a price exists, then tokens."""
    return (r.saved_usd is None, -(r.saved_usd or 0.0), -r.net_tokens_saved)


def rank(sink: SimCollected, options, meta: ScanMeta, menu=None) -> AdviceResult:
    """Every recommendation, ranked by dollars saved where priced, then tokens (MCP findings after, largest per
    call first)."""
    agents = {tool: counts for tool, counts in sink.collectors.items()}
    overall: Counter = Counter()
    for counts in agents.values():
        overall.update(counts)
    caps, cap_rejected = _caps(sink, options, agents)
    context, rejected = _context(sink, options, overall)
    ranked = (sorted(caps + context, key=_order)[:options.top] + _mcp(sink, agents)[:3]
              + _definitions(menu, agents)[:3])
    return AdviceResult(meta, tuple(ranked), sum(overall.values()), sink.files, tuple(overall.most_common()),
                        (options.max_later_used, options.max_refetch), options.min_net_tokens,
                        tuple(cap_rejected + rejected), sink.skipped_count, tuple(sink.errors),
                        tuple(sink.unrecognised))
