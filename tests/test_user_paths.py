"""Paths are taken as a user writes them: `~` and `$VARS` expanded in the Python API and the command line.

Issue 31: the README's `toolaudit.scan(["~/.claude/projects"])` raised `no such file or directory` in a
notebook, where no shell expands `~`.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import toolaudit
from toolaudit.cli import cli
from toolaudit.storage import input_path, local_or_remote

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def home(tmp_path, monkeypatch) -> Path:
    """A home folder laid out as Claude Code's and Codex's are, holding our samples."""
    shutil.copytree(ROOT / "sample_logs" / "claude-code", tmp_path / ".claude" / "projects")
    shutil.copytree(ROOT / "sample_logs" / "codex", tmp_path / ".codex" / "sessions")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AGENT_LOGS", str(tmp_path / ".codex"))
    return tmp_path


def test_text_paths_expand_home_and_variables(home):
    assert local_or_remote("~/.claude/projects") == home / ".claude" / "projects"
    assert local_or_remote("$AGENT_LOGS/sessions") == home / ".codex" / "sessions"
    assert local_or_remote("${HOME}/x") == home / "x"
    assert local_or_remote("file://~/x") == home / "x"
    assert input_path(Path("~/x")) == home / "x"
    assert str(local_or_remote("s3://bucket/~/x")) == "s3://bucket/~/x"  # a URL is the store's to read


def test_every_job_takes_a_path_with_a_tilde(home):
    expected = toolaudit.scan([home / ".claude" / "projects"]).totals.calls
    assert expected > 0
    assert toolaudit.scan(["~/.claude/projects"]).totals.calls == expected
    assert toolaudit.scan([Path("~/.claude/projects")]).totals.calls == expected
    assert toolaudit.simulate(["~/.claude/projects"], max_chars=2000).to_dict()["totals"]["calls"] == expected
    assert toolaudit.advise(["$HOME/.claude/projects"]).to_dict()["schema_version"] == 1
    assert toolaudit.calibrate(["~/.claude/projects"]) is not None
    compared = toolaudit.compare("~/.claude/projects", "$AGENT_LOGS").to_dict()
    assert compared["schema_version"] == 1


def test_the_command_line_takes_a_quoted_tilde(home):
    result = CliRunner().invoke(cli, ["scan", "~/.claude/projects", "-f", "json", "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert '"calls"' in result.output


def _readme_calls() -> list[str]:
    """The README's inline Python that calls the API (`toolaudit.scan([...]).to_pandas()` and the like)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)  # the fenced blocks are shell
    found = []
    for span in re.findall(r"`([^`\n]+)`", prose):
        if span.startswith("toolaudit.") and "(" in span:
            try:
                ast.parse(span, mode="eval")
            except SyntaxError:
                continue
            found.append(span)
    return found


def test_the_readmes_python_runs_as_written(home):
    calls = _readme_calls()
    assert any('"~/.claude/projects"' in c for c in calls), calls  # the example a new user copies first
    for call in calls:
        # `paths` is the README's name for "your transcripts"
        eval(compile(call, "README.md", "eval"), {"toolaudit": toolaudit, "paths": ["~/.claude/projects"]})
