"""Where a recorded branch the workspace no longer has went: the ref that holds its commits, found by git's own merge
message.

A session records the branch it worked on (Claude Code's `gitBranch`); --at-session-start reads that branch's history.
A branch deleted after its pull request was merged (a squash merge keeps none of its commits on the main line) is gone
from a clone, but its commits often survive under another ref: the pull request's head (`refs/pull/N/head`), or a
branch made from it. git names the branch a merge was made on in the message it writes by default, `Merge branch
'develop' into feat/x` (`Merge remote-tracking branch 'origin/develop' into feat/x`, `Merge branch 'main' of URL into
feat/x`; GitHub's "Update branch" button writes the same): that merge commit was made on feat/x, so feat/x is the
ref whose first-parent history holds it. Esdeveniments/esdeveniments-frontend's review sessions on
fix/ppr-metadata-resume-mismatch (Claude Code 2.1.220, imported checkpoints 03/8c56d4834303 and 44/633e2fcc3944)
began seconds after a commit of that branch, which only `refs/pull/441/head` holds; `09a17c9d Merge branch 'main'
into fix/ppr-metadata-resume-mismatch` names it. Without such a message nothing in git names a deleted branch, and
the replay reads the workspace's HEAD as before."""

from __future__ import annotations

import re
from pathlib import Path

from .git import output

_NOT_CODE = ("refs/entire/", "refs/replace/", "refs/notes/", "refs/stash")  # refs that hold no branch's commits
_DEPTH = 2000  # first-parent commits looked through from a ref for the merge


def merged_tip(workspace: Path, branch: str | None, timeout: float) -> tuple[str, str] | None:
    """(ref, merge commit) of the ref that holds `branch`'s commits, by a merge git wrote on it: the ref whose
    first-parent history reaches such a merge in the fewest commits (its own tip before a branch made from it;
    ties by name); else the second parent of GitHub's newest merge of a pull request from it (`MERGE^2`); None
    when no merge message names the branch or no ref holds one on its first-parent line."""
    if not branch or branch.startswith("-") or branch == "HEAD":
        return None
    best: tuple[int, str, str] | None = None
    for merge in _merges_on(workspace, branch, timeout):
        for ref in _refs_containing(workspace, merge, timeout):
            depth = _first_parent_depth(workspace, ref, merge, timeout)
            if depth is not None and (best is None or (depth, ref) < best[:2]):
                best = (depth, ref, merge)
    if best:
        return best[1], best[2]
    # no ref's first-parent line holds a merge made on it (GitHub's "Update branch" merge, then the branch merged by
    # its pull request and deleted): GitHub's own merge of it; newest first, as a branch name merged twice holds its
    # earlier work in the later merge too
    pulled = _pull_merges(workspace, branch, timeout)
    return (f"{pulled[0]}^2", pulled[0]) if pulled else None


def _merges_on(workspace: Path, branch: str, timeout: float) -> list[str]:
    """The merge commits whose message says they were made on `branch`, newest first."""
    found = (output(workspace, ["log", "--all", "--merges", "-F", f"--grep= into {branch}", "--format=%H %s",
                             "--"], timeout) or "").splitlines()
    said = re.compile(r"Merge (?:remote-tracking )?branch '[^']+'(?: of \S+)? into " + re.escape(branch))
    return [line.split(" ", 1)[0] for line in found if " " in line and said.fullmatch(line.split(" ", 1)[1])]


def _refs_containing(workspace: Path, commit: str, timeout: float) -> list[str]:
    refs = (output(workspace, ["for-each-ref", "--format=%(refname)", f"--contains={commit}"], timeout) or "").split()
    return [ref for ref in refs if ref and not ref.startswith(_NOT_CODE)]


def _first_parent_depth(workspace: Path, ref: str, commit: str, timeout: float) -> int | None:
    """How many first-parent steps from `ref` reach `commit`, or None when its first-parent line misses it."""
    line = (output(workspace, ["rev-list", "--first-parent", f"--max-count={_DEPTH}", ref, "--"], timeout)
            or "").split()
    return line.index(commit) if commit in line else None


def _pull_merges(workspace: Path, branch: str, timeout: float) -> list[str]:
    """GitHub's merges of a pull request from `branch` (`Merge pull request #N from OWNER/BRANCH`), newest first."""
    found = (output(workspace, ["log", "--all", "--merges", "-F", f"--grep=/{branch}", "--format=%H %s",
                             "--"], timeout) or "").splitlines()
    said = re.compile(r"Merge pull request #\d+ from [^/\s]+/" + re.escape(branch))
    return [line.split(" ", 1)[0] for line in found if " " in line and said.fullmatch(line.split(" ", 1)[1])]
