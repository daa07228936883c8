"""The files a session's branch changed, from its own recorded `git diff --stat BASE...HEAD` (or `--name-only`,
`--name-status`, `BASE..HEAD`): when the replay runs on another commit than the one the session recorded (its branch
is gone, its commits squashed into the base or never pushed), each such file is not as the replay's commit holds it,
and a read of it is in an unknown state. A tracked file uncertain keeps the whole folder doubted, as any does
(replay.state.only_new_uncertain): the replay's commit also holds the base's later commits, which the session's HEAD
lacked (compared on its other files, agentv's session below gave 4 of 11 within ±1%). EntityProcess/agentv's Codex 0.142.4 session (entire/checkpoints/v1:
96/eca76f596a) began on 669232e, the third commit of a branch the clone lacks, and printed
`git diff --stat origin/main...HEAD` first: 40 files, 17 of which it read before changing them.

`--stat` elides a long path's head (`.../docs/evaluation/eval-files.mdx`): it names each tracked file ending so."""

from __future__ import annotations

import re
import shlex

from ..model import ToolCall
from .git import output

_STAT = re.compile(r"^ (\S.*?) +\| +(?:\d+|Bin)")  # ` path | 12 ++--`
_NAME_STATUS = re.compile(r"^[ACDMRTUXB]\d*\t(.+)$")
_SUMMARY = re.compile(r"^ \d+ files? changed", re.MULTILINE)
_CUT = re.compile(r"tokens truncated|chars truncated|\[\.\.\. omitted \d+ of \d+ lines")  # Codex's own cut
_RANGE = re.compile(r"[^\s.]+\.\.\.?(?:HEAD|@)")  # `origin/main...HEAD`, `main..HEAD`
_FLAGS = {"--stat", "--name-only", "--name-status", "--no-color", "--no-renames"}


def listed(command: str, output: str) -> list[str] | None:
    """The paths a `git diff [--stat|--name-only|--name-status] BASE...HEAD` printed (relative to the repository's
    top; `--stat`'s elided ones start `.../`); None when `command` is no such listing."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if words[:2] != ["git", "diff"] or any(w in ("|", ">", ";") for w in words):
        return None
    rest = words[2:]
    ranges = [w for w in rest if _RANGE.fullmatch(w)]
    flags = {w for w in rest if w.startswith("-")}
    if len(ranges) != 1 or len(rest) != len(ranges) + len(flags) or not flags <= _FLAGS or not flags & _FLAGS - {
            "--no-color", "--no-renames"}:
        return None
    if _CUT.search(output) or "--stat" in flags and not _SUMMARY.search(output):
        return None  # not the whole listing: the files it left out say nothing
    found = []
    for line in output.splitlines():
        if "--name-only" in flags:
            found.append(line.strip())
        elif (match := _NAME_STATUS.match(line) if "--name-status" in flags else _STAT.match(line)):
            found.append(match.group(1).split("\t")[-1].strip())
    return [p for p in found if p]


def branch_files(calls: list[ToolCall], body) -> list[str]:
    """Every path the session's recorded branch listings named before its first edit (`body(output)`: what the
    command printed)."""
    from .edits import is_mutating, is_patch_call
    from .state import shell_text

    found: list[str] = []
    for call in calls:
        if is_mutating(call) or is_patch_call(call):
            break  # the session's own changes from here on: the state follows them
        command = shell_text(call)
        if command and not call.is_error:
            found += listed(command.strip(), body(call.output)) or []
    return found


def doubt_branch(state, calls: list[ToolCall], body) -> int:
    """Make uncertain, in `state`, each tracked file the session's branch listings name; returns how many."""
    names = sorted(set(branch_files(calls, body)))
    if not names:
        return 0
    tracked = _tracked(state.root) if any(n.startswith(".../") for n in names) else []
    why = "the session's own `git diff BASE...HEAD` listed it changed on its branch, which the replay's commit lacks"
    count = 0
    for name in names:
        matches = [t for t in tracked if t.endswith(name[3:])] if name.startswith(".../") else [name]
        for rel in matches:
            target = state.local(f"{state.cwd.rstrip('/')}/{rel}") if state.cwd else None
            if target is not None:
                state.uncertain.setdefault(state._key(target), why)
                count += 1
    return count


def _tracked(root) -> list[str]:
    return [p for p in (output(root, ["ls-files", "-z"], 60.0) or "").split("\0") if p]
