"""Where a recorded session is replayed: its recorded paths mapped into the workspace, and its
recorded commit checked out in a temporary git worktree when the workspace repository has it.

Paths: a session worked in its recorded `cwd` (SessionInfo.cwd); that folder is the workspace.
`--path-map FROM=TO` adds prefixes, TO relative to the workspace (`/app=.`, `/srv/x/lib=lib`).
A recorded argument that is, or starts with, one of these prefixes (at a `/`) is rewritten
relative to the workspace, the longest prefix first (`--path-map` before the cwd on a tie):
`/home/u/proj/src/a.py` with cwd `/home/u/proj` becomes `src/a.py`, the cwd itself `.`. Only
top-level values are looked at: strings and lists of strings. Values under path keys (`path`,
`file_path`, `dir`, ...) are always mapped; under other keys only a value without whitespace
(a pattern `/home/u/proj/src/**/*.py`, not a file's content that happens to quote a path).
Anything else is left as recorded: an absolute path outside every prefix stays absolute, and the
implementation refuses it (outside the workspace).

Commits: `session_workspace(workspace, commit)` yields (folder, note, writable, commit checked out). When `commit` names a
commit of the workspace repository (`git cat-file -e COMMIT^{commit}`), the folder is a temporary
`git worktree add --detach` at it (hooks off, the repository's filters and LFS off: nothing of the
repository runs), its files' times set to their last commit's, removed afterwards (`worktree remove
--force`, then `prune`); else the workspace as it is, with a note saying why, or a scratch copy of it
when the session's edits must be applied (`scratch`). `session_base` picks the commit a `Base` asks for:
the recorded one, `--commit REV`, the last before the session's first timestamp, or none
(`--no-checkout`). Git runs through replay.git: no shell, a timeout, an output cap, a scrubbed environment.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, Iterator, NamedTuple, Sequence

from . import partial_checkout
from .builtin.common import PATH_NAMES
from .base import Base
from .branch_tip import merged_tip
from .git import GIT_TIMEOUT, failure, git, output
from .sandbox import OutsideWorkspace, resolve
from .winpath import is_windows, posix_form

PATH_KEYS = frozenset(PATH_NAMES) | {
    "filepath", "filename", "file", "files", "paths", "notebook_path", "cwd", "workdir", "working_directory",
    "root", "target_file", "source", "destination", "old_path", "new_path",
}
_COMMIT = re.compile(r"[0-9a-fA-F]{4,64}")  # a hex id: nothing git could read as an option or a ref expression


class Checkout(NamedTuple):
    """The folder a session is replayed in, a note for the report ("" when nothing to say), and whether it is
    a scratch folder of replay's own (the session's edits may be applied there)."""

    folder: Path
    note: str
    writable: bool = False
    commit: str | None = None  # the commit checked out (None: the workspace as it is)
    missing: tuple[str, ...] = ()  # files of the commit the clone lacks the content of (replay.partial_checkout)
    failed: str = ""  # why the commit asked for could not be checked out ("": it was, or none was asked for)


HISTORY = 20000  # first-parent commits looked through for --at-session-start


@contextmanager
def session_base(workspace: Path, base: Base, recorded: str | None, first_ts: str | None, scratch: bool,
                 timeout: float = GIT_TIMEOUT, branch: str | None = None, cwd: str | None = None) -> Iterator[Checkout]:
    """The folder a session's state starts from (see Base); a scratch folder when `scratch` or a commit.
    `branch`: the one the session recorded working on (--at-session-start reads its history when it is here, and a
    recorded commit the workspace lacks is looked for there too);
    `cwd`: its recorded working folder, which may be a subfolder of the repository (`subfolder`)."""
    workspace = Path(workspace).resolve()
    commit, note = recorded, ""
    if base.no_checkout:
        commit = None
    elif base.at_session_start and recorded and not base.commit and _COMMIT.fullmatch(recorded) \
            and _locate(workspace, recorded, timeout)[0] is None:
        pass  # the commit the session recorded (Codex's HEAD when it began) beats one guessed from the clock
    elif base.at_session_start:
        tip = base.commit or _branch_ref(workspace, branch, timeout)
        merged = None if tip else merged_tip(workspace, branch, timeout)  # a branch gone: where its commits are
        read = tip or (merged[0] if merged else "HEAD")
        commit, note = _before(workspace, first_ts, read, timeout)
        if merged and commit is None:
            read = "HEAD"
            commit, note = _before(workspace, first_ts, read, timeout)
        elif merged:
            note = (f"the recorded branch {branch} is not here: its history read from {merged[0]} (the merge "
                    f"{merged[1][:12]} names it)")
        if commit and recorded and not base.commit:  # a Codex rollout's commit this clone lacks (rebased, not pushed)
            read = branch if read == tip else read
            note = "; ".join(n for n in (f"its recorded commit {recorded[:12]} is not here: started from the last "
                                         f"commit of {read} before the session began", note) if n)
        if commit is None:  # refused: nothing runs, so no copy of the workspace and no note saying it ran there
            yield Checkout(workspace, note)
            return
    elif base.commit:
        commit = base.commit
    with session_workspace(workspace, commit, timeout, scratch=scratch) as found:
        sub = subfolder(found.folder, cwd) if found.commit else ""
        if sub:
            note = "; ".join(n for n in (note, f"its working folder is {sub}/ of the repository") if n)
        missing = tuple(p[len(sub) + 1:] for p in found.missing if p.startswith(f"{sub}/")) if sub else found.missing
        yield found._replace(folder=found.folder / sub if sub else found.folder, missing=missing,
                             # refused (the runner): not "replayed against the workspace as it is"
                             note="; ".join(n for n in (note, found.failed if base.at_session_start and found.failed
                                                        else found.note) if n))


def subfolder(root: Path, cwd: str | None) -> str:
    """The folder of the checked-out repository a session worked in, when its recorded working folder ends with
    two or more folder names the repository holds (`/Users/me/ext/agents/kiro` in a repository with `agents/kiro/`:
    a session started in a subfolder); "" otherwise. One name alone is not enough: a repository often holds a
    folder of its own name (`toolaudit/toolaudit`)."""
    if not cwd or not cwd.startswith("/"):
        return ""
    parts = PurePosixPath(cwd).parts[1:]
    for k in range(len(parts) - 1, 1, -1):
        if ".." not in parts[-k:] and (root.joinpath(*parts[-k:])).is_dir():
            return "/".join(parts[-k:])
    return ""


def _before(workspace: Path, first_ts: str | None, tip: str, timeout: float) -> tuple[str | None, str]:
    """The last commit written before `first_ts` on the first-parent history of `tip` (the branch as it was
    then, not the commits merged into it later), and a note when there is none. Written = its author date: a
    rebase gives every commit a new committer date, often days after the session that worked on it. A commit
    that descends from one written after the session began came later, whatever its own author date (a
    contributor's commit of July 9 rebased onto main on July 18, above a commit of July 17: JanDeDobbeleer/oh-my-posh);
    an author date after its committer date is a clock's error and decides nothing."""
    if not first_ts:
        return None, "--at-session-start: the session has no timestamp"
    if tip.startswith("-"):
        return None, f"--at-session-start: {tip!r} is not a revision"
    when = epoch(first_ts)
    if when is None:
        return None, f"--at-session-start: {first_ts!r} is not a time"
    done = git(workspace, ["log", "--first-parent", f"--max-count={HISTORY}", "--format=%H %at %ct", tip, "--"],
               timeout)
    if done is None:
        return None, "--at-session-start: git not found"
    found = None
    for line in done.stdout.decode("ascii", "replace").splitlines():  # newest first
        commit, authored, committed = (line.split() + ["", ""])[:3]
        if not (authored.isdigit() and committed.isdigit()):
            continue
        if int(authored) < when:
            found = found or commit
        elif int(authored) <= int(committed):  # written after the session began: the start is below it
            found = None
    return (found, "") if found else (None, f"--at-session-start: no commit of {tip} before {first_ts}")


def authored(workspace: Path, commit: str, timeout: float = GIT_TIMEOUT) -> float | None:
    """When `commit` was written (its author date, as --at-session-start reads it), or None."""
    if commit.startswith("-"):
        return None
    text = (output(Path(workspace), ["log", "-1", "--format=%at", commit, "--"], timeout) or "").strip()
    return float(text) if text.isdigit() else None


def _branch_ref(workspace: Path, branch: str | None, timeout: float) -> str | None:
    """The ref of the recorded branch in the workspace (a local branch, else a remote's), or None."""
    if not branch or branch.startswith("-") or branch == "HEAD":
        return None
    refs = (output(workspace, ["for-each-ref", "--format=%(refname)", f"refs/heads/{branch}",
                               f"refs/remotes/*/{branch}"], timeout) or "").split()
    return refs[0] if refs else None


def epoch(ts: str | None) -> float | None:
    """An ISO 8601 time as transcripts record it (`…Z`) in Unix seconds, or None (none given, or not a time)."""
    if not ts:
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def mappings(cwd: str | None, path_map: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """(recorded prefix, folder relative to the workspace) pairs, longest prefix first. A Windows prefix
    (`D:\\repo`, a session recorded on Windows) is kept in posix_form (`/D:/repo`)."""
    pairs = [(_clean(posix_form(frm)), _clean(to) if to else ".") for frm, to in path_map
             if frm.startswith("/") or is_windows(frm)]
    if cwd and (cwd.startswith("/") or is_windows(cwd)):
        pairs.append((_clean(posix_form(cwd)), "."))
    return sorted(pairs, key=lambda pair: -len(pair[0]))  # stable: --path-map stays first on a tie


def map_path(value: str, pairs: Sequence[tuple[str, str]], root: Path | None = None) -> str:
    """`value` with its recorded prefix replaced by the folder it maps to; unchanged when none matches. A
    Windows path matches a Windows prefix whatever the case of its drive letter and the way its slashes lean."""
    if is_windows(value):
        value = posix_form(value)
    for frm, to in pairs:
        if value == frm or value.startswith(frm.rstrip("/") + "/"):
            rest = value[len(frm):].lstrip("/")
            target = str(PurePosixPath(to, rest)) if rest else to
            return _inside(target, root)
    return value


def map_paths(args: dict, cwd: str | None, path_map: Sequence[tuple[str, str]] = (),
              root: Path | None = None) -> dict:
    """A copy of a call's arguments with recorded absolute paths mapped into the workspace."""
    pairs = mappings(cwd, path_map)
    if not pairs:
        return dict(args)
    out: dict[str, Any] = {}
    for key, value in args.items():
        any_text = key in PATH_KEYS
        if isinstance(value, str):
            out[key] = _map_value(value, pairs, root, any_text)
        elif isinstance(value, list):
            out[key] = [_map_value(v, pairs, root, any_text) if isinstance(v, str) else v for v in value]
        else:
            out[key] = value
    return out


def _map_value(value: str, pairs, root: Path | None, any_text: bool) -> str:
    if not any_text and (not (value.startswith("/") or is_windows(value)) or any(c.isspace() for c in value)):
        return value
    return map_path(value, pairs, root)


def _clean(path: str) -> str:
    """A prefix without its trailing slashes (`/` stays `/`)."""
    return path.rstrip("/") or "/"


def _inside(target: str, root: Path | None) -> str:
    """An absolute TO inside the replay folder, as a path relative to it; anything else as it is."""
    if root is None or not target.startswith("/"):
        return target
    try:
        return PurePosixPath(target).relative_to(root.as_posix()).as_posix() or "."
    except ValueError:
        return target


# ------------------------------------------------------------------ the recorded commit

@contextmanager
def session_workspace(workspace: Path, commit: str | None, timeout: float = GIT_TIMEOUT, *,
                      scratch: bool = False) -> Iterator[Checkout]:
    """The folder to replay a session in: a temporary worktree at `commit`, or the workspace (module docstring)."""
    workspace = Path(workspace).resolve()
    as_is = "replayed against the workspace as it is"
    why = ""
    if commit and not _COMMIT.fullmatch(commit):
        why = f"commit {commit[:12]!r} is not a commit id"
        commit = None
    prefix = ""
    if commit:
        located, prefix = _locate(workspace, commit, timeout)
        if located is not None:
            why, commit = f"commit {commit[:12]} not in the workspace{located}", None
    if not commit:
        with _as_is(workspace, scratch) as found:
            yield found._replace(note=f"{why}: {as_is}" if why else found.note)
        return
    short = commit[:12]
    tmp = Path(tempfile.mkdtemp(prefix="toolaudit-replay-"))
    tree = tmp / "worktree"
    try:
        why = failure(workspace, ["worktree", "add", "--detach", "--quiet", str(tree), commit], timeout, safe=True)
        missing: tuple[str, ...] = ()
        if partial_checkout.lacks_objects(why):  # the clone lacks some blobs: check out the others
            why, missing = partial_checkout.checkout(workspace, tree, commit, timeout)
        folder = tree / prefix
        if why is None and not folder.is_dir():
            why = f" ({prefix.rstrip('/')} did not exist then)"
        if why is not None:
            with _as_is(workspace, scratch) as found:
                yield found._replace(note=f"commit {short} could not be checked out{why}: {as_is}",
                                     failed=f"commit {short} could not be checked out{why}")
        else:
            restore_times(workspace, commit, tree, timeout)
            inside = tuple(p[len(prefix):] for p in missing if p.startswith(prefix))  # relative to the folder
            extra = f"; {partial_checkout.note(missing)}" if missing else ""
            yield Checkout(folder, f"replayed at commit {short} in a temporary worktree{extra}", True, commit, inside)
    finally:
        if tree.exists():
            git(workspace, ["worktree", "remove", "--force", str(tree)], timeout)
        git(workspace, ["worktree", "prune"], timeout)
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def _as_is(workspace: Path, scratch: bool) -> Iterator[Checkout]:
    """The workspace as it is: itself (read only), or a scratch copy when edits are to be applied there."""
    if not scratch:
        yield Checkout(workspace, "")
        return
    tmp = Path(tempfile.mkdtemp(prefix="toolaudit-replay-"))
    try:
        copy = tmp / workspace.name
        shutil.copytree(workspace, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        yield Checkout(copy, "replayed in a scratch copy of the workspace as it is", True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def restore_times(workspace: Path, commit: str, tree: Path, timeout: float) -> int:
    """Set each checked-out file's time to its last commit's (as far as `commit`'s history says), so tools that
    order by time see the order history gives; returns how many files were set."""
    done = git(workspace, ["log", "--format=@%ct", "--name-only", "--no-renames", commit], timeout,
               max_output=256 << 20)
    if done is None:
        return 0
    when, seen = 0, {}
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("@"):
            when = int(line[1:]) if line[1:].isdigit() else when
        elif line and line not in seen:
            seen[line] = when
    count, real = 0, tree.resolve()
    for name, stamp in seen.items():
        try:  # a folder of the path may be a committed symlink out of the worktree: nothing outside is touched
            target = resolve(real, name)
        except OutsideWorkspace:
            continue
        if target == real / name and target.is_file():  # no symlink on the way, the file itself none either
            os.utime(target, (stamp, stamp))
            count += 1
    return count


def _locate(workspace: Path, commit: str, timeout: float) -> tuple[str | None, str]:
    """(None, the workspace's folder inside its repository, e.g. `sub/`) when the repository has
    `commit`; else (" (why)" or "", "")."""
    prefix = git(workspace, ["rev-parse", "--show-prefix"], timeout)
    if prefix is None:
        return " (git not found)", ""
    if prefix.exit_code != 0:
        return " (not a git repository)", ""
    if failure(workspace, ["cat-file", "-e", f"{commit}^{{commit}}"], timeout) is not None:
        return "", ""
    return None, prefix.stdout.decode("utf-8", "replace").strip()

