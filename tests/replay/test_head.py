"""A session's own `git commit` moves HEAD, which replay does not: a later git call that reads HEAD is set aside as
in an unknown state, one that names its commits by id is not. The calls are cut from a real Codex 0.118.0 rollout:
entireio/git-sync (MIT), `entire/checkpoints/v1` branch, `bc/e3d316a633/2/full.jsonl` (session
019d7e30-2f7a-7f60-a942-c59ab0be98d9), arguments and outputs verbatim."""

from __future__ import annotations

import json

import pytest

from toolaudit.model import ToolCall
from toolaudit.replay.head import moves_head, reads_head
from toolaudit.replay.state import SessionState

CWD = "/Users/soph/Work/entire/devenv/git-sync"
COMMIT = ('git add docs/rewrite-issue-list.md && git commit -m "Annotate rewrite tracker against current branch state"',
          "Command: /bin/zsh -lc 'git add docs/rewrite-issue-list.md && git commit -m \"Annotate rewrite tracker against "
          "current branch state\"'\nChunk ID: 0525c0\nWall time: 1.0015 seconds\nProcess running with session ID 55480\n"
          "Original token count: 0\nOutput:\n")
SHOW = ("git show --stat --oneline --no-patch HEAD~1",
        "Command: /bin/zsh -lc 'git show --stat --oneline --no-patch HEAD~1'\nChunk ID: 3cfb66\nWall time: 0.0000 "
        "seconds\nProcess exited with code 0\nOriginal token count: 16\nOutput:\n"
        "4e9ecda Add cancellation coverage and tighten rewrite tracker\n")
STATUS = ("git status --short", "Command: /bin/zsh -lc 'git status --short'\nChunk ID: a64747\nWall time: 0.0000 "
          "seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n")


def _exec(command: str, output: str, line: int, is_error: bool = False) -> ToolCall:
    return ToolCall("r.jsonl", line, "codex", "s", "exec_command", output, f"c{line}", is_error=is_error,
                    args=json.dumps({"cmd": command, "workdir": CWD}))


def test_after_the_sessions_own_commit_a_call_reading_head_is_uncertain(tmp_path):
    state = SessionState(tmp_path, CWD)
    assert state.head_doubt(_exec(*SHOW, 1)) is None  # before any commit: HEAD is the checkout's
    state.record(_exec(*COMMIT, 2))
    why = state.head_doubt(_exec(*SHOW, 3))
    assert why is not None and why.startswith("uncertain: HEAD: the session's own `git add") and "commit" in why
    assert state.head_doubt(_exec(*STATUS, 4)) is not None
    # named by id, a commit reads the same history wherever HEAD stands; a read of files does not read HEAD
    assert state.head_doubt(_exec("git show --stat --oneline --no-patch 4e9ecda", "", 5)) is None
    assert state.head_doubt(_exec("sed -n '1,40p' docs/rewrite-issue-list.md", "", 6)) is None
    assert state.doubt([f"{CWD}/docs/rewrite-issue-list.md"]) is None  # the files stay certain


def test_a_commit_that_failed_or_only_tried_moves_nothing(tmp_path):
    state = SessionState(tmp_path, CWD)
    state.record(_exec(*COMMIT, 1, is_error=True))
    state.record(_exec("git commit --dry-run -m x", "", 2))
    assert state.head_doubt(_exec(*SHOW, 3)) is None


@pytest.mark.parametrize(("command", "reads"), [
    ("git status --short", True), ("git log --oneline -5", True), ("git diff", True), ("git diff -- a.go", True),
    ("git diff HEAD~1", True), ("git diff 368750c..HEAD", True), ("git -C sub show HEAD:a.go", True),
    ("git rev-parse HEAD", True), ("GIT_PAGER=cat git log -1", True), ("rg x && git status", True),
    ("git diff 368750cee35f31935640a34ad199e889fc60f1a8", False), ("git show 4e9ecda:internal/a.go", False),
    ("git log --oneline 4e9ecda", False), ("git add a.go", False), ("sed -n '1,5p' a.go", False),
])
def test_which_git_calls_read_head(command, reads):
    assert reads_head(command) is reads


def test_which_calls_make_a_commit():
    assert moves_head(COMMIT[0]) and moves_head("git -C sub commit -am x") and moves_head("cd a && git commit -m y")
    assert not moves_head("git commit --dry-run") and not moves_head("git log --grep commit")
