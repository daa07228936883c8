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

Commits: `session_workspace(workspace, commit)` yields (folder, note). When `commit` names a commit
of the workspace repository (`git cat-file -e COMMIT^{commit}`), the folder is a temporary
`git worktree add --detach` at it (hooks off), removed afterwards (`worktree remove --force`, then
`prune`); else the workspace as it is, with a note saying why. Git runs from an argument list
through the sandbox's runner: no shell, a timeout, a scrubbed environment.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any, Iterator, NamedTuple, Sequence

from .builtin.common import PATH_NAMES
from .sandbox import run

PATH_KEYS = frozenset(PATH_NAMES) | {
    "filepath", "filename", "file", "files", "paths", "notebook_path", "cwd", "workdir", "working_directory",
    "root", "target_file", "source", "destination", "old_path", "new_path",
}
GIT_TIMEOUT = 120.0  # a worktree of a large repository takes a while to check out
_COMMIT = re.compile(r"[0-9a-fA-F]{4,64}")  # a hex id: nothing git could read as an option or a ref expression
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0"}


class Checkout(NamedTuple):
    """The folder a session is replayed in, and a note for the report ("" when nothing to say)."""

    folder: Path
    note: str


def mappings(cwd: str | None, path_map: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """(recorded prefix, folder relative to the workspace) pairs, longest prefix first."""
    pairs = [(_clean(frm), _clean(to) if to else ".") for frm, to in path_map if frm.startswith("/")]
    if cwd and cwd.startswith("/"):
        pairs.append((_clean(cwd), "."))
    return sorted(pairs, key=lambda pair: -len(pair[0]))  # stable: --path-map stays first on a tie


def map_path(value: str, pairs: Sequence[tuple[str, str]], root: Path | None = None) -> str:
    """`value` with its recorded prefix replaced by the folder it maps to; unchanged when none matches."""
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
    if not any_text and (not value.startswith("/") or any(c.isspace() for c in value)):
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
def session_workspace(workspace: Path, commit: str | None, timeout: float = GIT_TIMEOUT) -> Iterator[Checkout]:
    """The folder to replay a session in: a temporary worktree at `commit`, or the workspace (module docstring)."""
    workspace = Path(workspace).resolve()
    if not commit:
        yield Checkout(workspace, "")
        return
    short = commit[:12]
    as_is = "replayed against the workspace as it is"
    if not _COMMIT.fullmatch(commit):
        yield Checkout(workspace, f"commit {short!r} is not a commit id: {as_is}")
        return
    why, prefix = _locate(workspace, commit, timeout)
    if why is not None:
        yield Checkout(workspace, f"commit {short} not in the workspace{why}: {as_is}")
        return
    tmp = Path(tempfile.mkdtemp(prefix="toolaudit-replay-"))
    tree = tmp / "worktree"
    try:
        why = _git(workspace, ["-c", "core.hooksPath=/dev/null", "worktree", "add", "--detach", "--quiet",
                               str(tree), commit], timeout)
        folder = tree / prefix
        if why is None and not folder.is_dir():
            why = f" ({prefix.rstrip('/')} did not exist then)"
        if why is not None:
            yield Checkout(workspace, f"commit {short} could not be checked out{why}: {as_is}")
        else:
            yield Checkout(folder, f"replayed at commit {short} in a temporary worktree")
    finally:
        if tree.exists():
            _git(workspace, ["worktree", "remove", "--force", str(tree)], timeout)
        _git(workspace, ["worktree", "prune"], timeout)
        shutil.rmtree(tmp, ignore_errors=True)


def _locate(workspace: Path, commit: str, timeout: float) -> tuple[str | None, str]:
    """(None, the workspace's folder inside its repository, e.g. `sub/`) when the repository has
    `commit`; else (" (why)" or "", "")."""
    try:
        prefix = run(["git", "rev-parse", "--show-prefix"], cwd=workspace, timeout=timeout, env=_GIT_ENV)
    except OSError:
        return " (git not found)", ""
    if prefix.exit_code != 0:
        return " (not a git repository)", ""
    if _git(workspace, ["cat-file", "-e", f"{commit}^{{commit}}"], timeout) is not None:
        return "", ""
    return None, prefix.stdout.decode("utf-8", "replace").strip()


def _git(workspace: Path, args: list[str], timeout: float) -> str | None:
    """None when `git ARGS` succeeded in `workspace`; else " (why)"."""
    try:
        done = run(["git", *args], cwd=workspace, timeout=timeout, env=_GIT_ENV)
    except OSError as exc:
        return f" (git: {exc.strerror or exc})"
    if done.timed_out:
        return f" (git timed out after {timeout:g} s)"
    if done.exit_code != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f" ({lines[-1][:200]})" if lines else f" (git exit code {done.exit_code})"
    return None
