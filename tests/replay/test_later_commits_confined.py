"""Moving the replay's worktree onto the commits written while a session waited writes inside that worktree only,
and a commit that removes a folder-like entry (a submodule) does not stop the replay.

Written by us: a start commit, then one commit of the user's on the session's branch while it waited, which deletes
`docs/a.md` (or the submodule `sub`). The worktree's `docs` is a symlink to a folder outside it, as a checkout on a
case-insensitive file system leaves a tracked `Docs` symlink beside a tracked `docs/a.md` (git writes the symlink,
then refuses to write through it): the deletion must not reach through it."""

from __future__ import annotations

import json

from conftest import committed_repo, run_git

from toolaudit.model import ToolCall
from toolaudit.replay.later_commits import LaterCommits, follow
from toolaudit.replay.state import SessionState

BRANCH = "work"
CWD = "/home/u/proj"
WAITED = "2026-04-24T20:07:07.000Z"  # the call after the wait


def _call(cmd: str, ts: str, output: str = "", line: int = 1) -> ToolCall:
    return ToolCall("r.jsonl", line, "codex", "s", "exec_command", "Process exited with code 0\nOutput:\n" + output,
                    f"c{line}", args=json.dumps({"cmd": cmd}), ts=ts)


def _start(repo) -> str:
    run_git(repo, "commit", "-q", "--amend", "--no-edit", "--date=2026-04-24T10:00:00Z")
    run_git(repo, "branch", "-M", BRANCH)
    return run_git(repo, "rev-parse", "HEAD")


def _users_commit(repo, start: str, *remove: str) -> str:
    run_git(repo, "rm", "-rq", "--cached", *remove)
    run_git(repo, "commit", "-qm", "the user's", "--date=2026-04-24T20:05:56Z")
    later = run_git(repo, "rev-parse", "HEAD")
    run_git(repo, "checkout", "-qf", "--detach", start)
    return later


def test_a_deletion_does_not_reach_through_a_symlink_out_of_the_worktree(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.md").write_text("not the replay's\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {"docs/a.md": "a\n", "README.md": "r\n"})
    start = _start(repo)
    later = _users_commit(repo, start, "docs/a.md")
    (repo / "docs" / "a.md").unlink()
    (repo / "docs").rmdir()
    (repo / "docs").symlink_to(outside, target_is_directory=True)
    state = SessionState(repo, CWD)
    moves = LaterCommits(repo, start, BRANCH, [_call("git log --oneline -1", WAITED, f"{later[:7]} x\n", 9)])
    follow(moves, state, _call("rg --files", WAITED))
    assert (outside / "a.md").read_text() == "not the replay's\n"


def test_a_commit_that_removes_a_submodule_does_not_stop_the_replay(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {"README.md": "r\n"})
    run_git(repo, "update-index", "--add", "--cacheinfo", f"160000,{run_git(repo, 'rev-parse', 'HEAD')},sub")
    run_git(repo, "commit", "-qm", "a submodule")
    start = _start(repo)
    (repo / "sub").mkdir(exist_ok=True)  # what a checkout leaves of a submodule not initialised: an empty folder
    later = _users_commit(repo, start, "sub")
    (repo / "sub").mkdir(exist_ok=True)
    state = SessionState(repo, CWD)
    moves = LaterCommits(repo, start, BRANCH, [_call("git log --oneline -1", WAITED, f"{later[:7]} x\n", 9)])
    follow(moves, state, _call("rg --files", WAITED))
    assert moves.moved == [later] and not state.everything
