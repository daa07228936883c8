"""The branch a recorded `git status` named, put back into a replayed one.

Replay checks a session's commit out in a detached worktree (replay.workspace), so `git status` there says
`HEAD detached at 06fd2be` (or `Not currently on any branch.`) and `git status -sb` says `## HEAD (no branch)`,
where the recording said `On branch main` / `Your branch is ahead of 'origin/main' by 1 commit.` and
`## main...origin/main [ahead 1]`. Which branch was checked out and how it stood against its upstream are refs of
the recording machine, not the tool's answer nor the files: like a wall time, they are read from the recorded
output (`status_head`, `status_branch`) and printed in place of the detached header, so that an identity
replay compares what `git status` says of the files.
"""

from __future__ import annotations

import re

_SHORT = re.compile(r"^## (?!HEAD \(no branch\)$)[^\n]+$", re.MULTILINE)  # `git status -sb`'s first line
_LONG = re.compile(r"^On branch [^\n]+\n(?:Your branch [^\n]*\n(?:[^\n]+\n)*\n)?", re.MULTILINE)
_DETACHED_SHORT = re.compile(r"^## HEAD \(no branch\)$", re.MULTILINE)
_DETACHED_LONG = re.compile(r"^(?:HEAD detached (?:at|from) \S+|Not currently on any branch\.)\n", re.MULTILINE)


def recorded_branch(body: str) -> dict[str, str]:
    """The `status_branch` (`## …`) and `status_head` (`On branch …` with its upstream paragraph) parameters a
    recorded command output holds, for `with_branch`; nothing when it shows no `git status` header."""
    found = {}
    short, long = _SHORT.search(body), _LONG.search(body)
    if short:
        found["status_branch"] = short.group(0)
    if long:
        found["status_head"] = long.group(0)
    return found


def with_branch(body: str, params: dict[str, str]) -> str:
    """`body` with a detached worktree's status headers replaced by the recorded branch's."""
    if params.get("status_branch"):
        body = _DETACHED_SHORT.sub(lambda _: params["status_branch"], body)
    if params.get("status_head"):
        body = _DETACHED_LONG.sub(lambda _: params["status_head"], body)
    return body
