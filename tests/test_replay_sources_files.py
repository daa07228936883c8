"""The benchmark says so when a repository's `files` expression matches no session file of its history (it gave 0
sessions silently). Written by us: a repository holding one .jsonl file."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from conftest import committed_repo

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import replay_sources  # noqa: E402


def test_a_files_expression_that_matches_nothing_is_said(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {"logs/session.jsonl": "{}\n"})
    monkeypatch.setitem(replay_sources.FILES, "o/wrong", re.compile(r"^transcripts/.*\.jsonl$"))
    monkeypatch.setitem(replay_sources.FILES, "o/right", re.compile(r"^logs/.*\.jsonl$"))
    assert replay_sources.sessions(repo, "o/wrong", tmp_path / "out") == []
    assert "o/wrong: its files expression '^transcripts/.*\\\\.jsonl$' matches no .jsonl file" in capsys.readouterr().err
    replay_sources.sessions(repo, "o/right", tmp_path / "out")
    assert capsys.readouterr().err == ""


def _rollout(commit: str, url: str) -> str:
    """A Codex rollout's first line and one read-only call, recording `url` at `commit`."""
    import json

    meta = {"type": "session_meta", "payload": {"cli_version": "0.144.5", "cwd": "C:\\\\w",
                                                "git": {"commit_hash": commit, "repository_url": url}}}
    call = {"type": "response_item", "payload": {"type": "function_call", "name": "shell_command"}}
    return json.dumps(meta) + "\n" + json.dumps(call, separators=(",", ":")) + "\n"


def test_sessions_kept_in_another_repository_are_those_that_recorded_it_at_a_commit_it_holds(tmp_path, monkeypatch):
    code = tmp_path / "code"
    start = committed_repo(code, {"a.lua": "x = 1\n"})
    home = tmp_path / "home"
    committed_repo(home, {
        ".codex/sessions/2026/07/13/rollout-a.jsonl": _rollout(start, "https://github.com/O/Code.git"),
        ".codex/sessions/2026/07/13/rollout-b.jsonl": _rollout("0" * 40, "https://github.com/O/Code.git"),
        ".codex/sessions/2026/07/13/rollout-c.jsonl": _rollout(start, "https://github.com/O/Other.git")})
    monkeypatch.setitem(replay_sources.FILES, "o/code", re.compile(replay_sources.CODEX_ARCHIVE))
    found = replay_sources.sessions(home, "o/code", tmp_path / "out", code)
    assert [s.name.split(":")[1] for s in found] == [".codex/sessions/2026/07/13/rollout-a.jsonl"]
    assert found[0].made == "" and found[0].on_branch and found[0].agent == "codex"
    assert replay_sources._repo_of("git@github.com:O/Code.git") == "o/code"
