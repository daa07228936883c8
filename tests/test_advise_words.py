"""advise's text says what each recommendation is worth as a reader reads dollars: a saving under a cent is
`under $0.01`, not `$0.00` (the corpus's Bash cap saves $0.000668, its OpenHands cap $0.0047), and its evidence
counts read as counts (1 session, 1 event)."""

from __future__ import annotations

from conftest import CORPUS


def test_a_saving_under_a_cent_reads_under_a_cent(run):
    result = run("advise", str(CORPUS / "claude-code"), "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    evidence = [line.strip() for line in result.output.splitlines() if line.strip().startswith("evidence:")]
    assert evidence and not any("$0.00" in line for line in evidence)
    assert any(line.endswith("worth under $0.01") for line in evidence)  # BASH_MAX_OUTPUT_LENGTH = 2000
    assert not any("1 sessions" in line or "1 events" in line for line in evidence)


def test_the_setting_a_user_sets_is_whole_on_an_80_column_terminal(monkeypatch, run):
    """The corpus at 80 columns showed `claude-code: C…T_OVERRIDE = 56` and `codex: tool_ou…en_limit = 1250`: the
    names a user types, cut in the middle. The table gives NAME = VALUE (the agent is named in the lines below)."""
    from toolaudit.reports import base

    monkeypatch.setattr(base, "_terminal", lambda stream: True)
    result = run("advise", str(CORPUS / "claude-code"), str(CORPUS / "codex"), "-q", "-j", "1",
                 env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    table = result.output.split("#1 ")[0]
    assert max(len(line) for line in table.splitlines()) <= 80
    assert "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE = 56" in table and "tool_output_token_limit = " in table
    assert "set CLAUDE_AUTOCOMPACT_PCT_OVERRIDE = 56 (environment variable)" in result.output


def test_a_setting_over_many_tools_names_them_by_count_in_the_table():
    """Codex's one limit over nine tools made a cell a terminal cut in the middle (`[REDACTE…ite_stdin`); the line
    below the table names every tool."""
    from toolaudit.reports.advise_view import _tools_cell

    assert _tools_cell(1, ()) == "(context)"
    assert _tools_cell(2, ("execute_bash", "run", "run_ipython", "str_replace_editor")) == "4 tools (#2 below)"
    assert _tools_cell(3, ("Bash", "Read")) == "Bash, Read"
    assert _tools_cell(1, tuple(f"t{i}" for i in range(9))) == "9 tools (#1 below)"
