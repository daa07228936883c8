"""`toolaudit statusline`: Claude Code's statusline JSON in, one line out, from real transcripts."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

import toolaudit
from toolaudit.model import Measurement
from toolaudit.reports.statusline import _percent, compact, statusline
from toolaudit.scan.context import context_of
from toolaudit.tokenizers import get_tokenizer

from conftest import SAMPLES

SHOP = SAMPLES / "claude-code" / "-home-dev-shop" / "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11.jsonl"
LINE = re.compile(r"^tools ~<?\d+% of ctx( · [\w.:-]+ <?\d+%)* · re-sent ~[\d.]+[kMG]?$")


def _claude_sessions(corpus: Path) -> list[Path]:
    found = sorted(p for p in (corpus / "claude-code").rglob("*.jsonl") if "subagents" not in p.parts)
    assert found, "no Claude Code session in the corpus"
    return found


def test_real_sessions_give_one_line_that_agrees_with_the_api(corpus, run):
    checked = 0
    for path in _claude_sessions(corpus):
        result = run("statusline", input=json.dumps({"session_id": "x", "transcript_path": str(path)}))
        assert result.exit_code == 0
        line = result.output.strip()
        now = toolaudit.scan.context_now(path)
        if not now.calls or now.context is None:
            continue
        assert LINE.match(line), line
        assert line.startswith(f"tools ~{_percent(now.share)} of ctx")
        assert f"re-sent ~{compact(now.resent)}" in line
        top = now.by_tool[0]
        assert f"{top[0]} {_percent(top[1] / now.context)}" in line
        checked += 1
    assert checked >= 5


def test_the_context_size_given_by_claude_code_wins(run):
    doc = {"transcript_path": str(SHOP),
           "context_window": {"current_usage": {"input_tokens": 10, "cache_creation_input_tokens": 990,
                                                "cache_read_input_tokens": 99_000, "output_tokens": 5}}}
    line = run("statusline", input=json.dumps(doc)).output.strip()
    now = toolaudit.scan.context_now(SHOP, context=100_000)
    assert line.startswith(f"tools ~{now.in_context / 100_000:.0%} of ctx")


@pytest.mark.parametrize("stdin, said", [
    ("", "no transcript_path on stdin"),
    ("not json", "no transcript_path on stdin"),
    (json.dumps({"transcript_path": "/no/such/file.jsonl"}), "toolaudit: no such file"),
])
def test_problems_print_a_short_line_and_never_fail_the_bar(run, stdin, said):
    result = run("statusline", input=stdin)
    assert result.exit_code == 0 and said in result.output and len(result.output.splitlines()) == 1


def test_a_transcript_given_by_hand_and_exact_counts(run):
    line = run("statusline", str(SHOP), "--tokenizer", "o200k_base").output.strip()
    assert line.startswith("tools ") and "~" not in line


def _row(tool: str, tokens: int, segment: int, residency: int | None) -> Measurement:
    return Measurement("f", 1, "claude-code", "s", "main", tool, tool + str(tokens), None, None, "paired", False,
                       False, tokens * 4, tokens * 4, None, tokens, 0, 0, 0, 0, segment, residency, "")


def test_only_outputs_since_the_last_compaction_count_and_resent_skips_the_first_send():
    rows = [_row("Read", 5000, 0, 3), _row("Bash", 100, 1, 4), _row("Read", 300, 1, 1), _row("Grep", 50, 1, None)]
    now = context_of("f", rows, [], 1000, get_tokenizer("approx"), ())
    assert now.in_context == 450 and now.by_tool == (("Read", 300), ("Bash", 100), ("Grep", 50))
    assert now.resent == 5000 * 2 + 100 * 3 and now.share == 0.45
    assert statusline(now) == "tools ~45% of ctx · Read 30% · Bash 10% · re-sent ~10k"
    assert statusline(replace(now, context=None)) == "tools ~450 tok in ctx · Read ~300 · Bash ~100 · re-sent ~10k"


def test_compact_numbers():
    assert [compact(n) for n in (0, 999, 1000, 12_345, 999_499, 999_999, 1_234_567, 25_000_000)] == \
        ["0", "999", "1.0k", "12k", "999k", "1.0M", "1.2M", "25M"]


@pytest.mark.parametrize("args", [(), ("--no-resident",)])
@pytest.mark.parametrize("stdin", ["[" * 100_000, "{" * 5000 + "}" * 5000, "x" * (1 << 20) + "x"])
def test_hostile_stdin_prints_one_line_and_exits_0(run, monkeypatch, args, stdin):
    monkeypatch.setenv("TOOLAUDIT_NO_RESIDENT", "1")
    result = run("statusline", *args, input=stdin)
    assert result.exit_code == 0 and len(result.output.splitlines()) == 1
    assert result.output.startswith("toolaudit: the statusline JSON on stdin is")


def test_the_console_script_survives_hostile_stdin(monkeypatch, capsys):
    import io
    import sys

    from toolaudit import entry

    monkeypatch.setenv("TOOLAUDIT_NO_RESIDENT", "1")
    monkeypatch.setattr(sys, "argv", ["toolaudit", "statusline"])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"[" * 100_000 + b"\xff")))
    with pytest.raises(SystemExit) as done:
        entry.main()
    assert done.value.code == 0 and len(capsys.readouterr().out.splitlines()) == 1


def test_a_line_not_computed_within_its_budget_is_one_line_and_exit_0(run, monkeypatch):
    import time

    from toolaudit import resident

    def slow(request):
        time.sleep(60)  # a 1 MB gzip of newlines took 116 s
        return "never"

    monkeypatch.setattr(resident, "compute", slow)
    monkeypatch.setattr(resident, "FALLBACK_S", 0.2)
    result = run("statusline", "--no-resident", str(SHOP))
    assert result.exit_code == 0 and result.output == "toolaudit: no answer in 0.2 s\n"
    assert "not computed within 20 s" in " ".join(run("statusline", "--help").output.split())
    assert resident.FALLBACK_S == 0.2 and resident.__dict__["FALLBACK_S"] == 0.2


def test_the_documented_budget_is_the_code_s():
    from toolaudit import resident
    from conftest import ROOT

    assert resident.FALLBACK_S == 20.0
    assert "20 s" in " ".join((ROOT / "docs" / "everyday.md").read_text().split())
