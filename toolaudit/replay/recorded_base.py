"""Whether a Codex session's replay runs on the tree its `git status` described: the commit its rollout recorded
(session_meta's `git.commit_hash`, taken when the session began) checked out, and every file a recorded plain
`git status` listed as modified or deleted tracked there (git lists ` M f` or `D  f` only for a file HEAD holds).

When both hold, that status listed every tracked file that differed, and a tracked file it listed says nothing of
the others (replay.state's `recorded_base`: uncertainty by path). A listed file the checkout does not track says
HEAD was elsewhere when the status ran (entireio/git-sync's 0.118 session 019d7d4c… recorded c86a9b07, a commit of 7
files, and its status listed `M  internal/syncer/syncer.go`): the whole folder stays doubted, as on another commit.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..model import ToolCall
from .elsewhere import elsewhere
from .git import output
from .start_state import printed
from .state import SHELL_TOOLS, shell_text

_STATUS = re.compile(r"^\s*git\s+status(?:\s+(?:-s|--short|-b|--branch|-sb|--porcelain(?:=v1)?|-u|-uall|"
                     r"--untracked-files(?:=\w+)?))*\s*$")
_HELD = re.compile(r"^(?:[MDRCU][ MD]|[ CMRU][MD]) \"?(.+?)\"?$")  # the index or the tree says HEAD had it


def listed_as_changed(calls: list[ToolCall], cwd: str | None = None) -> set[str]:
    """The paths the session's plain `git status --short` outputs listed as modified or deleted (not added); not
    those run in another folder than `cwd` (replay.elsewhere)."""
    found: set[str] = set()
    for call in calls:
        command = shell_text(call) if call.tool in SHELL_TOOLS and not elsewhere(call, cwd) else None
        if command is None or not _STATUS.match(command) or call.is_error:
            continue
        for line in printed(call.output).splitlines():
            held = _HELD.match(line)
            if held and not line.startswith("## "):
                found.add(held.group(1).split(" -> ")[0])
    return found


def holds(calls: list[ToolCall], root: Path, cwd: str | None = None) -> bool:
    """Whether the checkout at `root` tracks every file the session's `git status` (in its folder `cwd`) listed as
    modified or deleted."""
    listed = listed_as_changed(calls, cwd)
    if not listed:
        return True
    tracked = output(root, ["ls-files", "-z", "--", *sorted(listed)], 60.0, max_output=16 << 20)
    return tracked is not None and listed <= set(tracked.split("\0"))
