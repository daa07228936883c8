"""Sessions that ran one after another in one working tree: a later session starts where the earlier ones left it.

A session's recorded commit is HEAD when it began, not the files: work an earlier session left uncommitted
was still there. So before a session is replayed, the edits (and the uncertainty of the shell commands) of
every earlier session recorded in the same folder on the same commit are applied to its state, oldest first
(replay.state's `record`, as for its own calls). A session whose commit is not recorded (Claude Code's: the
start is found from the history, --at-session-start) is chained onto the earlier sessions recorded in its folder
that began after the commit it is replayed on was written, on whichever branch (uncommitted work stays in the
folder when a session switches branch, as `git checkout -b` does): those started from that commit too
(Entire's checkpoints hold such runs: one commit, the sessions that led to it one after another in one
folder). `read` is a first pass over the files given (and the `earlier` ones: read for this
alone); it keeps only the calls that change the state, with at most CUT characters of each output.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from ..collectors import discover
from ..model import SessionInfo, ToolCall
from .arguments import call_args
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

    def before(self, info: SessionInfo | None, first_ts: str | None, since: float | None = None,
               on: str | None = None) -> list[ToolCall]:
        """The calls of the sessions recorded in `info`'s folder on its commit that began before `first_ts`,
        oldest session first, each in the order it made them. A session that recorded no commit: those that
        recorded none either, in its folder, that began at or after `since` (the epoch the commit it is replayed
        on was written; None: any), and those that recorded `on`, the commit it is replayed on (a Codex session
        beside it; None: any)."""
        earlier = sorted((s for s in self._beside(info, first_ts, since, on) if s.first < first_ts),
                         key=lambda s: s.first)
        # a session still running when this one began: only what it had done by then (no call time: kept)
        return [call for s in earlier for call in s.calls if not call.ts or call.ts < first_ts]

    def during(self, info: SessionInfo | None, first_ts: str | None, since: float | None = None,
               on: str | None = None) -> list[ToolCall]:
        """The calls the same sessions as `before`'s made at or after `first_ts`, whenever they began, in the
        order of their times: sessions running side by side in one folder (Claude Code's agent teams: the lead
        and each teammate are sessions of their own, recorded with `teamName`/`agentName`, sharing the working
        tree) change what the other reads while it runs. A call with no time is left out: when it ran is
        unknown."""
        calls = [call for s in self._beside(info, first_ts, since, on) for call in s.calls
                 if call.ts and call.ts >= first_ts]
        return sorted(calls, key=lambda c: c.ts)

    def _beside(self, info: SessionInfo | None, first_ts: str | None, since: float | None,
                on: str | None) -> list[_Session]:
        """The other sessions `before` and `during` read (their filter: folder, commit, start)."""
        if info is None or not info.cwd or not first_ts:
            return []
        sessions = dict(self.by_place.get((info.cwd, info.commit or ""), {}))
        if not info.commit:
            sessions = {sid: s for sid, s in sessions.items() if _began(s, since)}
            for (cwd, commit), more in self.by_place.items():
                # on None: any commit (whether a scratch copy is needed is asked before the checkout)
                if cwd == info.cwd and commit and (on is None or _same(commit, on)):
                    sessions.update(more)
        return [s for sid, s in sessions.items() if sid != info.session]


def apply(state, calls: list[ToolCall]) -> None:
    """Take the earlier sessions' calls into a session's state (replay.state.SessionState), in order: their edits
    and shell commands as its own, and a whole-file Read (Claude Code's listing) as the file's text then, when the
    state holds another (an edit made outside the transcripts between them)."""
    for call in calls:
        args = _listing(call)
        if args is None:
            state.record(call)
            continue
        from .agents.claude_code.read import whole_text

        target = state.local(args["file_path"])
        try:
            now = target.read_text(encoding="utf-8").replace("\r\n", "\n") if target is not None else None
        except (OSError, UnicodeDecodeError):
            now = None
        if now != whole_text(call.output, args):
            state.learn(call, args)


def _listing(call: ToolCall) -> dict | None:
    """A Claude Code Read of a whole file (its recorded arguments), or None."""
    if call.collector != "claude-code" or call.tool != "Read" or call.is_error:
        return None
    from .agents.claude_code.read import whole_text

    args = call_args(call)
    ok = isinstance(args.get("file_path"), str)
    return args if ok and whole_text(call.output, args) is not None else None


def _same(a: str, b: str) -> bool:
    """Two commit ids (either may be abbreviated) that name one commit."""
    return bool(a and b) and (a.startswith(b) or b.startswith(a))


def _began(session: _Session, since: float | None) -> bool:
    """Whether the session began at or after `since` (an epoch; None: whenever)."""
    if since is None:
        return True
    try:
        return datetime.fromisoformat(session.first.replace("Z", "+00:00")).timestamp() >= since
    except ValueError:
        return False


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
                    elif _listing(record) is not None:  # kept whole: what the file held then
                        calls.setdefault(record.session, []).append(record)
        except (OSError, ValueError):
            continue
        for sid, info in infos.items():
            if info.cwd and sid in firsts:
                place = found.by_place.setdefault((info.cwd, info.commit or ""), {})
                kept = sorted(calls.get(sid, []), key=lambda c: (c.call_index, c.line))
                place[sid] = _Session(firsts[sid], kept)
    return found
