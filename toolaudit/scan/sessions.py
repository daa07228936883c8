"""Which session is which: each session's project, agent and start, for `scan --by session` and `watch`.

A session id alone (a UUID) tells a reader nothing; the folder the session worked in (its SessionInfo's
cwd, or Gemini CLI's project), the agent that wrote it and when it began do (as ccusage's session report).
The project is a path's last part: masked like every other name (secrets.redact.name).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import PurePosixPath, PureWindowsPath

from ..model import SessionInfo
from .periods import when_of

_HEXISH = re.compile(r"^[0-9a-fA-F]{8}(?:[-0-9a-fA-F]{4,})$")  # a UUID or a hex digest
SHORT_ID = 8


def project_of(info: SessionInfo) -> str | None:
    """The name of the folder `info`'s session worked in (the last part of its cwd, or of its project where no
    cwd is recorded), masked; None if unknown."""
    from ..secrets.redact import name

    where = info.cwd or info.project
    if not isinstance(where, str) or not where.strip():
        return None
    path = PureWindowsPath(where) if "\\" in where and "/" not in where else PurePosixPath(where)
    folder = (path.name or str(path)).strip()
    return name(folder, path=True) if folder else None


def short_id(session: str) -> str:
    """A session id as a terminal shows it: a UUID or hex digest by its first 8 characters (as git shows a
    commit), any other id (a task name, `run#3`) whole."""
    return session[:SHORT_ID] if len(session) > SHORT_ID + 4 and _HEXISH.match(session) else session


class About:
    """Each session's agent and earliest time, folded one call or request at a time (summary.Tally, --by session)."""

    def __init__(self) -> None:
        self.agent: dict[str, str] = {}
        self.start: dict[str, datetime] = {}

    def note(self, key: str, agent: str | None, ts: str | None) -> None:
        """A call or request of the session `key`: the first agent named wins, the earliest time is kept."""
        if agent and key not in self.agent:
            self.agent[key] = agent
        when = when_of(ts)
        if when is not None:
            known = self.start.get(key)
            if known is None or when < known:
                self.start[key] = when

    def rows(self) -> list[list]:
        """[session, agent, start as ISO 8601 in UTC] per session: a part's section (scan.parts)."""
        return [[key, self.agent.get(key), iso(self.start.get(key))] for key in {**self.agent, **self.start}]

    def merge(self, rows: list) -> None:
        """Fold in another file's `rows()`."""
        for key, agent, start in rows:
            self.note(key, agent, start)

    def of(self, key: str) -> tuple[str | None, str | None]:
        """(agent, start ISO 8601 in UTC) of the session `key`."""
        return self.agent.get(key), iso(self.start.get(key))


def iso(when: datetime | None) -> str | None:
    """`when` as ISO 8601 in UTC (`2026-01-17T10:22:03Z`), None for None."""
    if when is None:
        return None
    return when.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
