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


def test_a_session_replayed_on_another_commit_than_the_one_it_recorded_sets_its_head_reads_aside(tmp_path):
    """A Codex rollout records the commit it began on; when the workspace lacks it (a branch deleted after its
    merge), --at-session-start replays on the last commit before it, whose HEAD is not the session's."""
    import subprocess

    import toolaudit

    repo = tmp_path / "repo"
    repo.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_AUTHOR_DATE": "2026-04-10T10:00:00Z", "GIT_COMMITTER_DATE": "2026-04-10T10:00:00Z", "HOME": str(repo),
           "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"]):
        if args[0] == "add":
            (repo / "a.txt").write_text("one\n")
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    missing = "0eb0d47107bf645bc96551f87bc1899313464ddb"
    ts = "2026-04-11T10:00:00Z"
    lines = [{"timestamp": ts, "type": "session_meta", "payload": {
        "id": "019d7e30-2f7a-7f60-a942-c59ab0be98d9", "timestamp": ts, "cwd": CWD, "cli_version": "0.118.0",
        "git": {"commit_hash": missing, "branch": "soph/rewrite"}}}]
    for i, (command, output) in enumerate([STATUS, ("sed -n '1p' a.txt", STATUS[1].replace(
            "git status --short", "sed -n '1p' a.txt").replace("count: 0\nOutput:\n", "count: 1\nOutput:\none\n"))]):
        lines.append({"timestamp": ts, "type": "response_item", "payload": {
            "type": "function_call", "name": "exec_command", "call_id": f"c{i}",
            "arguments": json.dumps({"cmd": command, "workdir": CWD})}})
        lines.append({"timestamp": ts, "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"c{i}", "output": output}})
    session = tmp_path / "rollout.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = toolaudit.replay([str(session)], workspace=str(repo), identity=True, at_session_start=True)
    reasons = [reason for row in result.identity.tools for reason, _ in row.reasons]
    assert any(f"HEAD: the session began on commit {missing[:12]}" in reason for reason in reasons), reasons
    assert result.identity.totals.within_1pct == 1  # the read of a file stands
