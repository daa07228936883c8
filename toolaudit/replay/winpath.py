"""Windows paths recorded by an agent that ran on Windows (`D:\\repo\\src\\x.py`, `D:/repo/src/x.py`), in one
POSIX-shaped form (`/D:/repo/src/x.py`) that the workspace mapping and the emulations compare and resolve."""

from __future__ import annotations

import re

_DRIVE = re.compile(r"^([A-Za-z]):(?:[\\/]|$)")


def is_windows(path: str | None) -> bool:
    """Whether a recorded path is a Windows one (`D:\\repo`, `D:/repo`)."""
    return bool(path) and _DRIVE.match(path) is not None


def posix_form(path: str) -> str:
    """A Windows path as the emulations work on it: `D:\\repo\\x.py` -> `/D:/repo/x.py` (drive upper-cased);
    backslashes of a relative path become slashes; any other path as it is."""
    found = _DRIVE.match(path)
    if found is None:
        return path
    rest = path[2:].replace("\\", "/")
    return "/" + found.group(1).upper() + ":" + (rest if rest.startswith("/") else "/" + rest)


def below(path: str, folder: str | None) -> str | None:
    """Windows `path` relative to Windows `folder` (`.` for the folder itself), compared as Windows compares (case
    aside, either separator), or None when it lies outside it or either is no Windows path."""
    if not is_windows(path) or not is_windows(folder):
        return None
    inner, base = posix_form(path).rstrip("/"), posix_form(folder or "").rstrip("/")
    if inner.lower() == base.lower():
        return "."
    return inner[len(base) + 1:] if inner.lower().startswith(base.lower() + "/") else None


def windows_form(path: str) -> str:
    """The inverse of posix_form: `/D:/repo/x.py` -> `D:\\repo\\x.py` (what Claude Code printed on Windows)."""
    if re.match(r"^/[A-Z]:(/|$)", path):
        return path[1:3] + (path[3:] or "/").replace("/", "\\")
    return path.replace("/", "\\")
