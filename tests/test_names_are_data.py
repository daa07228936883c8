"""Names are data: a tool, session, model or file name holding control characters, terminal escapes or
Markdown never breaks a report, reaches a terminal as a command, or pings anyone on GitHub.

- `-f html` of scan, simulate and advise exits 0 with each hostile character in each kind of name, and
  shows it written out (`\\x1b`), never raw (vl-convert aborted the process on a control character);
- statusline and watch print escapes in names as text (an OSC 52 clipboard write got through);
- a context size of 0 or less is "size unknown", never "-120463%";
- the Markdown report (the PR comment) breaks `@mentions` and backslashes the other Markdown marks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolaudit.reports.markdown_report import md_text
from toolaudit.reports.statusline import statusline
from toolaudit.reports.view import visible
from toolaudit.scan.context import ContextNow

# the characters the attack used, and a lone surrogate (a JSON escape can write one)
HOSTILE = {"nul": "\x00", "soh": "\x01", "bel": "\x07", "ff": "\x0c", "esc": "\x1b", "fffe": "\ufffe",
           "surrogate": "\ud800"}
OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"  # a clipboard write


def _written(char: str) -> str:
    """How a report shows `char`: lone surrogates are U+FFFD from the reader on, the rest escaped."""
    return "\ufffd" if "\ud800" <= char <= "\udfff" else visible(char)


def _transcript(folder: Path, char: str) -> Path:
    """A toolaudit-jsonl transcript whose tool, session, model and file name hold `char`: enough large
    outputs of one tool that advise recommends a cap on it."""
    name = f"calls-{char}.jsonl" if char not in ("\x00",) and not "\ud800" <= char <= "\udfff" else "calls.jsonl"
    path = folder / name
    lines = []
    for i in range(40):
        output = "\n".join(f"line {j} of a long listing, row {i}" for j in range(400))
        lines.append({"tool": f"grep{char}tool", "session": f"sess{char}ion", "model": f"gpt{char}model",
                      "call_id": f"c{i}", "request": i, "args": {"pattern": "x"}, "output": output})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


COMMANDS = {
    "scan-by-tool": ("scan", "--top", "5"),
    "scan-by-session": ("scan", "--by", "session"),
    "scan-by-model": ("scan", "--by", "model"),
    "scan-by-file": ("scan", "--by", "file"),
    "simulate": ("simulate", "--max-lines", "20", "--explain", "3"),
    "advise": ("advise",),
}


@pytest.mark.parametrize("char", HOSTILE.values(), ids=HOSTILE.keys())
def test_html_reports_show_hostile_names_written_out(char, run, tmp_path):
    pytest.importorskip("vl_convert", reason="the html extra is not installed")
    path = _transcript(tmp_path, char)
    seen = {}
    for label, (command, *flags) in COMMANDS.items():
        result = run(command, path, *flags, "-f", "html", "-q", "-j", "1", "--no-cache")
        assert result.exit_code == 0, (label, result.output[-500:])
        page = result.stdout
        assert all(c not in page for c in HOSTILE.values()), label  # no raw control character reaches the page
        seen[label] = page
    shown = _written(char)
    assert f"grep{shown}tool" in seen["scan-by-tool"] and f"grep{shown}tool" in seen["simulate"]
    assert f"grep{shown}tool" in seen["advise"]
    assert f"sess{shown}ion" in seen["scan-by-session"] and f"gpt{shown}model" in seen["scan-by-model"]
    if path.name != "calls.jsonl":
        assert f"calls-{shown}.jsonl" in seen["scan-by-file"]


def test_every_text_of_a_chart_is_written_out():
    pytest.importorskip("vl_convert", reason="the html extra is not installed")
    from toolaudit.reports import charts

    doc = {"tools": [{"tool": f"t{c}", "calls": 1, "tokens": 5, "share": 1.0} for c in HOSTILE.values()],
           "nested": [{"title": "\x1b[31m"}], "count": 3}
    out = charts.labelled(doc)
    assert out["count"] == 3 and out["nested"][0]["title"] == "\\x1b[31m"
    assert [t["tool"] for t in out["tools"]] == ["t\\x00", "t\\x01", "t\\x07", "t\\x0c", "t\\x1b", "t\\ufffe",
                                                  "t\\ud800"]


def _now(tools, context=None, in_context=None):
    total = sum(n for _, n in tools)
    return ContextNow(source="s.jsonl", session="s", calls=len(tools), in_context=total if in_context is None
                      else in_context, by_tool=tuple(tools), context=context, resent=0, estimated=False,
                      tokenizer="o200k_base")


def test_statusline_prints_escapes_in_names_as_text():
    line = statusline(_now([(f"Bash{OSC52}", 3000), ("\x1b[2J\x1b[HRead", 1000)], context=10_000))
    assert "\x1b" not in line and "\x07" not in line
    assert "Bash\\x1b]52;c;ZWNobyBwd25lZA==\\x07 30%" in line and "\\x1b[2J\\x1b[HRead 10%" in line


@pytest.mark.parametrize("context", [-120, 0])
def test_a_context_size_of_zero_or_less_is_unknown(context):
    line = statusline(_now([("Bash", 145_000)], context=context))
    assert "%" not in line and "-" not in line.replace("re-sent", "")
    assert line.startswith("tools 145k tok in ctx (ctx size unknown)")


def test_statusline_command_with_a_hostile_transcript(run, tmp_path):
    path = tmp_path / "calls.jsonl"
    path.write_text(json.dumps({"tool": f"Bash{OSC52}", "session": "s", "call_id": "c1", "request": 1,
                                "args": {}, "output": "hello " * 50}) + "\n")
    result = run("statusline", "--no-resident", path, input="")
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "Bash\\x1b]52" in result.stdout


def test_watch_view_prints_escapes_in_names_as_text():
    from rich.console import Console

    from toolaudit.reports.watch import view
    from toolaudit.scan.live import SessionLive, Snapshot

    session = SessionLive(f"ab{OSC52}cd", "/p/x.jsonl", f"proj[bold]{OSC52}", 3, 900, f"T{OSC52}", (300,), 100.0)
    snap = Snapshot((session,), ((f"T{OSC52}", 3, 900), ("[red]Read[/red]", 1, 10)), 1, 7200.0, 110.0, "o200k_base", False)
    console = Console(width=200, record=True, force_terminal=True, color_system="truecolor")
    console.print(view(snap, keys_hint=""))
    text = console.export_text(styles=False)
    raw = console.export_text(styles=True)
    assert "]52;" in text and "\\x1b]52;c;" in text  # the name is there, written out
    assert "\x1b]52" not in raw and "\x07" not in raw  # no clipboard write, even with styles
    assert "[red]Read[/red]" in text and "proj[bold]" in text  # no rich markup read from a name


def test_markdown_breaks_mentions_and_escapes_marks():
    out = md_text("@octocat pinged @org/team via tool|name `x` <b> [a](b)")
    assert "@octocat" not in out and "@org/team" not in out and "@\u200boctocat" in out
    assert "\\|" in out and "\\`x\\`" in out and "\\<b\\>" in out and "\\[a\\](b)" in out


def test_markdown_pr_comment_notifies_nobody(run, tmp_path):
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps({"tool": f"mcp@octocat|{i}", "session": "@admins", "call_id": f"c{i}",
                                        "request": i, "args": {}, "output": "x " * 300}) + "\n" for i in range(3)))
    baseline = tmp_path / "baseline.json"
    made = run("scan", path, "-f", "json", "-o", baseline, "-q", "-j", "1", "--no-cache")
    assert made.exit_code == 0, made.output
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    for argv in (("scan", path, "-f", "markdown", "--by", "session"), ("scan", path, "-f", "markdown"),
                 ("ci", path, "--baseline", baseline, "-f", "markdown")):
        result = run(*argv, "-q", "-j", "1", env=env)
        assert result.exit_code in (0, 3), result.output
        assert "@octocat" not in result.stdout and "@admins" not in result.stdout, argv
        assert "@\u200b" in result.stdout
    assert os.path.exists(env["GITHUB_STEP_SUMMARY"])
    assert "@octocat" not in Path(env["GITHUB_STEP_SUMMARY"]).read_text()


def test_terminal_table_prints_escapes_in_names_as_text(run, tmp_path):
    path = tmp_path / "calls.jsonl"
    path.write_text(json.dumps({"tool": f"Bash{OSC52}", "session": "s\x1b[2J", "call_id": "c1", "request": 1,
                                "args": {}, "output": "hello " * 50}) + "\n")
    for by in ("tool", "session"):
        result = run("scan", path, "--by", by, "-q", "-j", "1", "--no-cache")
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "Bash\\x1b]52;c;" in run("scan", path, "-q", "-j", "1").stdout
