"""builtin:glob: file names matching a glob, listed by ripgrep, capped by `simulate`'s match and byte limit.

Spec parameters: `builtin:glob?max_matches=100&max_bytes=10000` (the defaults).

Canonical arguments (what `--translate shell-search` produces from `find -name/-path`,
`rg --files -g`): {"pattern": str | [str, ...], "path": str = ".", "max_depth": int} (several
patterns: any of them, as find's `-o` and several `-g`; max_depth: find's -maxdepth, rg's --max-depth). Recorded aliases: pattern = glob,
file_pattern, name; path = dir, directory, file_path, absolute_path. A `| head -N` after
the search is `head_limit: N` (alias limit: at most N paths), `offset` skips paths first,
both as builtin:grep reads them, before the caps. Other arguments are ignored.

The glob is ripgrep's `--glob`: without a `/` it matches a file's name at any depth
(`*.py`), with one it matches the path below `path` (`src/**/*.py`). Runs
`rg --files --null --glob PATTERN -- PATH`; the NUL-separated names become one path per
line, relative to the workspace, sorted by path (not by modification time, as some agents'
Glob tools do). ripgrep's defaults hold: .gitignore'd and hidden files are skipped,
symlinks are never followed. No file: `No files found` (not an error).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ...simulate.policies import Chain
from ..base import Outcome, Sandbox
from ..sandbox import relative
from .common import as_count, as_globs, pick, required, search_caps, target, window
from .ripgrep import finish, run_rg, scope

NEEDS_RG = True
SUMMARY = "file paths matching a glob, by ripgrep; at most max_matches paths and max_bytes bytes (100, 10000)"
NO_FILES = "No files found"


@dataclass(frozen=True)
class Params:
    """builtin:glob's spec parameters."""

    max_matches: int | None = 100  # paths shown at most (None: no limit)
    max_bytes: int | None = 10_000  # UTF-8 bytes of the whole response, notice included (None: no limit)
    hidden: bool = False  # search hidden files too (rg --hidden); .git never
    no_ignore: bool = False  # search .gitignore'd files too (rg --no-ignore)

    def __post_init__(self) -> None:
        self.chain()

    def chain(self) -> Chain:
        """simulate's match and byte limit (MatchLimit)."""
        return search_caps(self.max_matches, self.max_bytes)


def call(params: Params, args: Mapping[str, Any], workspace: Path, sandbox: Sandbox) -> Outcome:
    """The paths under `path` matching `pattern`."""
    patterns = as_globs(pick(args, ("pattern", "glob", "file_pattern", "name")), "pattern")
    if not patterns:
        required(args, ("pattern", "glob", "file_pattern", "name"))  # the error that names what is missing
    path, _ = target(workspace, args, must_exist=True)
    depth = as_count(pick(args, ("max_depth", "maxdepth")), "max_depth")
    flags = ["--files", "--null", *scope(params), *(["--max-depth", str(depth)] if depth is not None else [])]
    for pattern in patterns:  # several: any of them (find's -o, several -g)
        flags += ["--glob", pattern]
    result = run_rg(sandbox, workspace, flags, [relative(workspace, path)])
    names = result.stdout.split(b"\0")
    if result.capped:
        names.pop()  # cut by the output cap (a complete name ends with NUL)
    paths = [posixpath.normpath(name.decode("utf-8", "replace")) for name in names if name]
    return finish(result, window(args, paths), len(paths), NO_FILES, params.chain(), sandbox)
