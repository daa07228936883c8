"""Run recorded outputs through cap policies: before/after sizes and what each cut hid.

A call the agent had already cut (`agent_truncated`) is never cut again: its after
equals its before, so no policy is credited with a saving the agent made, and no
marker is re-cut into nonsense. Calls whose result never came are left out.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from itertools import islice
from typing import Iterable

from ..model import (UNPAIRED, Measurement, ModelText, OutputCap, SessionEnd, SessionInfo, Skipped, ToolCall,
                     ToolMenu, Usage)
from ..tokenizers import Tokenizer, sanitize, sanitized_size
from . import risk
from ..scan.measure import measure, with_residency
from ..secrets.redact import in_secret, preview

EXPLAIN_ITEMS = 5


@dataclass(frozen=True, slots=True)
class Cut:
    """One call under one policy map: the size after, and what the cut hid."""

    tokens_after: int
    chars_after: int
    bytes_after: int
    affected: bool
    errors_cut: bool = False
    json_broken: bool = False
    later_used: bool = False
    hidden: tuple[str, ...] = ()  # a few hidden items, for --explain
    used_at: str | None = None  # file:line where one of them was used later
    hidden_preview: str | None = None  # redacted start of the removed text, for --explain
    selected: bool = True  # a policy applied to the call (its tool selected), whether or not it cut


@dataclass(frozen=True)
class SimFile:
    """What simulating one file produced: base measurements and one Cut list per policy map."""

    source: str
    collector: str | None
    calls: tuple[Measurement, ...] = ()
    cuts: tuple[tuple[Cut, ...], ...] = ()
    skipped: tuple[Skipped, ...] = ()
    error: str | None = None
    sessions: tuple[tuple[str, bool], ...] = ()  # (session, whether it recorded its own output cap)
    unanswered: tuple[tuple, ...] = ()  # the dedupe keys of calls whose result never came (scan.dedupe)
    trace: "FileTrace | None" = None  # what context policies (and advise) need, when one is asked for


def _removed(before: str, after: str) -> tuple[int, int]:
    """Where the part of `before` missing from `after` is, roughly: between the common prefix and suffix."""
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return start, len(before) - end


def _cut(full: risk.Full, after: str, row: Measurement, tokenizer: Tokenizer, explain: bool) -> Cut:
    text = full.text
    return Cut(
        tokenizer.count_for(after, row.model), len(after), len(after.encode("utf-8")), True,
        errors_cut=risk.errors_cut(full, after), json_broken=risk.json_broken(full, after),
        # redacted as part of the whole output: a key block begun before the cut stays masked
        hidden_preview=preview(text, 120, *_removed(text, after)) if explain else None,
    )


@dataclass(frozen=True)
class FileTrace:
    """What a context policy needs of one file beyond the cuts: its requests' usage, and per call the
    requests whose answer first wrote an item of its output (`uses`) and its arguments' tokens."""

    usage: tuple[Usage, ...] = ()
    uses: tuple[tuple[int, ...], ...] = ()
    args_tokens: tuple[int, ...] = ()  # 0 each unless counted (`inputs`)
    shares: tuple[tuple[tuple[str, int], ...], ...] = ()  # with `fields`: an MCP output's tokens per JSON key path
    menus: tuple = ()  # with `fields`: the tool definitions requests carried (ToolMenu; measured by the pipeline)


def simulate_records(records: Iterable, maps: list, tokenizer: Tokenizer, *, explain: bool = False,
                     timeline: bool = False, fields: bool = False, inputs: bool = False
                     ) -> tuple[list[Measurement], list[list[Cut]], list[Skipped], tuple, FileTrace | None]:
    """Measure each call once, then apply every policy map (policymap.PolicyMap) and trace later use.

    Also returns (session, recorded) for each session with a call: whether the session
    recorded its own output cap (OutputCap), which a preset that follows the session applies.
    A versioned preset takes the range of the version each session recorded (SessionInfo).
    With `timeline`, also what a context policy needs (FileTrace); with `inputs` the calls' argument tokens
    in it (a clearing of tool inputs), and with `fields` the JSON key shares of MCP outputs and the menus
    (advise); else None.
    """
    stream, skipped, ends, caps, cap_now, versions, usage, menus = [], [], [], [], {}, {}, [], []
    for record in records:
        if isinstance(record, Usage):
            usage.append(record)
        elif isinstance(record, ToolMenu):
            menus.append(record)
        elif isinstance(record, Skipped):
            skipped.append(record)
        elif isinstance(record, SessionEnd):
            ends.append(record)
        elif isinstance(record, OutputCap):
            cap_now[(record.session, record.agent)] = record
        elif isinstance(record, SessionInfo) and record.version:
            versions.setdefault(record.session, record.version)
        elif isinstance(record, ModelText) or (isinstance(record, ToolCall) and record.status != UNPAIRED):
            stream.append(record)
            if isinstance(record, ToolCall):
                caps.append(cap_now.get((record.session, record.agent)))
    calls = [r for r in stream if isinstance(r, ToolCall)]
    sized = [sanitized_size(c.output) for c in calls]
    texts = [text for text, _ in sized]
    base = with_residency([measure(c, tokenizer, previews=False, text=text, size=size)
                           for c, (text, size) in zip(calls, sized)], ends)
    # evidence the model wrote, once for every policy map; an output's own items only
    # when some map cuts it (most outputs are never cut)
    events = _events(stream, _said(stream))
    firsts = None
    cuts: list[list[Cut]] = [[] for _ in maps]
    removed: list[list[set[str]]] = [[] for _ in maps]
    # call by call, every map in turn: what the checks work out of a full output (risk.Full)
    # serves each map's cut of it, and is dropped before the next call's
    for i, (call, text, row) in enumerate(zip(calls, texts, base)):
        full, later, held = None, None, []
        for m, policy_map in enumerate(maps):
            policy = None if row.agent_truncated else policy_map.policy_for(
                call.tool, call.model, caps[i], versions.get(call.session), call.collector)
            after = text if policy is None else policy.apply(text, lambda t, m=call.model: tokenizer.count_for(t, m))
            cut = None if after is text else _cut(full := full or risk.Full(text), after, row, tokenizer, explain)
            # no cap may make an output larger: where its marker costs more than it saves, the output stays whole
            if cut is None or cut.tokens_after > row.tokens or cut.bytes_after > row.bytes:
                cuts[m].append(Cut(row.tokens, row.chars, row.bytes, False, selected=policy is not None))
                removed[m].append(set())
                continue
            cuts[m].append(cut)
            if explain:  # every hidden item, to show
                removed[m].append(full.items - risk.items(after))
            else:  # only what the model writes first after the output can be hidden and used
                if later is None:
                    firsts = firsts or _first_said(events, calls)
                    later = firsts(i)
                removed[m].append(_first_hidden(full, after, later, held))
    all_cuts = [_trace(events, calls, texts, cuts[m], removed[m], explain) for m in range(len(maps))]
    recorded: dict[str, bool] = {}
    for call, cap in zip(calls, caps):
        recorded[call.session] = recorded.get(call.session, False) or cap is not None
    found = None
    if timeline:
        shares = ()
        if fields:
            from ..scan.families import mcp_server
            from ..scan.fields import json_shares

            shares = tuple(tuple(json_shares(text, tokenizer.count).items()) if mcp_server(c.tool) else ()
                           for c, text in zip(calls, texts))
        found = FileTrace(tuple(usage), tuple(later_uses(events, calls, texts, usage)),
                         tuple(tokenizer.count_for(sanitize(c.args), c.model) if inputs else 0 for c in calls), shares,
                         tuple(menus) if fields else ())
    return base, all_cuts, skipped, tuple(sorted(recorded.items())), found


def later_uses(events: list, calls: list[ToolCall], texts: list[str], usage: Iterable[Usage] = ()
               ) -> list[tuple[int, ...]]:
    """Per call, the requests whose answer first wrote an item of its output, after the output came.

    A context policy that removed the output before such a request left the agent without what it
    then wrote: the output would have had to be fetched again. The request of a place: where the
    transcript records usage, the request whose usage line is the first at or after the place (an answer's
    text and its usage share a message); else counted the way outputs are: after the output first carried
    by request k, what the model writes answers k (a call's arguments: its `request_index` − 1). One
    Aho-Corasick automaton per context over the items first written there finds them all in each output in
    one pass; each is then confirmed as an item.
    """
    first: dict[tuple, dict[str, tuple[int, int]]] = {}  # per context: item -> (event position, request)
    where: dict[int, tuple[tuple, int]] = {}
    current: dict[tuple, int] = {}
    index = {id(c): i for i, c in enumerate(calls)}
    answers: dict[tuple, tuple[list[int], list[int]]] = {}  # per context: usage lines and their requests, by line
    for u in sorted((u for u in usage if u.request_index is not None), key=lambda u: u.line):
        lines, requests = answers.setdefault((u.session, u.agent), ([], []))
        lines.append(u.line)
        requests.append(u.request_index)
    for position, (line, _, kind, record, items) in enumerate(events):
        ctx = (record.session, record.agent)
        if kind == "output":
            where[index[id(record)]] = (ctx, position)
            if record.request_index is not None:
                current[ctx] = max(current.get(ctx, 0), record.request_index)
            continue
        request = current.get(ctx, 0)
        if kind == "args" and record.request_index:
            request = max(request, record.request_index - 1)
        elif kind == "text" and ctx in answers:
            lines, requests = answers[ctx]
            at = bisect_left(lines, line)
            if at < len(lines):
                request = max(request, requests[at])
        seen = first.setdefault(ctx, {})
        for item in items:
            seen.setdefault(item, (position, request))
    searches = {ctx: risk.ItemSearch(list(items)) for ctx, items in first.items() if items}
    out: list[tuple[int, ...]] = []
    for i, text in enumerate(texts):
        ctx, position = where[i]
        search = searches.get(ctx)
        found = search.items_in(text) if search is not None and text else ()
        places = first.get(ctx, {})
        out.append(tuple(sorted({places[item][1] for item in found if places[item][0] > position})))
    return out


def _first_hidden(full: risk.Full, after: str, later: list[list[str]], held: list[set[str]]) -> set[str]:
    """The hidden items of a cut that the model writes first after the output, or none.

    Without --explain only whether a hidden item is used later, and where first, is
    reported: that is the earliest place the model writes one of them, so the items of
    later places need not be looked up in the full output (most of the lookups). `held`
    keeps, group by group of `later`, those the full output holds, for the next cut of it.
    """
    for k, group in enumerate(later):
        if k == len(held):
            full.locate_ahead(later[k:])
            held.append(full.held(group))
        gone = risk.missing_from(after, held[k]) if held[k] else held[k]
        if gone:
            return gone
    return set()


def _said(stream: list) -> list[set[str]]:
    """The evidence items of each record of `stream`: what the model wrote (a call's arguments, its text)."""
    return [risk.items(sanitize(r.text if isinstance(r, ModelText) else r.args)) for r in stream]


def _first_said(events: list, calls: list[ToolCall]):
    """`firsts(i)`: the items the model writes for the first time after call i's output, in its
    context, grouped by the place it first writes them, earliest place first.

    A context's places are listed once, in order; each call's answer is the tail of that list
    after its output (a slice found by bisection), not a new mapping of every item per call.
    """
    places: dict[tuple, list[list[str]]] = {}  # per context: the items first written at each place
    starts: dict[tuple, list[int]] = {}  # per context: where each of those places is
    known: dict[tuple, set[str]] = {}
    where: dict[int, tuple[tuple, int]] = {}
    index = {id(c): i for i, c in enumerate(calls)}
    for position, (_, _, kind, record, items) in enumerate(events):
        ctx = (record.session, record.agent)
        if kind == "output":
            where[index[id(record)]] = (ctx, position)
            continue
        seen = known.setdefault(ctx, set())
        new = [item for item in items if item not in seen]
        if new:
            seen.update(new)
            places.setdefault(ctx, []).append(new)
            starts.setdefault(ctx, []).append(position)

    def firsts(i: int) -> list[list[str]]:
        ctx, position = where[i]
        return places.get(ctx, [])[bisect_right(starts.get(ctx, ()), position):]

    return firsts


def _events(stream: list, said: list[set[str]]) -> list[tuple[int, int, str, object, set[str]]]:
    """The stream as (line, order, kind, record, items), in the order the model met them.

    A call's arguments count where the model wrote them (`call_line`), its output where the
    result came: so a call written beside another, before that one's output existed, is
    not "later" use of it.
    """
    events = []
    for order, (record, items) in enumerate(zip(stream, said)):
        if isinstance(record, ToolCall):
            events.append((record.call_line or record.line, order, "args", record, items))
            events.append((record.line, order, "output", record, set()))
        else:
            events.append((record.line, order, "text", record, items))
    # at one line, what the model wrote comes before the output it then received
    return sorted(events, key=lambda e: (e[0], e[2] == "output", e[1]))


def _trace(events: list, calls: list[ToolCall], texts: list[str], cuts: list[Cut],
           removed: list[set[str]], explain: bool) -> list[Cut]:
    """Mark the cuts whose hidden items the model used later in the same context.

    Items the model already wrote or sent before the output arrived do not count as hidden.
    With `explain`, keep a few hidden items to show: none that is, or lies in, a secret of
    the output (a line of a key block, a password's value).
    """
    known: dict[tuple, set[str]] = {}
    pending: dict[tuple, dict[str, list[int]]] = {}
    used: dict[int, str] = {}
    hidden_of: dict[int, tuple[str, ...]] = {}
    index = {id(c): i for i, c in enumerate(calls)}
    for line, _, kind, record, items in events:
        ctx = (record.session, record.agent)
        waiting = pending.setdefault(ctx, {})
        seen = known.setdefault(ctx, set())
        if kind != "output":
            if waiting:
                for item in items & waiting.keys():
                    for i in waiting.pop(item):
                        used.setdefault(i, f"{record.source}:{line}")
            if explain:  # without it, removed items are written first after their output: none is seen
                seen |= items
            continue
        i = index[id(record)]
        hidden = removed[i] - seen
        if hidden and explain:
            # paths and file names first: they say most about what was lost
            ranked = sorted(hidden, key=lambda s: ("/" not in s and "." not in s, -len(s), s))
            shown = (item for item in ranked if not in_secret(texts[i], item))
            hidden_of[i] = tuple(islice(shown, EXPLAIN_ITEMS))
        if hidden:
            for item in hidden:
                waiting.setdefault(item, []).append(i)
    out = []
    for i, cut in enumerate(cuts):
        if i in used or (explain and i in hidden_of):
            cut = replace(cut, later_used=i in used, used_at=used.get(i), hidden=hidden_of.get(i, ()))
        out.append(cut)
    return out


def later_used(stream: list, afters: list[str | None]) -> list[str | None]:
    """Where the model later used an item a call's output had and its new output `afters[i]` lacks.

    `stream` holds one file's ToolCalls and ModelTexts in the order the collector gave them;
    `afters` has one entry per ToolCall (None: the output stands). The answer, per call, is
    the `file:line` of the first later use, or None. replay asks this of its new outputs, as
    simulate asks it of its cuts: items the model wrote before the output came do not count.
    """
    calls = [r for r in stream if isinstance(r, ToolCall)]
    events = _events(stream, _said(stream))
    texts = [sanitize(c.output) for c in calls]
    firsts = None
    cuts, removed = [], []
    for i, (text, after) in enumerate(zip(texts, afters)):
        if after is None or after == text:
            cuts.append(Cut(0, 0, 0, False))
            removed.append(set())
            continue
        firsts = firsts or _first_said(events, calls)
        cuts.append(Cut(0, 0, 0, True))
        removed.append(_first_hidden(risk.Full(text), sanitize(after), firsts(i), []))
    return [cut.used_at if cut.later_used else None for cut in _trace(events, calls, texts, cuts, removed, False)]
