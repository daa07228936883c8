"""Confinement for replay: paths kept inside the workspace, and one runner for external programs.

`resolve(workspace, path)` follows symlinks and normalises `..`, then refuses a result
outside the workspace with `OutsideWorkspace`. `run(argv, ...)` starts a program from an
argument list (never a shell) in its own process group, with a scrubbed environment,
bytes on stdin, a timeout and a cap on the output it reads; `run_in(sandbox, argv)` takes
those limits from a `Sandbox`. Both are POSIX-only (process groups, `waitid`).
"""

from __future__ import annotations

import os
import select
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import ToolauditError
from .base import DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, Sandbox

# what every child gets from our environment; anything else must be named (--env NAME)
BASE_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR")
DEFAULT_MAX_STDERR_BYTES = 64 * 1024
_CHUNK = 64 * 1024
_POLL = 0.05  # seconds between checks whether the child has exited while its pipes stay open


class OutsideWorkspace(ToolauditError):
    """A path that resolves outside the workspace (or cannot be a path at all)."""

    def __init__(self, path: str, reason: str = "outside the workspace"):
        super().__init__(f"{path}: {reason}", slug="outside-workspace")
        self.path = path
        self.reason = reason


def resolve(workspace: Path | str, path: Path | str) -> Path:
    """`path` (relative to `workspace`, or absolute) resolved, symlinks followed; raises `OutsideWorkspace`.

    A path that does not exist resolves as far as it exists; the rest is normalised lexically,
    so `missing/../../x` is refused like `../x`.
    """
    text = os.fspath(path)
    if "\0" in text:
        raise OutsideWorkspace(text, "holds a NUL byte")
    root = Path(workspace).resolve()
    try:
        target = (root / text).resolve()  # an absolute `text` replaces root
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise OutsideWorkspace(text, f"cannot be resolved ({exc})") from None
    if target != root and not target.is_relative_to(root):
        raise OutsideWorkspace(text)
    return target


def relative(workspace: Path | str, target: Path) -> str:
    """`target` (resolved, inside `workspace`) as a POSIX path relative to it; `.` for the workspace itself."""
    return Path(target).relative_to(Path(workspace).resolve()).as_posix() or "."


def scrubbed_env(names: Sequence[str] = (), extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a child gets: `BASE_ENV` and `names` taken from ours where set, then `extra`."""
    env = {name: os.environ[name] for name in (*BASE_ENV, *names) if name in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class RunResult:
    """What a program returned: exit code (negative: killed by that signal), output, and why it stopped."""

    exit_code: int
    stdout: bytes  # at most the cap's bytes
    stderr: bytes  # at most max_stderr_bytes; the rest was read and dropped
    timed_out: bool = False  # killed at the timeout
    capped: bool = False  # stdout reached the cap: reading stopped and the program was killed


def run(argv: Sequence[str], *, cwd: Path | str, stdin: bytes = b"", timeout: float = DEFAULT_TIMEOUT,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES, env_names: Sequence[str] = (),
        env: Mapping[str, str] | None = None, max_stderr_bytes: int = DEFAULT_MAX_STDERR_BYTES) -> RunResult:
    """Run `argv` (a list: no shell ever sees it) in `cwd` and return what it wrote.

    - environment: `scrubbed_env(env_names, env)`; nothing else of ours leaks through;
    - `stdin` is written while the output is read (no pipe deadlock), then closed;
    - stdout is read in chunks; past `max_output_bytes` reading stops, the program is
      killed and the result is `capped` with the first `max_output_bytes` bytes, so a
      runaway output never sits in memory whole;
    - stderr keeps its first `max_stderr_bytes`; more is read and dropped, so a chatty
      program is not blocked on a full pipe;
    - after `timeout` seconds the program's whole process group is killed (SIGKILL) and
      the result is `timed_out`, with whatever output came before;
    - when the program ends, whatever it left running in its process group is killed too,
      and pipes such stragglers still hold open are not waited for.
    Raises OSError when the program cannot be started (not found, not executable).
    """
    become_subreaper()
    before = children()
    deadline = time.monotonic() + timeout
    proc = None
    try:
        proc = subprocess.Popen(
            list(argv), shell=False, cwd=cwd, env=scrubbed_env(env_names, env), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,  # its own group, to kill it whole
        )
        out, err, timed_out, capped = _communicate(proc, stdin, deadline, max_output_bytes, max_stderr_bytes)
    finally:
        if proc is not None:
            _kill_group(proc.pid)  # the child is not reaped yet, so its group id cannot have been reused
            proc.wait()
        # what it started in sessions of their own (setsid) came back to us: end them too; and a child started by
        # a Popen that a signal (Ctrl-C, SIGTERM) interrupted after its fork, before it returned, is ended here
        end_orphans(before)
        for pipe in (proc.stdin, proc.stdout, proc.stderr) if proc is not None else ():
            pipe.close()
    return RunResult(proc.returncode, bytes(out), bytes(err), timed_out, capped)


_SUBREAPER: list[bool] = []
_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux): a program's descendants that leave its process group
    (setsid) and outlive it are re-parented to us, not to init, so `end_orphans` can end them. Once."""
    if not _SUBREAPER:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            _SUBREAPER.append(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
        except (OSError, AttributeError):  # not Linux: process groups are all there is
            _SUBREAPER.append(False)
    return _SUBREAPER[0]


def children() -> set[int]:
    """The pids of this process's children (every thread's), from /proc; empty where there is no /proc."""
    found: set[int] = set()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as fh:
                found.update(int(pid) for pid in fh.read().split())
        except (OSError, ValueError):
            continue
    return found


def end_orphans(before: set[int], rounds: int = 20) -> int:
    """Kill and reap every child that was not there `before` (a finished program's orphans, re-parented to
    us), and theirs as they come back in turn; returns how many were ended."""
    ended = 0
    for _ in range(rounds):
        orphans = children() - before
        if not orphans:
            break
        for pid in orphans:
            for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
                try:
                    kill()
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            ended += 1
    return ended


def run_in(sandbox: Sandbox, argv: Sequence[str], *, cwd: Path | str | None = None, stdin: bytes = b"",
           env: Mapping[str, str] | None = None) -> RunResult:
    """`run` with the sandbox's timeout, output cap and passed-through names; cwd defaults to its workspace."""
    return run(argv, cwd=sandbox.workspace if cwd is None else cwd, stdin=stdin, timeout=sandbox.timeout,
               max_output_bytes=sandbox.max_output_bytes, env_names=sandbox.env, env=env)


def _communicate(proc: subprocess.Popen, data: bytes, deadline: float, cap: int,
                 err_cap: int) -> tuple[bytearray, bytearray, bool, bool]:
    out, err = bytearray(), bytearray()
    sinks = {proc.stdout: (out, cap), proc.stderr: (err, None)}  # stderr: keep its start, drop the rest
    sel = selectors.DefaultSelector()
    for pipe in sinks:
        sel.register(pipe, selectors.EVENT_READ)
    view, sent = memoryview(data), 0
    if data:
        sel.register(proc.stdin, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    timed_out = capped = False
    try:
        while sel.get_map() and not capped:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            events = sel.select(min(remaining, _POLL))
            if not events and _exited(proc.pid):
                # the program is gone but something it started holds a pipe: take what is there, stop
                while (not capped and time.monotonic() < deadline  # a straggler may write on and on
                       and (events := [key for key, _ in sel.select(0) if key.fileobj in sinks])):
                    capped = any(not _read(sel, key.fileobj, *sinks[key.fileobj], err_cap) for key in events)
                break
            for key, _ in events:
                if key.fileobj is proc.stdin:
                    sent = _feed(sel, proc.stdin, view, sent)
                elif not _read(sel, key.fileobj, *sinks[key.fileobj], err_cap):
                    capped = True
        pause = 0.001  # output closed, program still running: it usually ends within a millisecond
        while not (timed_out or capped) and not _exited(proc.pid):
            if time.monotonic() >= deadline:
                timed_out = True
            else:
                time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
                pause = min(pause * 2, _POLL)
    finally:
        sel.close()
    return out, err, timed_out, capped


def _feed(sel: selectors.BaseSelector, pipe, view: memoryview, sent: int) -> int:
    """Write the next piece of stdin (a select-ready pipe takes PIPE_BUF bytes without blocking)."""
    try:
        sent += os.write(pipe.fileno(), view[sent : sent + select.PIPE_BUF])
    except BrokenPipeError:  # the program does not read its input: fine
        sent = len(view)
    if sent >= len(view):
        sel.unregister(pipe)
        pipe.close()
    return sent


def _read(sel: selectors.BaseSelector, pipe, buf: bytearray, cap: int | None, err_cap: int) -> bool:
    """Read one chunk into `buf`; False when stdout passed `cap` (the buffer is cut to it)."""
    chunk = os.read(pipe.fileno(), _CHUNK)
    if not chunk:
        sel.unregister(pipe)
        return True
    if cap is None:
        buf += chunk[: max(err_cap - len(buf), 0)]
        return True
    buf += chunk
    if len(buf) > cap:
        del buf[cap:]
        return False
    return True


def _exited(pid: int) -> bool:
    """Whether the child has ended, without reaping it (WNOWAIT keeps its pid and group id taken)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # nothing left in the group
        pass
