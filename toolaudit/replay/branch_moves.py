"""A branch switched outside the transcript: Claude Code logs the checkout's current branch (`gitBranch`) on the
lines of its transcript. When it changes while the session runs (entireio/git-sync's c7d001b2:
soph/plan-optimization -> main -> soph/branch-optimizations, no checkout among its commands), someone (the user in
another terminal, another session) checked out another commit: the tracked files became that branch's, at a commit
no transcript names. From there the files are unknown, and the calls after it are set aside with the branch named,
as after a `git checkout` the session ran itself (which set them aside already).

A change the session's own `git checkout`/`git switch` to that branch made is no such move: the command is judged
by what it does (`git checkout -b NEW` makes a branch at HEAD and changes no file). Claude Code stamps `gitBranch`
on a line as it writes it, which may be after the command ran: the lines of the response that holds the command can
carry the new branch before the command's own call time (Esdeveniments/esdeveniments-frontend, Claude Code 2.1.221,
checkpoint 16/5ffd8c340f16: the text line before `git checkout -b feat/mobile-nav-profile-header` says that branch at
08:07:49.270Z, the call 08:07:49.767Z). So the command is looked for on the call just before or just after the
change."""

from __future__ import annotations

from ..model import SessionInfo, ToolCall
from .head import switched_to
from .state import SHELL_TOOLS, shell_text


def own(info: SessionInfo | None, calls: list[ToolCall]) -> frozenset[str]:
    """The times of the recorded branch changes a command of the session itself made: the last call at or before
    the change, or the first after it, is a shell call switching to that branch."""
    if info is None or not info.branches:
        return frozenset()
    timed = sorted((c for c in calls if c.ts), key=lambda c: c.ts)
    found = set()
    for when, branch in info.branches:
        before = [c for c in timed if c.ts <= when][-1:]
        after = [c for c in timed if c.ts > when][:1]
        for call in before + after:
            command = shell_text(call) if call.tool in SHELL_TOOLS else None
            if command and branch in switched_to(command):
                found.add(when)
    return frozenset(found)


def moved(info: SessionInfo | None, at: str | None, own_moves: frozenset[str] = frozenset()) -> str | None:
    """Why the files are unknown at time `at` (a call's recorded time): the first recorded branch change at or
    before it that is not one of `own_moves` (the session's own: `own`), or None."""
    if info is None or not at or not info.branches:
        return None
    before = info.branch
    for when, branch in info.branches:
        if when > at:
            return None
        if branch != before and when not in own_moves:
            return (f"the recorded git branch changed from {before} to {branch} at {when}: the files became that "
                    "branch's, at a commit no transcript names")
        before = branch
    return None
