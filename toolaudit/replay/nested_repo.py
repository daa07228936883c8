"""The repository below a session's working folder.

Claude Code records the folder it was started in (`cwd`), and replay puts the checked-out repository there. A
session started in a folder above the repository (a workspace of several projects) reads the repository's files
under a longer path: tomochang/aidev's Claude Code 2.1.58 session ran in `/Users/tomo/clawd` and read
`/Users/tomo/clawd/projects/odysseus/aidev/src/types.ts`, the repository's `src/types.ts` (its transcript is
committed in that repository, `.entire/metadata/`). Put at `/Users/tomo/clawd`, the repository held none of the
paths it read, and 16 of 23 Reads answered `File does not exist`.

So when no absolute path the session's own file tools named under its working folder is in the checked-out
commit as it is, but most of those below the same leading folders are once these are taken off (two or more paths,
and more than half of those below them), the repository is taken to sit at those folders: the session's working
folder becomes `cwd/those/folders` and its paths are read from there. A path anywhere else (above the repository,
beside it) stays outside the replay folder and is refused, as before. Every folder some path votes for is tried;
two with as many votes place nothing. Paths beside the repository do not count against it, nor does a path only a
Write names that the checkout lacks (a file the session may have created; a Write of a file the checkout holds
was a Read first, and votes): ikihin/bhavana's Claude Code 2.1.177 session, started in its user's home folder,
read and edited 7 files of `~/bhavana`, read 7 of `~/.claude/skills` (Claude Code's own, no repository's) and
wrote 28 new files in `~/bhavana`; a majority of all the paths, as the rule first asked, left the repository in the
home folder, and all 14 Reads answered `File does not exist`. A repository that holds a path the session named is
where it was started: nothing moves (the test is the path's first folder, so a file the session created itself
decides nothing; an agent's own folder, `.codex/` or `.claude/`, which a home folder and a repository both may
hold, decides nothing either).

A Codex session votes with the files its shell commands read (agents.codex_reads) and those its patches name (an
Add File as a Write): kv-248/TeacherEvaluation's Codex 0.115 sessions ran in `/workspace` and read
`/workspace/TeacherEvaluation/evaluation/…` with `sed -n`. Their commands keep `workdir: /workspace`, above the
repository: those that name only absolute paths inside it are replayed there (agents.codex's `_workspace`), and a
patch's relative path is read from the workdir, else from where the session began (replay.state).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Iterable

from ..model import ToolCall
from .start_state import AGENT_HOMES
from .winpath import is_windows, posix_form

PATH_ARGS = ("file_path", "notebook_path", "path")  # Claude Code's file tools: Read, Edit, Write, NotebookEdit, Grep, Glob
SHELLS = ("shell", "shell_command", "exec_command", "local_shell")  # Codex's shell tools
DEPTH = 4  # leading folders tried: projects/odysseus/aidev is three


def folder(calls: Iterable[ToolCall], cwd: str | None, root: Path) -> str | None:
    """The recorded folder of the repository checked out at `root` when it sits below `cwd` (module docstring),
    in the recording's own form (`D:\\work\\app` on Windows); None when the repository is at `cwd`."""
    if not cwd or not (cwd.startswith("/") or is_windows(cwd)):
        return None
    top = posix_form(cwd).rstrip("/") or "/"
    calls = list(calls)
    # a file a Write (or a patch's Add File) names may be one the session created: it counts against no folder
    # (it may vote for one)
    written = set(_below(calls, top, created=True))
    # an agent's own folder (`.codex/`, `.claude/`) decides nothing: the home folder and a repository both may hold one
    rels = sorted({rel for rel in _below(calls, top) if not (rel + "/").startswith(AGENT_HOMES)})
    if not rels:
        return None
    if any(_there(root, rel.split("/")[0]) for rel in rels):  # the repository is where the session started
        return None
    votes: Counter[str] = Counter()
    voted: set[str] = set()  # the paths that vote (in the checkout once their leading folders are taken off)
    for rel in rels:
        parts = rel.split("/")
        for k in range(1, min(DEPTH, len(parts) - 1) + 1):
            if _there(root, "/".join(parts[k:])):
                votes["/".join(parts[:k])] += 1
                voted.add(rel)
                break
    passing = []
    for prefix, hits in votes.items():
        under = sum(1 for rel in rels if rel.startswith(prefix + "/") and (rel not in written or rel in voted))
        if hits >= 2 and 2 * hits > under:
            passing.append((hits, prefix))
    passing.sort(reverse=True)
    if not passing or (len(passing) > 1 and passing[0][0] == passing[1][0]):  # none, or a tie: no place
        return None
    prefix = passing[0][1]
    if is_windows(cwd):
        return cwd.rstrip("\\/") + "\\" + prefix.replace("/", "\\")
    return cwd.rstrip("/") + "/" + prefix


def _below(calls: Iterable[ToolCall], top: str, created: bool = False) -> Iterable[str]:
    """The paths the calls name under `top`, relative to it: their file arguments, the files a Codex shell command
    reads and those its patches name; with `created`, only those a Write or a patch's Add File names."""
    for call in calls:
        for value in _named(call, created):
            if not isinstance(value, str) or not (value.startswith("/") or is_windows(value)):
                continue
            path = str(PurePosixPath(posix_form(value)))  # normalised: a/./b, a//b
            if path.startswith(top.rstrip("/") + "/"):
                rel = path[len(top.rstrip("/")) + 1:]
                if rel and ".." not in rel.split("/"):
                    yield rel


def _named(call: ToolCall, created: bool) -> list:
    """The paths one call names (see _below)."""
    from .agents.codex_reads import shell_reads  # here: the agents package reads the replay modules
    from .arguments import call_args
    from .edits import patch_files

    args = call_args(call)
    changed, added = patch_files(call)
    if created:
        return [args.get(key) for key in PATH_ARGS] if call.tool == "Write" else added
    if changed or added:
        return changed + added
    if call.tool in SHELLS:  # the files it reads, its workdir's relative ones made absolute
        return shell_reads(call.tool, args, call.cwd) or []
    return [args.get(key) for key in PATH_ARGS]


def _there(root: Path, rel: str) -> bool:
    """Whether the checkout holds `rel` (not following a symlink at its end: a stat, nothing read)."""
    return bool(rel) and os.path.lexists(root / rel)
