"""What `toolaudit watch` shows: the sessions written lately, per session and per tool (numbers only).

scan.job.live_snapshot reads the files through the scan cache (only the files that grew are read
again) and snapshot_of folds their rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from ..model import UNPAIRED, Measurement

LAST_OUTPUTS = 3


@dataclass(frozen=True)
class SessionLive:
    """One session being written: its tool outputs so far."""

    session: str
    source: str
    project: str  # the folder holding the transcript (Claude Code names it after the project)
    calls: int
    tokens: int
    top_tool: str
    last: tuple[int, ...]  # tokens of its last LAST_OUTPUTS outputs, oldest first
    updated: float  # the transcript's mtime (seconds since the epoch)


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
    """The folder a transcript is in; a Claude Code subagent's is its session's project, marked (sub)."""
    parents = PurePath(source).parents
    if parents[0].name == "subagents" and len(parents) > 2:
        return f"{parents[2].name} (sub)"
    return parents[0].name


def snapshot_of(rows: list[Measurement], mtimes: dict[str, float], window_s: float, taken: float, tok) -> Snapshot:
    """The Snapshot of the rows of the files in `mtimes` (path → mtime)."""
    by_session: dict[tuple[str, str], list[Measurement]] = {}
    tools: dict[str, list[int]] = {}
    for row in rows:
        if row.status == UNPAIRED:
            continue
        by_session.setdefault((row.source, row.session), []).append(row)
        tally = tools.setdefault(row.tool, [0, 0])
        tally[0] += 1
        tally[1] += row.tokens
    sessions = []
    for (source, session), kept in by_session.items():
        per_tool: dict[str, int] = {}
        for row in kept:
            per_tool[row.tool] = per_tool.get(row.tool, 0) + row.tokens
        top = max(per_tool.items(), key=lambda kv: (kv[1], kv[0]))[0]
        sessions.append(SessionLive(session, source, _project(source), len(kept),
                                    sum(r.tokens for r in kept), top,
                                    tuple(r.tokens for r in kept[-LAST_OUTPUTS:]), mtimes.get(source, 0.0)))
    sessions.sort(key=lambda s: (-s.updated, s.source, s.session))
    return Snapshot(tuple(sessions), tuple(sorted(((t, c, n) for t, (c, n) in tools.items()), key=lambda x: (-x[2], x[0]))),
                    len(mtimes), window_s, taken, tok.label, tok.estimated)
