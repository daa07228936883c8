"""The recording machine's own programs: macOS's BSD `ls`, `sed`, `find`, `head`, `tail` and `du` word a missing path
otherwise than the GNU ones replay runs, and exit otherwise.

A Codex session on a Mac that named a path its checkout lacked recorded `sed: src/config/env_directive.rs: No such
file or directory` and exit code 1 (jdx/mise 0.140); replay, on Linux, printed `sed: can't read
src/config/env_directive.rs: No such file or directory` and exit code 2: the same answer, a miss by its words. Where the
recorded output holds such a line in the BSD form (the `userland` parameter, read from it: a Mac with GNU coreutils
first on its PATH records the GNU form, as yyopc/yyork's nix shell did), replay's GNU lines are put in that form,
and `ls` and `sed`, which exit 2 where the BSD ones exit 1, exit 1 when the command line ends with one of them.

The forms, as the recordings show them (BSD: jdx/mise, nate-hart-di/di-form-buddy and yyopc/yyork's Macs; GNU:
EntityProcess/agentv's and EdouardZemb/test-framework's Linux machines, and replay's own):

| program | GNU | BSD |
|---|---|---|
| ls, du | `ls: cannot access 'P': No such file or directory` (ls exits 2) | `ls: P: No such file or directory` (1) |
| sed | `sed: can't read P: No such file or directory` (exits 2) | `sed: P: No such file or directory` (1) |
| find | `find: 'P': No such file or directory` (`‘P’` in a UTF-8 locale) | `find: P: No such file or directory` |
| head, tail | `head: cannot open 'P' for reading: No such file or directory` | `head: P: No such file or directory` |
"""

from __future__ import annotations

import re

_MISSING = "No such file or directory"
# a BSD program's line for a missing path: the path bare, no GNU words before it
_BSD = re.compile(rf"^(?:ls|sed|find|head|tail|du): (?!cannot |can't |['‘])[^\n]*: {_MISSING}$", re.MULTILINE)
_GNU = re.compile(rf"^(?:(ls|du): cannot access '(.*)'|(sed): can't read (.*)|(find): [‘'](.*)[’']|"
                  rf"(head|tail): cannot open '(.*)' for reading): {_MISSING}$", re.MULTILINE)
_EXITS_TWO = ("ls", "sed")  # GNU's ls and sed exit 2 for a missing operand; BSD's exit 1
# the last simple command's program (a redirection's `2>&1` is no separator)
_LAST = re.compile(r"(?:^|&&|\|\||;|\|)\s*(?:[A-Za-z_]\w*=\S*\s+)*([^\s;&|]+)(?:[^;&|]|(?<=>)&|&(?=>))*$")


def recorded_userland(body: str) -> dict[str, str]:
    """The `userland` parameter a recorded output shows: `bsd` when it holds a BSD program's missing-path line."""
    return {"userland": "bsd"} if _BSD.search(body) else {}


def as_userland(body: str, code: int, command: str, params: dict[str, str]) -> tuple[str, int]:
    """`body` and exit `code` as the recording machine's programs would have printed them (module docstring)."""
    if params.get("userland") != "bsd":
        return body, code
    bsd = _GNU.sub(_bsd_line, body)
    if bsd == body:
        return body, code
    last = _LAST.search(command.strip())
    program = last.group(1).rsplit("/", 1)[-1] if last else ""
    return bsd, 1 if code == 2 and program in _EXITS_TWO else code


def _bsd_line(found: re.Match) -> str:
    """One GNU missing-path line in the BSD form."""
    groups = found.groups()
    program, path = next((groups[i], groups[i + 1]) for i in range(0, len(groups), 2) if groups[i])
    return f"{program}: {path}: {_MISSING}"
