"""Commits written while a Codex session waited: the HEAD its later calls ran on.

A Codex rollout records the commit HEAD was on when the session began (session_meta's `git.commit_hash`), once.
The session then waits for its user between turns, hours or weeks (`codex resume`): the user commits meanwhile,
and committing leaves the files as the user had them, so the next turn reads the tree of the newest of those
commits (plus whatever the user left uncommitted). sachinacharyaa/Rivo's Codex 0.128 rollout began on 3cb08b9 at
09:17 and ran its first command at 12:36, after the user's commits ac184b8 (11:38) and 2406dea (12:25);
inspi-writer001/gildore-arena's 0.130 rollout began on 90f7f1d on May 11 and was resumed on June 22, five weeks and
some twenty commits later, on 5adb191.

So before each call replay looks for commits that descend from the one its worktree holds (any ref of the
repository: branches, remotes, pull requests) and were written (author date) after the session's previous call and
before this one. When there are some, the tree is that of the newest commit written before the call, provided every
such commit is an ancestor of it (one line of work: the branch the user was on); replay moves there keeping the
session's own work. When they are not one line (other branches, other worktrees, pull requests from that commit:
chikachow/cyspbot's 0.142 sessions ran beside two to forty-nine such commits), nothing says which one the session's
checkout followed, if any, and the tree stays as it was (setting every later call aside took cyspbot's 0.142 calls
compared from 162 to 52, at 154 and 51 within ±1%).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from .sandbox import run
from .workspace import _SAFE, _filters_off

_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_LFS_SKIP_SMUDGE": "1"}
_REFS = ("refs/heads", "refs/remotes", "refs/tags", "refs/pull")  # not refs/replace, Entire's or notes


class LaterCommits:
    """The commits that descend from the replay's commit, by when they were written, and the worktree it moves."""

    def __init__(self, root: Path, commit: str):
        top = _git(root, ["rev-parse", "--show-toplevel"])  # the worktree's top: git's paths are relative to it
        self.root, self.start, self.head = Path(top.strip()) if top else root, commit, commit
        self.last: float | None = None  # the previous call's time (epoch): the start of the next wait
        self.commits: list[tuple[float, str]] = []  # (author time, id), oldest first
        self.moved: list[str] = []  # the commits it moved to, in order
        tips = _git(root, ["for-each-ref", "--format=%(objectname) %(objecttype)", *_REFS])
        tips = [line.split()[0] for line in (tips or "").splitlines() if line.endswith(" commit")]
        if tips and commit:
            listed = _git(root, ["rev-list", "--ancestry-path", "--format=%at %ct", *tips, f"^{commit}"])
            self.commits = sorted(_dated(listed or ""))

    def before(self, ts: str | None) -> tuple[str | None, str | None]:
        """Before the call recorded at `ts`: (the commit the worktree moved to, None) when commits were written since
        the previous call, (None, why) when those leave the tree unknown, else (None, None)."""
        when = _epoch(ts)
        if when is None or not self.commits:
            return None, None
        since, self.last = self.last, max(when, self.last or when)
        written = [c for at, c in self.commits if at <= when]
        if not written or written[-1] == self.head \
                or not any(since is None or at > since for at, _ in self.commits if at <= when):
            return None, None
        target = written[-1]
        line = _git(self.root, ["rev-list", "--ancestry-path", target, f"^{self.start}"])
        if line is None or not set(written) <= set(line.split()):
            # work on several lines from there (other branches, other worktrees, pull requests): which one the
            # session's checkout followed, if any, nothing says; its tree stays as it was (as before this rule)
            return None, None
        if not _move(self.root, self.head, target):
            self.commits = []
            return None, f"commits written while the session waited moved its HEAD to {target[:12]}, not made here"
        self.head = target
        self.moved.append(target)
        return target, None


def _move(root: Path, head: str, target: str) -> bool:
    """The worktree at `root` moved from `head` to `target` as committing leaves it: each file the commits changed
    takes `target`'s text (what the user's tree held when committing), every other file stays as the session left it,
    HEAD and the index become `target`'s."""
    changed = _git(root, ["diff", "--name-status", "--no-renames", "-z", head, target, "--"])
    if changed is None:
        return False
    fields = changed.split("\0")
    kept: list[str] = []
    for status, path in zip(fields[0::2], fields[1::2]):
        if status == "D":
            (root / path).unlink(missing_ok=True)
        elif path:
            kept.append(path)
    options = ["--literal-pathspecs", *_SAFE, *_filters_off(root, 120.0)]
    if kept and _git(root, [*options, "checkout", target, "--pathspec-from-file=-", "--pathspec-file-nul"],
                     "\0".join(kept).encode("utf-8", "surrogateescape")) is None:
        return False
    return _git(root, [*options, "reset", "--quiet", "--mixed", target]) is not None


def _dated(listed: str) -> list[tuple[float, str]]:
    """(author time, id) of each commit `git rev-list --format='%at %ct'` listed; a commit whose author date is after
    its committer date (a clock's error, or a rebase's) dated by its committer date."""
    out, commit = [], None
    for line in listed.splitlines():
        if line.startswith("commit "):
            commit = line.split()[1]
        elif commit and line.replace(" ", "").isdigit():
            authored, committed = (int(x) for x in line.split()[:2])
            out.append((float(min(authored, committed)), commit))
            commit = None
    return out


def _epoch(ts: str | None) -> float | None:
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() if ts else None
    except ValueError:
        return None


def _git(root: Path, args: list[str], stdin: bytes = b"") -> str | None:
    """What `git ARGS` printed in `root` (fed `stdin`), or None when it failed."""
    try:
        done = run(["git", *args], cwd=root, stdin=stdin, timeout=120.0, env=_ENV, max_output_bytes=64 << 20)
    except OSError:
        return None
    if done.exit_code != 0 or done.timed_out or done.capped:
        return None
    return done.stdout.decode("utf-8", "surrogateescape")


def follow(later: LaterCommits | None, state, ts: str | None) -> None:
    """Before a call at `ts`: the worktree moved to the commits written while the session waited, or, when it moved
    to one line of them that does not check out here, every later call set aside (`state.everything`) with why."""
    if later is None or state.everything:
        return
    _, why = later.before(ts)
    if why:
        state.everything = why
