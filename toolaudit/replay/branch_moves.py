"""A branch switched outside the transcript: Claude Code logs the checkout's current branch (`gitBranch`) on the
lines of its transcript. When it changes while the session runs (entireio/git-sync's c7d001b2:
soph/plan-optimization -> main -> soph/branch-optimizations, no checkout among its commands), someone (the user in
another terminal, another session) checked out another commit: the tracked files became that branch's, at a commit
no transcript names. From there the files are unknown, and the calls after it are set aside with the branch named,
as after a `git checkout` the session ran itself (which set them aside already)."""

from __future__ import annotations

from ..model import SessionInfo


def moved(info: SessionInfo | None, at: str | None) -> str | None:
    """Why the files are unknown at time `at` (a call's recorded time): the first recorded branch change at or
    before it, or None."""
    if info is None or not at or not info.branches:
        return None
    before = info.branch
    for when, branch in info.branches:
        if when > at:
            return None
        if branch != before:
            return (f"the recorded git branch changed from {before} to {branch} at {when}: the files became that "
                    "branch's, at a commit no transcript names")
        before = branch
    return None
