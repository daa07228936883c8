"""The `toolaudit` console script: `toolaudit statusline` asks the resident server before anything else is
imported (Claude Code runs it after every message, toolaudit.resident); every other command, and a statusline
the server does not answer, goes to the command line (toolaudit.cli)."""

from __future__ import annotations

import io
import sys


def main() -> None:
    """Run one command line."""
    argv = sys.argv[1:]
    if argv[:1] == ["statusline"]:
        try:
            answer = _resident_statusline(argv[1:])
        except Exception:  # the command line answers, and says what is wrong in one line
            answer = None
        if answer is not None:
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()
            return
    from .cli import main as command_line

    command_line()


def _resident_statusline(args: list[str]) -> str | None:
    """The resident server's line for `statusline ARGS` with its statusline JSON on stdin, or None: the options
    are not the plain ones (`--top N`, `--tokenizer T`; anything else goes to the command line), or no server
    answered (the command line computes the line, and starts one)."""
    from . import resident

    options = _plain_options(args)
    if options is None or not resident.enabled() or _configured():
        return None
    path = resident.socket_path()
    if path is None:
        return None
    data = resident.read_stdin()
    sys.stdin = io.StringIO(data)  # read once: the command line reads the same text if the server does not answer
    answer, there = resident.reply(path, resident.request_of(data, None, **options))
    if answer is None:
        resident.asked_in_vain(path, there)  # the command line computes the line without asking again
    return answer


def _configured() -> bool:
    """Whether settings the command line reads could change the line: TOOLAUDIT_STATUSLINE_* variables, or a
    `[tool.toolaudit]` table in the nearest pyproject.toml that sets a statusline option (top-level or in
    `[tool.toolaudit.statusline]`; a table for other commands leaves the line as it is). A table that cannot be
    read goes to the command line, which says what is wrong with it."""
    import os
    import tomllib

    from .files import find_pyproject

    if any(name.startswith("TOOLAUDIT_STATUSLINE_") for name in os.environ):
        return True
    path = find_pyproject()
    if path is None:
        return False
    try:
        with open(path, "rb") as fh:
            table = tomllib.load(fh).get("tool", {}).get("toolaudit", {})
    except (OSError, ValueError):
        return True
    if not isinstance(table, dict):
        return True
    return "statusline" in table or any(key.replace("-", "_") in _STATUSLINE_OPTIONS for key in table)


_STATUSLINE_OPTIONS = {"top", "tokenizer", "calibration", "resident", "no_resident", "stop"}


def _plain_options(args: list[str]) -> dict | None:
    from . import resident

    options = {"top": 2, "tokenizer": "claude"}
    it = iter(args)
    for arg in it:
        key, _, value = arg.partition("=")
        if key in ("--top", "--tokenizer") and not value:
            value = next(it, "")
        if key == "--top" and value.isdigit():
            options["top"] = int(value)
        elif key == "--tokenizer" and value in resident.TOKENIZERS:
            options["tokenizer"] = value
        else:
            return None  # a TRANSCRIPT, --calibration, --no-resident, --help…: the command line's
    return options

