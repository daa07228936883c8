"""Setting checked-out files' times never reaches through a committed symlink out of the worktree. Written by us: a
folder `dir/` holding f.txt, later replaced by a symlink `dir` to a folder outside that holds an f.txt too."""

from __future__ import annotations

import os

from conftest import committed_repo, run_git

from toolaudit.replay.workspace import restore_times


def test_a_file_behind_a_symlink_out_of_the_worktree_keeps_its_time(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("not the replay's\n")
    os.utime(outside / "f.txt", (1000, 1000))
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {"dir/f.txt": "old\n", "a.txt": "a\n"})
    run_git(repo, "rm", "-rq", "dir")
    (repo / "dir").symlink_to(outside)
    run_git(repo, "add", "dir")
    run_git(repo, "commit", "-qm", "dir is a link now")
    head = run_git(repo, "rev-parse", "HEAD")
    assert restore_times(repo, head, repo, 30.0) == 1  # a.txt alone
    assert os.stat(outside / "f.txt").st_mtime == 1000
