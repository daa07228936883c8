"""`toolaudit ci` gates a replay baseline: replays again with the stored mapping, exit 3 when outputs grew."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from toolaudit.cli import cli

FIXTURES = Path(__file__).parent.parent / "fixtures"


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _baseline(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "search_repo", repo, symlinks=True)
    base = tmp_path / "replay-baseline.json"
    done = _run("replay", str(FIXTURES / "search_session.jsonl"), "--workspace", str(repo), "--translate",
                "shell-search", "--tool", "grep=builtin:grep?max_matches=100&max_bytes=10000", "--tool",
                "glob=builtin:glob", "-f", "json", "-o", str(base), "-q")
    assert done.exit_code == 0, done.output
    return repo, base


def test_an_unchanged_tool_passes_and_a_grown_output_fails(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # ci runs in the checkout that holds the baseline's workspace
    repo, base = _baseline(tmp_path)
    assert json.loads(base.read_text())["meta"]["command"] == "replay"
    same = _run("ci", str(FIXTURES / "search_session.jsonl"), "--baseline", str(base), "-q")
    assert same.exit_code == 0, same.output
    # the repository changed: `grep -rn 'def deliver' src` now finds more
    webhook = repo / "src" / "delivery" / "webhook.py"
    webhook.write_text(webhook.read_text() + "\n\ndef deliver_later():\n    pass\n")
    grown = _run("ci", str(FIXTURES / "search_session.jsonl"), "--baseline", str(base), "-f", "json", "-q")
    assert grown.exit_code == 3, grown.output
    failed = [c for c in json.loads(grown.output)["checks"] if not c["passed"]]
    assert failed and all(c["current"] > c["baseline"] for c in failed)


def test_a_replay_baseline_without_mappings_is_a_usage_error(tmp_path):
    _, base = _baseline(tmp_path)
    doc = json.loads(base.read_text())
    doc["meta"]["replay_spec"] = {"tools": []}
    base.write_text(json.dumps(doc))
    done = _run("ci", str(FIXTURES / "search_session.jsonl"), "--baseline", str(base), "-q")
    assert done.exit_code == 2 and "no --tool mapping" in done.output


def test_workspace_override(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    repo, base = _baseline(tmp_path)
    other = tmp_path / "other"
    shutil.copytree(repo, other, symlinks=True)
    shutil.rmtree(repo)  # the baseline's workspace is gone: --workspace points at the new one
    done = _run("ci", str(FIXTURES / "search_session.jsonl"), "--baseline", str(base), "--workspace", str(other), "-q")
    assert done.exit_code == 0, done.output
    gone = _run("ci", str(FIXTURES / "search_session.jsonl"), "--baseline", str(base), "-q")
    assert gone.exit_code == 2 and "--workspace" in gone.output
