"""The shell's `printf FORMAT [ARG…]`, as bash and zsh print it for the forms Codex's commands use to separate the
parts of a chained command (`printf '\\n--- tests ---\\n'`, `printf '%s\\n' a b`): the escapes \\n \\t \\\\ \\' \\" \\a
\\r \\0, the conversions %s, %d and %% with an optional `-` and width; the format reused while arguments remain
(POSIX). Any other form (`-v VAR`, %b, %q, %x, a precision) is not emulated."""

from __future__ import annotations

import re

from .shell_words import NotReplayable

_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "a": "\a", "r": "\r", "0": "\0"}
_PART = re.compile(r"%(-?\d*)([sd%])|\\(.)|%|[^%\\]+", re.DOTALL)


def printf(args: list[str]) -> bytes:
    """What `printf` printed for its arguments (the format first)."""
    if not args or args[0].startswith("-"):
        raise NotReplayable("printf without a plain format")
    form, rest = args[0], list(args[1:])
    out: list[str] = []
    while True:
        used = 0
        for found in _PART.finditer(form):
            text = found.group(0)
            if found.group(3) is not None:
                if found.group(3) not in _ESCAPES:
                    raise NotReplayable(f"printf escape \\{found.group(3)}")
                out.append(_ESCAPES[found.group(3)])
            elif found.group(2) == "%":
                out.append("%")
            elif found.group(2):
                value = rest.pop(0) if rest else ""
                used += 1
                if found.group(2) == "d":
                    if value and not re.fullmatch(r"[+-]?\d+", value):
                        raise NotReplayable("printf %d of a word that is no number")
                    value = str(int(value or 0))
                width = found.group(1)
                out.append(value.ljust(int(width[1:])) if width.startswith("-") and width[1:]
                           else value.rjust(int(width)) if width else value)
            elif text == "%":
                raise NotReplayable("printf conversion not emulated")
            else:
                out.append(text)
        if not rest or not used:
            return "".join(out).encode()
