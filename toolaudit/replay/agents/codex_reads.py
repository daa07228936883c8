"""What a recorded read-only shell command reads, by path: so that a file uncertain in the session's state (an
untracked folder its `git status` listed, a file a command may have written) sets aside only the calls that read
it, not every shell call of the session.

The command is cut into programs as replay's shell interpreter cuts it (agents.shell_words); each allow-listed
program names what it reads: cat, head, tail, nl, wc, sort and sed their file operands (stdin in a pipeline:
nothing); ls its operands (else its folder); rg and grep the paths after their pattern (else the folder they search);
find its start folders; `git status` and a `git diff` of the working tree the whole tree; `git show`, `git log`,
`git rev-parse` and a diff of two commits read commits, no file (`git -C DIR`: in DIR); pwd, echo, printf, true,
false nothing; `cd` moves where the next relative path is; PowerShell's `Get-Content FILE` (Codex on Windows) its
file, `Get-ChildItem` the folders it lists, `Select-String` the files it searches. A glob reads its folder. On
Windows a program's line is read in the session's folder made POSIX (`C:\\repo` as `/C:/repo`), unless it holds a
backslash (PowerShell's folder separator, a POSIX escape).
Anything else (an unknown program, a redirection, a substitution) gives None: the whole folder, as before."""

from __future__ import annotations

import posixpath
import re

from ..winpath import is_windows, posix_form
from .codex_listing import listing
from .codex_powershell import get_content
from .codex_select import select_string
from .codex_table import LOCATION
from .shell_options import SPECS, scan
from .shell_words import NotReplayable, parse

_FILES = {"cat", "head", "tail", "nl", "wc", "sort"}
_NOTHING = {"pwd", "echo", "printf", "true", "false"}
_COMMIT = re.compile(r"[0-9a-f]{7,40}|HEAD|@")  # a revision no working file answers for (`HEAD~1`, `1a2b3c4^`…)


def reads(command: str, workdir: str) -> list[str] | None:
    """The paths (absolute, as recorded) `command`, run in the recorded `workdir`, reads; None when it cannot say."""
    try:
        lists = parse(command)
    except NotReplayable:
        return None
    here, found = workdir, []
    for _, pipeline in lists:
        for k, cmd in enumerate(pipeline):
            words = [w.text if not w.glob else _folder(w.text) for w in cmd.words]
            name = words[0].rsplit("/", 1)[-1] if words else ""
            if name == "cd":
                if len(words) != 2 or k or len(pipeline) > 1:
                    return None
                here = posixpath.normpath(posixpath.join(here, words[1]))
                continue
            args, there = words[1:], here
            if name == "git" and args[:1] == ["-C"] and len(args) > 2:  # `git -C DIR status`: DIR's tree
                args, there = args[2:], posixpath.join(here, args[1])
            got = _program(name, args, first=k == 0)
            if got is None:
                return None
            found += [posixpath.normpath(posixpath.join(there, path)) for path in got]
    return found


def _folder(text: str) -> str:
    """The folder a glob lies in (`docs/*.md` -> `docs`, `*.go` -> `.`)."""
    cut = min(text.index(ch) for ch in "*?[" if ch in text)
    return text[:cut].rpartition("/")[0] or "."


def _program(name: str, args: list[str], first: bool) -> list[str] | None:
    """The paths one program reads (relative as given); None for a program this does not know."""
    if name in _NOTHING:
        return []
    if name == "git":
        return _git(args)
    if name == "find":  # its start folders: the operands before its first expression word (`-name`, `(`, `!`)
        starts = next((args[:i] for i, a in enumerate(args) if a.startswith(("-", "(", "!"))), args)
        return None if any(a.startswith("..") for a in starts) else (starts or ["."])
    if name not in SPECS:
        return None
    try:
        options, operands = scan(name, args)
    except NotReplayable:
        return None
    if name in _FILES:
        return operands if operands or first else []
    if name == "sed":
        scripted = any(o in ("-e", "--expression", "-f", "--file") for o, _ in options)
        files = operands if scripted else operands[1:]
        return files if files or first else []
    if name == "ls":
        return operands or ["."]
    if name in ("rg", "grep", "egrep", "fgrep"):
        keys = {o for o, _ in options}
        named = keys & {"-e", "-f", "--regexp", "--file", "--files", "--type-list"}
        paths = operands if named else operands[1:]
        recursive = name != "rg" and any(o in ("-r", "-R", "--recursive", "--dereference-recursive") for o in keys)
        return paths if paths else (["."] if first or recursive else [])  # `grep -r` searches its folder, not stdin
    return None


def git_here(command: str) -> bool:
    """Whether `command` runs git on the repository of its own folder (no `-C DIR`): its answer is that folder's
    repository's, whatever files it names."""
    try:
        lists = parse(command)
    except NotReplayable:
        return True
    return any(cmd.words and cmd.words[0].text.rsplit("/", 1)[-1] == "git"
               and [w.text for w in cmd.words[1:2]] != ["-C"] for _, pipeline in lists for cmd in pipeline)


def _git(args: list[str]) -> list[str] | None:
    """What a read-only git command reads of the working tree: all of it for status and a diff of the tree; no file
    for show, log and a diff of two commits (their objects are the same in any checkout)."""
    sub = args[0] if args else ""
    words = [a for a in args[1:] if not a.startswith("-")]
    words = words[:words.index("--")] if "--" in words else words
    if sub in ("show", "log", "rev-parse"):
        return []
    if sub == "diff":
        revs = [w for w in words if _COMMIT.match(w)]
        return [] if len(revs) >= 2 or any(".." in w for w in revs) else ["."]
    return ["."] if sub == "status" else None


def shell_reads(tool: str, args: dict, cwd: str | None) -> list[str] | None:
    """What a recorded Codex shell call (its arguments) reads, by path; None when it cannot say."""
    import shlex

    from .codex import command_of
    from .shell_words import NotReplayable as Refused

    try:
        command, workdir = command_of(tool, args)
    except Refused:
        return None
    windows = is_windows(workdir) or is_windows(cwd)
    if windows and isinstance(command, str) and LOCATION.fullmatch(command):  # PowerShell's pwd reads no file
        return []
    read = get_content(command) if isinstance(command, str) and windows else None
    listed = listing(command) if isinstance(command, str) and windows and read is None else None
    search = select_string(command) if isinstance(command, str) and windows and not (read or listed) else None
    base = posixpath.join(posix_form(cwd or ""), posix_form(workdir or ""))  # a relative workdir: under cwd
    if read or listed or search:  # PowerShell's Get-Content FILE, Get-ChildItem's folders, Select-String's files
        named = [read[0]] if read else list(listed.paths) if listed else _searched(search)
        return [posixpath.normpath(posixpath.join(base, posix_form(p).replace("\\", "/"))) for p in named]
    if windows:  # a program PowerShell ran (`rg -n x src`), read as a POSIX shell reads it, in the folder made POSIX
        line = command if isinstance(command, str) else shlex.join(command)
        if "\\" in line:  # PowerShell's backslash separates folders; read as a POSIX escape, it would lose them
            return None
        return reads(line, base)
    if not (workdir or "").startswith("/") and not (cwd or "").startswith("/"):
        return None  # relative paths with nothing to anchor them: the whole folder
    where = workdir if workdir and workdir.startswith("/") else posixpath.join(cwd, workdir or ".")
    return reads(command if isinstance(command, str) else shlex.join(command), where)


def _searched(search) -> list[str]:
    """The files a Select-String reads (a wildcard name: its folder), or the one the Get-Content before it reads."""
    if search.piped is not None:
        return [search.piped[0]]
    return [_folder(p.replace("\\", "/")) if any(ch in p for ch in "*?[") else p for p in search.paths]


def exec_reads(code: str, cwd: str | None) -> list[str]:
    """What a code-mode `exec` cell reads: the paths its `tools.exec_command` calls read (`.` when it runs anything
    else, or one of them cannot say)."""
    from .codex_cell import commands

    found: list[str] = []
    for command, workdir in commands(code) or [(None, None)]:
        read = shell_reads("exec_command", {"cmd": command, "workdir": workdir}, cwd) if command else None
        if read is None:
            return ["."]
        found += read
    return found
