"""One rule for what a command says beside its report: skipped lines and problems on stderr, the report alone on
stdout (issue 31.8), and a `--tool` that selects nothing is a usage error naming the tools there are."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolaudit.cli import cli

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def broken(tmp_path) -> Path:
    """Our Claude Code sample beside a file with one line that is not JSON."""
    shutil.copytree(ROOT / "sample_logs" / "claude-code", tmp_path / "logs")
    first = sorted((tmp_path / "logs").rglob("*.jsonl"))[0]
    with first.open("a", encoding="utf-8") as fh:
        fh.write("{broken\n")
    return tmp_path / "logs"


@pytest.mark.parametrize("command", [["scan"], ["simulate", "--max-chars", "2000"], ["scan", "--no-cache"]])
def test_skipped_lines_are_told_on_stderr_only(broken, command):
    result = CliRunner().invoke(cli, [*command, str(broken)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "skipped lines: 1" in result.stdout  # the report keeps the count
    assert "invalid JSON" not in result.stdout
    assert ".jsonl:" in result.stderr and "invalid JSON" in result.stderr  # file:line: reason


@pytest.mark.parametrize("command", [["scan"], ["simulate", "--max-chars", "2000"]])
def test_quiet_says_nothing_beside_the_report(broken, command):
    result = CliRunner().invoke(cli, [*command, str(broken), "-q"], catch_exceptions=False)
    assert result.exit_code == 0
    assert "invalid JSON" not in result.stdout and "invalid JSON" not in result.stderr


def test_a_tool_that_selects_nothing_names_the_tools_there_are():
    result = CliRunner().invoke(cli, ["simulate", str(ROOT / "sample_logs" / "claude-code"), "--max-chars", "2000",
                                      "--tool", "nosuchtool"], catch_exceptions=False)
    assert result.exit_code == 2
    assert "--tool nosuchtool matched no call" in result.stderr and "Grep" in result.stderr and "Read" in result.stderr
    typo = CliRunner().invoke(cli, ["simulate", str(ROOT / "sample_logs" / "claude-code"), "--max-chars", "2000",
                                    "--tool", "Gerp"], catch_exceptions=False)
    assert typo.exit_code == 2 and "did you mean 'Grep'" in typo.stderr


def test_a_tool_family_or_glob_that_selects_calls_runs():
    for glob in ("@search", "Gr*", "read"):
        result = CliRunner().invoke(cli, ["simulate", str(ROOT / "sample_logs" / "claude-code"), "--max-chars",
                                          "2000", "--tool", glob, "-q"], catch_exceptions=False)
        assert result.exit_code == 0, (glob, result.output)


CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.mark.skipif(not (CORPUS / "claude-code").is_dir(), reason=f"real corpus not found at {CORPUS}")
def test_an_agents_preset_that_cuts_nothing_says_why():
    result = CliRunner().invoke(cli, ["simulate", str(CORPUS / "claude-code"), "--preset", "claude-code", "-q"],
                                catch_exceptions=False)
    assert result.exit_code == 0
    assert "in 0 of" in result.stdout  # Claude Code's own sessions, under Claude Code's caps
    assert "note: preset claude-code cut nothing: no output here is over its caps" in result.stdout
    assert "--max-chars 5000" in result.stdout
    cuts = CliRunner().invoke(cli, ["simulate", str(ROOT / "sample_logs"), "--preset", "claude-code", "-q"],
                              catch_exceptions=False)
    assert "cut nothing" not in cuts.stdout
