"""Replay follows what a Codex session's user committed on its branch while it waited, end to end: the rollout
recorded its start commit and branch once, its user committed between two turns, and its own `git log` showed that
commit as HEAD. Written by us (the shape of sachinacharyaa/Rivo's Codex 0.128 rollout, nothing of it copied)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import toolaudit

CWD = "/home/u/rivo"
HEAD = "Chunk ID: 82fb32\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: {}\nOutput:\n"


def _git(repo: Path, *args: str, date: str = "2026-05-02T09:00:00Z") -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A branch `work`: the session's start commit (09:00), then its user's (11:38) changing PLAN.md."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "PLAN.md").write_text("step one\n")
    _git(repo, "init", "-q", "-b", "work")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "start")
    start = _git(repo, "rev-parse", "HEAD")
    (repo / "PLAN.md").write_text("step one\nstep two, written by the user while the session waited\n")
    _git(repo, "commit", "-qam", "the user's", date="2026-05-02T11:38:00Z")
    return repo, start, _git(repo, "rev-parse", "HEAD")


def _rollout(path: Path, start: str, calls: list[tuple[str, str, str]]) -> Path:
    lines = [{"timestamp": "2026-05-02T09:17:00.000Z", "type": "session_meta", "payload": {
        "id": "019e04fb-ab76-7743-8864-f3fade8aaecd", "timestamp": "2026-05-02T09:17:00.000Z", "cwd": CWD,
        "cli_version": "0.128.0", "git": {"commit_hash": start, "branch": "work"}}},
        {"timestamp": "2026-05-02T09:17:00.000Z", "type": "turn_context", "payload": {"cwd": CWD, "model": "gpt-5.5"}}]
    for i, (ts, command, output) in enumerate(calls, 1):
        lines.append({"timestamp": ts, "type": "response_item", "payload": {
            "type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": command, "workdir": CWD}),
            "call_id": f"call_{i}"}})
        lines.append({"timestamp": ts, "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"call_{i}", "output": output}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_read_after_the_users_commit_reads_that_commit(tmp_path: Path) -> None:
    repo, start, users = _repo(tmp_path)
    rollout = _rollout(tmp_path / "rollout.jsonl", start, [
        ("2026-05-02T12:36:00.000Z", "git log --oneline -1", HEAD.format(8) + f"{users[:7]} the user's\n"),
        ("2026-05-02T12:36:05.000Z", "cat PLAN.md",
         HEAD.format(14) + "step one\nstep two, written by the user while the session waited\n")])
    out = tmp_path / "calls.jsonl"
    result = toolaudit.replay([str(rollout)], workspace=str(repo), identity=True, at_session_start=True,
                              calls_out=out)
    cat = [json.loads(line) for line in out.read_text().splitlines()][1]
    assert cat["replay_status"] == "replayed", cat.get("replay_reason")
    row = next(row for row in result.identity.tools if row.tool == "exec_command")
    assert row.within_1pct == 2, row.reasons  # the envelope (chunk id, token count) is ours, the text the commit's
    assert any(users[:12] in str(note) and "written on work while it waited" in str(note) for note in result.notes), result.notes


def test_a_recorded_commit_the_clone_lacks_starts_from_the_recorded_branch(tmp_path: Path) -> None:
    """The rollout's commit is not in the clone (rebased away): the start is the last commit of its branch `work`
    before it began, not of HEAD's `main`, which holds another PLAN.md by then."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "PLAN.md").write_text("old plan\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base", date="2026-05-01T09:00:00Z")
    _git(repo, "checkout", "-q", "-b", "work")
    (repo / "PLAN.md").write_text("step one\n")
    _git(repo, "commit", "-qam", "work's", date="2026-05-02T09:00:00Z")
    _git(repo, "checkout", "-q", "main")
    (repo / "PLAN.md").write_text("main's plan\n")
    _git(repo, "commit", "-qam", "main's", date="2026-05-02T09:10:00Z")
    rollout = _rollout(tmp_path / "rollout.jsonl", "ab" * 20, [
        ("2026-05-02T09:20:00.000Z", "cat PLAN.md", HEAD.format(3) + "step one\n")])
    result = toolaudit.replay([str(rollout)], workspace=str(repo), identity=True, at_session_start=True)
    row = next(row for row in result.identity.tools if row.tool == "exec_command")
    assert row.within_1pct == 1, row.reasons
    assert any("its recorded commit abababababab is not here: started from the last commit of work" in str(note)
               for note in result.notes), result.notes
