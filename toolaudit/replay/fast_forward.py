"""A `git merge` or `git pull` whose recorded output says what it did to the working tree.

Replay does not re-run a merge: the working tree it leaves is the merged commit's, which the command line does not
name, so the calls after it are set aside (replay.shell_rules: git merge moves the tree). Its recorded output often
names it. A fast-forward prints `Updating A..B` then `Fast-forward` (git's merge.c, `finish()`/`checkout_fast_forward`):
the tree moved from A to B exactly as `git checkout B` moves it, the files B changes taking B's text and the session's
uncommitted work carried over (git refuses a fast-forward that would overwrite it: "Your local changes to the following
files would be overwritten by merge"). Replay then does the same to its scratch worktree, which holds A. A merge that
failed before touching anything (exit code non-zero, git's own `fatal:` or `error:` first, no `Updating` line: a
sandbox that could not lock `ORIG_HEAD`, "Not possible to fast-forward, aborting") or found nothing to do (`Already up
to date.`) changed nothing. Recorded: chikachow/cyspbot's Codex 0.142 `git merge --ff-only origin/main`, once refused
by the sandbox (exit 128, `cannot lock ref 'ORIG_HEAD'`), then `Updating d169a29..7d04b0b` / `Fast-forward`.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from .git import GIT_TIMEOUT, output

MOVED, UNCHANGED = "moved", "unchanged"
_UPDATING = re.compile(r"^Updating ([0-9a-f]{7,40})\.\.([0-9a-f]{7,40})\nFast-forward$", re.MULTILINE)
_EXIT = re.compile(r"^(?:Process exited with code|Exit code:) (\d+)$", re.MULTILINE)
_UP_TO_DATE = re.compile(r"^Already up[ -]to[ -]date\.?$", re.MULTILINE)


def merged(command: str, recorded: str, printed: str, root: Path | None, timeout: float = GIT_TIMEOUT) -> str | None:
    """What a recorded `git merge`/`git pull` (the whole command line) did, made so in the worktree at `root`:
    MOVED (a fast-forward, replayed by a checkout of its commit), UNCHANGED (it failed before changing anything, or
    had nothing to do), or None (another command, another merge, or a fast-forward replay cannot make here).
    `recorded`: the output with its envelope (the exit code); `printed`: what the command printed; `timeout`: each
    git run's (replay.git)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 2 or words[0] != "git" or words[1] not in ("merge", "pull") \
            or any(ch in command for ch in ";&|`$<>\n"):
        return None
    code = _EXIT.search(recorded)
    forward = _UPDATING.search(printed)
    if forward is None:
        first = printed.lstrip().split("\n", 1)[0]
        if code is not None and code.group(1) != "0" and first.startswith(("fatal:", "error:")):
            return UNCHANGED
        if (code is None or code.group(1) == "0") and _UP_TO_DATE.search(printed) and "CONFLICT" not in printed:
            return UNCHANGED
        return None
    if root is None or code is not None and code.group(1) != "0":
        return None
    head = (output(root, ["rev-parse", "--verify", "HEAD"], timeout) or "").strip()
    target = (output(root, ["rev-parse", "--verify", "--quiet", f"{forward.group(2)}^{{commit}}"], timeout)
              or "").strip()
    if not head or not target or not head.startswith(forward.group(1)):
        return None  # the replay's tree is not the one the merge began from, or the clone lacks where it went
    # no hooks, no filter of the repository's own: nothing of it runs (as when the worktree was made)
    moved = output(root, ["checkout", "--detach", "--quiet", target], timeout, safe=True)
    return MOVED if moved is not None else None

