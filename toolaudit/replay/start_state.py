"""The work a session started on that no commit holds, read from the session's own recorded `git diff` and
`git status`.

A session often starts on a working tree with changes not yet committed (the user's own, or an earlier
session's), and the recorded commit cannot show them: the first look at such a file differs. When the session
later ran `git diff` (or `git diff HEAD`, `git -C DIR diff`, with paths or not), its recorded output shows those
changes. Each file it lists that the session had not changed itself before that call (no recorded edit, no
command that named it) is taken, from the start, as the base with the diff applied (whatthepatch); a file whose
hunks do not apply to the base is uncertain. A diff recorded after a command that moved the working tree (a
checkout, a stash, a rebase) is of another state and is not used, nor is a cut output (a
persisted preview, or the part after a truncation marker). A file a recorded `git status` lists as changed or
untracked (and no diff shows) is not as the commit holds it either: it is uncertain from the start, so the
calls that read it are not compared with a state replay does not have. The agents' own folders (.codex/,
.claude/, .gemini/, and Entire's .entire/logs/, tmp/ and metadata/: they change as the session runs) are left out.

The same outputs say what a program replay cannot read (replay.shell_effects' unknown programs: a project's
own CLI, a script) changed: a file a later `git status` or `git diff` shows that no earlier one showed (or a
diff now other than before), and that the session did not change itself, is taken as its doing, and as the
doing of every unknown program run since the last whole `git status` before it (which did not list it). After
a subagent whose calls are elsewhere ran (replay.subagents), a file a diff shows first is its doing only, never
work the session started on (JanDeDobbeleer/oh-my-posh 2.1.209: a subagent's .Executed, shown by the diff after).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field

from ..model import ToolCall
from . import edits, segments, shell_effects, subagents
from .diff_sections import TRUNCATED, apply, sections, unquote  # noqa: F401  (state, tests import them here)
from .elsewhere import elsewhere as run_elsewhere
from .never_ran import never_ran
from .shell_syntax import cd, moved
from .start_base import listing

# `git [-C DIR] [--no-pager] diff [HEAD] [--] [PATH…] [2>&1]`: the working tree against the index or HEAD
_OPTIONS = {"--no-pager", "--no-color", "--no-ext-diff"}


@dataclass(frozen=True)
class Start:
    """What the session's own git commands showed of its start: each file's diff section (by its path relative
    to the repository's top) and the other files they listed as not committed."""

    diffs: dict[str, str] = field(default_factory=dict)
    changed: tuple[str, ...] = ()  # paths `git status` listed (relative to where it ran; a folder ends in /)
    # by an unknown program's call (call_key), the files the session's later git status/diff showed it changed
    later: dict[tuple, tuple[str, ...]] = field(default_factory=dict)
    # the files a `git diff COMMIT` showed: their diff is from that commit's text, not the checked-out one's
    bases: dict[str, str] = field(default_factory=dict)
    # by commit id: (the files a complete `git diff COMMIT` listing showed, those the session had changed before it)
    listed: dict[str, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)
    # the files a later status or diff showed changed that nothing the session ran explains (uncertain throughout)
    drifted: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.diffs or self.changed)


def read(calls: list[ToolCall], cwd: str | None) -> Start:
    """The start the session's recorded `git diff` and `git status` outputs show, from its calls in the order
    they were made."""
    from .state import SHELL_TOOLS, path_arg as state_path, shell_text

    touched: set[str] = set()  # recorded paths the session changed before: their diff is partly its own work
    found: dict[str, str] = {}
    bases: dict[str, str] = {}
    complete: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    listed: dict[str, None] = {}  # in the order first listed
    events: list[_Shown] = []  # each status and diff, in order: what it showed
    whole_read = False  # a whole status read line by line was among them (_status_shown)
    unknown: list[tuple[int, tuple, bool]] = []  # (where, call_key, a subagent) of each actor replay cannot follow
    agents = {call.agent for call in calls}  # a subagent whose calls are not here did unknown work (replay.subagents)
    for at, call in enumerate(calls):
        if run_elsewhere(call, cwd):  # another repository's status, diff or command (replay.elsewhere)
            continue
        if subagents.unrecorded(call, agents):
            unknown.append((at, call_key(call), True))
            continue
        if edits.is_mutating(call) or edits.is_patch_call(call):
            changed = edits.changes_of(call)
            if isinstance(changed, list):
                touched.update(change.path for change in changed)
            elif isinstance(changed, str):  # an edit that cannot be read: its file is the session's own
                touched.add(state_path(call) or "")
            continue
        command = shell_text(call) if call.tool in SHELL_TOOLS and never_ran(call) is None else None
        if command is None:
            continue
        output = printed(call.output)
        if _is_status(command):
            if call.is_error or TRUNCATED.search(output):
                continue  # it showed nothing whole: neither what the start held nor what changed since
            whole_read = _status_shown(listed, events, at, _status(output, touched, cwd), _understood(output),
                                       whole_read)
            continue
        whole = listing(_chain(command), output) if not call.is_error else None
        if whole is not None:
            complete.setdefault(whole[0], (frozenset(whole[1]), frozenset(_relative(t, cwd) for t in touched)))
            continue
        diffed = _diff_of(command)
        if diffed is not None:
            rev, named = diffed
            shown = sections(output) if not call.is_error else {}
            headers = _headers(output) if rev and not named and not call.is_error else None
            if headers is not None:
                complete.setdefault(rev, (frozenset(headers), frozenset(_relative(t, cwd) for t in touched)))
            if all(_under(path, named) for path in shown):
                kept = {path: section for path, section in shown.items()
                        if not path.startswith(AGENT_HOMES) and not any(_same(path, t, cwd) for t in touched)}
                # a subagent whose calls are elsewhere ran before it: what no status or diff before it showed
                helped = min((where for where, _, sub in unknown if sub), default=None)
                for path, section in kept.items():
                    if helped is not None and not rev and not any(path in event.paths for event in events
                                                                  if event.at < helped):
                        continue  # first shown after that subagent's work: its doing (`later`), not the start's
                    if whole_read and not rev and path not in listed:
                        continue  # a whole status before did not list it: changed since (`later`), not the start
                    if path not in found and rev:
                        bases[path] = rev
                    found.setdefault(path, section)
                if not rev:  # against another commit, it also shows what commits since then changed
                    events.append(_Shown(at, False, kept))
            continue
        # a `git status` among other commands of the line, its output told apart (replay.segments), before the rest
        # of the line ran: taken just before the line's own effects (at - 0.5), as a plain status is
        for paths, understood in _statuses_within(call, command, touched, cwd):
            whole_read = _status_shown(listed, events, at - 0.5, paths, understood, whole_read)
        effect = shell_effects.effect(command, cwd, call.output)
        if shell_effects.EVERYTHING in effect.paths:
            # the working tree moved: a later diff or status is of another state (a commit is not such a move: a
            # file the session did not touch that a later diff still shows was not in it)
            break
        if effect.unknown:
            unknown.append((at, call_key(call), False))
        touched.update(p for p in effect.paths if p != shell_effects.CHANGED)
    # a subagent is named even when nothing later showed it changed anything (replay.state tells it by this key)
    later = {key: () for _, key, sub in unknown if sub} | _later(events, [(at, key) for at, key, _ in unknown])
    # shown changed after a whole status that did not list them, by no program replay cannot read: the user's
    # editor, a process beside the session (entireio/git-sync 0.118: a test file the session never wrote)
    explained = {path for paths in later.values() for path in paths}
    drifted = {path: None for event in events for path in event.paths
               if path not in listed and path not in found and path not in explained}
    return Start(found, tuple(path for path in listed if path not in found), later, bases, complete,
                 tuple(drifted))


def _status_shown(listed: dict[str, None], events: list[_Shown], at: float, paths: list[str], understood: bool,
                  whole_read: bool) -> bool:
    """Record a whole `git status` (at `at`) and take the paths it lists as the start's when it is the first read
    line by line (`whole_read`: one was before it): a path a later one lists first was as the commit holds it when
    the first ran, and changed since (an unknown program's doing, `later`; Real-s/mini-simclr-assignment: an empty
    status, then a script rewrote results/…json). Returns whether such a status has now been seen."""
    if not whole_read:
        listed.update((path, None) for path in paths)
    events.append(_Shown(at, True, {path: None for path in paths}, understood))
    return whole_read or understood


def printed(output: str) -> str:
    """What a command printed, out of the agent's wrapper (Codex `shell`'s `{"output": …, "metadata": …}`, the
    `Exit code: …\nOutput:\n` header of its later tools, unified exec's `Chunk ID: …`, a code-mode cell's
    `Script completed`)."""
    if output.startswith('{"output":'):
        try:
            body = json.loads(output).get("output")
        except (ValueError, AttributeError):
            return output
        return body if isinstance(body, str) else output
    if output.startswith(("Exit code:", "Process exited with code", "Chunk ID:", "Command:")) \
            and "\nOutput:\n" in output:
        return output.partition("\nOutput:\n")[2]
    if output.startswith("Script completed\nWall time ") and "\nOutput:\n" in output:  # a code-mode cell's
        return output.partition("\nOutput:\n")[2].removeprefix("\n")  # items, joined after the header's own
    return output


def call_key(call: ToolCall) -> tuple:
    """What names one recorded call among a session's (the same object, or a copy of it)."""
    return call.source, call.line, call.call_index, call.call_id


@dataclass(frozen=True)
class _Shown:
    """What one recorded `git status` (whole: nothing named) or `git diff` showed: path -> diff section (None for
    a status's listing)."""

    at: float  # the call's index (a status within a line of several: just before it)
    whole: bool
    paths: dict[str, str | None]
    read: bool = True  # every path line of it was read (not so a status in another language): nothing else changed


def _later(events: list[_Shown], unknown: list[tuple[int, tuple]]) -> dict[tuple, tuple[str, ...]]:
    """For each unknown program's call, the files a later status or diff showed first (or a diff showed otherwise
    than before): taken as the doing of the unknown programs run since the last whole status before it."""
    out: dict[tuple, dict[str, None]] = {}
    for j, event in enumerate(events):
        since = max((e.at for e in events[:j] if e.whole), default=-1)
        suspects = [key for at, key in unknown if since < at < event.at]
        if not suspects:
            continue
        for path, section in event.paths.items():
            before = [e.paths[path] for e in events[:j] if path in e.paths]
            # shown before as well, and the same (a status then, a diff now: the diff says what it was all along)
            if before and (section is None or any(b is None or b == section for b in before)):
                continue
            for key in suspects:
                out.setdefault(key, {})[path] = None
    return {key: tuple(paths) for key, paths in out.items()}


# the agents' own folders, and Entire's runtime ones (its recorder's log .entire/logs/entire.log, its temporary files
# and session metadata): they change as the session runs, whatever it works on; .entire/settings.json is the user's
AGENT_HOMES = (".codex/", ".claude/", ".gemini/", ".entire/logs/", ".entire/tmp/", ".entire/metadata/")
_STATUS_OPTIONS = {"-s", "--short", "-b", "--branch", "-sb", "--porcelain", "--porcelain=v1", "-u", "-uall",
                   "--untracked-files=all", "--untracked-files", "--no-pager", "--no-color",
                   "--ignored"}  # its `!!` lines are not changes: status_paths leaves them out
_LONG = re.compile(r"^\t(?:modified|new file|deleted|renamed|typechange|both modified|both added):\s+(.+)$")


def _is_status(command: str) -> bool:
    """`command` is a plain `git status` (short or long, nothing piped) run where the session worked (not
    `git -C DIR`: its paths would be relative to DIR)."""
    words = _git_words(command, elsewhere=False)
    return words is not None and words[:1] == ["status"] and all(w in _STATUS_OPTIONS for w in words[1:])


def _status(output: str, touched: set[str], cwd: str | None) -> list[str]:
    """The paths a `git status` output lists that are the start's: not the agents' folders, nor the session's work."""
    return [path for path in status_paths(output)
            if not path.startswith(AGENT_HOMES) and not _holds(path, touched, cwd)]


def _statuses_within(call: ToolCall, command: str, touched: set[str], cwd: str | None) \
        -> list[tuple[list[str], bool]]:
    """What each `git status` of a line of several commands showed (and whether all of it was read), when its
    output can be told apart and nothing before it on the line may have changed a file (a code-mode cell: only one
    running a single command)."""
    if "git status" not in command or call.is_error or call.tool == "exec" and (
            command.count("\n") or call.args.count("text(") != 1):
        return []  # (on every shell call of every session: the plain test first)
    found, parts = [], None
    for index, part, out in segments.split(command, printed(call.output)):
        if not _is_status(part):
            continue
        parts = (segments.parts(command) or []) if parts is None else parts  # cut once, and only when needed
        if any(shell_effects.effect(p, cwd) != shell_effects.NONE or _elsewhere(p, cwd) for p in parts[:index]):
            break
        found.append((_status(out, touched, cwd), _understood(out)))
    return found


def _elsewhere(part: str, cwd: str | None) -> bool:
    """Whether a command before a status on its line makes it run elsewhere: a `cd`/`pushd` out of the session's
    folder (a status's paths are relative to where it runs), or git pointed at another tree."""
    if part.startswith(("popd", "export GIT_", "GIT_")) or "GIT_DIR=" in part or "GIT_WORK_TREE=" in part:
        return True
    where = cd(part, cwd)
    return where is True or where is not None and moved("", part, cwd) not in ("", ".")


def _git_words(command: str, elsewhere: bool = True) -> list[str] | None:
    """The words after `git` and its global options of a git command run alone (nothing piped, chained,
    redirected or substituted; a trailing `2>&1` allowed), or None (also for `-C DIR` unless `elsewhere`)."""
    command = re.sub(r"\s+2>&1\s*$", "", command.strip())
    if any(ch in command for ch in "|;&<>`$\n"):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if words[:1] != ["git"]:
        return None
    words = words[1:]
    while words and (words[0] in _OPTIONS or words[0] == "-C"):
        if words[0] == "-C" and not elsewhere:
            return None
        words = words[2:] if words[0] == "-C" else words[1:]
    return words


def status_paths(output: str) -> list[str]:
    """The paths a `git status` output lists as changed or untracked (short or long format; both sides of a
    rename), quotes removed."""
    paths: list[str] = []
    untracked = False
    for line in output.splitlines():
        short = segments.SHORT.match(line)
        long = _LONG.match(line)
        if line.startswith("Untracked files:"):
            untracked = True
        elif untracked and line.startswith("\t"):
            paths.append(line[1:])
        elif long:
            paths.extend(long.group(1).split(" -> "))
            untracked = False
        elif short and not line.startswith("## ") and short.group(1) != "!!":  # an ignored file is not a change
            paths.extend(short.group(2).split(" -> "))
        elif line and not line.startswith((" ", "\t")):
            untracked = False
    return [unquote(p) for p in paths]


def _understood(output: str) -> bool:
    """Whether every line of a `git status` output that could name a path was read as one (short lines, git's
    English long form): a status in another language (`\\tgeändert: …`) says nothing of what it did not list."""
    section = ""
    for line in output.splitlines():
        if line.startswith("\t"):
            if not _LONG.match(line) and section not in ("Untracked files:", "Ignored files:"):
                return False
        elif line and not line.startswith((" ", "##", "warning:", "On branch", "HEAD detached", "Your branch")) \
                and not segments.SHORT.match(line):
            section = line
    return True


def _holds(path: str, touched: set[str], cwd: str | None) -> bool:
    """Whether a listed path (a file, or a folder ending in /) is, or holds, a file the session changed: what
    status shows of it may be the session's own work."""
    if not path.endswith("/"):
        # the file, or a file under a folder the session wrote (`create-new-feature.sh`: specs/)
        return any(_same(path, t, cwd) or _relative(t, cwd) not in ("", ".")
                   and path.startswith(_relative(t, cwd) + "/") for t in touched)
    return any(_within(t.replace("\\", "/"), path) for t in touched)


def _relative(recorded: str, cwd: str | None) -> str:
    """A recorded path relative to the working folder (as it is when relative; '' when elsewhere)."""
    recorded = recorded.replace("\\", "/").removeprefix("./").rstrip("/")
    if not recorded.startswith("/"):
        return recorded
    top = (cwd or "").rstrip("/")
    return recorded[len(top) + 1:] if top and recorded.startswith(top + "/") else ""


def _chain(command: str) -> list[list[str]]:
    """The words after `git` of each command of an `&&` line of git commands alone ([] for anything else)."""
    parts = [_git_words(part) for part in command.split(" && ")]
    return [] if any(p is None for p in parts) else parts


def _headers(output: str) -> set[str] | None:
    """Every path a whole `git diff` output names in its `diff --git` headers (both sides of a rename); None when the
    output was cut."""
    if "<persisted-output>" in output or TRUNCATED.search(output):
        return None
    found = re.findall(r'^diff --git (a/.+|"a/.+") (b/.+|"b/.+")$', output, re.MULTILINE)
    return {unquote(name)[2:] for pair in found for name in pair}


def _diff_of(command: str) -> tuple[str, list[str]] | None:
    """What a plain `git diff` of the working tree (nothing piped) compares it with ("": the index or HEAD; else a
    commit's hex id, `git diff COMMIT [--] [PATH…]`) and the paths it names ([]: the whole tree); None when
    `command` is anything else (a branch name is not taken: where it pointed then no ref keeps)."""
    words = _git_words(command)
    if not words or words[0] != "diff":
        return None
    rest, rev = words[1:], ""
    if rest[:1] == ["HEAD"]:
        rest = rest[1:]
    elif rest and _HEX.fullmatch(rest[0]) and (len(rest) == 1 or rest[1] == "--"):
        rev, rest = rest[0], rest[1:]
    if any(w.startswith("-") and w != "--" for w in rest):  # an option changes what the diff shows
        return None
    if "--" in rest and rest.index("--") > 0:
        return None  # `git diff REV -- PATH`, REV not a commit id: against another revision
    return rev, [w for w in rest if w != "--"]


_HEX = re.compile(r"[0-9a-f]{7,40}")  # an abbreviated commit id: nothing git could read as an option or a ref




def _under(path: str, named: list[str]) -> bool:
    """Whether a diff's file (relative to the repository) is one a `git diff PATH…` named (a word that is not a
    path, such as a branch, names none of them: the diff is then against that revision and is not used)."""
    return not named or any(_within(path, word) for word in named)


def _within(path: str, name: str) -> bool:
    """Whether `path` is the file or folder `name` names, or lies in it, anywhere along it (`a/b/c.go` is within
    `b` and `a/b/c.go`); `.` and `` name everything."""
    name = name.removeprefix("./").rstrip("/")
    return name in ("", ".") or f"/{path}/".find(f"/{name}/") >= 0


def _same(rel: str, recorded: str, cwd: str | None) -> bool:
    """Whether a path relative to the repository and a recorded path (absolute, or relative to cwd) name one file."""
    recorded = recorded.replace("\\", "/")
    if recorded.startswith("/"):
        return recorded.endswith("/" + rel)
    return rel == recorded or rel.endswith("/" + recorded.removeprefix("./"))
