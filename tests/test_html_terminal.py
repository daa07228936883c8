"""`-f html` on a terminal without `-o` is refused in one line, not pages of markup (issue 31.5); piped or to a
file it is written as before."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from toolaudit.cli import cli
from toolaudit.reports import base

SAMPLES = str(Path(__file__).resolve().parents[1] / "sample_logs" / "codex")


def test_html_to_a_terminal_is_refused(monkeypatch):
    monkeypatch.setattr(base, "_terminal", lambda stream: True)
    result = CliRunner().invoke(cli, ["scan", SAMPLES, "-f", "html", "-q"], catch_exceptions=False)
    assert result.exit_code == 2
    assert "give -o report.html" in result.stderr and "<html" not in result.output


def test_html_piped_or_to_a_file_is_written(tmp_path):
    piped = CliRunner().invoke(cli, ["scan", SAMPLES, "-f", "html", "-q"], catch_exceptions=False)
    assert piped.exit_code == 0 and piped.stdout.startswith("<!DOCTYPE html>")
    out = tmp_path / "r.html"
    written = CliRunner().invoke(cli, ["scan", SAMPLES, "-f", "html", "-o", str(out), "-q"], catch_exceptions=False)
    assert written.exit_code == 0 and out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
