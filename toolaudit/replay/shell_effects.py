"""What a recorded shell command may have changed in the workspace, read from its text (never run).

Replay applies recorded edits to the session's state, but a shell command is never re-run: a command that
may have written files leaves them uncertain from there on, so later calls that read them are flagged.
`effect(command)` gives NONE (it reads, or writes only outside the sources: test runs, builds into
their caches), the paths it names as targets (`rm a`, `mv a b`, `sed -i … f`, `> f`), or EVERYTHING
(a command we cannot read, a formatter over the tree, a git command that moves the working tree).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

EVERYTHING = "*"


@dataclass(frozen=True)
class Effect:
    """The paths a command may have changed (EVERYTHING: the whole workspace); why, in a few words."""

    paths: tuple[str, ...] = ()
    why: str = ""

    @property
    def none(self) -> bool:
        """It changed nothing replay tracks."""
        return not self.paths


NONE = Effect()
# read the files, or write only outside them (caches, build outputs, temp files): nothing to track
READERS = {"cat", "head", "tail", "less", "more", "nl", "wc", "ls", "tree", "grep", "egrep", "fgrep", "rg", "ag",
           "find", "fd", "stat", "file", "du", "df", "pwd", "echo", "printf", "which", "type", "env", "date", "true",
           "false", "test", "[", "diff", "cmp", "sort", "uniq", "cut", "tr", "awk", "jq", "yq", "basename",
           "dirname", "realpath", "readlink", "sleep", "whoami", "uname", "id", "hostname", "ps", "curl", "wget",
           "gh", "sha256sum", "md5sum", "xxd", "od", "hexdump", "strings", "column", "seq", "cd", "export", "source",
           "go", "cargo", "npm", "npx", "pnpm", "yarn", "pytest", "make", "mise",
           "golangci-lint", "ruff", "mypy", "tsc", "eslint", "jest", "vitest", "docker", "kubectl", "uv", "pip"}
# subcommands / flags of the readers above that do write sources
WRITERS = {
    "go": {"fmt", "mod", "get", "generate", "fix", "work"},
    "cargo": {"fmt", "fix", "add", "remove", "update", "new", "init"},
    "npm": {"install", "i", "ci", "uninstall", "update", "init", "version", "pkg"},
    "pnpm": {"install", "i", "add", "remove", "update"},
    "yarn": {"install", "add", "remove", "upgrade"},
    "uv": {"add", "remove", "sync", "lock", "init"},
    "pip": {"install", "uninstall"},
    "make": {"fmt", "format", "generate", "gen", "fix", "clean", "install"},
    "mise": {"fmt", "format", "fix", "generate", "install"},
    "ruff": {"format"},
    "npx": {"prettier"},
}
WRITING_FLAGS = {"--fix", "--write", "-w", "-i", "--in-place", "-delete", "-exec", "-execdir", "-fprint", "-fprintf"}
GIT_READERS = {"status", "log", "diff", "show", "blame", "branch", "rev-parse", "ls-files", "grep", "remote",
               "config", "describe", "shortlog", "reflog", "tag", "fetch", "cat-file", "ls-tree", "rev-list",
               "name-rev", "merge-base", "worktree", "add", "commit", "push", "notes"}
TARGETED = {"rm", "rmdir", "touch", "mkdir", "tee", "truncate", "chmod", "chown", "unlink"}
_SPLIT = re.compile(r"\s*(?:&&|\|\||;|\||\n)\s*")
_REDIRECT = re.compile(r"(?<![<>&\d])(?:\d?>>?|&>)\s*([^\s;&|]+)")


def effect(command: str) -> Effect:
    """What `command` (one shell command line, as recorded) may have changed."""
    targets: list[str] = []
    for path in _REDIRECT.findall(command):
        if path not in ("/dev/null", "/dev/stderr", "/dev/stdout") and not path.startswith("&"):
            targets.append(path)
    if "$(" in command or "`" in command or "<<" in command and "apply_patch" not in command:
        body = command.split("<<", 1)[0] if "<<" in command else command
        if not _all_read(body):
            return Effect((EVERYTHING,), "a command with substitutions or a here-document")
    for part in _SPLIT.split(command):
        part = _REDIRECT.sub(" ", part).strip()
        if not part:
            continue
        found = _part(part)
        if found is None:
            continue
        if EVERYTHING in found.paths:
            return found
        targets.extend(found.paths)
    return Effect(tuple(targets), "names the files it writes") if targets else NONE


def _all_read(text: str) -> bool:
    return all(_part(p) is None or not _part(p).paths for p in _SPLIT.split(text) if p.strip())


def _part(part: str) -> Effect | None:
    """One simple command's effect (None: nothing)."""
    try:
        words = shlex.split(part, comments=True)
    except ValueError:
        return Effect((EVERYTHING,), "cannot be read as words")
    while words and ("=" in words[0] and not words[0].startswith("=") or words[0] in ("sudo", "time", "env", "nice")):
        words = words[1:]  # VAR=value prefixes and wrappers
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if program == "git":
        sub = next((a for a in args if not a.startswith("-")), "")
        if sub in ("checkout", "switch", "reset", "restore", "stash", "merge", "rebase", "pull", "cherry-pick",
                   "revert", "apply", "am", "clean", "mv", "rm"):
            return Effect((EVERYTHING,), f"git {sub} changes the working tree")
        return None if sub in GIT_READERS or not sub else Effect((EVERYTHING,), f"git {sub}")
    if program in ("mv", "cp", "ln", "install", "rsync"):
        operands = [a for a in args if not a.startswith("-")]
        return Effect(tuple(operands[-1:] if program != "mv" else operands), f"{program} writes its target")
    if program in TARGETED:
        return Effect(tuple(a for a in args if not a.startswith("-") and not a.isdigit()), f"{program} writes")
    if program == "sed":
        if any(a.startswith("-i") or a == "--in-place" for a in args):
            return Effect(tuple(a for a in args[1:] if not a.startswith("-"))[1:] or (EVERYTHING,), "sed -i")
        return None
    if program in ("python", "python3", "node", "deno", "bun"):
        # a test runner or inline code reads; a script may write anything
        if args[:2] in (["-m", "pytest"], ["-m", "unittest"], ["-m", "json.tool"]) or args[:1] in (["-c"], ["-e"]):
            return None
        return Effect((EVERYTHING,), f"{program} runs a script")
    if program in ("gofmt", "goimports", "prettier", "black", "isort", "rustfmt", "clang-format"):
        if any(a in WRITING_FLAGS for a in args) or program in ("black", "isort"):
            return Effect((EVERYTHING,), f"{program} rewrites files")
        return None
    if program in READERS:
        operands = [a for a in args if not a.startswith("-")]
        sub = operands[0] if operands else ""
        if sub in ("run", "run-script", "exec") and len(operands) > 1:  # a task runner: the task says
            sub = operands[1]
        writes = sub in WRITERS.get(program, ()) or any(w in sub for w in ("fmt", "format", "fix", "generate"))
        if writes and program in WRITERS or any(a in WRITING_FLAGS for a in args):
            return Effect((EVERYTHING,), f"{program} {sub} may rewrite files".replace("  ", " "))
        if program == "find" and any(a in WRITING_FLAGS for a in args):
            return Effect((EVERYTHING,), "find with an action")
        return None
    return Effect((EVERYTHING,), f"{program}: not known to leave files as they were")
