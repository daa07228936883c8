"""Fidelity: how closely the agents' own tools, re-run now (the identity replay), reproduce the recording.

Per recorded tool that has an emulation: the calls, those replayed (the emulation answered), byte-identical,
identical but for the order of their lines (tools that order by file times), within ±1% tokens, and
the reason for every other call. A call whose identity replay does not match its recording (neither
identical nor reordered) is drifted: the state or the tool differs from the session's, so a variant
measured against it is reported apart (and left out of the saving unless --keep-drifted).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

IDENTICAL = "identical"
ORDER = "order"  # the same lines in another order
WITHIN = "within"  # within ±1% tokens
DIFFERS = "differs"
TOLERANCE = 0.01


def classify(recorded: str, replayed: str, recorded_tokens: int, replayed_tokens: int) -> str:
    """How a replayed output compares with the recorded one."""
    if recorded == replayed:
        return IDENTICAL
    if sorted(recorded.splitlines()) == sorted(replayed.splitlines()):
        return ORDER
    if abs(replayed_tokens - recorded_tokens) <= TOLERANCE * max(recorded_tokens, 1):
        return WITHIN
    return DIFFERS


def matches(kind: str) -> bool:
    """The identity replay reproduces the recording (its content; order aside)."""
    return kind in (IDENTICAL, ORDER)


ORDER_REASON = "the same lines in another order (by file times, or the disk's own order)"


# what an answer says when the path it was given is not there (a tool's error, a shell's)
ABSENT = ("does not exist", "No such file", "not found", "File not found", "ENOENT")
START_REASON = "differs at the session's first look at it (the start state: uncommitted changes, or another commit)"


def reason_for(kind: str, doubt: str, recorded: str, replayed: str, fresh: bool = False) -> str:
    """Why an identity replay is not byte-identical, in a few words; `fresh`: the session had neither edited nor
    read as recorded what the call reads (a difference is then in the state it started from)."""
    if kind == ORDER:
        return ORDER_REASON
    if doubt:
        return doubt
    if any(m in replayed[:300] for m in ABSENT) and not any(m in recorded[:300] for m in ABSENT):
        return "path absent now (created outside the recorded edits)"
    if kind == WITHIN:
        return "changed slightly since the session's state (within ±1% tokens)"
    return START_REASON if fresh else "changed since the session's state"


@dataclass(frozen=True)
class IdentityRow:
    """One recorded tool's fidelity (or the total)."""

    tool: str
    calls: int = 0
    replayed: int = 0
    identical: int = 0
    order_only: int = 0
    within_1pct: int = 0  # byte-identical and reordered ones included
    reasons: tuple[tuple[str, int], ...] = ()  # (reason, calls) for every call not byte-identical

    @property
    def rate(self) -> float | None:
        """The share of replayed calls within ±1% tokens of the recording."""
        return self.within_1pct / self.replayed if self.replayed else None


@dataclass
class _Acc:
    values: Counter = field(default_factory=Counter)
    reasons: Counter = field(default_factory=Counter)

    def add(self, kind: str | None, reason: str) -> None:
        self.values["calls"] += 1
        if kind is not None:
            self.values["replayed"] += 1
            self.values["identical"] += kind == IDENTICAL
            self.values["order_only"] += kind == ORDER
            self.values["within_1pct"] += kind in (IDENTICAL, ORDER, WITHIN)
        if kind != IDENTICAL:
            self.reasons[reason] += 1

    def row(self, tool: str) -> IdentityRow:
        reasons = tuple(sorted(self.reasons.items(), key=lambda kv: (-kv[1], kv[0])))
        return IdentityRow(tool, **self.values, reasons=reasons)


@dataclass
class Fidelity:
    """Every emulated call folded in, per recorded tool."""

    tools: dict[str, _Acc] = field(default_factory=dict)
    total: _Acc = field(default_factory=_Acc)

    def add(self, tool: str, kind: str | None, reason: str) -> None:
        """One call of an emulated tool: `kind` (classify) of its identity replay, None when it has none."""
        self.tools.setdefault(tool, _Acc()).add(kind, reason)
        self.total.add(kind, reason)

    def report(self) -> "IdentityReport | None":
        """The report, or None when no emulated tool was called."""
        if not self.total.values["calls"]:
            return None
        rows = sorted((acc.row(tool) for tool, acc in self.tools.items()), key=lambda r: (-r.calls, r.tool))
        return IdentityReport(self.total.row("TOTAL"), tuple(rows))


@dataclass(frozen=True)
class IdentityReport:
    """Fidelity in all and per tool."""

    totals: IdentityRow
    tools: tuple[IdentityRow, ...]


WHY_NOT = ("version", "not replayable", "unknown state", "drifted", "never ran", "no start commit", "path too long",
           "refused", "failed")


def reason_kind(text: str) -> str | None:
    """The kind of reason a reason's text says by itself (path too long, no start commit, version, not
    replayable), or None: the report's verdict reads reasons by it, why_not the calls."""
    if "component over 255 bytes" in text:
        return "path too long"
    if "no commit before the session" in text:
        return "no start commit"
    if "Claude Code version" in text or "version recorded" in text:
        return "version"
    if "not replayable" in text:
        return "not replayable"
    return None


def why_not(item, drifted: bool) -> str:
    """The kind of reason a call was not replayed ("" for a replayed one, and for calls kept for want of a mapping
    or a translation: the table counts those): version, not replayable, unknown state (a command before it may
    have changed what it reads), drifted, never ran, no start commit, path too long, else refused or failed."""
    text = " ".join((item.reason, item.identity_reason))
    if item.status == "never_ran":
        return "never ran"
    if item.status in ("kept", "not_translated", "duplicate") and not item.identity_reason:
        return ""
    kind = reason_kind(text)
    if kind in ("path too long", "no start commit"):
        return kind
    if drifted and item.doubt:
        return "unknown state"  # a command before it may have changed what it reads (its doubt names it)
    if kind:
        return kind
    if drifted:
        return "drifted"
    if item.status in ("refused", "failed"):
        return item.status
    return "" if item.status in ("replayed", "kept", "not_translated") else item.status
