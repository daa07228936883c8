"""A path git ignores that the checkout lacks: a local file no commit holds.

A repository's `.gitignore` keeps some files on its author's disk only: notes and plans (`/docs`), a design hand-off,
build output (`dist/`), an agent's own settings. A session that reads one saw the recording machine's text, which no
commit and no start state can give back. Such a call is in an unknown state from the start, as a file the session's
own `git status` listed untracked is (replay.state): it is set aside with the path named, never compared as if the
file were missing. Claude Code's `.claude/settings.local.json` is one by design, ignored or not: its docs keep it
out of git (its per-machine settings beside the project's shared `.claude/settings.json`), so where the checkout
lacks it no commit can be the missing start, whether the repository's `.gitignore`, its user's global one or none
ignores it (Safecast/safecast-map-MCP's 2.1.3x session read its 591 tokens; the checkout has none). So is the
`.context/` folder the Conductor app keeps in each workspace it makes (`~/conductor/workspaces/REPO/NAME`) for the
agents' attachments (theexperiencecompany/gaia's 2.1.12x sessions read 18 review comments from
`.context/attachments/comments/`), untracked unless a project ignores it (EveryInc/compound-engineering-plugin#331).
Only where the recording shows the file was there (an answer that is not an error and not a search that found
nothing): a recorded "File does not exist" is reproduced as it is. A file the session wrote itself,
or that a whole-file Read gave back (replay.state's `learn`), is in the replay folder and read as any other.
Recorded: 1curafu/Fitcheck's 2.1.216 – 2.1.227 sessions read `docs/STATE.md` and `docs/superpowers/plans/…`
under `/docs` (ignored: their own `git check-ignore -v` printed `.gitignore:34:/docs`), and `design_handoff_*/`;
darthzen/zoia-canvas read `dist/patches/…` under `dist/`. Codex's shell commands take the same rule as a refusal
(agents.codex_local).

The same holds for a file the checkout lacks that a commit written after the session began adds (its author date
later than the session's first time, on any ref): the session read work not committed when it began, or committed
while it waited between turns (a user's commits no output of the session shows, which replay.later_commits does not
follow), which no start state holds. The later commit is the evidence that the path is the repository's (a path
mapped wrongly finds none, and a commit written before the session began says the start commit may be the wrong
one: both stay misses). Recorded: bricerising/specify-poker's Codex 0.77 sessions read `apps/api/src/services/profileService.ts`
and 14 more files of a feature committed hours later (`sed -n '1,200p' …`: 533 tokens recorded, `No such file` now).
A recorded listing or search (`rg --files`, `rg -n`'s `path:12:`, `ls`, Grep's and Glob's paths) that names such a
file, relative to the call's folder, is set aside the same way."""

from __future__ import annotations

import re
from pathlib import Path
from weakref import WeakKeyDictionary

from .agents.codex_noise import _body
from .fidelity import ABSENT
from .git import git
from .workspace import epoch

# Claude Code's per-machine settings, kept out of git by design: a clone's `git check-ignore` may not say so (the
# user's global excludes file, or nothing ignores it and it merely stays untracked)
AGENT_LOCAL = re.compile(r"(^|/)\.claude/settings\.local\.json$")
# a Conductor workspace (`~/conductor/workspaces/REPO/NAME`, a worktree the app makes) and the `.context/` folder the
# app keeps in it for the agents' attachments and notes, untracked
CONDUCTOR = re.compile(r"/conductor/workspaces/[^/]+/[^/]+/*$")
NOTHING_FOUND = ("No files found", "No matches found")  # Grep's and Glob's empty answers: the path may be missing
_TIMEOUT = 30.0
_SEEN: WeakKeyDictionary = WeakKeyDictionary()  # a session's state -> {missing path: whether git ignores it}
_ADDED: WeakKeyDictionary = WeakKeyDictionary()  # a session's state -> (since, {path: newest author time adding it})
_LINES, _CHARS = 400, 64 << 10  # how much of a recorded listing is read for the paths it names
_PATHLIKE = re.compile(r"[\w./@+-][\w ./@+-]{0,250}")  # a line that may be a path: no quotes, brackets or tabs


def ignored(root: Path, paths: list[str], timeout: float = _TIMEOUT) -> set[str]:
    """The paths (relative to `root`, a checkout) that its ignore rules match (`git check-ignore`); empty when git
    cannot say (no repository, a timeout)."""
    return _check_ignore(root, paths, timeout) or set()


def _check_ignore(root: Path, paths: list[str], timeout: float) -> set[str] | None:
    """`ignored`, or None when git could not say. A batch git refuses (one path beyond a symlink) is asked again one
    path at a time, so one odd path does not lose the others."""
    if not paths:
        return set()
    # `./`: a recorded path beginning with `:` is a file's name, not pathspec magic (check-ignore takes no literal)
    given = {(f"./{p}" if p.startswith(":") else p): p for p in paths}
    done = git(root, ["check-ignore", "--stdin", "-z"], timeout, stdin="\0".join(given).encode(
        "utf-8", "surrogateescape") + b"\0", max_output=1 << 20)
    if done is None or done.timed_out or done.capped:
        return None
    if done.exit_code not in (0, 1):
        if len(paths) == 1:
            return None
        each = [_check_ignore(root, [p], timeout) for p in paths]
        return None if all(found is None for found in each) else set().union(*(found or set() for found in each))
    return {given.get(p, p) for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p}


def added_since(root: Path, since: float, timeout: float = _TIMEOUT) -> dict[str, int] | None:
    """Every file (relative to `root`, a checkout) a commit on any ref committed since `since` (Unix seconds) adds,
    with the newest author time (Unix seconds) of such a commit; None when git cannot say. One run per session: the
    commits of a busy repository's whole history are not walked path by path."""
    # --no-renames: finding renames reads blobs a snapshot may lack (git then fails whole), and a renamed file is added
    # under its new name for the checkout as well
    done = git(root, ["log", "--all", "--no-renames", "--diff-filter=A", f"--since=@{int(since)}", "--relative",
                      "--format=%x01%at", "--name-only", "-z"], timeout, max_output=64 << 20)
    if done is None or done.timed_out or done.capped or done.exit_code != 0:
        return None
    newest: dict[str, int] = {}
    when = 0
    for field in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        for part in field.split("\n"):
            if part.startswith("\x01") and part[1:].isdigit():
                when = int(part[1:])
            elif part:
                newest[part] = max(newest.get(part, 0), when)
    return newest


def local_doubt(state, paths: list[str], output: str, is_error: bool, ts: str | None = None,
                folder: str | None = None) -> str | None:
    """Why a call reading `paths` (recorded) cannot see what the recording machine had: the first path git ignores
    that the replay folder lacks and the session did not write, when the recorded answer shows it was there; else the
    first such path, or one its recorded listing names (a listing or search's output, its relative paths under
    `folder`; None: not a listing), that a commit authored after the session began (`state.started`, else the call's
    own time `ts`) adds."""
    if is_error or not output.strip() or output.startswith(NOTHING_FOUND):
        return None
    missing = _missing(state, paths)
    seen = _SEEN.setdefault(state, {})
    unknown = [key for key in missing if key not in seen]
    if unknown:
        found = _check_ignore(state.root, unknown, max(_TIMEOUT, state.git_timeout))
        if found is not None:  # a failure is not remembered as "not ignored"
            seen.update({key: key in found for key in unknown})
    hit = next((key for key in missing if seen.get(key)), None)
    if hit:
        return (f"uncertain: {hit}: git ignores it and the checkout lacks it (a local file no commit holds: the "
                "recording machine's)")
    hit = next((key for key in missing if AGENT_LOCAL.search(key)), None)
    if hit:
        return (f"uncertain: {hit}: Claude Code's per-machine settings, which no commit is meant to hold, and the "
                "checkout lacks it (the recording machine's)")
    hit = next((key for key in missing if key.startswith(".context/")), None) if CONDUCTOR.search(
        (state.cwd or "").replace("\\", "/")) else None
    if hit:
        return (f"uncertain: {hit}: the folder Conductor keeps in its workspace for attachments and notes, which no "
                "commit holds, and the checkout lacks it (the recording machine's)")
    when = epoch(state.started) or epoch(ts)
    if when is None:
        return None
    # it may have said it was not there: where an error says so, at the start (as fidelity reads it), not a file's own
    # text further on (kv-248/TeacherEvaluation's gemini_api.py holds "not found" in its code)
    read = [] if any(a in output[:300] for a in ABSENT) else missing
    listed = _missing(state, _listed(output, folder)) if folder else []
    candidates = [*read, *(key for key in listed if key not in read)]
    if not candidates:
        return None
    added = _added(state, when)
    later = next((key for key in candidates if added.get(key, 0) > when), None)
    return (f"uncertain: {later}: the checkout lacks it and a commit written after the session began adds it (work "
            "not committed when it began)") if later else None


def _added(state, since: float) -> dict[str, int]:
    """added_since for the session, asked once (and again only for an earlier time); a failure asks no more."""
    cached = _ADDED.get(state)
    if cached is None or cached[0] > since:
        cached = (since, added_since(state.root, since, max(_TIMEOUT, state.git_timeout)) or {})
        _ADDED[state] = cached
    return cached[1]


def _missing(state, paths) -> list[str]:
    """The keys of `paths` (recorded) that the replay folder lacks and the session neither wrote nor read whole."""
    missing = []
    for path in paths:
        target = state.local(path)
        try:
            if target is None or target == state.root or target.exists() or target.is_symlink():
                continue
        except OSError:  # a name the disk refuses (too long): no file of the checkout
            continue
        key = state._key(target)
        if key not in state.known and key not in state.changed and ".git" not in key.split("/") and key not in missing:
            missing.append(key)
    return missing


def _listed(output: str, folder: str) -> list[str]:
    """The paths a recorded listing or search names, one per line (`path`, `path:12:text`), made absolute under
    `folder`; its first _LINES lines only."""
    if output.startswith('{"output":'):  # Codex's early shell: {"output": …}
        output = _body(output)
    found = []
    for line in output[:_CHARS].splitlines()[:_LINES]:
        name = line.strip().split(":", 1)[0].removeprefix("./")
        if len(name) < 2 or name.startswith("..") or not _PATHLIKE.fullmatch(name):
            continue
        found.append(name if name.startswith("/") else f"{folder.rstrip('/')}/{name}")
    return found
