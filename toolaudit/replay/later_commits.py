"""Commits written while a Codex session waited: the HEAD its later calls ran on.

A Codex rollout records the commit HEAD was on when the session began (session_meta's `git.commit_hash`), once.
The session then waits for its user between turns, hours or weeks (`codex resume`): the user commits meanwhile,
and committing leaves the files as the user had them, so the next turn reads the tree of the newest of those
commits (plus whatever the user left uncommitted). sachinacharyaa/Rivo's Codex 0.128 rollout began on 3cb08b9 at
09:17 and ran its first command at 12:36, after the user's commits ac184b8 (11:38) and 2406dea (12:25), which its
`git log --oneline -20` printed first; entireio/skills' 0.125 rollout listed `?? plugins/entire/skills/what-happened/`,
and its user committed that folder (9a3cc84) before the next turn.

So before each call replay looks at the branch the rollout recorded (`git.branch`, as the clone has it): the commits
on its first-parent line above the session's commit that were written (author date) after the previous call and
before this one, up to the highest a HEAD the session's own output shows (the first commit of a plain `git log`, or
`git rev-parse HEAD`): commits on the branch may have been made elsewhere (another clone, the server's merge button)
and reach this checkout only when it pulls. When there are some, the tree is that of the newest commit on the line
written before the call (one above a commit written after the call came later too, whatever its own date); replay
moves there, the files those commits changed taking its text and the session's own work kept, and a file or an
untracked folder they committed is certain again. Commits on other branches from the same commit say nothing of the
session's checkout (following any line of the clone's refs, as a first version did, moved entireio/skills' 0.125
session onto another branch: 71/72 -> 13/70 within ±1%); following the recorded branch without a HEAD the session
showed moved chikachow/cyspbot's 0.142 sessions onto commits pulled later (158/164 -> 102/114). Once the session
moved HEAD itself (its own `git commit`), the commits above are its own work, which replay.head tells apart: nothing
more is followed.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from .git import GIT_TIMEOUT, output
from .workspace import epoch
from .sandbox import OutsideWorkspace, resolve

HISTORY = 20000  # first-parent commits looked through for the session's commit


class LaterCommits:
    """The commits written above the replay's commit on the branch the session recorded, by when they were written,
    and the worktree it moves (each git run given `timeout`: replay.git)."""

    def __init__(self, root: Path, commit: str, branch: str | None, calls=(), timeout: float = GIT_TIMEOUT):
        self.timeout = timeout
        # the worktree's top: git's paths are relative to it
        top = output(root, ["rev-parse", "--show-toplevel"], timeout)
        self.root, self.head = Path(top.strip()) if top else root, commit
        self.last: float | None = None  # the previous call's time (epoch): the start of the next wait
        self.line: list[tuple[float, str]] = []  # (when written, id) above the commit, oldest first
        self.moved: list[str] = []  # the commits it moved to, in order
        self.changed: list[Path] = []  # the files the last move wrote (absolute)
        refs = output(root, ["for-each-ref", "--format=%(objectname)", f"refs/heads/{branch}",
                             f"refs/remotes/*/{branch}"], timeout) if branch and not branch.startswith("-") else None
        tip = (refs or "").split()[:1]
        listed = output(root, ["rev-list", "--first-parent", f"--max-count={HISTORY}", "--format=%at %ct", *tip],
                        timeout) if tip and commit else None
        above = []
        for when, found in _dated(listed or ""):  # newest first
            if found.startswith(commit) or commit.startswith(found):
                self.line = above[::-1]
                break
            above.append((when, found))
        # followed only as high as a HEAD the session's own git output shows: commits on the branch may have been
        # made elsewhere (another clone, the server's merge button) and reach this checkout only when pulled
        shown = heads_shown(calls)
        top = max((i for i, (_, found) in enumerate(self.line) if any(found.startswith(h) for h in shown)), default=-1)
        self.line = self.line[:top + 1]

    def before(self, ts: str | None) -> tuple[str | None, str | None]:
        """Before the call recorded at `ts`: (the commit the worktree moved to, None) when commits were written on the
        session's branch since the previous call, (None, why) when the move cannot be made here, else (None, None)."""
        when = epoch(ts)
        if when is None or not self.line:
            return None, None
        since, self.last = self.last, max(when, self.last or when)
        written = []
        for at, found in self.line:  # a commit above one written after the call came later too, whatever its date
            if at > when:
                break
            written.append((at, found))
        if not written or written[-1][1] == self.head or not any(since is None or at > since for at, _ in written):
            return None, None
        target = written[-1][1]
        changed = self._move(target)
        if changed is None:
            self.line = []
            return None, f"commits written while the session waited moved its HEAD to {target[:12]}, not made here"
        self.head, self.changed = target, changed
        self.moved.append(target)
        return target, None

    def _move(self, target: str) -> list[Path] | None:
        """The worktree moved from its HEAD to `target` as committing leaves it: each file the commits changed
        takes `target`'s text (what the user's tree held when committing), every other file stays as the session
        left it, HEAD and the index become `target`'s. The files changed (absolute), or None when it could not be
        done."""
        root = self.root
        changed = output(root, ["diff", "--name-status", "--no-renames", "-z", self.head, target, "--"], self.timeout)
        if changed is None:
            return None
        fields = changed.split("\0")
        kept: list[str] = []
        for status, path in zip(fields[0::2], fields[1::2]):
            if status == "D":
                _remove(root, path)
            elif path:
                kept.append(path)
        # no hooks, no filter of the repository's own (safe): nothing of it runs
        paths = "\0".join(kept).encode("utf-8", "surrogateescape")
        if kept and output(root, ["--literal-pathspecs", "checkout", target, "--pathspec-from-file=-",
                                  "--pathspec-file-nul"], self.timeout, stdin=paths, safe=True) is None:
            return None
        if output(root, ["--literal-pathspecs", "reset", "--quiet", "--mixed", target], self.timeout,
                  safe=True) is None:
            return None
        return [root / path for path in fields[1::2] if path]


def _remove(root: Path, path: str) -> None:
    """A file the commits deleted removed from the worktree at `root`: never through a symlink out of it, and a
    folder left (a submodule's, which git leaves too)."""
    try:
        folder = resolve(root, posixpath.dirname(path) or ".")
    except OutsideWorkspace:
        return
    target = folder / posixpath.basename(path)
    if target.is_symlink() or target.is_file():
        target.unlink()


def _dated(listed: str) -> list[tuple[float, str]]:
    """(author time, id) of each commit `git rev-list --format='%at %ct'` listed, in its order; a commit whose author
    date is after its committer date (a clock's error) dated by its committer date."""
    out, commit = [], None
    for line in listed.splitlines():
        if line.startswith("commit "):
            commit = line.split()[1]
        elif commit and line.replace(" ", "").isdigit():
            authored, committed = (int(x) for x in line.split()[:2])
            out.append((float(min(authored, committed)), commit))
            commit = None
    return out


def heads_shown(calls) -> set[str]:
    """The commit ids (7 hex digits or more) the session's own outputs show as HEAD: the first commit a plain
    `git log` printed (`--oneline`, `-N`, `--format`: no revision, no path), or `git rev-parse [--short] HEAD`."""
    from .start_state import printed
    from .state import SHELL_TOOLS, shell_text

    found: set[str] = set()
    for call in calls:
        command = shell_text(call) if call.tool in SHELL_TOOLS and not call.is_error else None
        if command is None:
            continue
        if moves_itself(command, commits=False):
            # from here a HEAD it shows may be its own doing (a merge, a pull, a checkout), not a wait's; its own
            # commit builds on the HEAD it had, so a HEAD shown after one still confirms the line below it (and
            # nothing is followed past the session's own commit: follow)
            break
        if _LOG.match(command) or _REV_PARSE.match(command):
            first = _ID.match(printed(call.output).lstrip())
            if first:
                found.add(first.group(1))
    return found


def moves_itself(command: str, commits: bool = True) -> bool:
    """Whether a command line runs a git command that moves HEAD or the tree itself (merge, pull, checkout, reset,
    rebase, stash…; and `commit`, unless `commits` is False)."""
    from .head import git_commands
    from .shell_rules import GIT_MOVERS

    return any(sub in GIT_MOVERS or commits and sub == "commit" for sub, _ in git_commands(command))


_LOG = re.compile(r"^git\s+(?:--no-pager\s+)?log(?:\s+(?:-\d+|-n\s*\d+|--max-count=\d+|--oneline|--decorate(?:=\w+)?"
                  r"|--no-decorate|--format=\S+|--pretty=\S+|--abbrev-commit|--no-color))*\s*$")
_REV_PARSE = re.compile(r"^git\s+rev-parse\s+(?:--short(?:=\d+)?\s+|--verify\s+)*HEAD\s*$")
_ID = re.compile(r"^(?:commit\s+)?([0-9a-f]{7,40})\b")


def follow(later: LaterCommits | None, state, call) -> None:
    """Before `call`: the worktree moved to the commits written while the session waited, or, when it moved to one
    line of them that does not check out here, every later call set aside (`state.everything`) with why."""
    from .state import SHELL_TOOLS, shell_text

    if later is None or state.everything or state.head:
        return  # once the session moved HEAD itself (its own `git commit`), the commits above are its own: not followed
    command = shell_text(call) if call.tool in SHELL_TOOLS else None
    if command is not None and moves_itself(command):
        later.line = []  # from its own merge, pull or commit on, HEAD is the session's doing: replay.head, fast_forward
        return
    ts = call.ts
    moved, why = later.before(ts)
    if why:
        state.everything = why
    elif moved:
        # a file the commits wrote is as certain as the start commit's files; so is an untracked folder a status
        # listed (`?? skills/what-happened/`) that they committed: the commit shows what it held
        written = {os.path.relpath(path, state.root) for path in later.changed}
        for key in [k for k in state.uncertain if k in written or any(w.startswith(k.rstrip("/") + "/")
                                                                      for w in written)]:
            del state.uncertain[key]
