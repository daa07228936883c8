"""builtin:list_dir: the names in one folder, sorted, `/` after folders, capped by `simulate`'s line cap.

Spec parameters: `builtin:list_dir?max_entries=1000` (the default; `none`: no cap). Past
`max_entries` names, HeadTail keeps the first ones (head_ratio 1.0) and says with its
DEFAULT_MARKER how many lines went.

Arguments: path = dir, directory, dir_path, path, target_directory, absolute_path
(default `.`). Other arguments are ignored. Hidden names are listed; a symlink is listed
by its name, never followed (no `/` even when it points to a folder). An empty folder
gives `Empty directory`; a file or a missing path is an error result.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ...simulate.policies import Chain, HeadTail
from ..base import Outcome, Sandbox
from .common import error, target

NEEDS_RG = False
SUMMARY = "the names in a folder, sorted, '/' after folders; at most max_entries (1000)"
PATH_NAMES = ("path", "dir", "directory", "dir_path", "target_directory", "absolute_path")
EMPTY = "Empty directory"


@dataclass(frozen=True)
class Params:
    """builtin:list_dir's spec parameters."""

    max_entries: int | None = 1000  # names listed at most (None: no cap)

    def __post_init__(self) -> None:
        self.chain()

    def chain(self) -> Chain:
        """simulate's head/tail cap on lines, head only (HeadTail, its default marker)."""
        if self.max_entries is None:
            return Chain()
        return Chain.of(HeadTail(max_lines=self.max_entries, head_ratio=1.0))


def call(params: Params, args: Mapping[str, Any], workspace: Path, sandbox: Sandbox) -> Outcome:
    """The folder's names, one per line."""
    path, given = target(workspace, args, PATH_NAMES)
    if not path.is_dir():
        return error(f"Error: {given} is not a directory" if path.exists() else f"Error: path does not exist: {given}")
    try:
        with os.scandir(path) as entries:
            names = sorted(e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for e in entries)
    except OSError as exc:
        return error(f"Error: cannot list {given}: {exc.strerror}")
    return Outcome(output=params.chain().apply("\n".join(names)) if names else EMPTY)
