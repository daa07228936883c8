"""A path git ignores that the checkout lacks: a local file no commit holds.

A repository's `.gitignore` keeps some files on its author's disk only: notes and plans (`/docs`), a design hand-off,
build output (`dist/`), an agent's own settings. A session that reads one saw the recording machine's text, which no
commit and no start state can give back. Such a call is in an unknown state from the start, as a file the session's
own `git status` listed untracked is (replay.state): it is set aside with the path named, never compared as if the
file were missing. Only where the recording shows the file was there (an answer that is not an error and not a
search that found nothing): a recorded "File does not exist" is reproduced as it is. A file the session wrote itself,
or that a whole-file Read gave back (replay.state's `learn`), is in the replay folder and read as any other.
Recorded: 1curafu/Fitcheck's 2.1.216 – 2.1.227 sessions read `docs/STATE.md` and `docs/superpowers/plans/…`
under `/docs` (ignored: their own `git check-ignore -v` printed `.gitignore:34:/docs`), and `design_handoff_*/`;
darthzen/zoia-canvas read `dist/patches/…` under `dist/`. Codex's shell commands take the same rule as a refusal
(agents.codex_local)."""

from __future__ import annotations

from pathlib import Path
from weakref import WeakKeyDictionary

from .git import git

NOTHING_FOUND = ("No files found", "No matches found")  # Grep's and Glob's empty answers: the path may be missing
_TIMEOUT = 30.0
_SEEN: WeakKeyDictionary = WeakKeyDictionary()  # a session's state -> {missing path: whether git ignores it}


def ignored(root: Path, paths: list[str], timeout: float = _TIMEOUT) -> set[str]:
    """The paths (relative to `root`, a checkout) that its ignore rules match (`git check-ignore`); empty when git
    cannot say (no repository, a timeout)."""
    if not paths:
        return set()
    done = git(root, ["check-ignore", "--stdin", "-z"], timeout, stdin="\0".join(paths).encode() + b"\0",
               max_output=1 << 20)
    if done is None or done.timed_out or done.capped or done.exit_code not in (0, 1):
        return set()
    return {p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p}


def local_doubt(state, paths: list[str], output: str, is_error: bool) -> str | None:
    """Why a call reading `paths` (recorded) cannot see what the recording machine had: the first path git ignores
    that the replay folder lacks and the session did not write, when the recorded answer shows it was there."""
    if is_error or not output.strip() or output.startswith(NOTHING_FOUND):
        return None
    missing = []
    for path in paths:
        target = state.local(path)
        if target is None or target == state.root or target.exists() or target.is_symlink():
            continue
        key = state._key(target)
        if key not in state.known and key not in state.changed and ".git" not in key.split("/"):
            missing.append(key)
    seen = _SEEN.setdefault(state, {})
    unknown = [key for key in missing if key not in seen]
    if unknown:
        found = ignored(state.root, unknown, max(_TIMEOUT, state.git_timeout))
        seen.update({key: key in found for key in unknown})
    hit = next((key for key in missing if seen.get(key)), None)
    return (f"uncertain: {hit}: git ignores it and the checkout lacks it (a local file no commit holds: the "
            "recording machine's)") if hit else None
