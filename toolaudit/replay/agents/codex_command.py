"""The `Command: …` line Codex 0.118 printed first in every `exec_command` output: the argument list it ran
(`[SHELL, -lc, CMD]`, the user's shell) joined as the Rust `shlex` crate's `try_join` quotes words.

Where it comes from: the 0.118.0 recordings of entireio/git-sync print it before `Chunk ID:` on every
exec_command output (`Command: /bin/zsh -lc 'git status --short --branch'`, `Command: /bin/zsh -lc pwd`); the 0.120.0
ones do not (0.119 not seen: the line is printed for 0.118.x only). The quoting is shlex 1.3's `Quoter::quote`
(comex/rust-shlex `src/bytes.rs`, the crate Codex joins commands with): a word is cut into chunks, each printed
unquoted, in single quotes or in double quotes, whichever covers the longest prefix; `^` ends a single-quoted chunk
(`'git show 5923020''^:a.go'`, as the recordings show). The shell is the recording machine's: read from the
recorded line (`command_shell`), else `/bin/bash -lc`.
"""

from __future__ import annotations

import re

from .base import Call, version_tuple

SINCE, UNTIL = (0, 118), (0, 119)  # the versions whose recordings print it (0.118.x)
DEFAULT_SHELL = "/bin/bash -lc"

_UNQUOTED = frozenset(b"+-./:@]_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NOT_SINGLE = frozenset(b"'^\\")
_NOT_DOUBLE = frozenset(b"`$!^")
_UNQ, _SINGLE, _DOUBLE = 1, 2, 4
_SHELL = re.compile(r"Command: (\S+ -l?c) ")


def _strategy(data: bytes) -> tuple[int, int]:
    """(length of the longest prefix one quoting covers, that quoting): shlex's `quoting_strategy`."""
    ok, i = _UNQ | _SINGLE | _DOUBLE, 0
    if data[0] == ord("^"):  # a Bash quirk: ^ only right after an opening single quote
        ok, i = _SINGLE, 1
    while i < len(data):
        c, now = data[i], ok
        if c >= 0x80 or c not in _UNQUOTED:
            now &= ~_UNQ
        if c in _NOT_SINGLE:
            now &= ~_SINGLE
        if c in _NOT_DOUBLE:
            now &= ~_DOUBLE
        if not now:
            break
        ok, i = now, i + 1
    return i, (_UNQ if ok & _UNQ else _SINGLE if ok & _SINGLE else _DOUBLE)


def rust_quote(word: str) -> str:
    """`word` as shlex 1.3 quotes it for a POSIX shell."""
    data = word.encode()
    if not data:
        return "''"
    out = bytearray()
    while data:
        size, how = _strategy(data)
        chunk, data = data[:size], data[size:]
        if how == _UNQ:
            out += chunk
        elif how == _SINGLE:
            out += b"'" + chunk + b"'"
        else:
            out += b'"' + b"".join(b"\\" + bytes([c]) if c in b'$`"\\' else bytes([c]) for c in chunk) + b'"'
    return out.decode("utf-8", "replace")


def rust_join(words: list[str]) -> str:
    """shlex's `try_join`: each word quoted, separated by one space."""
    return " ".join(rust_quote(w) for w in words)


def recorded_shell(output: str) -> str | None:
    """The shell and its flag a recorded `Command:` line names (`/bin/zsh -lc`), or None."""
    found = _SHELL.match(output)
    return found.group(1) if found else None


def command_line(call: Call, command: str | list[str]) -> str | None:
    """The `Command: …` line of this call's version (None where the version prints none): a script after the
    shell and its flag, an argument list joined as it is."""
    version = version_tuple(call.version)
    if "command_shell" not in call.params and not (version and SINCE <= version[:2] < UNTIL):
        return None
    if isinstance(command, list):
        return f"Command: {rust_join(command)}"
    shell = call.params.get("command_shell") or DEFAULT_SHELL
    return f"Command: {shell} {rust_quote(command)}"
