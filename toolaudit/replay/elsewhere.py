"""A shell call run in another folder than the session's: what it printed and wrote is that folder's.

Codex's shell tools take a `workdir` (`local_shell`: `working_directory`) per call, and a session often works in
two repositories side by side (chikachow/cyspbot 0.142: 74 of 239 calls in `/Users/cysp/src/cyspbot-app-token-action`
beside the session's `/Users/cysp/src/cyspbot`). A `git status` run there lists that repository's changes (` M
action.yml`, ` M README.md`), a `git merge` there moves that tree: none of it says anything of the session's folder,
which is all replay rebuilds. So such a call is left out of what the session's git outputs show of its start
(replay.start_state, replay.recorded_base) and of what its commands changed (replay.state); its own replay is
refused as before (the emulation: "workdir outside the workspace").
"""

from __future__ import annotations

import posixpath

from ..model import ToolCall
from .arguments import call_args
from .winpath import is_windows, posix_form

_KEYS = ("workdir", "working_directory")


def elsewhere(call: ToolCall, cwd: str | None) -> bool:
    """Whether the call's recorded working folder lies outside the session's folder `cwd` (neither it nor under
    it); False when either is not recorded, or the folder is relative (under `cwd`)."""
    if not cwd:
        return False
    args = call_args(call)
    folder = next((args[k] for k in _KEYS if isinstance(args.get(k), str) and args[k]), None)
    if folder is None:
        return False
    here, there = _normal(cwd), _normal(folder)
    if here is None or there is None:
        return False
    return there != here and not there.startswith(here.rstrip("/") + "/")


def _normal(path: str) -> str | None:
    """An absolute path in one comparable form (Windows: drive and case folded, as its file system does); None
    for a relative one."""
    if is_windows(path):
        return posixpath.normpath(posix_form(path)).lower()
    return posixpath.normpath(path) if path.startswith("/") else None
