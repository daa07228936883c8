"""What each command of a recorded `&&` line printed, where its part of the output can be told apart.

Agents seldom run `git status` alone: `git status --short && git log --oneline -1`, or (Codex's find-bugs skill,
teslamint/entirecontext 0.147) `cat SKILL.md && printf '\\n---STATUS---\\n' && git status --short && printf …`.
A command's output is known exactly when it stands alone between `printf`/`echo` markers of constant text (each
printed once in the whole output, so no other part's text is taken for one), or between the output's start or end and
such a marker; or when a `git status` comes first and a git command that reads (`log`, `diff`, `show`…) next, and
the status output ends where its form says: the short form's lines at the first line that is not one, the long form
at its closing "nothing to commit…" line. The parts are cut at `&&`, `;` and newlines; a line holding anything else
that makes where an output ends unknowable (`||`, `&`, `$(…)`, `$'…'`, heredocs, redirections but `2>&1`, a `#`
comment, a preview of an output too large to keep) gives nothing.
"""

from __future__ import annotations

import re
import shlex

from .diff_sections import TRUNCATED

_SEPARATOR = re.compile(r"\s*(?:&&|;|\n)\s*")
_STDERR = re.compile(r"\s2>&1(?=\s|$)")
_ECHO_OPTION = re.compile(r"-[neE]+")
_PRINTF_ESCAPE = re.compile(r"\\(.)|%(.)")
_PRINTF_READS = {"n": "\n", "t": "\t", "\\": "\\"}
# git's short form's `XY path` line (a submodule's `m`, `!!` ignored; never two spaces: a rebase's `   pick …`)
SHORT = re.compile(r"^(?!  )([ MADRCUTm?!]{2}) (.+)$")
_SHORT_OPTIONS = ("-s", "--short", "-sb", "--porcelain")
_CLOSING = ("nothing to commit", "nothing added to commit", "no changes added to commit")
_READERS = ("git log", "git diff", "git show", "git branch", "git rev-parse", "git remote", "git describe")


def parts(command: str) -> list[str] | None:
    """The commands of a line joined by `&&`, `;` or newlines, or None when the line holds anything that makes
    where one output ends unknowable (quotes are respected: `printf 'a;b'` is one part)."""
    command = _STDERR.sub("", command)  # errors into the same output: where each part's ends is as plain
    if any(token in command for token in ("$(", "$'", "`", "<<", "||", ">", "<")):
        return None
    out, current, quote = [], [], ""
    i = 0
    while i < len(command):
        ch = command[i]
        if quote == '"' and ch == "\\":
            current.append(command[i:i + 2])
            i += 2
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            current.append(command[i:i + 2])
            i += 2
            continue
        elif ch == "&" and not command.startswith("&&", i):
            return None  # a job sent to the background: its output interleaves
        elif ch == "#" and (not current or current[-1] in " \t\n"):
            return None  # a comment: what it hides is no part, nor a separator
        else:
            sep = _SEPARATOR.match(command, i) if ch in "&;\n \t" else None
            if sep and (sep.group().strip() or "\n" in sep.group()):
                out.append("".join(current).strip())
                current, i = [], sep.end()
                continue
        current.append(ch)
        i += 1
    if quote:
        return None
    out.append("".join(current).strip())
    return [p for p in out if p]


def printed_by(part: str) -> str | None:
    """The text a `printf 'TEXT'` or `echo TEXT` of constant words prints, or None for any other command (and for a
    printf whose format holds what replay does not read: `%s`, octal escapes, a leading `-`)."""
    try:
        words = shlex.split(part)
    except ValueError:
        return None
    if len(words) < 2 or any("$" in w for w in words):
        return None
    if words[0] == "printf" and len(words) == 2 and not words[1].startswith("-"):
        if any(m.group(1) not in _PRINTF_READS if m.group(1) else m.group(2) != "%"
               for m in _PRINTF_ESCAPE.finditer(words[1])):
            return None
        return _PRINTF_ESCAPE.sub(lambda m: _PRINTF_READS[m.group(1)] if m.group(1) else "%", words[1])
    if words[0] == "echo" and not _ECHO_OPTION.fullmatch(words[1]):
        return " ".join(words[1:]) + "\n"
    return None


def split(command: str, output: str) -> list[tuple[int, str, str]]:
    """(index among the parts, part, what it printed) for each part of `command` whose output is known exactly
    from `output` (the whole line's); markers themselves are left out."""
    cut = parts(command)
    if not cut or len(cut) < 2 or TRUNCATED.search(output) or "<persisted-output>" in output:
        return []
    found: list[tuple[int, str, str]] = []
    group: list[int] = []  # the parts since the last marker, printing from `start` on
    start = 0
    for at, part in enumerate(cut + [None]):
        text = printed_by(part) if part is not None else None
        if part is not None and (text is None or len(text.strip()) < 3):
            group.append(at)  # a command, or a spacer too short to be found for sure (`echo ""`): printed text
            continue
        if part is None:
            end = len(output)
        elif output.count(text) != 1 or output.find(text) < start:
            break  # a marker that may be some output's text, or one that never printed (a part before it failed)
        else:
            end = output.find(text)
        found += _group(cut, group, output[start:end])
        group, start = [], end + len(text or "")
    return found


def _group(cut: list[str], group: list[int], text: str) -> list[tuple[int, str, str]]:
    """The parts of one run between markers whose output is known: a lone part's, or a first `git status`'s."""
    if len(group) == 1:
        return [(group[0], cut[group[0]], text)]
    rest = [cut[at] for at in group[1:]]
    if len(group) > 1 and _is_status(cut[group[0]]) and rest[0].startswith(_READERS) \
            and not any(_is_status(part) for part in rest):
        head = _status_head(text, any(word.startswith(_SHORT_OPTIONS) for word in cut[group[0]].split()[2:]))
        return [(group[0], cut[group[0]], head)] if head is not None else []
    return []


def _is_status(part: str) -> bool:
    return part.startswith("git status") and "|" not in part


def _status_head(text: str, short: bool) -> str | None:
    """The leading `git status` output of `text` (its short form or long), or None when where it ends cannot be
    told (an empty short status is only taken when nothing else printed either)."""
    lines = text.splitlines(keepends=True)
    if not short:
        closing = next((n for n, line in enumerate(lines) if line.startswith(_CLOSING)), None)
        return "".join(lines[:closing + 1]) if closing is not None else None
    n = 0
    while n < len(lines) and (lines[n].startswith("## ") or SHORT.match(lines[n].rstrip("\r\n"))):
        n += 1
    return "".join(lines[:n]) if n or not text.strip() else None
