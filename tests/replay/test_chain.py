"""Sessions run one after another in one folder on one commit: a later one starts where the earlier ones left it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import committed_repo, run_git

from toolaudit.cli import cli

CWD = "/home/dev/src/invoicer"
PATCH = "*** Begin Patch\n*** Add File: src/new.py\n+NEW_RATE = 1\n*** End Patch\n"


def _rollout(path: Path, sid: str, day: str, commit: str, command: list[str], recorded: str) -> Path:
    """A Codex 0.50 rollout on `day` at `commit`: one shell call and its output."""
    at = f"2025-10-{day}T14:02:11.204Z"
    lines = [
        {"timestamp": at, "type": "session_meta", "payload": {
            "id": sid, "timestamp": at, "cwd": CWD, "originator": "codex_cli_rs", "cli_version": "0.50.0",
            "instructions": None, "source": "cli", "model_provider": "openai",
            "git": {"commit_hash": commit, "branch": "main"}}},
        {"timestamp": at, "type": "turn_context", "payload": {"cwd": CWD, "model": "gpt-5-codex"}},
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": f"call_{sid[-4:]}",
            "arguments": json.dumps({"command": command, "workdir": CWD})}},
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"call_{sid[-4:]}",
            "output": json.dumps({"output": recorded, "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    return repo, committed_repo(repo, {"src/rates.py": "RATE = 1\n"})


def _grep_output(files: list[Path], repo: Path) -> tuple[str, list[str]]:
    """The replayed output of the later session's grep, and the run's notes."""
    out = files[0].parent / "calls.jsonl"
    done = CliRunner().invoke(cli, ["replay", *map(str, files), "--workspace", str(repo), "--translate",
                                    "shell-search", "--tool", "grep=builtin:grep", "--calls-out", str(out),
                                    "-f", "json", "-q"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return next(r["output"] for r in rows if r["tool"] == "grep"), json.loads(done.output)["notes"]


def test_a_later_session_on_the_same_commit_sees_what_an_earlier_one_left(tmp_path):
    repo, commit = _repo(tmp_path)
    grep = ["bash", "-lc", "grep -rn 'NEW_RATE' src"]
    later = _rollout(tmp_path / "b.jsonl", "019a06f2-0000-7d2e-9b8a-00000000000b", "22", commit, grep,
                     "src/new.py:1:NEW_RATE = 1\n")
    earlier = _rollout(tmp_path / "a.jsonl", "019a06f2-0000-7d2e-9b8a-00000000000a", "21", commit,
                       ["apply_patch", PATCH], "Success. Updated the following files:\nA src/new.py\n")
    output, notes = _grep_output([later, earlier], repo)  # the order given does not matter: the times do
    assert output.splitlines() == ["src/new.py:1:NEW_RATE = 1"]
    assert any("started where 1 earlier session(s) on its commit left the folder (1 of their edits applied)" in n
               for n in notes)
    assert not (repo / "src" / "new.py").exists()  # applied in the scratch copy only

    alone, _ = _grep_output([later], repo)
    assert alone == "No matches found"  # without the earlier session the file is not there


def test_sessions_on_other_commits_or_later_ones_are_not_chained(tmp_path):
    repo, commit = _repo(tmp_path)
    (repo / "src" / "rates.py").write_text("RATE = 2\n")
    run_git(repo, "commit", "-qam", "next")
    grep = ["bash", "-lc", "grep -rn 'NEW_RATE' src"]
    later = _rollout(tmp_path / "b.jsonl", "019a06f2-0000-7d2e-9b8a-00000000000b", "22", commit, grep, "")
    other = _rollout(tmp_path / "a.jsonl", "019a06f2-0000-7d2e-9b8a-00000000000a", "21",
                     run_git(repo, "rev-parse", "HEAD"), ["apply_patch", PATCH], "Success.\n")
    after = _rollout(tmp_path / "c.jsonl", "019a06f2-0000-7d2e-9b8a-00000000000c", "23", commit,
                     ["apply_patch", PATCH], "Success.\n")
    output, notes = _grep_output([later, other, after], repo)
    assert output == "No matches found" and not any("earlier session" in n for n in notes)


def test_sessions_are_not_chained_on_a_workspace_that_lacks_their_commit(tmp_path):
    # the recorded commit is not in the workspace: the replay runs on the workspace as it is, which may hold
    # the earlier session's work already; applying it again would be a guess, so nothing is chained
    repo, _ = _repo(tmp_path)
    absent = "0123456789abcdef0123456789abcdef01234567"
    grep = ["bash", "-lc", "grep -rn 'NEW_RATE' src"]
    later = _rollout(tmp_path / "b.jsonl", "019a06f2-0000-7d2e-9b8a-00000000000b", "22", absent, grep, "")
    earlier = _rollout(tmp_path / "a.jsonl", "019a06f2-0000-7d2e-9b8a-00000000000a", "21", absent,
                       ["apply_patch", PATCH], "Success.\n")
    output, notes = _grep_output([later, earlier], repo)
    assert output == "No matches found" and not any("earlier session" in n for n in notes)
    assert any("not in the workspace" in n for n in notes)
