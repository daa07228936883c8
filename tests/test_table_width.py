"""The terminal table fits its width: compact columns, dropped columns rather than cut numbers; piped output is whole."""

from __future__ import annotations

import json
import re

import pytest

from toolaudit.reports import base

ANSI = re.compile(r"\x1b\[[0-9;]*m")
CELLS = re.compile(r"\s{2,}")


def _cut_number(line: str) -> bool:
    """Whether a cell after the first (a name, which may be shortened) holds `…`."""
    return any("…" in cell for cell in CELLS.split(line.strip())[1:])
FULL_HEADERS = ("mean", "p50", "p95", "max", "chars", "bytes", "errors", "agent-cut")


@pytest.fixture
def terminal(monkeypatch, run):
    """Run a command as if stdout were a terminal COLUMNS wide (render_report's terminal path)."""
    monkeypatch.setattr(base, "_terminal", lambda stream: True)

    def invoke(columns: int, *args: str, color: bool = False):
        env = {"COLUMNS": str(columns), **({} if color else {"NO_COLOR": "1"})}
        if color:
            monkeypatch.delenv("NO_COLOR", raising=False)
        return run(*args, "-q", "-j", "1", env=env)

    return invoke


def _inputs(corpus):
    return [str(corpus), str(base.Path(__file__).resolve().parents[1] / "sample_logs")]


def _lines(text: str) -> list[str]:
    return [ANSI.sub("", line) for line in text.splitlines()]


def _table_rows(lines: list[str]) -> list[str]:
    """The first table's rows: from the header line to the TOTAL line."""
    end = next(i for i, line in enumerate(lines) if line.lstrip().startswith("TOTAL"))
    return lines[:end + 1]


@pytest.mark.parametrize("columns", [100, 80])
@pytest.mark.parametrize("color", [False, True])
@pytest.mark.parametrize("extra", [(), ("--cost",), ("--by", "family")])
def test_default_table_fits_and_shows_every_number_whole(terminal, run, corpus, columns, color, extra):
    result = terminal(columns, "scan", *_inputs(corpus), *extra, color=color)
    assert result.exit_code == 0, result.output
    lines = _lines(result.stdout)
    table = _table_rows([line for line in lines if line.strip()])
    assert all(len(line) <= columns for line in table), max(table, key=len)
    assert not any(_cut_number(line) for line in table)
    # every number shown is the scan's own: tokens of each row, whole, on that row
    doc = json.loads(run("scan", *_inputs(corpus), *extra, "-f", "json", "-q", "-j", "1").stdout)
    rows = doc.get("groups", doc["tools"])
    key = doc["meta"]["by"]
    shown = {line.split()[0]: line for line in table[1:-1]}
    checked = 0
    for row in rows:
        if row[key] in shown:
            assert f"{row['tokens']:,}" in shown[row[key]].split(), (row, shown[row[key]])
            checked += 1
    assert checked >= 5
    assert "tokens" in table[0] and "chars" not in table[0]  # compact: the full set would not fit


def test_a_narrow_terminal_drops_columns_and_then_shortens_names(terminal, corpus):
    wide = _lines(terminal(100, "scan", *_inputs(corpus)).stdout)
    narrow = _lines(terminal(40, "scan", *_inputs(corpus)).stdout)
    assert len(wide[0].split()) > len(narrow[0].split()) >= 2
    table = _table_rows([line for line in narrow if line.strip()])
    assert all(len(line) <= 40 for line in table)
    assert not any(_cut_number(line) for line in table)
    assert any("…" in line.split()[0] for line in table[1:-1])  # long tool names shortened, not numbers


def test_piped_output_is_the_full_plain_table(run, corpus):
    result = run("scan", *_inputs(corpus), "-q", "-j", "1")
    assert result.exit_code == 0
    header = result.stdout.splitlines()[0]
    assert all(h in header.split() for h in FULL_HEADERS)
    assert "█" not in result.stdout and "\x1b[" not in result.stdout


def test_columns_apply_to_piped_output_too(run, corpus):
    piped = run("scan", *_inputs(corpus), "--columns", "calls", "-q", "-j", "1")
    assert piped.exit_code == 0 and piped.stdout.splitlines()[0].split() == ["tool", "calls"]


def test_wide_shows_every_column_on_a_terminal(terminal, corpus):
    result = terminal(100, "scan", *_inputs(corpus), "-w")
    assert result.exit_code == 0
    lines = _lines(result.stdout)
    # past the terminal's width the columns come in groups, each a table of its own beside the tool column
    headers = [line.split() for line in lines if line.lstrip().startswith("tool ")]
    assert len(headers) >= 2 and all(any(h in header for header in headers) for h in FULL_HEADERS)
    assert all(len(line) <= 100 for line in lines if line.lstrip().startswith(("tool ", "TOTAL", "Read ")))
    assert not any(_cut_number(line) for line in lines)


def test_columns_chooses_and_orders_and_an_unknown_one_names_the_choices(terminal, run, corpus):
    result = terminal(100, "scan", *_inputs(corpus), "--columns", "max,bar,tokens")
    assert result.exit_code == 0
    assert _lines(result.stdout)[0].split() == ["tool", "max", "tokens"]
    assert "█" in result.stdout
    bad = run("scan", *_inputs(corpus), "--columns", "tokens,p99")
    assert bad.exit_code == 2
    assert "'p99'" in bad.stderr and "p95" in bad.stderr and "agent-cut" in bad.stderr


def test_simulate_table_fits_too(terminal, corpus):
    result = terminal(80, "simulate", str(corpus), "--max-chars", "2000")
    assert result.exit_code == 0, result.output
    table = _table_rows([line for line in _lines(result.stdout) if line.strip()])
    assert all(len(line) <= 80 for line in table)
    assert not any(_cut_number(line) for line in table)
    assert "saved %" in table[0] and "later_used" in table[0] and "errors_cut" in table[0]  # the saving and its risk


def test_unpriced_tools_show_na_with_their_calls_never_zero_dollars(run, tmp_path):
    from test_billing import _session

    result = run("scan", _session(tmp_path, model=None), "--cost", "-q", "-j", "1")
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if line.startswith("Read"))
    assert row.endswith("n/a (1 call)") and "$0.00" not in row
    priced = run("scan", _session(tmp_path, model=None), "--cost", "--model", "claude-sonnet-4-5", "-q", "-j", "1")
    assert re.search(r"^Read .*\$\d+\.\d\d$", priced.stdout, re.M)
    csv = run("scan", _session(tmp_path, model=None), "--cost", "-f", "csv", "-q", "-j", "1").stdout
    assert csv.splitlines()[1].split(",")[12] == ""  # cost_usd_estimated: unknown, not 0.0


@pytest.mark.parametrize("columns", [80, 120])
def test_top_fits_shortens_ids_and_names_what_it_dropped(terminal, run, columns):
    from conftest import SAMPLES

    table = terminal(columns, "scan", SAMPLES / "claude-code", "--top", "3").output
    part = table[table.index("Largest calls"):].split("\n\n")[0].splitlines()
    assert all(len(line) <= columns for line in part)
    rows = part[2:5]
    assert [row.split()[1] for row in rows] == ["10,536", "6,669", "5,578"]  # tokens whole, never dropped
    # a session's UUID by its first 8 characters, never with its middle cut out (issue 31.3)
    assert rows[0].split()[2] == "c3d2e1f0" and rows[2].split()[2] == "5f1c2a9e" and "…" not in rows[0].split()[2]
    if columns == 80:
        assert part[-1] in ("(not shown: file:line, args; --wide shows all)", "(not shown: args; --wide shows all)")
    else:
        assert all(re.search(r"…[0-9a-f]+\.jsonl:\d+$", row) for row in rows)
        assert part[-1] == "(not shown: args; --wide shows all)"
    doc = json.loads(run("scan", SAMPLES / "claude-code", "--top", "3", "-q", "-f", "json").stdout)
    assert doc["top"][0]["session"] == "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5"


def test_piped_top_is_whole(run):
    from conftest import SAMPLES

    piped = run("scan", SAMPLES / "claude-code", "--top", "3", "-q").output
    assert "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5" in piped and "not shown" not in piped


def test_middle():
    from toolaudit.reports.view import middle

    assert middle("abcdef", 6) == "abcdef" and middle("abcdefgh", 5) == "ab…gh" and len(middle("x" * 99, 40)) == 40


def test_a_long_mcp_name_loses_its_middle_before_a_promised_column(terminal, tmp_path):
    long = "mcp__claude-in-chrome__read_console_messages"
    rows = [{"session": "s", "call_id": f"c{i}", "tool": tool, "args": {}, "output": "x " * (50 * (i + 1))}
            for i, tool in enumerate([long, "Read", "Bash", "mcp__github__list_pull_requests_for_review"])]
    (tmp_path / "calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    table = terminal(80, "scan", tmp_path).output
    from toolaudit.reports.view import middle

    lines = _table_rows(_lines(table))
    assert lines[0].split()[:5] == ["tool", "calls", "tokens", "share", "p95"]  # the compact set, whole
    assert all(len(line) <= 80 for line in lines)
    for name in (long, "mcp__github__list_pull_requests_for_review"):
        assert len(middle(name, 30)) == 30 and any(line.startswith(middle(name, 30) + " ") for line in lines)


@pytest.mark.parametrize("columns", [80, 120])
def test_compare_and_replay_tables_fit_and_never_split_a_number(terminal, run, columns):
    from conftest import ROOT

    runs = ROOT / "docs" / "examples" / "runs"
    compare = _lines(terminal(columns, "compare", runs / "baseline", runs / "capped").output)
    fixtures = ROOT / "tests" / "fixtures"
    replay = _lines(run("replay", fixtures / "search_session.jsonl", "--workspace", fixtures / "search_repo",
                        "--translate", "shell-search", "--tool", "grep=builtin:grep?max_matches=100&max_bytes=10000",
                        "--tool", "glob=builtin:glob", "-q", env={"COLUMNS": str(columns), "NO_COLOR": "1"}).output)
    for lines, numbers in ((compare, ("2,419", "2,153", "↓ 11.0%")), (replay, ("8,850", "2,894", "67.3"))):
        end = next(i for i, line in enumerate(lines) if not line or line.startswith(("TOTAL", "(not shown")))
        table = lines[:end + lines[end].startswith("TOTAL")]
        assert all(len(line) <= columns for line in table), "\n".join(table)
        for number in numbers:
            assert any(number in line for line in table), number
    header = replay[0].split()
    assert header[:3] == ["tool", "calls", "replayed"] and "saved" in replay[0] and "later_used" in replay[0]
    shown = next(line for line in replay if line.startswith("(not shown"))  # what the width left out is named
    assert "refused/failed" in shown and "--wide shows all" in shown


def test_wide_shows_every_column_of_compare_replay_and_ci(terminal, run, tmp_path):
    from conftest import ROOT, SAMPLES

    runs = ROOT / "docs" / "examples" / "runs"
    assert "(not shown" in terminal(80, "compare", runs / "baseline", runs / "capped").output
    wide = terminal(80, "compare", runs / "baseline", runs / "capped", "--wide").output
    assert "(not shown" not in wide and "B min–max" in wide
    fixtures = ROOT / "tests" / "fixtures"
    replay = run("replay", fixtures / "search_session.jsonl", "--workspace", fixtures / "search_repo", "--wide",
                 "--translate", "shell-search", "--tool", "grep=builtin:grep", "-q", env={"COLUMNS": "80"}).output
    assert "(not shown" not in replay and "refused/failed" in replay
    baseline = tmp_path / "b.json"
    assert run("scan", SAMPLES / "codex", "-f", "json", "-o", baseline, "-q").exit_code == 0
    narrow = terminal(36, "ci", SAMPLES / "codex", "--baseline", baseline).output
    assert "PASS" in narrow and "(not shown" in narrow
    assert "(not shown" not in terminal(36, "ci", SAMPLES / "codex", "--baseline", baseline, "--wide").output


@pytest.mark.parametrize("columns", [80, 120])
def test_explain_and_diff_numbers_sit_in_tables_that_fit(terminal, run, columns):
    from conftest import ROOT, SAMPLES

    sim = _lines(terminal(columns, "simulate", SAMPLES, "--max-chars", "2000", "--explain", "2").output)
    at = sim.index("What the cut hid:")
    assert sim[at + 2].startswith("#1 ") and all(len(line) <= columns for line in sim[at:at + 4])
    assert re.search(r"^#1 \w+ +[\d,]+ +[\d,]+ ", sim[at + 2])  # tokens before and after, whole
    fixtures = ROOT / "tests" / "fixtures"
    out = _lines(run("replay", fixtures / "search_session.jsonl", "--workspace", fixtures / "search_repo",
                     "--translate", "shell-search", "--tool", "grep=builtin:grep?max_matches=100&max_bytes=10000",
                     "--explain", "2", "--diff", "1", "-q", env={"COLUMNS": str(columns), "NO_COLOR": "1"}).output)
    for title, numbers in (("Replayed calls (previews redacted):", ("8,791", "2,834", "29,938", "10,000")),
                           ("Largest changes (texts redacted):", ("8,791", "2,834"))):
        at = out.index(title)
        table = out[at + 1:at + 3]
        assert all(len(line) <= columns for line in table)
        assert all(n in table[1] for n in numbers), table


def test_a_path_longer_than_the_terminal_folds_after_a_slash_not_mid_name():
    """1curafu/Fitcheck's refused Read (its 7fefe91e7266 checkpoint): on 80 columns rich cut the path's last name in
    two (`…/20260731090000_out` / `fits_styled_item.sql'`)."""
    from toolaudit.reports.table_report import folded

    line = ("1 × path '/Users/1curafu/Desktop/Fitcheck-Fitcheck/supabase/migrations/20260731090000_outfits_styled_item"
            ".sql' is outside the recorded working folder /Users/1curafu/Desktop/Fitcheck/Fitcheck")
    parts = folded(line, 80)
    assert "".join(parts).replace(" ", "") == line.replace(" ", "") and all(len(p) <= 80 for p in parts)
    assert parts[0].endswith("/migrations/") and parts[1].startswith("20260731090000_outfits_styled_item.sql'")
    assert folded("a line whose words all fit", 10) == ["a line whose words all fit"]  # rich wraps it as before
