"""Aggregate replayed calls per recorded tool: before → after (replayed), with the menu and the fidelity.

Every recorded call is accounted for exactly once: replayed, kept (no mapping: the recorded
output stands, after = before), not translated, never ran (the agent answered it itself: kept),
refused (a path outside the workspace, an edit tool), failed (crash, timeout, unusable arguments)
or a duplicate copy (dropped, as scan drops it). `before` is the identity replay (the agent's own
tool re-run now, in the same state) where the recorded tool has an emulation, else the recording
(`--before recorded`: always the recording). A call whose identity replay does not reproduce its
recording is drifted, as is a call without one read after an unreplayable command: counted in
`drifted`, left out of the sizes and the saving unless --keep-drifted.
`weighted_tokens_saved` is tokens saved × residency (the requests that re-sent the output), as in
`simulate`; a call of unknown residency is weighted once."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from ..results import Exportable, rows_frame
from ..model import Measurement, ScanMeta, Skipped, ToolCall, ToolMenu, strip_mcp_prefix
from ..tokenizers import Tokenizer
from ..scan.billing import OutputDollars, OutputTally
from ..scan.measure import measure, with_residency
from ..secrets.redact import preview
from ..simulate.engine import later_used
from ..scan.stats import Savings, nearest_rank
from .diffs import DiffEntry, Diffs
from .fidelity import Fidelity, IdentityReport, classify, matches, reason_for, why_not

STATUSES = ("replayed", "kept", "not_translated", "never_ran", "refused", "failed")
SKIPPED_SHOWN = 20
LISTED = 20  # new and fixed errors listed by name


@dataclass(frozen=True)
class ReplayRow(Savings):
    """One recorded tool (or the total): how its calls fared and their sizes before → after."""

    tool: str
    calls: int = 0
    replayed: int = 0
    kept: int = 0
    not_translated: int = 0
    never_ran: int = 0  # the agent answered the call itself: its recording stands
    refused: int = 0
    failed: int = 0
    drifted: int = 0  # left out of the sizes: the identity replay did not reproduce the recording
    checked: int = 0  # of the replayed: measured against an identity replay that reproduced its recording
    tokens_before: int = 0
    tokens_after: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    chars_before: int = 0
    chars_after: int = 0
    tokens_p50_before: int = 0
    tokens_p50_after: int = 0
    errors_before: int = 0
    errors_after: int = 0
    weighted_tokens_saved: int = 0
    weighted_tokens_before: int = 0
    later_used: int = 0  # the new output lacks an item of the recorded one that the model used later
    unrecorded: int = 0  # calls with no recorded output (a calls file): before counts 0
    as_tools: tuple[str, ...] = ()  # what the calls went to (grep, glob, the MCP tool...)


@dataclass(frozen=True)
class ErrorChange:
    """A call whose error flag changed: a new error (after only) or a fixed one (before only)."""

    tool: str
    where: str
    new: bool
    reason: str = ""


@dataclass(frozen=True)
class ExplainedCall:
    """One replayed call for --explain: sizes before/after and redacted previews."""

    tool: str
    as_tool: str
    where: str
    status: str
    tokens_before: int
    tokens_after: int
    bytes_before: int
    bytes_after: int
    args: str
    before: str
    after: str
    reason: str = ""
    used_at: str | None = None  # where the model used an item the new output lacks


@dataclass(frozen=True)
class MenuTool:
    """One tool definition of a menu and its tokens."""

    name: str
    tokens: int


@dataclass(frozen=True)
class Menu:
    """The tool definitions an implementation offers (MCP tools/list) and what they cost per request."""

    mapping: str
    tools: tuple[MenuTool, ...]
    tokens: int  # the whole menu, per request
    requests: int  # requests of the replayed sessions: each carried the menu
    before_tokens: int | None = None  # the recorded menu's tools that the new one replaces
    before_tools: tuple[MenuTool, ...] = ()

    @property
    def carried_tokens(self) -> int:
        """The menu's tokens × the requests that carried it."""
        return self.tokens * self.requests


@dataclass
class _Acc:
    values: Counter = field(default_factory=Counter)
    before: list[int] = field(default_factory=list)
    after: list[int] = field(default_factory=list)
    as_tools: set[str] = field(default_factory=set)

    def add(self, status: str, b: Measurement, a: Measurement, unrecorded: bool, as_tool: str,
            used_at: str | None, drifted: bool = False, checked: bool = False) -> None:
        v = self.values
        weight = b.residency if b.residency is not None else 1
        v["calls"] += 1
        if drifted:  # set aside: counted as drifted, not as replayed (the table and the identity line agree)
            v["drifted"] += 1
            return
        v[status] += 1
        if status in ("refused", "failed"):
            # nothing answered it: listed under its reason and counted as recorded, as a kept call is (no saving,
            # and every call's recorded tokens stay in the totals: they equal scan's)
            a = b
        v["checked"] += checked and status == "replayed"
        v["tokens_before"] += b.tokens
        v["tokens_after"] += a.tokens
        v["bytes_before"] += b.bytes
        v["bytes_after"] += a.bytes
        v["chars_before"] += b.chars
        v["chars_after"] += a.chars
        v["errors_before"] += b.is_error
        v["errors_after"] += a.is_error
        v["weighted_tokens_saved"] += (b.tokens - a.tokens) * weight
        v["weighted_tokens_before"] += b.tokens * weight
        v["unrecorded"] += unrecorded
        v["later_used"] += used_at is not None
        self.before.append(b.tokens)
        self.after.append(a.tokens)
        if as_tool:
            self.as_tools.add(as_tool)

    def row(self, tool: str) -> ReplayRow:
        return ReplayRow(tool, **self.values, tokens_p50_before=nearest_rank(self.before, 50),
                         tokens_p50_after=nearest_rank(self.after, 50), as_tools=tuple(sorted(self.as_tools)))


@dataclass
class ReplayCollected:
    """Every replayed file folded in."""

    tokenizer: Tokenizer
    explain: int = 0
    keep_drifted: bool = False  # --keep-drifted: drifted calls count in the sizes and the saving
    diff: int = 0  # --diff N
    files: int = 0
    duplicates: int = 0
    skipped_count: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    unrecognised: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reasons: Counter = field(default_factory=Counter)  # (status, reason) -> calls
    error_changes: list[ErrorChange] = field(default_factory=list)
    explained: list[ExplainedCall] = field(default_factory=list)
    recorded_menus: list[ToolMenu] = field(default_factory=list)
    requests: int = 0  # model requests of the sessions read (each would carry a new menu)
    new_errors: int = 0
    fixed_errors: int = 0
    from_calls_file: int = 0  # calls with no recorded output because a calls file holds none

    def __post_init__(self) -> None:
        self._tools: dict[str, _Acc] = {}
        self._total = _Acc()
        self.fidelity = Fidelity()
        self.diffs = Diffs(self.diff)
        self.drift_reasons: Counter = Counter()
        self.not_replayed: Counter = Counter()  # why each call was not replayed, by kind (why_not)
        self.uncertain_reproduced: Counter = Counter()  # tool -> replayed, doubted, yet matched (said apart)
        self.newer: set[tuple[str, str, str]] = set()  # (agent, version, newest read): replayed as the newest
        self.dollars = OutputTally()  # the sized calls' outputs before → after, priced with each call's model

    def add(self, replay_file) -> None:
        """Fold one runner.ReplayFile in."""
        if replay_file.error is not None:
            target = self.unrecognised if "recognises" in replay_file.error else self.errors
            target.append(f"{replay_file.source}: {replay_file.error}")
            return
        self.files += 1
        self.notes.extend(replay_file.notes)
        self.newer.update(replay_file.newer)
        for skip in replay_file.skipped:
            self.skipped_count += 1
            if len(self.skipped) < SKIPPED_SHOWN:
                self.skipped.append(skip)
        self.recorded_menus.extend(replay_file.menus)
        self.requests += sum(end.requests[-1] for end in replay_file.ends if end.requests)
        kept_items = [r for r in replay_file.calls if r.status != "duplicate"]
        self.duplicates += len(replay_file.calls) - len(kept_items)
        tok = self.tokenizer
        before = with_residency([measure(r.before, tok, previews=False) for r in kept_items], replay_file.ends)
        used = _later_used(replay_file, kept_items)
        for item, b in zip(kept_items, before):
            after_call = item.after or item.before
            recorded = b
            b, drifted = self._identity(item, b)
            a = b if item.after is None else measure(after_call, tok, previews=False)  # nothing re-run: after = before
            if item.after is not None and item.identity is not None and item.after.output == item.identity.output:
                a = b  # the variant is the identity replay itself (--identity)
            unrecorded, used_at = item.before.status == "unpaired", used.get(id(item.before))
            self.from_calls_file += unrecorded and item.before.collector == "toolaudit-jsonl"
            checked = item.identity is not None and item.after is not None and matches(  # --keep-drifted: not these
                classify(item.before.output, item.identity.output, 0, 0))
            if not drifted:  # the calls the token saving stands on; a refused or failed one keeps its recording
                self.dollars.add(recorded.model, b.tokens, b.tokens if item.status in ("refused", "failed")
                                 else a.tokens, b.residency)
            self._tools.setdefault(item.before.tool, _Acc()).add(item.status, b, a, unrecorded, item.as_tool, used_at,
                                                                 drifted, checked)
            self._total.add(item.status, b, a, unrecorded, "", used_at, drifted, checked)
            kind = why_not(item, drifted)
            if kind:
                self.not_replayed[kind] += 1
            if item.after is not None and item.identity is not None and not item.variant:
                # --identity: the variant is the agent's own tool: what differs is the replay from the recording
                self.diffs.add(item, recorded.tokens, b.tokens, b.tokens, item.before.output, recorded.tokens,
                               ("recorded", "identity"))
            elif item.after is not None and not drifted and item.status == "replayed":
                before_text = item.identity.output if item.identity is not None else item.before.output
                self.diffs.add(item, recorded.tokens, b.tokens if item.identity is not None else None, a.tokens,
                               before_text)
            if item.status != "replayed" or item.reason:
                self.reasons[(item.status, item.reason)] += 1
            if not drifted:
                self._note_errors(item, b, a)
            if item.after is not None and len(self.explained) < self.explain:
                self.explained.append(ExplainedCall(
                    item.before.tool, item.as_tool, f"{item.before.source}:{item.before.line}", item.status,
                    b.tokens, a.tokens, b.bytes, a.bytes, preview(after_call.args, 100),
                    preview(item.before.output, 160), preview(after_call.output, 160), item.reason, used_at))

    def _identity(self, item, recorded: Measurement) -> tuple[Measurement, bool]:
        """What the variant is measured against (the identity replay where there is one), and whether the call
        is drifted; the call's fidelity is counted here."""
        kind, reason = None, ""
        base = recorded
        if item.identity is not None:
            ident = measure(item.identity, self.tokenizer, previews=False)
            kind = classify(item.before.output, item.identity.output, recorded.tokens, ident.tokens)
            reason = reason_for(kind, item.doubt, item.before.output, item.identity.output, item.fresh)
            base = replace(ident, residency=recorded.residency)
        elif item.emulated:  # a probe's own reason is why its identity failed, not why it was kept
            first, second = (item.identity_reason, item.reason) if item.probe else (item.reason, item.identity_reason)
            reason = first or second or item.status
        # fidelity counts the calls something was re-run for (or that never ran): a call kept for want of a
        # translation says nothing about the emulation
        counted = item.after is not None or item.probe or item.status == "never_ran"
        if item.emulated and item.status != "duplicate" and counted:
            # a call in an uncertain state tests the state, not the emulation: counted apart, with the command (a
            # refused one, no version, under its refusal alone: never under both)
            doubt = item.doubt if item.status not in ("refused", "failed") else ""
            self.fidelity.add(item.before.tool, None if doubt else kind, doubt or reason)
        if item.after is None:  # kept (an identity probe at most): its recording stands, it drifts from nothing
            return recorded, False
        self.uncertain_reproduced[item.before.tool] += bool(item.doubt and kind and matches(kind)
                                                            and item.status == "replayed")
        # a call the variant refused or failed is not drifted: it is counted under its own reason
        drifted = item.status == "replayed" and ((kind is not None and not matches(kind)) or
                                                 (kind is None and bool(item.doubt)))
        # the variant answered but the agent's own tool could not (a version, a command not replayable): nothing
        # to measure it against, so it is set aside rather than compared with the recording
        unchecked = kind is None and item.emulated and item.status == "replayed" and not item.doubt
        drifted = drifted or unchecked
        if drifted:
            self.drift_reasons[(f"no identity replay: {reason}" if unchecked else reason) or item.doubt] += 1
        return base, bool(drifted) and not self.keep_drifted

    def _note_errors(self, item, b: Measurement, a: Measurement) -> None:
        if b.is_error == a.is_error or item.after is None:
            return
        if item.status != "replayed":
            return  # a refused or failed call answered nothing: it neither removed nor made an error
        if a.is_error:
            self.new_errors += 1
        else:
            self.fixed_errors += 1
        if len(self.error_changes) < LISTED:
            self.error_changes.append(ErrorChange(item.before.tool, f"{item.before.source}:{item.before.line}",
                                                  a.is_error, item.reason))

    def rows(self) -> tuple[ReplayRow, ...]:
        """Per recorded tool, largest saving first (ties by name)."""
        rows = (acc.row(tool) for tool, acc in self._tools.items())
        return tuple(sorted(rows, key=lambda r: (-r.tokens_saved, -r.tokens_before, r.tool)))

    def totals(self) -> ReplayRow:
        """Every call."""
        return self._total.row("TOTAL")


@dataclass(frozen=True)
class ReplayResult(Exportable):
    """The whole answer of `replay`. `.to_pandas()`: one row per recorded tool; `"explained"`, `"errors"`."""

    frames = {"tools": lambda r: rows_frame(r.tools), "explained": lambda r: rows_frame(r.explained),
              "errors": lambda r: rows_frame(r.error_changes)}

    meta: ScanMeta
    totals: ReplayRow
    tools: tuple[ReplayRow, ...]
    files: int
    duplicates_dropped: int
    skipped_count: int
    reasons: tuple[tuple[str, str, int], ...]  # (status, reason, calls), most calls first
    new_errors: int = 0
    fixed_errors: int = 0
    error_changes: tuple[ErrorChange, ...] = ()
    explained: tuple[ExplainedCall, ...] = ()
    menus: tuple[Menu, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    unrecognised: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    spec: dict | None = None  # what to run again: mappings, translate, sandbox limits (ci's replay baseline)
    identity: IdentityReport | None = None  # fidelity of the agents' own tools re-run, where emulated
    drift_reasons: tuple[tuple[str, int], ...] = ()  # (reason, calls) of the drifted calls
    diffs: tuple[DiffEntry, ...] = ()  # --diff N
    before: str = "identity"  # what the variant was measured against
    from_calls_file: int = 0  # of totals.unrecorded: calls of a calls file (the rest: a transcript lacked the result)
    not_replayed: tuple[tuple[str, int], ...] = ()  # (why_not kind, calls), most calls first
    newer: tuple[tuple[str, str, str], ...] = ()  # (agent, recorded version, newest read) replayed as the newest
    uncertain_reproduced: tuple[tuple[str, int], ...] = ()  # (tool, calls) replayed in an uncertain state, matched
    dollars: OutputDollars | None = None  # the sized calls' tool-output dollars before → after (estimated)
    kind: str = "replay"


def _later_used(replay_file, items) -> dict[int, str]:
    """id(recorded call) -> where the model later used an item that its new output lacks."""
    afters = {id(r.before): r.after.output for r in items if r.after is not None and r.before.status != "unpaired"}
    if not afters:
        return {}
    calls = [r for r in replay_file.stream if isinstance(r, ToolCall)]
    found = later_used(list(replay_file.stream), [afters.get(id(c)) for c in calls])
    return {id(c): at for c, at in zip(calls, found) if at is not None}


def result(collected: ReplayCollected, meta: ScanMeta, menus: tuple[Menu, ...] = (),
           spec: dict | None = None) -> ReplayResult:
    """The ReplayResult of everything collected."""
    reasons = sorted(((s, r, n) for (s, r), n in collected.reasons.items()), key=lambda t: (-t[2], t[0], t[1]))
    return ReplayResult(
        meta=meta, totals=collected.totals(), tools=collected.rows(), files=collected.files,
        duplicates_dropped=collected.duplicates, skipped_count=collected.skipped_count, reasons=tuple(reasons),
        new_errors=collected.new_errors, fixed_errors=collected.fixed_errors,
        error_changes=tuple(collected.error_changes), explained=tuple(collected.explained), menus=menus,
        skipped=tuple(collected.skipped), unrecognised=tuple(collected.unrecognised),
        errors=tuple(collected.errors), notes=tuple(collected.notes), spec=spec,
        identity=collected.fidelity.report(),
        drift_reasons=tuple(sorted(collected.drift_reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
        diffs=collected.diffs.entries(), from_calls_file=collected.from_calls_file,
        not_replayed=tuple(sorted(collected.not_replayed.items(), key=lambda kv: (-kv[1], kv[0]))),
        newer=tuple(sorted(collected.newer)), dollars=collected.dollars.finish(),
        uncertain_reproduced=tuple(sorted(((t, n) for t, n in collected.uncertain_reproduced.items() if n),
                                          key=lambda kv: (-kv[1], kv[0]))),
    )


def menu_of(mapping: str, defs, count, requests: int, recorded: list[ToolMenu] = (),
            renames: dict[str, str] | None = None) -> Menu:
    """A Menu from an implementation's ToolDefs, compared with the recorded definitions it replaces.

    `count` counts tokens of a definition's JSON. The recorded menu's tools whose name (or
    old name, through `renames`) the new menu offers are its "before".
    """
    tools = tuple(MenuTool(d.name, count(d.definition)) for d in defs)
    names = {t.name for t in tools}
    old_names = {old for old, new in (renames or {}).items() if new in names} | names
    before: dict[str, int] = {}
    for menu in recorded:
        for name, definition in menu.tools:
            if name in old_names or strip_mcp_prefix(name) in old_names:
                before.setdefault(name, count(definition))
    before_tools = tuple(MenuTool(n, t) for n, t in sorted(before.items()))
    return Menu(mapping, tools, sum(t.tokens for t in tools), requests,
                sum(before.values()) if before else None, before_tools)

