"""A start commit whose clone lacks some of its blobs (a partial clone, `git clone --filter=blob:none`, used offline;
a mirror that left its largest files out): `git worktree add` fails ("unable to read sha1 file of PATH"), though
the commit and its trees are there. The worktree is then made without a checkout, the commit's tree read into its
index, and every file whose blob the clone holds checked out; the files it lacks stay absent and are uncertain by
path (a call that reads or lists one is set aside, MISSING says why), the rest of the tree replays.

Git runs through replay.git (its timeout, output cap, no fetch from a promisor remote, hooks and filters off for
the runs that write); `checkout-index` writes only inside the worktree (paths from the commit's own tree, a symlink
is written as a link, never followed).
"""

from __future__ import annotations

from pathlib import Path

from .git import failure, git, output

MISSING = "the clone lacks this file's content at the start commit"
_SIGNS = ("unable to read sha1 file", "could not reset index file", "missing blob", "is a promisor",
          "from promisor remote")  # the last: a partial clone, its lazy fetch turned off (replay.git)


def lacks_objects(why: str | None) -> bool:
    """Whether a failed `worktree add` failed for want of objects (git's last line, as replay.git.failure says it)."""
    return bool(why) and any(sign in why.lower() for sign in _SIGNS)


def checkout(workspace: Path, tree: Path, commit: str, timeout: float) -> tuple[str | None, tuple[str, ...]]:
    """Make `tree` a worktree at `commit` holding every file the clone has the content of: (None, the paths it
    lacks, relative to the repository's top) or (why it could not, ())."""
    if tree.exists():  # what the failed `worktree add` left
        git(workspace, ["worktree", "remove", "--force", str(tree)], timeout)
        git(workspace, ["worktree", "prune"], timeout)
    why = failure(workspace, ["worktree", "add", "--detach", "--no-checkout", "--quiet", str(tree), commit], timeout,
                  safe=True)
    if why is not None:
        return why, ()
    listed = output(workspace, ["ls-tree", "-r", "-z", "--full-tree", commit], timeout)
    if listed is None:
        return " (git ls-tree failed)", ()
    blobs: dict[str, str] = {}  # path -> blob id (submodules' commits are not checked out: no blob to read)
    for entry in listed.split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            blobs[path] = parts[2]
    # the objects of its tree the clone lacks, `?ID` (rev-list reads no blob; `cat-file --batch-check` dies on a
    # partial clone's missing blob when its lazy fetch is off, replay.git)
    checked = output(workspace, ["rev-list", "--objects", "--missing=print", "-1", commit, "--"], timeout)
    if checked is None:
        return " (git rev-list failed)", ()
    absent = {line[1:] for line in checked.splitlines() if line.startswith("?")}
    missing = tuple(sorted(path for path, blob in blobs.items() if blob in absent))
    why = failure(tree, ["read-tree", commit], timeout, safe=True)  # the index from trees alone: no blob read
    if why is not None:
        return why, ()
    left = set(missing)
    present = "".join(f"{path}\0" for path in blobs if path not in left).encode("utf-8", "surrogateescape")
    done = git(tree, ["checkout-index", "-f", "-z", "--stdin"], timeout, stdin=present, safe=True)
    if done is None or done.timed_out or done.exit_code != 0:
        return " (git checkout-index failed)", ()
    return None, missing


def note(missing: tuple[str, ...]) -> str:
    """The report's word on the files left out."""
    return (f"the clone lacks the content of {len(missing)} file(s) at this commit (a partial clone or an "
            "incomplete mirror): those are uncertain, the rest replays")
