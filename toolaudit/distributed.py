"""Run the per-file work on an existing dask.distributed cluster (`--scheduler`), results in file order.

Files are grouped, in their order, into tasks of a few MB each, so thousands of small transcripts
cost hundreds of tasks, not thousands. Each task runs the same worker function local processes
run (pipeline.scan_file, simulate_file) and returns its FileResults; the client yields them in
file order, so they are folded exactly as a local run folds them. A worker that dies mid-task
is the scheduler's business: it runs the task again elsewhere (see docs/distributed.md).
"""

from __future__ import annotations

import os
import threading
import uuid
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Iterator

from .errors import ToolauditError, UsageError

INSTALL = "pip install 'agent-toolaudit[dask]'"
# a task's share of the input: enough work to dwarf the scheduler's ~1 ms per task, small enough
# that every thread gets several tasks and a lost worker costs little
TASK_BYTES_MAX = 64 * 1024 * 1024
TASK_BYTES_MIN = 256 * 1024
TASKS_PER_THREAD = 4
CONNECT_TIMEOUT = "20s"


def client_for(address: str):
    """A dask.distributed Client connected to `address`; a one-line error without Dask or without a scheduler there."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(f"--scheduler needs Dask: {INSTALL}", slug="dask-extra") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ToolauditError(f"cannot reach the Dask scheduler at {address}: {exc}", slug="scheduler") from None


def size_of(path) -> int:
    """The file's size in bytes (0 when it cannot be read: the worker reports that)."""
    if not isinstance(path, Path):
        return path.stat_size()
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def batches(files: list, sizes: list[int], target: int) -> list[list]:
    """`files` cut, in order, into runs of about `target` bytes (a bigger file is a task of its own)."""
    groups: list[list] = []
    current: list = []
    held = 0
    for file, size in zip(files, sizes):
        if current and held + size > target:
            groups.append(current)
            current, held = [], 0
        current.append(file)
        held += size
    if current:
        groups.append(current)
    return groups


def task_bytes(total: int, threads: int) -> int:
    """Bytes per task: TASKS_PER_THREAD tasks for every thread of the cluster, within the bounds above."""
    share = total // max(1, threads * TASKS_PER_THREAD)
    return max(TASK_BYTES_MIN, min(TASK_BYTES_MAX, share))


class _Folder:
    """The worker process's working folder, shared by the tasks that need it: tasks of one folder
    run together, a task of another folder waits until they are all done."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.folder: str | None = None
        self.tasks = 0
        self.home = ""

    @contextmanager
    def inside(self, folder: str | None):
        """Run in `folder` (the command's working folder) when the task names files by relative path, so they
        keep their names (and so their reports) and are read where they meant; the worker's own folder after."""
        if folder is None:
            yield
            return
        with self.changed:
            while self.tasks and self.folder != folder:
                self.changed.wait()
            if not self.tasks:
                self.folder, self.home = folder, os.getcwd()
                os.chdir(folder)
            self.tasks += 1
        try:
            yield
        finally:
            with self.changed:
                self.tasks -= 1
                if not self.tasks:  # the last one out: back where the worker was
                    os.chdir(self.home)
                    self.changed.notify_all()


# Why one for the process: the working folder is the process's, and a worker runs several tasks in threads.
_FOLDER = _Folder()


def scan_batch(worker, files: list, options, extra: tuple, folder: str | None = None) -> list:
    """One task: `worker(path, options, *extra)` for each file, on a cluster worker (`folder`: _Folder.inside)."""
    with _FOLDER.inside(folder):
        return [worker(path, options, *extra) for path in files]


def _relative_to(files: list) -> str | None:
    """This process's working folder when some of `files` are relative local paths (see _Folder.inside)."""
    return os.getcwd() if any(isinstance(p, Path) and not p.is_absolute() for p in files) else None


def scan_on_cluster(address: str, files: list, options, worker, extra: tuple = ()) -> Iterator:
    """`worker`'s result for each file, in file order, computed on the cluster at `address`."""
    if not files:
        return
    client = client_for(address)
    futures = []
    if options.calibration:  # read by each worker: named so that it does not depend on the worker's folder
        options = replace(options, calibration=os.path.abspath(options.calibration))
    try:
        threads = sum(client.nthreads().values()) or 1
        sizes = [size_of(path) for path in files]
        groups = batches(files, sizes, task_bytes(sum(sizes), threads))
        run = uuid.uuid4().hex[:12]
        futures = [client.submit(scan_batch, worker, group, options, extra, _relative_to(group),
                                 key=f"toolaudit-{run}-{index}", pure=False) for index, group in enumerate(groups)]
        for index, future in enumerate(futures):
            results = future.result()
            futures[index] = None  # let the cluster forget what the client has (memory on both sides)
            future.release()
            yield from results
    finally:
        live = [f for f in futures if f is not None]
        if live:
            client.cancel(live)
        client.close()
