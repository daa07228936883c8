"""Sessions that ran one after another in one working tree: a later session starts where the earlier ones left it.

A session's recorded commit is HEAD when it began, not the files: work an earlier session left uncommitted
was still there. So before a session is replayed, the edits (and the uncertainty of the shell commands) of
every earlier session recorded in the same folder on the same commit are applied to its state, oldest first
(replay.state's `record`, as for its own calls). A session whose commit is not recorded (Claude Code's: the
start is found from the history, --at-session-start) is not chained. `read` is a first pass over the files
given; it keeps only the calls that change the state, with at most CUT characters of each output.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from ..collectors import discover
from ..model import SessionInfo, ToolCall
from .edits import is_mutating, is_patch_call
from .state import SHELL_TOOLS

CUT = 4096  # of a shell call's output: enough for the shell's own refusals (replay.shell_effects)


@dataclass
class _Session:
    first: str
    calls: list[ToolCall] = field(default_factory=list)


@dataclass
class Earlier:
    """The state-changing calls of every session read, by (recorded folder, recorded commit)."""

    by_place: dict[tuple[str, str], dict[str, _Session]] = field(default_factory=dict)

    def before(self, info: SessionInfo | None, first_ts: str | None) -> list[ToolCall]:
        """The calls of the sessions recorded in `info`'s folder on its commit that began before `first_ts`,
        oldest session first, each in the order it made them."""
        if info is None or not info.cwd or not info.commit or not first_ts:
            return []
        sessions = self.by_place.get((info.cwd, info.commit), {})
        earlier = sorted((s for sid, s in sessions.items() if sid != info.session and s.first < first_ts),
                         key=lambda s: s.first)
        # a session still running when this one began: only what it had done by then (no call time: kept)
        return [call for s in earlier for call in s.calls if not call.ts or call.ts < first_ts]


def read(files: list[Path], forced: str | None = None) -> Earlier:
    """The first pass: each session's place, start and state-changing calls (unreadable files are left out:
    the replay itself reports them)."""
    found = Earlier()
    for path in files:
        try:
            cls, doc = discover.detect(path, forced)
            if cls is None:
                continue
            infos: dict[str, SessionInfo] = {}
            calls: dict[str, list[ToolCall]] = {}
            firsts: dict[str, str] = {}
            for record in cls().records(path, doc):
                if isinstance(record, SessionInfo):
                    infos.setdefault(record.session, record)
                elif isinstance(record, ToolCall):
                    if record.ts and (record.session not in firsts or record.ts < firsts[record.session]):
                        firsts[record.session] = record.ts
                    if is_mutating(record) or is_patch_call(record) or record.tool in SHELL_TOOLS:
                        calls.setdefault(record.session, []).append(replace(record, output=record.output[:CUT]))
        except (OSError, ValueError):
            continue
        for sid, info in infos.items():
            if info.cwd and info.commit and sid in firsts:
                place = found.by_place.setdefault((info.cwd, info.commit), {})
                kept = sorted(calls.get(sid, []), key=lambda c: (c.call_index, c.line))
                place[sid] = _Session(firsts[sid], kept)
    return found
