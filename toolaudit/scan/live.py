"""What `toolaudit watch` shows: the sessions written lately, per session and per tool (numbers only).

scan.job.live_snapshot reads the files through the scan cache (only the files that grew are read
again) and snapshot_of folds their rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from ..model import MAIN_AGENT, UNPAIRED, Measurement

LAST_OUTPUTS = 3


@dataclass(frozen=True)
class SessionLive:
    """One session (or one of its subagents) being written: its tool outputs so far."""

    session: str
    source: str
    project: str  # where it worked (its SessionInfo's folder), else the folder holding the transcript
    calls: int
    tokens: int
    top_tool: str
    last: tuple[int, ...]  # tokens of its last LAST_OUTPUTS outputs, oldest first
    updated: float  # the transcript's mtime (seconds since the epoch)
    agent: str = MAIN_AGENT  # a subagent's id: one row per subagent, beside its session's


@dataclass(frozen=True)
class Snapshot:
    """The sessions written within the window, the newest first, and their tools."""

    sessions: tuple[SessionLive, ...]
    tools: tuple[tuple[str, int, int], ...]  # (tool, calls, tokens), the most tokens first
    files: int
    window_s: float
    taken: float  # when (seconds since the epoch)
    tokenizer: str
    estimated: bool

    @property
    def tokens(self) -> int:
        """Every listed session's tool-output tokens."""
        return sum(s.tokens for s in self.sessions)


def _project(source: str) -> str:
    """The project of a transcript whose session did not say where it worked: the folder it is in (Claude
    Code names it after the project), above a subagent's `subagents` folder, Gemini CLI's `chats` or
    Codex's dated folders (sessions/2026/01/17)."""
    for parent in PurePath(source).parents:
        if parent.name not in ("subagents", "chats") and not parent.name.isdigit() and not _uuid(parent.name):
            return parent.name
    return ""


def _uuid(name: str) -> bool:
    """Whether a folder is named after a session (a Claude Code session's folder of subagents)."""
    return len(name) == 36 and all(c in "0123456789abcdef-" for c in name.lower())


def snapshot_of(rows: list[Measurement], mtimes: dict[str, float], window_s: float, taken: float, tok,
                projects: dict[str, str] | None = None) -> Snapshot:
    """The Snapshot of the rows of the files in `mtimes` (path → mtime); `projects`: session → where it worked
    (FileResult.sessions). A session's subagents get a row each, their files or copies in one."""
    projects = projects or {}
    by_session: dict[tuple[str, str], list[Measurement]] = {}
    tools: dict[str, list[int]] = {}
    for row in rows:
        if row.status == UNPAIRED:
            continue
        by_session.setdefault((row.session, row.agent), []).append(row)
        tally = tools.setdefault(row.tool, [0, 0])
        tally[0] += 1
        tally[1] += row.tokens
    sessions = []
    for (session, agent), kept in by_session.items():
        per_tool: dict[str, int] = {}
        for row in kept:
            per_tool[row.tool] = per_tool.get(row.tool, 0) + row.tokens
        top = max(per_tool.items(), key=lambda kv: (kv[1], kv[0]))[0]
        source = max({r.source for r in kept}, key=lambda s: (mtimes.get(s, 0.0), s))  # the newest file of its rows
        sessions.append(SessionLive(session, source, projects.get(session) or _project(source), len(kept),
                                    sum(r.tokens for r in kept), top,
                                    tuple(r.tokens for r in kept[-LAST_OUTPUTS:]), mtimes.get(source, 0.0), agent))
    newest: dict[str, float] = {}
    for s in sessions:
        newest[s.session] = max(newest.get(s.session, 0.0), s.updated)
    # the newest session first, each followed by its subagents (newest first)
    sessions.sort(key=lambda s: (-newest[s.session], s.session, s.agent != MAIN_AGENT, -s.updated, s.agent))
    return Snapshot(tuple(sessions), tuple(sorted(((t, c, n) for t, (c, n) in tools.items()), key=lambda x: (-x[2], x[0]))),
                    len(mtimes), window_s, taken, tok.label, tok.estimated)
