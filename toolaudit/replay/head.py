"""Where HEAD stands: a session's own `git commit` moves it, and replay makes no commit (nothing recorded is run
but read-only commands), so a later git command that reads HEAD (`git status`, `git log`, `git show HEAD~1`, a
`git diff` of the index or of HEAD) reads another history than the session's. Such a call is set aside as in an
unknown state; one that names its commits by id (`git show 1a2b3c4:f`, `git diff 1a2b3c4`) is not."""

from __future__ import annotations

import re
import shlex

from .shell_rules import GIT_VALUED
from .shell_syntax import after_options, split

# git commands whose answer depends on where HEAD (and the index a commit resets) stands
_READERS = {"status", "log", "show", "diff", "shortlog", "describe", "rev-parse", "blame", "rev-list", "reflog",
            "whatchanged", "show-branch", "cherry", "diff-index", "ls-files", "name-rev", "range-diff", "branch"}
_ID = re.compile(r"[0-9a-f]{7,40}(?:[:~^].*)?")  # a commit by its id (`1a2b3c4`, `1a2b3c4^`, `1a2b3c4:path`)


def git_commands(command: str):
    """(subcommand, the words after it) of each simple `git` command of a command line."""
    for text, _ in split(command):
        try:
            words = shlex.split(text)
        except ValueError:
            continue
        while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):  # `GIT_PAGER=cat git …`
            words = words[1:]
        if words[:1] == ["git"]:
            rest = after_options(words[1:], GIT_VALUED)
            if rest:
                yield rest[0], rest[1:]


def moves_head(command: str) -> bool:
    """Whether a command line (as recorded; it succeeded) made a commit: `git commit`, unless it only tried."""
    return any(sub == "commit" and "--dry-run" not in args for sub, args in git_commands(command))


def reads_head(command: str) -> bool:
    """Whether a command line runs a git command whose answer depends on HEAD: `status`, or a reader that names
    no commit by id (its revisions default to HEAD, or name it: `HEAD~1`, `@`, a branch)."""
    for sub, args in git_commands(command):
        if sub == "status":
            return True
        if sub not in _READERS:
            continue
        words = args[:args.index("--")] if "--" in args else args
        named = [w for w in words if not w.startswith("-")]
        if not any(_ID.fullmatch(w) for w in named) or any(re.search(r"\bHEAD\b|^@", w) for w in named):
            return True
    return False


def switched_to(command: str) -> set[str]:
    """The branches a command line's `git checkout`/`git switch` moves to (`checkout -b NEW`, `switch -c NEW`,
    `checkout NAME`); a path checkout (`checkout -- f`, `checkout REV -- f`) moves to none."""
    found: set[str] = set()
    for sub, args in git_commands(command):
        if sub not in ("checkout", "switch") or "--" in args:
            continue
        created = [args[i + 1] for i, word in enumerate(args[:-1]) if word in ("-b", "-B", "-c", "-C", "--create")]
        named = [w for w in args if not w.startswith("-")]
        found.update(created or named[:1])
    return found
