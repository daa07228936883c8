"""PowerShell's `Get-Content FILE`, as Codex on Windows records it: Codex runs its shell commands in the user's
PowerShell there, and Get-Content is how the model reads a file (Real-s/mini-simclr-assignment, Codex 0.142).

Get-Content reads the file as lines (split at `\\r\\n`, `\\n` or `\\r`; a final line break ends the last line, it
starts no empty one) and PowerShell's host writes each line with Windows' `\\r\\n`. `-Encoding UTF8` (or utf8,
utf8NoBOM) reads UTF-8, a byte order mark dropped; `-Path` may name the file; `| Select-Object -First N` keeps the
first N lines. Any other form (`-Raw`, a wildcard, another cmdlet, a variable) is not emulated.
"""

from __future__ import annotations

import re

from .shell_words import NotReplayable, Result

_FORM = re.compile(r"^\s*Get-Content(?P<opts>(?:\s+-Encoding\s+(?:UTF8|utf8NoBOM|utf-8)|\s+-Path)*)\s+"
                   r"(?P<path>'[^']+'|\"[^\"$`]+\"|[^\s|;'\"$`*?]+)"
                   r"(?P<more>(?:\s+-Encoding\s+(?:UTF8|utf8NoBOM|utf-8))?)"
                   r"(?:\s*\|\s*Select-Object\s+-First\s+(?P<first>\d+))?\s*$", re.IGNORECASE)
_LINES = re.compile(r"\r\n|\n|\r")


def get_content(command: str) -> tuple[str, int | None] | None:
    """(the file a `Get-Content` command line reads, as written; the lines `Select-Object -First` keeps) for the
    forms emulated, else None."""
    found = _FORM.match(command)
    if found is None:
        return None
    path = found.group("path")
    path = path[1:-1] if path[:1] in "'\"" else path
    return path, int(found.group("first")) if found.group("first") else None


def run_get_content(ws, path: str, first: int | None) -> Result:
    """What PowerShell printed for `Get-Content path` in workspace `ws` (agents.shell_readonly.Workspace)."""
    target = ws.cwd / ws.inside(path.replace("\\", "/"))
    if not target.is_file():
        raise NotReplayable(f"Get-Content of {path}, which the replay folder lacks (PowerShell's error text)")
    text = target.read_bytes().decode("utf-8", "replace").removeprefix("\ufeff")
    lines = _LINES.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    lines = lines[:first] if first is not None else lines
    return Result(out="".join(line + "\r\n" for line in lines).encode())
