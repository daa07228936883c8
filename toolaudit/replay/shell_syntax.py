"""A recorded shell command line cut into its simple commands, read as the shell would read it (never run).

Quotes are respected, here-documents are data, `$(…)` and backquotes are the commands they hold, a `cd`
moves where the paths after it lie, and the shell's own refusals (a syntax error, `command not found`) are
told apart from the same words printed by a program it ran.
"""

from __future__ import annotations

import posixpath
import re
import shlex

from .winpath import below, is_windows

SEPARATORS = ("&&", "||", ";", "|", "\n", "&")
_POWERSHELL_CD = {"set-location", "sl", "push-location"}
_REDIRECT = re.compile(r"(\d*|&)(>>?|>\|)(&?)")
HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


def without_heredocs(command: str) -> str:
    """`command` with each here-document's lines removed (they are data; the `<<WORD` stays, for split)."""
    start = 0
    while (found := HEREDOC.search(command, start)) is not None:
        body = command.find("\n", found.end())
        if body < 0:
            break
        lines = command[body + 1:].split("\n")
        end = next((i for i, line in enumerate(lines)
                    if (line.lstrip("\t") if found.group(1) else line) == found.group(3)), None)
        if end is None:
            return command[:body]  # no terminator: the rest is the document
        command = command[:body + 1] + "\n".join(lines[end + 1:])
        start = body + 1
    return command


def substituted(command: str) -> tuple[str, list[str]]:
    """`command` with each `$(...)` and backquoted command made one word, and the commands they held."""
    out: list[str] = []
    inner: list[str] = []
    i, quote = 0, ""
    while i < len(command):
        ch = command[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\":
            out.append(command[i:i + 2])
            i += 2
            continue
        elif ch in "'\"" and (not quote or quote == ch):
            quote = "" if quote else ch
        elif command.startswith("$((", i):  # arithmetic, no command: one word
            end = command.find("))", i + 3)
            out.append("0")
            i = end + 2 if end >= 0 else len(command)
            continue
        elif command.startswith("$(", i) or ch == "`":
            end = _closing(command, i)
            inner.append(command[i + 2:end] if ch == "$" else command[i + 1:end])
            out.append("SUBST")
            i = end + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out), inner


def _closing(command: str, i: int) -> int:
    """Where the substitution opened at `i` closes (the end of the text when it never does)."""
    if command[i] == "`":
        end = command.find("`", i + 1)
        return end if end >= 0 else len(command)
    depth, quote, j = 0, "", i + 1
    while j < len(command):
        ch = command[j]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(command)


def split(command: str) -> list[tuple[str, list[str]]]:
    """The simple commands of a command line, each without its output redirections, and the files those name.

    Quotes are respected (`grep -E "a|b"` is one command); `2>&1` and `< file` are dropped, `> file` and
    `>> file` name a file written."""
    parts: list[tuple[str, list[str]]] = []
    text, written, quote, i = [], [], "", 0
    while i < len(command):
        ch = command[i]
        if quote:
            text.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < len(command):
                text.append(command[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
            i += 1
            continue
        if ch == "\\" and i + 1 < len(command):
            text += [ch, command[i + 1]]
            i += 2
            continue
        if ch in "'\"":
            quote = ch
            text.append(ch)
            i += 1
            continue
        redirect = _REDIRECT.match(command, i) if ch == ">" or ch in "&0123456789" and _word_start(text) else None
        if redirect:
            word, i = _word(command, redirect.end())
            if not redirect.group(3) or not word.isdigit() and word != "-":  # `>&2` duplicates, `>&file` writes
                written.append(word)
            continue
        sep = next((s for s in SEPARATORS if command.startswith(s, i)), None)
        if sep is not None:
            parts.append(("".join(text), written))
            text, written = [], []
            i += len(sep)
            continue
        if ch == "<" and _word_start(text):
            _, i = _word(command, i + 1 + (command.startswith("<<", i)))
            continue
        text.append(ch)
        i += 1
    parts.append(("".join(text), written))
    return parts


def _word_start(text: list[str]) -> bool:
    return not text or text[-1] in " \t"


def _word(command: str, i: int) -> tuple[str, int]:
    """The word starting at `i` (after blanks), its quotes removed, and where it ends."""
    while i < len(command) and command[i] in " \t":
        i += 1
    word, quote = [], ""
    while i < len(command):
        ch = command[i]
        if quote:
            if ch == quote:
                quote = ""
            else:
                word.append(ch)
        elif ch in "'\"":
            quote = ch
        elif ch in " \t\n;&|<>()":
            break
        else:
            word.append(ch)
        i += 1
    return "".join(word), i


def cd(part: str, cwd: str | None) -> bool | str | None:
    """For a `cd DIR` command: whether DIR is outside the working folder, or "down" (a folder below where it is);
    None: not a cd."""
    words = _cd_words(part)
    if not words:
        return None
    target = next((w for w in words[1:] if not w.startswith("-")), "~")
    if is_windows(target):  # PowerShell's `Set-Location C:\\…` (Codex on Windows): compared as Windows compares
        inside = below(target, cwd)
        return True if inside is None else False
    if target.startswith("/"):
        return cwd is None or not (target == cwd or target.startswith(cwd.rstrip("/") + "/"))
    return True if target.startswith(("~", "..")) or target == "-" else "down"


def _cd_words(part: str) -> list[str] | None:
    """The words of a `cd DIR`, `pushd DIR` or PowerShell's `Set-Location [-Path] DIR` (`sl`, `Push-Location`; its
    backslashes separate folders, they escape nothing), else None."""
    try:
        words = shlex.split(part)
        if words and words[0].lower() in _POWERSHELL_CD:
            words = shlex.split(part.replace("\\", "/"))
    except ValueError:
        return None
    return words if words and (words[0] in ("cd", "pushd") or words[0].lower() in _POWERSHELL_CD) else None


def moved(here: str, part: str, cwd: str | None) -> str:
    """The folder (relative to the working folder) after the `cd` in `part`, from `here`."""
    target = next((w for w in (_cd_words(part) or [""])[1:] if not w.startswith("-")), "")
    if is_windows(target):
        return below(target, cwd) or here
    if target.startswith("/"):
        return posixpath.relpath(target, cwd) if cwd else here
    return posixpath.normpath(posixpath.join(here, target)) if here else target


def after_options(args: list[str], valued: set[str] | frozenset[str]) -> list[str]:
    """The words after a program's leading options (an option in `valued` takes the next word)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in valued else 1
    return args[i:]


# the shell's own messages, at the start of a line (`bash: -c: line 1: syntax error …`, `zsh:1: parse error …`,
# `sh: 1: Syntax error: …`, `bash: foo: command not found`): the same words printed by a program it ran (jq's
# "parse error") say nothing of the shell
_SHELL = r"^(?:\S*/)?(?:ba|z|da|k)?sh\b[^\n]*?"
SYNTAX = re.compile(_SHELL + r"(?:syntax error|unexpected EOF while looking for matching|parse error|unmatched )",
                    re.M | re.I)
_REFUSED = re.compile(SYNTAX.pattern + r"|" + _SHELL + r"command not found", re.M | re.I)


def shell_refused(printed: str) -> bool:
    """The recorded output shows the shell refused a line (a syntax error, or a word that is no program)."""
    return _REFUSED.search(printed) is not None


def not_found(program: str, printed: str) -> bool:
    """The recorded output shows the shell found no program of that name."""
    return f"{program}: command not found" in printed or f"command not found: {program}" in printed
