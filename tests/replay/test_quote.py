"""A reason quotes a long command cut in its middle, keeping its start and the part the reason is about (replay.quote).

The first command is cut from 1curafu/Fitcheck's (GPL-3.0) Claude Code 2.1.2xx session, Entire checkpoint
refs/entire/checkpoints/0f/4caa08e8e80f (commit f7f5714d30ac), 0/full.jsonl line 887; its reason was
`after \\`git status --short && git checkout main -q && git pull -q...\\``: the `git pull` it went on to name was cut,
and a line whose start held a `cd` lost the program altogether. The others are written by us."""

from __future__ import annotations

from toolaudit.replay.quote import WIDTH, quote

FITCHECK = ("git status --short && git checkout main -q && git pull -q --ff-only 2>&1 | tail -2; git checkout -b "
            "fix/generator-coverage 2>&1 | tail -2; git log --oneline -1")


def test_a_short_command_is_quoted_whole():
    assert quote("git status --short") == "git status --short"
    assert quote("  ls -la\nsecond line  ") == "ls -la"


def test_a_long_command_keeps_its_start_and_the_part_the_reason_names():
    quoted = quote(FITCHECK, "git pull changes the working tree")
    assert len(quoted) == WIDTH and quoted.startswith("git status --short") and "…git pull -q --ff-only" in quoted
    moved = quote("cd /home/eligio/Code/worktrees/flutter-docker-image/kind-bear && git checkout -- pubspec.yaml",
                  "git checkout changes the working tree")
    assert moved.startswith("cd /home/") and moved.endswith("git checkout -- pubspec.yaml") and len(moved) == WIDTH


def test_a_long_command_without_the_named_part_keeps_its_start_and_its_end():
    quoted = quote("uv run ruff check --fix src/wakil/mcp/server.py src/wakil/mcp/tools.py src/wakil/x.py", "")
    assert quoted.startswith("uv run ruff check") and quoted.endswith("src/wakil/x.py") and "…" in quoted
    assert quote(FITCHECK, "git status shows") == FITCHECK[:30] + "…" + FITCHECK[-29:]  # named within the start


def test_a_secret_is_redacted_before_the_cut():
    key = "sk-ant-api03-" + "a" * 90
    assert "aaaa" not in quote(f"curl -H 'x-api-key: {key}' https://api.example.com/v1/messages -d @body.json")
