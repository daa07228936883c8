"""The start state a session's recorded `git diff COMMIT` shows: a review of a branch against the commit it started
from (Codex's review subagents run `git diff <base commit>` first).

Such a diff compares the working tree with that commit, whatever HEAD is: each file section it shows gives the file's
start text as that commit's text with the section applied (replay.start_state reads the sections; `base_text` reads
the commit's text). Its complete listing (a whole `git diff COMMIT` not cut, or `git diff --name-status COMMIT` /
`--name-only COMMIT`, alone or after `--stat` in one `&&` line) says more: every tracked file it does not list was, at
the start, as that commit holds it. So a file the checked-out commit changed since then, and the listing does not
show, is put back to that commit's text (the replay's checkout may be a later commit than the session's, whose
branch is gone); and a file it lists whose text no section shows (cut from the output) is uncertain. Only a commit
the checkout descends from is read."""

from __future__ import annotations

import re

from .git import git, output

_MAX_BASE = 16 * 1024 * 1024  # a file past this is no source text a diff was read against
_NAME_STATUS = re.compile(r"^[ACDMRTUXB]\d*\t(.+)$", re.MULTILINE)
_STAT = re.compile(r"^ \S.* \| +(?:\d+|Bin)")  # a `--stat` line: ` path | 12 ++--`
_SUMMARY = re.compile(r"^ \d+ files? changed")


def base_text(root, rev: str, rel: str, timeout: float = 30.0) -> str | None | bool:
    """The text `rel` (relative to the repository's top) had in commit `rev`, read with git in the checked-out
    folder `root`: None when the commit lacks it (the diff makes it), False when it cannot be used (`rev` is no
    ancestor of the checked-out commit, or git fails)."""
    if not _ancestor(root, rev, timeout):
        return False
    # whether the commit holds `rel`, read from its trees alone: a blob the clone lacks is no file the commit lacks
    held = git(root, ["rev-parse", "--verify", "--quiet", f"{rev}:{rel}"], timeout)
    if held is None or held.timed_out:  # git could not say: not "the commit lacks it"
        return False
    if held.exit_code != 0:
        return None
    shown = git(root, ["cat-file", "blob", f"{rev}:{rel}"], timeout, max_output=_MAX_BASE)
    if shown is None or shown.exit_code != 0 or shown.timed_out or shown.capped:
        return False
    try:
        return bytes(shown.stdout).decode("utf-8")
    except UnicodeDecodeError:
        return False


def _ancestor(root, rev: str, timeout: float) -> bool:
    done = git(root, ["merge-base", "--is-ancestor", rev, "HEAD"], timeout)
    return done is not None and done.exit_code == 0 and not done.timed_out


def committed_since(root, rev: str, timeout: float = 30.0) -> list[str] | None:
    """The files the checked-out commit changed since `rev` (an ancestor), relative to the repository's top; None
    when git cannot say."""
    if not _ancestor(root, rev, timeout):
        return None
    done = output(root, ["diff", "--no-renames", "--name-only", "-z", rev, "HEAD", "--"], timeout)
    return None if done is None else [p for p in done.split("\0") if p]


def listing(parts: list[list[str]], output: str) -> tuple[str, set[str]] | None:
    """(commit, the files it lists) of a complete listing against one commit id: `parts`, the words after `git` of
    each `&&`-joined command, every one `diff` with only `--stat`/`--name-status`/`--name-only` and the same commit,
    one of them `--name-status` (or `--name-only` alone); None for anything else."""
    revs, kinds = set(), set()
    for words in parts:
        if words[:1] != ["diff"]:
            return None
        flags = [w for w in words[1:] if w.startswith("-")]
        rest = [w for w in words[1:] if not w.startswith("-")]
        if len(rest) != 1 or not re.fullmatch(r"[0-9a-f]{7,40}", rest[0]) or len(flags) != 1 \
                or flags[0] not in ("--stat", "--name-status", "--name-only"):
            return None
        revs.add(rest[0])
        kinds.add(flags[0])
    if len(revs) != 1:
        return None
    if "--name-status" in kinds:
        found = {p for line in _NAME_STATUS.findall(output) for p in line.split("\t")}
        rest = [line for line in output.splitlines() if line and not _NAME_STATUS.match(line)
                and not _STAT.match(line) and not _SUMMARY.match(line)]
        return (revs.pop(), found) if not rest else None  # a line of neither form: not a listing read whole
    if kinds == {"--name-only"} and len(parts) == 1:
        return revs.pop(), {line for line in output.splitlines() if line}
    return None


def restore(state, rev: str, listed: frozenset[str], keep: frozenset[str], shown: set[str], write, read) -> int:
    """Put back to commit `rev`'s text each file the checkout changed since then that the complete listing `listed`
    does not show (but those in `keep`: the session had changed them before the listing); make uncertain each file it
    lists whose text no diff section (`shown`) gives. `write(target, text)` and `read(target)` are the state's.
    Returns how many files were put back."""
    from .sandbox import OutsideWorkspace, resolve

    since = committed_since(state.root, rev)
    if since is None:
        return 0
    back = 0
    for rel in since:
        try:
            target = resolve(state.root, rel)
        except OutsideWorkspace:
            continue
        key = state._key(target)
        if rel in listed or rel in keep or key in state.changed or target.is_dir():
            continue
        text = base_text(state.root, rev, rel)
        if text is False:
            state.uncertain.setdefault(key, f"the session's own `git diff {rev[:12]}` says it was as that commit "
                                            "holds it, which could not be read")
            continue
        if read(target) != text:
            write(target, text)
            back += 1
    for rel in sorted(listed - shown - keep):
        try:
            target = resolve(state.root, rel)
        except OutsideWorkspace:
            continue
        if state._key(target) not in state.changed:
            state.uncertain.setdefault(state._key(target), f"the session's own `git diff {rev[:12]}` listed it "
                                                           "changed, its text in no diff it printed whole")
    return back
