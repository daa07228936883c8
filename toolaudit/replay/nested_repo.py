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
where it was started: nothing moves (an agent's own folder, `.codex/` or `.claude/`, which a home folder and a
repository both may hold, decides nothing). So does a file the session wrote in a folder the repository holds (it
created it there). A path read whose first folder the repository holds, but not the path, is weaker: a folder below
wins only with more paths than those. kv-248/TeacherEvaluation's Codex 0.115 sessions read
`/workspace/artifacts/nonverbal_eval_long/run_…/summary_full.md`, a run's output beside the repository, whose own
`artifacts/` holds other runs; two of its sessions stayed at `/workspace` for that one folder, against 10 and 11
of their paths found in `TeacherEvaluation/` (with the later commits' evidence below).

When the checkout alone places nothing, the vote is taken again with the evidence replay.ignored uses for a file
the checkout lacks: a path a commit written after the session began adds is the repository's (work not committed
when it began; held as it is, it is where the session started), and a path the repository's `.gitignore` keeps out
of every commit (local data, build output) counts neither way. Three more of TeacherEvaluation's sessions read
mostly such files below `/workspace/TeacherEvaluation/` (its ignored `evaluation/local_data/`, reports committed
hours later): in one, 4 of 15 paths were in the checkout; 7 of the 7 that git does not ignore are, with the later
commits.

A session whose paths the repository holds none of, neither where it began nor below (three or more, and no folder
of theirs, the later commits' included), worked in another folder: its reads are set aside with that said, not
compared with files the checkout never had. anmol0b/Trezo-Ai's committed Codex 0.120 session ran in its user's home
folder and read 14 paths of `~/Documents/New project`, another project (a Solana program, no file of Trezo-Ai's):
18 of its 19 calls replayed missed against `No such file`. Not where other sessions worked in the folder before it
or beside it (replay.chain): the files it read may be ones they made (ujuc/agent-stuff's Claude Code 2.1.41
sessions read 18 files an earlier session on their commit had written; 40 of their 55 calls matched).

A Codex session votes with the files its shell commands read (agents.codex_reads) and those its patches name (an
Add File as a Write): kv-248/TeacherEvaluation's Codex 0.115 sessions ran in `/workspace` and read
`/workspace/TeacherEvaluation/evaluation/…` with `sed -n`. Their commands keep `workdir: /workspace`, above the
repository: those that name only absolute paths inside it are replayed there (agents.codex's `_workspace`), and a
patch's relative path is read from the workdir, else from where the session began (replay.state).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterable

from ..model import ToolCall
from .start_state import AGENT_HOMES
from .winpath import is_windows, posix_form

PATH_ARGS = ("file_path", "notebook_path", "path")  # Claude Code's file tools: Read, Edit, Write, NotebookEdit, Grep, Glob
SHELLS = ("shell", "shell_command", "exec_command", "local_shell")  # Codex's shell tools
DEPTH = 4  # leading folders tried: projects/odysseus/aidev is three
NOWHERE = 3  # paths the repository holds none of (nor their folders) that say the session worked elsewhere


@dataclass(frozen=True)
class Placed:
    """Where a session's repository sat: `below`, its recorded folder below the session's (None: where it began);
    `nowhere`, why it was neither (the session worked in another folder)."""

    below: str | None = None
    nowhere: str = ""


def folder(calls: Iterable[ToolCall], cwd: str | None, root: Path, since: float | None = None,
           timeout: float = 30.0) -> str | None:
    """The recorded folder of the repository checked out at `root` when it sits below `cwd` (module docstring),
    in the recording's own form (`D:\\work\\app` on Windows); None when the repository is at `cwd`."""
    return place(calls, cwd, root, since, timeout).below


def place(calls: Iterable[ToolCall], cwd: str | None, root: Path, since: float | None = None,
          timeout: float = 30.0) -> Placed:
    """Where the repository checked out at `root` sat for a session begun in `cwd` (module docstring). `since`:
    when the session began (Unix seconds), for the later commits' evidence."""
    from . import ignored  # here: replay.ignored reads the agents package, which reads this module

    if not cwd or not (cwd.startswith("/") or is_windows(cwd)):
        return Placed()
    top = posix_form(cwd).rstrip("/") or "/"
    calls = list(calls)
    # a file a Write (or a patch's Add File) names may be one the session created: it counts against no folder
    # (it may vote for one)
    written = set(_below(calls, top, created=True))
    # an agent's own folder (`.codex/`, `.claude/`) decides nothing: the home folder and a repository both may hold one
    rels = sorted({rel for rel in _below(calls, top) if not (rel + "/").startswith(AGENT_HOMES)})
    # the repository is where the session started: it holds a path, or the first folder of one the session wrote
    if not rels or any(_there(root, rel) or (rel in written and _there(root, rel.split("/")[0])) for rel in rels):
        return Placed()
    weak = sum(1 for rel in rels if _there(root, rel.split("/")[0]))  # a path read whose first folder only it holds
    # the checkout alone first; with a path read whose first folder it holds, the later commits' evidence at once
    prefix = None if weak and since is not None else _vote(rels, written, weak, lambda rest: _there(root, rest),
                                                           lambda inside: set())
    added: dict[str, int] = {}
    if prefix is None and since is not None:
        added = ignored.added_since(root, since, timeout) or {}
        if any(rel in added for rel in rels):  # a later commit holds it where the session started: it is there
            return Placed()
        prefix = _vote(rels, written, weak, lambda rest: _there(root, rest) or rest in added,
                       lambda inside: ignored.ignored(root, inside, timeout))
    if prefix is not None:
        if is_windows(cwd):
            return Placed(cwd.rstrip("\\/") + "\\" + prefix.replace("/", "\\"))
        return Placed(cwd.rstrip("/") + "/" + prefix)
    later = {path.split("/")[0] for path in added}
    if not weak and len(rels) >= NOWHERE and not any(rel.split("/")[0] in later for rel in rels):
        return Placed(nowhere=f"the repository holds none of the {len(rels)} paths the session read or wrote under "
                              f"{cwd}, nor a folder of theirs: it worked in another folder")
    return Placed()


def _vote(rels: list[str], written: set[str], weak: int, held, ignores) -> str | None:
    """The leading folders most paths are `held` below once taken off (two or more, more than half of those below
    them that `ignores` does not take out, and more than `weak`); None when none is, or two tie."""
    votes: Counter[str] = Counter()
    voted: set[str] = set()  # the paths that vote (held once their leading folders are taken off)
    for rel in rels:
        parts = rel.split("/")
        for k in range(1, min(DEPTH, len(parts) - 1) + 1):
            if held("/".join(parts[k:])):
                votes["/".join(parts[:k])] += 1
                voted.add(rel)
                break
    passing = []
    for prefix, hits in votes.items():
        inside = [rel for rel in rels if rel.startswith(prefix + "/") and (rel not in written or rel in voted)]
        left_out = ignores([rel[len(prefix) + 1:] for rel in inside if rel not in voted])
        under = sum(1 for rel in inside if rel[len(prefix) + 1:] not in left_out)
        if hits >= 2 and 2 * hits > under and hits > weak:
            passing.append((hits, prefix))
    passing.sort(reverse=True)
    if not passing or (len(passing) > 1 and passing[0][0] == passing[1][0]):  # none, or a tie: no place
        return None
    return passing[0][1]


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
