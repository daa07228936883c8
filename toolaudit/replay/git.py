"""The one way replay runs git itself: making a worktree at a commit, reading a branch's history, moving a worktree
to a commit a session's own output names.

Every run goes through the sandbox's `run` (an argument list, never a shell; a timeout and an output cap; the whole
process group ended), in one environment: no prompt for credentials, no fetch of a blob a partial clone lacks, LFS
left as pointers, and neither the system's nor the user's git configuration read (an alias, `log.showSignature` or a
global filter of the user's would change what replay reads, or run a program). A run that writes files (`safe=True`:
checkout, worktree add, reset) also turns off the repository's hooks and every filter it configures, so nothing of
the repository runs.

The timeout: `wait(timeout)`, the longer of the replay's `--timeout` and GIT_TIMEOUT (a worktree of a large repository
takes a while to check out, and `--timeout` is the limit of one replayed call, 10 s unless told).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .sandbox import RunResult, run

GIT_TIMEOUT = 120.0  # the least a git run of replay's own is given
MAX_OUTPUT = 64 << 20  # what one git run may print before it is ended (a history of 20,000 commits is ~2 MB)
# no fetch from a partial clone's promisor remote for a blob it lacks (a network call, and a transport's programs:
# ssh, a credential helper): GIT_NO_LAZY_FETCH (git 2.39.4+), and no transport allowed for an older git
NO_FETCH = {"GIT_NO_LAZY_FETCH": "1", "GIT_ALLOW_PROTOCOL": ""}
ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_LFS_SKIP_SMUDGE": "1", "GIT_CONFIG_NOSYSTEM": "1",
       "GIT_CONFIG_GLOBAL": "/dev/null", **NO_FETCH}
# git options that keep the repository's own programs from running in a checkout: no hooks, LFS left as pointers
SAFE_GIT = ("-c", "core.hooksPath=/dev/null", "-c", "filter.lfs.smudge=", "-c", "filter.lfs.process=",
            "-c", "filter.lfs.required=false")


def wait(timeout: float | None) -> float:
    """How long one git run of replay's own may take: the replay's `--timeout`, and never less than GIT_TIMEOUT."""
    return max(GIT_TIMEOUT, timeout or 0.0)


def git(root: Path, args: Sequence[str], timeout: float = GIT_TIMEOUT, *, stdin: bytes = b"",
        max_output: int = MAX_OUTPUT, safe: bool = False) -> RunResult | None:
    """`git ARGS` run in `root` (fed `stdin`; `safe`: hooks and the repository's filters off), or None when git
    cannot be started."""
    try:
        return _run(root, args, timeout, stdin, max_output, safe)
    except OSError:
        return None


def output(root: Path, args: Sequence[str], timeout: float = GIT_TIMEOUT, *, stdin: bytes = b"",
           max_output: int = MAX_OUTPUT, safe: bool = False) -> str | None:
    """What `git ARGS` printed in `root` when it succeeded (whole: not timed out, not capped), else None."""
    done = git(root, args, timeout, stdin=stdin, max_output=max_output, safe=safe)
    if done is None or done.exit_code != 0 or done.timed_out or done.capped:
        return None
    return done.stdout.decode("utf-8", "surrogateescape")


def failure(root: Path, args: Sequence[str], timeout: float = GIT_TIMEOUT, *, safe: bool = False) -> str | None:
    """None when `git ARGS` succeeded in `root`; else why not, as a report's note says it: " (why)"."""
    try:
        done = _run(root, args, timeout, b"", MAX_OUTPUT, safe)
    except OSError as exc:
        return f" (git: {exc.strerror or exc})"
    if done.timed_out:
        return f" (git timed out after {timeout:g} s)"
    if done.exit_code != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f" ({lines[-1][:200]})" if lines else f" (git exit code {done.exit_code})"
    return None


def filters_off(root: Path, timeout: float = GIT_TIMEOUT) -> list[str]:
    """`-c` options that turn off every filter the repository configures (its smudge/clean commands never run)."""
    listed = git(root, ["config", "--get-regexp", r"^filter\."], timeout)
    text = (listed.stdout if listed else b"").decode("utf-8", "replace")
    keys = [line.split(" ", 1)[0] for line in text.splitlines()]
    # the name is all between `filter.` and the last dot: `filter.team.tool.smudge` is filter `team.tool`'s
    names = {key[len("filter."):key.rindex(".")] for key in keys if key.count(".") >= 2}
    out: list[str] = []
    for name in sorted(names):
        out += ["-c", f"filter.{name}.smudge=", "-c", f"filter.{name}.clean=", "-c", f"filter.{name}.process=",
                "-c", f"filter.{name}.required=false"]
    return out


def _run(root: Path, args: Sequence[str], timeout: float, stdin: bytes, max_output: int, safe: bool) -> RunResult:
    options = [*SAFE_GIT, *filters_off(root, timeout)] if safe else []
    return run(["git", *options, *args], cwd=root, stdin=stdin, timeout=timeout, env=ENV, max_output_bytes=max_output)
