"""The agents' own folders a recorded `git status --short` listed as untracked, put back into a replayed one.

Replay leaves the agents' own folders out of the start state (`.codex/`, `.claude/`, Entire's runtime folders:
replay.start_state's AGENT_HOMES): they hold the recording machine's hooks, skills and logs, which change as the
session runs and which no commit holds. Entire installs its Codex hooks into `.codex/hooks.json`, so a repository
that records with Entire has an untracked `.codex/`, and its sessions' `git status --short` print `?? .codex/`
(blackgirlbytes/planetfall-seed-signalkit, Codex 0.137 - 0.140: 32 of its `git status` calls). The replay
folder, a checkout, has no such folder: like the recorded branch (agents.git_branch), the line is read from the
recording (`status_homes`: each with the recorded line before and after it) and put back where it stood.
"""

from __future__ import annotations

import json
import re

_UNTRACKED = re.compile(r'^\?\? "?([^"\n]+)"?$')


def agent_homes() -> tuple[str, ...]:
    """The agents' own folders replay leaves out of the start state (replay.start_state's AGENT_HOMES)."""
    from ..start_state import AGENT_HOMES  # here, not above: start_state reads the agents package

    return AGENT_HOMES


def recorded_homes(body: str) -> dict[str, str]:
    """The `status_homes` parameter: the untracked lines of the agents' own folders a recorded output holds, each
    with its neighbours (JSON `[[before, line, after], …]`; None at an edge); nothing when it holds none."""
    lines = body.split("\n")
    found = []
    for at, line in enumerate(lines):
        match = _UNTRACKED.match(line)
        if match and match.group(1).startswith(agent_homes()):
            found.append([lines[at - 1] if at else None, line, lines[at + 1] if at + 1 < len(lines) else None])
    return {"status_homes": json.dumps(found, ensure_ascii=False)} if found else {}


def with_homes(body: str, params: dict[str, str]) -> str:
    """`body` with each recorded agent-folder line it lacks put back after the line it followed (else before the
    line it preceded); a line with neither neighbour in `body` is left out."""
    if not params.get("status_homes"):
        return body
    try:
        wanted = json.loads(params["status_homes"])
    except ValueError:
        return body
    lines = body.split("\n")
    for before, line, after in wanted:
        if line in lines:
            continue
        if before is None:
            lines.insert(0, line)
        elif before and before in lines:  # an empty line is no landmark
            lines.insert(lines.index(before) + 1, line)
        elif after and after in lines:
            lines.insert(lines.index(after), line)
    return "\n".join(lines)
