"""What a recorded shell command may have changed in the workspace, read from its text (never run).

Replay applies recorded edits to the session's state, but a shell command is never re-run: what it may have
written is uncertain from there on, so later calls that read it are flagged. `effect(command)` gives NONE (it
reads, or writes only outside the sources: test runs, builds into their caches), the paths it names as
targets (`rm a`, `mv a b`, `sed -i … f`, `> f`), CHANGED (a formatter over the tree: it rewrites only files
not already formatted, and the committed tree is taken as formatted, so what it may have touched is what the
session itself changed), EVERYTHING (a fixer or generator, a git command that moves the working tree, a line
that cannot be read as words), and the *unknown programs* it ran (a project's own CLI, a script, inline code
that writes where it does not say): each names what it may have changed on its command line, and what else it
changed is what the session's own later `git status` and `git diff` show (replay.start_state.read).

The command line is cut by replay.shell_syntax, each program looked up in replay.shell_programs' table or
judged by replay.shell_rules, inline code by replay.inline_code.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from typing import Sequence

from . import shell_rules as rules
from .inline_code import judge_js, judge_python
from .inline_powershell import is_powershell, judge_powershell, located
from .shell_programs import (CHANGED, CLOSERS, EVERYTHING, KEYWORDS, NONE, PROGRAMS, Effect, judge,
                             powershell_reads)
from .shell_syntax import (HEREDOC, SYNTAX, cd, moved, not_found, shell_refused, split, substituted,
                           without_heredocs)
from .winpath import below, is_windows

__all__ = ["CHANGED", "EVERYTHING", "NONE", "Effect", "effect", "part", "split"]

_IGNORED = ("/dev/null", "/dev/stderr", "/dev/stdout")


def effect(command: str, cwd: str | None = None, printed: str = "", inline: Sequence[Effect | None] = ()) -> Effect:
    """What `command` (one shell command line, as recorded) may have changed; `cwd`: the folder it ran in
    (a `cd` out of it moves what follows elsewhere); `printed`: its recorded output, where the shell's own
    `command not found` or syntax error shows that a part never ran; `inline`: the code of here-documents an outer
    command line fed to interpreters, by marker (a substitution's `$(python - <<'PY' … PY)`)."""
    if command.lstrip().startswith("*** Begin Patch") and shell_refused(printed):
        # an apply_patch text sent to a shell: its lines are no programs, only a redirection in one may write
        named = [path for _, written in split(without_heredocs(command)) for path in written]
        return Effect(tuple(named), "an apply_patch text run as a shell script") if named else NONE
    if is_windows(cwd) and is_powershell(command):  # Codex on Windows: PowerShell, judged by what it runs
        return _powershell(command, cwd or "", printed)
    command = command.replace("\\\n", "")  # a line continuation: the shell joins the lines
    loops = _loop_folders(without_heredocs(command))
    command, own, found = _inline_heredocs(command, printed, len(inline))
    inline = [*inline, *own]
    command, inner = substituted(without_heredocs(command))
    found += [effect(sub, cwd, printed, inline) for sub in inner]  # `X=$(cmd)` is judged by cmd
    targets: list[str] = []
    unknowns: list[str] = []
    outside = False  # after `cd` out of the working folder: what follows writes elsewhere
    here = ""  # the folder a `cd` moved to, relative to the working folder: a relative path written is under it
    parts = list(split(command))
    undone = _stash_undone(parts, printed)
    for at, (text, written) in enumerate(parts):
        if at in undone:
            continue
        where = cd(text, cwd)
        if where is not None:
            outside = outside if where == "down" else where  # a relative cd stays on whichever side it was
            here = moved(here, text, cwd) if not outside else here
            continue
        if outside:
            continue
        named = [path for path in written if path not in _IGNORED]
        marker = text.split()[0] if text.strip() else ""
        one = inline[int(marker[len(_MARK):])] if marker.startswith(_MARK) else part(text, printed) if text.strip() \
            else None
        if one is not None:  # its paths are taken here, under the folder a `cd` moved to; its kind below
            found.append(Effect(tuple(p for p in one.paths if p in (EVERYTHING, CHANGED)),
                                one.why if one.paths or one.unknown else "", one.unknown))
        for path in named + list(one.paths if one is not None else ()):
            path = loops.get(path.strip('"'), path)  # a loop's variable: the folder its values lie under
            path = path if path == CHANGED or path.startswith(("/", "~")) or not here else \
                posixpath.normpath(posixpath.join(here, path))
            path = _at_home(path, cwd)
            path = posixpath.normpath(path) if path.startswith("/") else path  # `/proj/.`, `/proj/..`
            if one is not None and one.starts and cwd and path.startswith("/") \
                    and (cwd.rstrip("/") + "/").startswith(path.rstrip("/") + "/"):
                # find's start folder the working folder itself or one above it (`find /Users/me/proj -exec sed
                # -i`), as `find .`; a copy into a folder above (`cp a ~/`) writes nothing here
                return Effect((EVERYTHING,), one.why)
            if path not in targets:
                targets.append(path)
    for each in found:
        if EVERYTHING in each.paths:
            return Effect((EVERYTHING,), each.why)
    for each in found:
        targets += [p for p in each.paths if p not in targets]
        unknowns += [u for u in each.unknown if u not in unknowns]
    if not targets and not unknowns:
        return NONE
    # a formatter's reason says more than another's, and a program's own more than "names"
    whys = [e.why for e in found if CHANGED in e.paths] + [e.why for e in found if e.why]
    return Effect(tuple(targets), whys[0] if whys else "names the files it writes", tuple(unknowns))


def _powershell(command: str, cwd: str, printed: str) -> Effect:
    """A PowerShell command line's effect (replay.inline_powershell). A first `Set-Location` to the working folder
    moves nothing; one to another folder on the drive makes what follows write there, not here."""
    moved = located(command)
    if moved is not None:
        inside = below(moved[0], cwd)
        if inside is None and is_windows(moved[0]):
            return NONE
        command = moved[1] if inside == "." else command
    return rules.inline("PowerShell", judge_powershell(command), _judge(printed), printed) or NONE


# `for F in $(find DIR …)`, `for F in DIR/*.md OTHER/*.md`: the loop's values lie under those folders (gstack's
# preamble: `for _PF in $(find ~/.gstack/analytics -maxdepth 1 -name '.pending-*'); do … rm -f "$_PF"`)
_FOR = re.compile(r"\bfor\s+([A-Za-z_]\w*)\s+in\s+(\$\(\s*find\s+[^)]*\)|[^;\n]*?)\s*(?:;|\n)\s*do\b")
_WORD_OK = re.compile(r"[^\s;|&()$`'\"]+")


def _loop_folders(command: str) -> dict[str, str]:
    """`$VAR` and `${VAR}` -> the folder a `for` loop's values lie under: a find's start folder, or the folder all
    its glob words share; a variable several loops give takes the folder all of theirs share (`.`: the working
    folder). Anything else a loop gives (a variable, a substitution, a plain word) maps nothing."""
    found: dict[str, list[str]] = {}
    skip: set[str] = set()
    for match in _FOR.finditer(command):
        name, words = match.group(1), match.group(2).strip()
        if words.startswith("$("):
            start = words[2:].split()[1:2]
            folders = start if start and _WORD_OK.fullmatch(start[0]) and not start[0].startswith("-") else None
        else:
            split = words.split()
            folders = [w[:min(w.index(ch) for ch in "*?" if ch in w)].rpartition("/")[0] or "." for w in split] \
                if split and all(_WORD_OK.fullmatch(w) and ("*" in w or "?" in w) for w in split) else None
        if folders is None:
            skip.add(name)
        else:
            found.setdefault(name, []).extend(folders)
    out: dict[str, str] = {}
    for name, folders in found.items():
        if name in skip:
            continue
        shared = posixpath.commonpath(folders) if len({f.startswith("/") for f in folders}) == 1 else "."
        out[f"${name}"] = out[f"${{{name}}}"] = shared or "."
    return out


# the home folder a recorded working folder lies in (`/home/jhay/Desktop/Soul`: `/home/jhay`)
_HOME = re.compile(r"^(/home/[^/]+|/Users/[^/]+|/root)(?=/|$)")


def _at_home(path: str, cwd: str | None) -> str:
    """`~/x` as the absolute path it names, when the working folder says whose home it is (a skill's
    `>> ~/.superstack/telemetry.jsonl` writes outside the workspace, not into a folder named `~`)."""
    home = _HOME.match(cwd or "") if path == "~" or path.startswith("~/") else None
    return home.group(1) + path[1:] if home else path


# git's own words when a stash saved nothing or its pop did not apply (not a program's "error:" in between)
_STASH_FAILED = ("No local changes to save", "CONFLICT (", "The stash entry is kept", "Could not restore untracked",
                 "would be overwritten by merge", "fatal: ")


def _stash_undone(parts: list[tuple[str, list[str]]], printed: str) -> set[int]:
    """The parts of `git stash [push …]` and the `git stash pop` after it in one command line (`git stash && go
    test ./…; git stash pop`): the tree ends as it began. Not when the recorded output shows the stash saved
    nothing (the pop then applied an older one) or the pop failed."""
    if any(mark in printed for mark in _STASH_FAILED):
        return set()
    out: set[int] = set()
    pushed = None
    for at, (text, _) in enumerate(parts):
        try:
            words = shlex.split(text)
        except ValueError:
            return set()
        if words[:2] != ["git", "stash"]:
            continue
        rest = words[2:]
        if pushed is None and (not rest or rest[0] == "push" or rest[0].startswith("-")):
            pushed = at
        elif pushed is not None and rest in (["pop"], ["pop", "stash@{0}"]):
            out.update((pushed, at))
            pushed = None
    return out


def part(text: str, printed: str = "") -> Effect | None:
    """One simple command's effect (None: nothing); `printed`: the whole command's recorded output."""
    if _CMDLET.search(text):  # PowerShell: a backslash separates a path's folders, it escapes nothing
        text = text.replace("\\", "/")
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        if SYNTAX.search(printed):
            return None  # an unclosed quote: the shell stopped at its syntax error, this part never ran
        return Effect((EVERYTHING,), "cannot be read as words")
    if words and words[0].startswith("(") and words[0] != "(":
        words = [words[0][1:], *words[1:]]  # a subshell's first command: `(cd x && make)`
    if words and words[-1].endswith(")") and "(" not in words[-1]:
        words = [*words[:-1], words[-1][:-1]] if words[-1] != ")" else words[:-1]  # and its last
    if words and re.match(r"^[A-Za-z_]\w*=\(", words[0]):
        return None  # an array assignment: `files=(a b)`
    while words and ("=" in words[0] and not words[0].startswith("=") or words[0] in KEYWORDS):
        # VAR=value prefixes (a plain assignment alone runs nothing), wrappers and compound commands' keywords
        words = _drop_duration(words[1:]) if words[0] == "timeout" else words[1:]
    if words and words[0].startswith("(") and words[0] != "(":
        words = [words[0][1:], *words[1:]]  # after a keyword: PowerShell's `if (Test-Path x) {…}`
    if not words or words[0] in CLOSERS or words[0] == "for" or words[0].startswith("-"):
        return None  # `for x in …` reads nothing; `command -v X` (its wrapper dropped) asks where X is
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    runs_script = program in ("bash", "sh", "zsh", "pwsh") and bool(args) and not args[0].startswith("-")
    script = rules.spec_kit(args[0] if runs_script else words[0], args[1:] if runs_script else args)
    if script is False:
        script = rules.export_session(args[0] if runs_script else words[0], args[1:] if runs_script else args)
    if script is not False:
        return script
    rule = rules.RULES.get(program)
    ran = rule(program, args, _judge(printed), printed) if rule is not None else False
    if ran is not False:
        return ran
    entry = PROGRAMS.get(program)
    if entry is not None:
        return judge(program, entry, args)
    if powershell_reads(program):
        return None
    if not_found(program, printed):
        return None  # the recording shows there was no such program to run
    if runs_script:
        return rules.unknown(args[0], args[1:], printed)
    return rules.unknown(words[0], args, printed)


# a PowerShell cmdlet (Verb-Noun) first in a simple command, or first after `(` or a keyword
_CMDLET = re.compile(r"^\s*(?:(?:if|elseif|while|foreach)\s*)?\(?\s*[A-Z][a-z]+-[A-Z][A-Za-z]+\b")


def _judge(printed: str):
    return lambda text: part(text, printed)


def _drop_duration(words: list[str]) -> list[str]:
    """`timeout [-s SIG] [-k T] 30 cmd …`: the command after the duration."""
    while words and words[0].startswith("-"):
        words = words[2:] if words[0] in ("-s", "-k", "--signal", "--kill-after") else words[1:]
    return words[1:]


# a program fed its code by a here-document: `python3 - <<'PY'`, `cd x && uv run python <<EOF`, `node - <<'JS'`
_INTERPRETER = re.compile(r"\s*(?:[A-Za-z_]\w*=\S*\s+)*(?:(?:uv|poetry|pipenv)\s+run\s+)?(?:\S*/)?"
                          r"(python[\d.]*|node|bun|deno)((?:\s+-[-\w=]+)*)(?:\s+-)?\s*")


_MARK = "__inline_code_"  # stands, in the command line, for an interpreter fed by a here-document


def _inline_heredocs(command: str, printed: str, first: int = 0) -> tuple[str, list[Effect | None], list[Effect]]:
    """`command` with each interpreter fed by a here-document replaced by a marker numbered from `first` (its place
    among the `cd`s decides where it wrote), the effects of the code those documents hold (judged by its calls), by marker, and
    those of the substitutions the shell runs in an unquoted document. A document whose tag is unquoted and that
    holds `$(` or a backquote is not judged (the shell substitutes into it: the interpreter is an unknown
    program)."""
    spans: list[tuple[int, int]] = []
    judged: list[Effect | None] = []
    found: list[Effect] = []
    for match in HEREDOC.finditer(command):
        start = max(command.rfind(sep, 0, match.start()) for sep in (";", "&", "|", "(", "\n")) + 1
        head = _INTERPRETER.fullmatch(command, start, match.start())
        body_at = command.find("\n", match.end())
        if body_at < 0 or command.startswith("<<", match.start() - 1):
            continue
        lines = command[body_at + 1:].split("\n")
        end = next((i for i, line in enumerate(lines)
                    if (line.lstrip("\t") if match.group(1) else line) == match.group(3)), len(lines))
        body = "\n".join(lines[:end])
        if not match.group(2) and ("$(" in body or "`" in body):
            # an unquoted document: the shell runs its substitutions before the program reads it
            found += [effect(sub, None, printed) for sub in substituted(body.replace("'", ""))[1]]  # quotes are data
            continue
        if head is None:
            continue
        program = head.group(1)
        verdict = judge_python(body) if program.startswith("python") else judge_js(body)
        judged.append(rules.inline(program, verdict, _judge(printed), printed))
        spans.append((start, match.start()))
    for n, (start, stop) in reversed(list(enumerate(spans))):
        command = f"{command[:start]} {_MARK}{first + n} {command[stop:]}"
    return command, judged, found
