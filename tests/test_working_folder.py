"""Cluster tasks that name files by relative path read them in the command's folder, even in threads."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from toolaudit import distributed


def test_tasks_in_threads_read_relative_paths_in_their_own_folder(tmp_path):
    """A cluster worker runs tasks in threads, and the working folder is the process's: tasks of one
    folder share it, a task of another waits, and none reads a relative path in the wrong folder."""
    folders = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "t.jsonl").write_text(name)
        folders.append(str(tmp_path / name))

    def worker(path, options):
        time.sleep(0.01)  # stay inside while other tasks come and go
        return Path(path).read_text(), os.getcwd()

    home, seen = os.getcwd(), []
    threads = [threading.Thread(target=lambda f=folder: seen.extend(
        (Path(f).name, text, cwd) for text, cwd in distributed.scan_batch(worker, [Path("t.jsonl")] * 3, None, (), f)))
        for folder in folders * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 24
    assert all(text == asked and Path(cwd).name == asked for asked, text, cwd in seen)  # its own folder's file
    assert os.getcwd() == home  # the last task out went back
