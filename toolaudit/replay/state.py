"""The session's state: the files each recorded call saw, so a replayed call reads what the agent read.

The state starts from a base (replay.workspace: the recorded commit, `--commit REV`, the last commit
before the session began, or the folder as it is) in a scratch folder of its own: the user's workspace
is never written. Then the session's recorded edits are applied in order (replay.edits), each at its
place among the calls, with the file's time set to the edit's. A recorded shell command is never re-run:
what it may have written (replay.shell_effects) is uncertain from there on, and a later call that reads
it says so (`doubt`). A program replay cannot read (a project's own CLI, a script) makes uncertain only the
paths it names and the files the session's own later `git status`/`git diff` showed changed
(replay.start_state's `later`); `unknown_programs` names each, for the report. An edit that no longer applies
makes its file uncertain too.
"""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path

from ..model import MAIN_AGENT, ToolCall
from ..secrets.redact import redact
from . import edits, shell_effects, subagents
from .arguments import call_args
from .elsewhere import elsewhere
from .never_ran import never_ran
from .head import moves_head, reads_head
from .fast_forward import merged
from .git import GIT_TIMEOUT
from .quote import quote
from .start_state import call_key, printed as start_printed
from .sandbox import OutsideWorkspace, resolve
from .workspace import epoch, map_path, mappings
from .winpath import is_windows
from .agents.codex_cell import shell_script

SHELL_TOOLS = {"Bash", "bash", "shell", "exec_command", "shell_command", "local_shell", "run_shell_command", "exec",
               "execute_bash", "terminal", "execute_command", "run_command"}


class SessionState:
    """One session's files in a scratch folder (`root`), changed by its recorded edits as they come."""

    def __init__(self, root: Path, cwd: str | None, path_map=(), writable: bool = True,
                 git_timeout: float = GIT_TIMEOUT):
        self.root = root
        self.cwd = cwd
        self.began = cwd  # the folder the session began in: above `cwd` when replay.nested_repo moved it
        self.pairs = mappings(cwd, path_map)
        self.writable = writable  # False: the user's own folder, read as it is (nothing to apply)
        self.git_timeout = git_timeout  # a fast-forward replayed here (replay.git)
        self.uncertain: dict[str, str] = {}  # path relative to root -> why
        self.everything: str | None = None  # why the whole workspace is uncertain
        self.applied = self.failed = 0
        self.known: set[str] = set()  # files the session edited, or read as the recording shows them
        self.changed: set[str] = set()  # files no longer as the base holds them (edited, or learned)
        self.main_model: str | None = None  # the main thread's model so far (record follows its calls)
        self.learned = 0  # files taken from a recorded whole-file Read the state did not reproduce (learn)
        self.differed: dict[str, str] = {}  # file -> the call whose read of it showed other text (differed)
        self.later: dict[tuple, tuple[str, ...]] = {}  # by call: what the session later showed it changed (prime)
        # each program replay cannot read that the session ran -> the files the session later showed it changed
        # (empty: nothing showed a change, so the workspace stayed certain)
        self.unknown_programs: dict[str, list[str]] = {}
        self.head: str | None = None  # why HEAD is not where the session's was (replay.head)
        # on the commit the session recorded (Codex's session_meta): its status listed every tracked file that differed
        self.recorded_base = False
        self.started: str | None = None  # the session's first timestamp (replay.ignored: work committed after)
        self._written: set[str] = set()  # uncertain only as what the session's own commands may have written
        self._tracked: set[str] | None = None  # the checkout's tracked paths, read once (only_new_uncertain)
        self._tracked_ok = False

    # --- paths ----------------------------------------------------------------------------------

    def local(self, recorded: str) -> Path | None:
        """The file a recorded path names, inside the scratch folder (None: outside the workspace)."""
        mapped = map_path(recorded, self.pairs, self.root)
        try:
            return resolve(self.root, mapped)
        except OutsideWorkspace:
            return None

    def _key(self, target: Path) -> str:
        return target.relative_to(self.root).as_posix()

    # --- what the session did -----------------------------------------------------------------------

    def record(self, call: ToolCall) -> str | None:
        """Take a recorded call into the state: an edit is applied, a shell command's possible writes are
        marked uncertain; returns what happened, in a few words (None: the call changes nothing)."""
        if call.agent == MAIN_AGENT and call.model:
            self.main_model = call.model
        if edits.is_mutating(call) or edits.is_patch_call(call):
            return self._edit(call)
        if call.tool in ("Agent", "Task") and call_key(call) in self.later:  # a subagent whose calls are elsewhere
            self._did(f"a subagent ({redact(subagents.kind(call))})", self.later[call_key(call)],
                      "its calls are not in the transcript")
            return None
        if call.tool in SHELL_TOOLS and never_ran(call) is None and not elsewhere(call, self.cwd):
            # a command refused or rejected changed nothing; one run in another repository changed that one
            command = shell_text(call)
            if command is not None:
                self._shell(command, call.output, self.later.get(call_key(call), ()))
                if not self.head and not call.is_error and moves_head(command):
                    self.head = (f"HEAD: the session's own `{quote(command, 'git commit')}` made a commit, which "
                                 "replay does not make")
        return None

    def _edit(self, call: ToolCall) -> str:
        found = edits.changes_of(call)
        if found is None:
            return "an edit that failed when recorded: nothing applied"
        if isinstance(found, str):
            self._doubt_paths([path_arg(call)], found)
            return found
        if not self.writable:
            self.everything = self.everything or "the session edited files and no scratch copy could be made"
            return "not applied: no scratch copy"
        when = epoch(call.ts)
        for change in found:
            target = self.local(self._from(call, change.path))
            if target is None or ".git" in self._key(target).split("/"):
                # outside the workspace, or git's own files (a hook the session wrote), a nested repository's too
                # (`sub/.git/config` could name a program git runs): in a scratch worktree .git is a file naming
                # the real repository, which replay never writes
                continue
            source = getattr(change.transform, "moved_from", None)
            try:
                before = _read(self.local(self._from(call, source)) if source else target)
                after = change.transform(before)
            except edits.EditFailed as exc:
                self.failed += 1
                self.uncertain[self._key(target)] = f"a recorded edit did not apply ({exc})"
                self._written.discard(self._key(target))  # the start may not be the commit's: not the session's doing
                continue
            try:
                _write(target, after, when)
            except OSError as exc:  # a folder where the file should be, a name the disk cannot hold...
                self.failed += 1
                self.uncertain[self._key(target)] = f"a recorded edit could not be written here ({exc.strerror})"
                continue
            if not getattr(change.transform, "partial", False):  # a patch's hunks leave the other lines in doubt
                self.uncertain.pop(self._key(target), None)
            if getattr(change.transform, "whole", False):  # a Write: its text is known again, an Edit's is not
                self.differed.pop(self._key(target), None)
            self.known.add(self._key(target))
            self.changed.add(self._key(target))
            self.applied += 1
        return "applied to the session's state"

    def _from(self, call: ToolCall, path: str) -> str:
        """A patch's relative path as Codex resolves it: from the call's workdir (a shell's `apply_patch <<EOF`),
        else from where the session began; as recorded when that is the replay folder."""
        if not path or not self.cwd or path.startswith("/") or is_windows(path):
            return path
        args = call_args(call)
        folder = args.get("workdir", args.get("working_directory"))  # local_shell's name for it
        began = self.began if self.began and self.began.startswith("/") else self.cwd
        folder = posixpath.join(began or "", folder) if isinstance(folder, str) and folder else began
        if not folder or not folder.startswith("/") or folder.rstrip("/") == (self.cwd or "").rstrip("/"):
            return path
        return posixpath.join(folder, path)

    def _shell(self, command: str, printed: str = "", shown: tuple[str, ...] = ()) -> None:
        found = shell_effects.effect(command, self.cwd, printed)
        if found.none:
            return
        if shell_effects.EVERYTHING in found.paths:
            if merged(command, printed, start_printed(printed), self.root if self.writable else None, self.git_timeout):
                return  # a fast-forward done here too, or a merge that changed nothing (replay.fast_forward)
            self.everything = self.everything or f"after `{quote(command, found.why)}` ({redact(found.why)})"
            return
        for program in found.unknown:
            self._did(program, shown, f"`{quote(command, program)}` ran {', '.join(found.unknown)}")
        if shell_effects.CHANGED in found.paths:  # a formatter: what the session changed may be reformatted
            for key in sorted(self.changed):
                self.uncertain.setdefault(key, f"`{quote(command, found.why)}`: {redact(found.why)}")
        named = [path for path in found.paths if path != shell_effects.CHANGED]
        self._doubt_paths(named, f"`{quote(command, found.why)}` may have written it")

    def _did(self, actor: str, shown: tuple[str, ...], how: str) -> None:
        """An actor replay cannot follow (a program, a subagent) ran: the files the session later showed changed
        are uncertain as its doing, the rest stays certain."""
        seen = self.unknown_programs.setdefault(actor, [])
        seen += [path for path in shown if path not in seen]
        self._doubt_paths(list(shown), f"{how}, and the session's own later `git status`/`git diff` showed it changed")

    def unknown_note(self) -> str | None:
        """One line on the programs replay does not know that the session ran (None: it ran none): their names
        (redacted) and what they left uncertain, so that a user sees why calls after them are, or are not, set aside."""
        if not self.unknown_programs:
            return None
        names = [redact(name) for name in self.unknown_programs]
        listed = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        shown = {path for paths in self.unknown_programs.values() for path in paths}
        what = (f"the session's own later `git status`/`git diff` showed {len(shown)} file(s) changed that it had "
                "not changed itself: those are uncertain as their doing, the rest of the workspace stays certain"
                if shown else "nothing the session later showed (`git status`, `git diff`) changed, so the workspace "
                "stays certain")
        return (f"ran {len(names)} program(s) replay does not know ({listed}): {what} (paths named on their command "
                "lines are uncertain too)")

    def _doubt_paths(self, paths: list[str | None], why: str) -> None:
        for path in paths:
            if path and any(ch in path for ch in "*?["):  # a glob the shell expanded: the folder it lies in
                path = path[:min(path.index(ch) for ch in "*?[" if ch in path)].rpartition("/")[0] or "."
            target = self.local(path) if path else None
            if target is not None and self._key(target) not in self.uncertain:
                self.uncertain[self._key(target)] = why
                self._written.add(self._key(target))

    def prime(self, start) -> int:
        """Put into the start state the uncommitted work the session's own `git diff` showed, and make uncertain
        the other files its `git status` listed (replay.start_state.Start); returns how many files took a diff."""
        from .start_base import base_text, restore
        from .start_state import apply
        self.later = dict(start.later)
        for path in start.changed:
            target = self.local(path)
            if target is not None and self._key(target) not in self.changed:  # an earlier session's work is known
                self.uncertain.setdefault(self._key(target), "the session's own `git status` showed it changed "
                                                             "before it began (work no commit holds)")
        self._doubt_paths(list(start.drifted), "the session's own later `git status` showed it changed, by nothing "
                                               "the transcript records")  # only those calls that read it: _written
        if not self.writable:
            return 0
        taken = 0
        for rel, section in start.diffs.items():
            try:
                target = resolve(self.root, rel)
            except OutsideWorkspace:
                continue
            if target.is_dir() or self._key(target) in self.changed:  # an earlier session's work: applied already
                continue
            before = base_text(self.root, start.bases[rel], rel) if rel in start.bases else _read(target)
            after = apply(section, before) if before is not False else None
            if after is None:
                self.uncertain.setdefault(self._key(target), "the session's own `git diff` showed work no commit "
                                                             "holds, which does not apply here")
                continue
            _write(target, after, None)  # not `changed`: a formatter run before the diff had already done its work
            taken += 1
        for rev, (listed, keep) in start.listed.items():  # the files a complete listing leaves out: as rev holds them
            taken += restore(self, rev, listed, keep, set(start.diffs), lambda t, text: _write(t, text, None), _read)
        return taken

    def learn(self, call: ToolCall, args: dict) -> bool:
        """Take a file's text from a recorded Read of all of it that the state did not reproduce (Claude Code's
        numbered listing): the file was not as the base holds it (uncommitted work, an edit made outside the
        transcript), and the calls after it should see what the agent saw. The Read itself stays a difference:
        only later calls gain. `args`: the call's recorded arguments. True when the file was rewritten. (A Codex
        `cat FILE` was tried the same way on the Codex sessions: it made more calls comparable but most of them
        still differed, so it is not done.)"""
        from .agents.claude_code.read import whole_text

        # a subagent's Read is taken too: its line sits among the main thread's calls where it ran
        if call.is_error or not self.writable or call.tool != "Read" \
                or call.collector != "claude-code":
            return False
        text, path = whole_text(call.output, args), args.get("file_path")
        target = self.local(path) if text is not None and isinstance(path, str) else None
        # a folder the commit lacks is made: the listing shows the file was there (a new package, an untracked one)
        if target is None or target.is_dir() or (target.parent.exists() and not target.parent.is_dir()):
            return False
        old = _read(target)
        if old is not None and "\r\n" in old:  # the listing does not show line endings: keep the file's own
            text = text.replace("\n", "\r\n")
        try:
            _write(target, text, epoch(call.ts))
        except OSError:  # a file where a folder on the path should be
            return False
        self.uncertain.pop(self._key(target), None)
        self.differed.pop(self._key(target), None)
        self.known.add(self._key(target))
        self.changed.add(self._key(target))
        self.learned += 1
        return True

    def differs(self, paths: list[str], call: ToolCall) -> None:
        """A read of `paths` showed other text than the state's and taught nothing (a part of a file, a `sed -n`):
        the file is not as replay holds it (work no commit holds, an edit made outside the transcript), so a later
        read of that file by name is compared with nothing it could match. Folders are left alone, and so is a
        file the checkout lacks (the session's own edits or diffs may yet make it: entireio/skills' untracked
        SKILL.md). A command reading several files marks none: which of them differed, its output does not say."""
        target = self.local(paths[0]) if len(paths) == 1 else None
        if target is not None and target.is_file():
            command = shell_text(call) if call.tool in SHELL_TOOLS else None
            self.differed.setdefault(self._key(target), f"`{quote(command)}`" if command else call.tool)

    def fresh(self, paths: list[str]) -> bool:
        """Whether a call reading `paths` is the session's first look at them: no file among them edited or read
        as recorded before (a folder: no edit applied anywhere yet)."""
        for path in paths:
            target = self.local(path)
            if target is None:
                continue
            if target.is_dir():
                if self.applied:
                    return False
            elif self._key(target) in self.known:
                return False
        return True

    def confirm(self, paths: list[str]) -> None:
        """The files a call read were as the recording shows them."""
        for path in paths:
            target = self.local(path)
            if target is not None and target.is_file():
                self.known.add(self._key(target))

    def first_look_differs(self) -> None:
        """A call's first look at what it read, doubted by nothing, showed other lines than the recording: the tree
        held work no listing showed (a rollout resumed days later, on another tree), so from here a tracked file
        uncertain doubts the whole folder again (only_new_uncertain), as on another commit."""
        self.recorded_base = False

    def only_new_uncertain(self) -> bool:
        """Whether every uncertain path is untracked (a new folder, a build: nothing of the files the checkout holds)
        or only the session's own commands may have written it (Real-s's `@'…'@ | Set-Content X`); a tracked file
        uncertain else says the tree held other work, unless the replay runs on the session's recorded commit
        (`recorded_base`). Then a shell call is doubted by the paths it reads (agents.codex_reads), else by all."""
        if self.everything:
            return False
        existing = [key for key in self.uncertain if key not in self._written and (self.root / key).exists()]
        if not existing or self.recorded_base:
            return True
        if self._tracked is None:
            from .git import output

            # the paths the checkout tracks, under the session's folder (relative to it, as the keys are)
            tracked = output(self.root, ["ls-files", "-z"], 60.0)
            self._tracked = set(tracked.split("\0")) if tracked is not None else set()
            self._tracked_ok = tracked is not None
        return self._tracked_ok and not any(key in self._tracked for key in existing)

    def head_doubt(self, call: ToolCall) -> str | None:
        """Why a shell call reading HEAD (replay.head) may differ from the recording: the session moved HEAD."""
        command = shell_text(call) if self.head and call.tool in SHELL_TOOLS else None
        return f"uncertain: {self.head}" if command is not None and reads_head(command) else None

    def doubt(self, paths: list[str]) -> str | None:
        """Why an answer reading `paths` (recorded) may differ from the recording for want of state, or None."""
        if self.everything:
            return f"uncertain: {self.everything}"
        for path in paths:
            target = self.local(path)
            if target is None:
                continue
            key = self._key(target)
            for doubted, why in self.uncertain.items():
                # the file itself, a file under the folder read, or the file under a folder a command wrote
                if doubted == key or doubted.startswith(key.rstrip("/") + "/") or key == "." \
                        or doubted == "." or key.startswith(doubted.rstrip("/") + "/"):
                    return f"uncertain: {doubted}: {why}"
            if key in self.differed:
                return (f"uncertain: {key}: an earlier {self.differed[key]} of it showed other text than replay's "
                        "(the start state, or an edit outside the transcript)")
        return None


def shell_text(call: ToolCall) -> str | None:
    """The command line of a recorded shell call (Claude Code's `command`, Codex's argv, exec's `cmd`…; the
    commands of Codex's code-mode cell, agents.codex_cell)."""
    try:
        args = json.loads(call.args) if call.args.strip() else {}
    except ValueError:
        return shell_script(call.args) if call.collector == "codex" and call.tool == "exec" else None
    if not isinstance(args, dict):
        return None
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        if len(command) >= 3 and command[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh") and command[1] in ("-lc", "-c"):
            return command[2]
        return " ".join(command)
    return command if isinstance(command, str) else None


def path_arg(call: ToolCall) -> str | None:
    """The file a recorded edit call names (file_path, notebook_path, path…), or None."""
    args = call_args(call)
    for key in ("file_path", "notebook_path", "path", "absolute_path"):
        if isinstance(args.get(key), str):
            return args[key]
    return None


def _read(target: Path | None) -> str | None:
    if target is None or not target.is_file():
        return None
    return target.read_bytes().decode("utf-8", "surrogateescape")


def _write(target: Path, text: str | None, when: float | None) -> None:
    if text is None:
        if target.is_file():
            target.unlink()
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text.encode("utf-8", "surrogateescape"))
    if when is not None:
        os.utime(target, (when, when))
