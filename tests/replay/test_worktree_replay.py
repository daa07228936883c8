"""A Codex session that records its commit is replayed at that commit, in a temporary git worktree."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from conftest import committed_repo, run_git

from toolaudit.cli import cli

CWD = "/home/dev/src/invoicer"


def _session(path: Path, commit: str, recorded: str) -> Path:
    """A Codex 0.50 rollout: session_meta with cwd and commit, one `grep -rn` in shell and its output."""
    args = {"command": ["bash", "-lc", "grep -rn 'RATE' src"], "workdir": CWD}
    lines = [
        {"timestamp": "2025-10-21T14:02:11.204Z", "type": "session_meta", "payload": {
            "id": "019a06f2-0000-7d2e-9b8a-4f1e6c2d7a90", "timestamp": "2025-10-21T14:02:11.204Z", "cwd": CWD,
            "originator": "codex_cli_rs", "cli_version": "0.50.0", "instructions": None, "source": "cli",
            "model_provider": "openai", "git": {"commit_hash": commit, "branch": "main"}}},
        {"timestamp": "2025-10-21T14:02:32.628Z", "type": "turn_context", "payload": {
            "cwd": CWD, "approval_policy": "on-request", "model": "gpt-5-codex"}},
        {"timestamp": "2025-10-21T14:02:35.932Z", "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "arguments": json.dumps(args), "call_id": "call_1"}},
        {"timestamp": "2025-10-21T14:02:35.933Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_1",
            "output": json.dumps({"output": recorded, "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _replay(session: Path, repo: Path) -> dict:
    out = session.parent / "calls.jsonl"
    done = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--translate", "shell-search",
                                    "--tool", "grep=builtin:grep", "--calls-out", str(out), "-f", "json", "-q"],
                              catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return {"doc": json.loads(done.output), "calls": [json.loads(line) for line in out.read_text().splitlines()]}


def test_the_session_sees_the_repository_at_its_recorded_commit(tmp_path):
    repo = tmp_path / "repo"
    old = committed_repo(repo, {"src/rates.py": "RATE = 1\n"}, "old")
    (repo / "src" / "rates.py").write_text("RATE = 2\nRATE_EUR = 3\nRATE_USD = 4\n")
    run_git(repo, "commit", "-qam", "new")
    session = _session(tmp_path / "rollout.jsonl", old, "src/rates.py:1:RATE = 1\n")
    result = _replay(session, repo)
    call = result["calls"][0]
    assert call["replay_status"] == "replayed"
    assert call["output"].splitlines() == ["src/rates.py:1:RATE = 1"]  # the old file, not today's
    assert any("replayed at commit" in note for note in result["doc"]["notes"])
    # the temporary worktree is gone, and the workspace is untouched
    assert run_git(repo, "worktree", "list").count("\n") == 0
    assert (repo / "src" / "rates.py").read_text().startswith("RATE = 2")


def test_an_unknown_commit_replays_the_workspace_as_it_is_with_a_note(tmp_path):
    repo = tmp_path / "repo"
    committed_repo(repo, {"src/rates.py": "RATE = 2\n"})
    session = _session(tmp_path / "rollout.jsonl", "0" * 40, "src/rates.py:1:RATE = 1\n")
    result = _replay(session, repo)
    assert result["calls"][0]["output"].splitlines() == ["src/rates.py:1:RATE = 2"]
    assert any("not in the workspace" in note for note in result["doc"]["notes"])
