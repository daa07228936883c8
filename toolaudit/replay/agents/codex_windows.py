"""What Windows changes in a program's output when Codex runs it there, in PowerShell: ripgrep joins the paths it
finds with `\\`, and PowerShell writes the lines of a program whose output it pipes on with its host's `\\r\\n`.

Read from the recordings (devangshupandey2025-stack/DevSage, Codex 0.104; KongJin/JG, Codex 0.118): `rg --files
apps/api/src/lib` printed `apps/api/src/lib\\allowed-origin.ts` (the folder as typed, then Windows' separator),
`rg -n X` with no folder `Assets\\Scripts\\Shared\\README.md:119:…`; each line ends with `\\n` as rg wrote it, but
`rg --files apps/api/src/lib | sort` ended each with `\\r\\n` (`sort` is PowerShell's Sort-Object there, which
orders as Windows compares, case aside). Replay runs Linux's rg and sort: their lines are put in that form.
"""

from __future__ import annotations

from .shell_options import scan
from .shell_words import NotReplayable, parse

_NO_PATTERN = {"--files", "--type-list"}  # rg options after which no operand is the pattern
_PATTERN_GIVEN = {"-e", "--regexp", "-f", "--file"}
_WHOLE_LINE = {"--files", "-l", "--files-with-matches", "--files-without-match"}


def as_windows(body: str, code: int, command: str) -> tuple[str, int]:
    """`body` and exit `code` (a command line's, run by replay on Linux) as PowerShell on Windows gave them: rg's
    lines in Windows' form (module docstring), and 1 for any failure (`powershell -Command` exits 0 when its last
    command succeeded, else 1, whatever code the program itself exited with: every Windows recording's code is 0
    or 1, and rg's regex error, 2 on Linux, was recorded as 1 by KongJin/JG)."""
    return _rg_lines(body, command), 1 if code else 0


def _rg_lines(body: str, command: str) -> str:
    """`body` with rg's lines in Windows' form, when the command line's first program is rg."""
    try:
        lists = parse(command)
    except NotReplayable:
        return body
    if len(lists) != 1 or not lists[0][1]:
        return body
    pipeline = lists[0][1]
    words = [w.text for w in pipeline[0].words]
    if not words or words[0] != "rg":
        return body
    try:
        options, operands = scan("rg", words[1:])
    except NotReplayable:
        return body
    names = {name for name, _ in options}
    roots = operands if names & (_NO_PATTERN | _PATTERN_GIVEN) else operands[1:]
    whole = bool(names & _WHOLE_LINE)
    lines = body.split("\n")
    lines = [_windows_path(line, roots, whole) for line in lines]
    sorted_by = [w.text for w in pipeline[-1].words] if len(pipeline) > 1 else []
    if sorted_by == ["sort"] and len(pipeline) == 2:  # PowerShell's Sort-Object: Windows' order, the host's \r\n
        kept = [line for line in lines[:-1]] if lines and lines[-1] == "" else lines
        return "".join(line + "\r\n" for line in sorted(kept, key=str.casefold))
    return "\n".join(lines)


def _windows_path(line: str, roots: list[str], whole: bool) -> str:
    """One line of rg's output with the separators rg adds after the folder typed made Windows' (`\\`)."""
    if not line:
        return line
    root = max((r for r in roots if line.startswith(r.rstrip("/") + "/")), key=len, default=None)
    start = len(root.rstrip("/")) if root is not None else 0
    if root is None and roots:
        return line  # a path given as a file, or stdin: rg prints it as typed
    end = len(line) if whole else _path_end(line, start)
    return line[:start] + line[start:end].replace("/", "\\") + line[end:]


def _path_end(line: str, start: int) -> int:
    """Where the path ends in a match or context line (`path:12:…`, `path-12-…`, `path:…`)."""
    for at in range(start, len(line)):
        if line[at] == ":" or line[at] == "-" and line[at + 1:at + 2].isdigit() and _numbered(line, at):
            return at
    return len(line)


def _numbered(line: str, at: int) -> bool:
    """Whether `-` at `at` opens a context line's `-N-`."""
    end = at + 1
    while end < len(line) and line[end].isdigit():
        end += 1
    return end < len(line) and line[end] == "-"
