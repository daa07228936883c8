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
