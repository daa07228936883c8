"""Issue 28's shell rules on lines cut from real Claude Code sessions (tests/fixtures/replay-shell-state): a program
replay cannot read doubts only what the session's own later `git diff`/`git status` showed changed, read-only forms
and assignments change nothing, inline code is judged by the calls it makes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from toolaudit.collectors import discover
from toolaudit.model import SessionInfo, ToolCall
from toolaudit.replay import start_state
from toolaudit.replay.shell_effects import effect
from toolaudit.replay.start_state import call_key
from toolaudit.replay.state import SHELL_TOOLS, SessionState, shell_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "replay-shell-state"


def _session(case: str) -> tuple[str, list[ToolCall]]:
    """The recorded folder and the calls, in the order they were made, of one cut session."""
    path = FIXTURES / case / "session.jsonl"
    cls, doc = discover.detect(path, None)
    records = list(cls().records(path, doc))
    cwd = next(r.cwd for r in records if isinstance(r, SessionInfo))
    calls = sorted((r for r in records if isinstance(r, ToolCall)), key=lambda c: (c.call_index, c.line))
    return cwd, calls


def _shell(calls: list[ToolCall]) -> list[ToolCall]:
    return [c for c in calls if c.tool in SHELL_TOOLS]


def _replayed_state(case: str, root: Path, diffs: bool = False) -> tuple[str, list[ToolCall], SessionState]:
    cwd, calls = _session(case)
    start = start_state.read(calls, cwd)
    state = SessionState(root, cwd)
    state.prime(start if diffs else replace(start, diffs={}))  # no base files here: the diffs have nothing to apply to
    for call in calls:
        state.record(call)
    return cwd, calls, state


def test_an_unknown_program_doubts_the_files_the_sessions_later_diff_showed_and_no_other(tmp_path):
    """entire-graph, Claude Code 2.1.217: `entire graph commit …` (the project's own CLI), then `git diff
    internal/sem/dependents.go` shows it changed. That file is uncertain after the command; root.go, which
    nothing showed changed, stays certain (it was the whole workspace before issue 28)."""
    cwd, calls, state = _replayed_state("unknown-then-diff", tmp_path)
    entire = next(c for c in _shell(calls) if "entire graph commit" in (shell_text(c) or ""))
    assert start_state.read(calls, cwd).later == {call_key(entire): ("internal/sem/dependents.go",)}
    assert state.everything is None
    assert state.unknown_programs == {"entire": ["internal/sem/dependents.go"]}
    why = state.doubt([f"{cwd}/internal/sem/dependents.go"])
    assert why is not None and "`time entire graph commit d7204…" in why and "ran entire" in why  # cut in its middle
    assert state.doubt([f"{cwd}/internal/cli/root.go"]) is None
    assert state.doubt([f"{cwd}/internal/sem"]) is not None  # a search over the folder holding it


def test_an_unknown_program_nothing_showed_changing_leaves_the_workspace_certain_and_is_named(tmp_path):
    """entireio/cli, Claude Code 2.1.20: `echo … | claude --print …`, then a Grep over cmd/entire/cli; no later
    `git status` or `git diff` shows a change, so the Grep is compared, and the report can name `claude`."""
    _, calls, state = _replayed_state("unknown-no-change", tmp_path)
    grep = next(c for c in calls if c.tool == "Grep")
    assert state.everything is None and state.uncertain == {}
    assert state.doubt([json.loads(grep.args)["path"]]) is None
    assert state.unknown_programs == {"claude": []}


def test_an_unknown_program_the_user_rejected_never_ran(tmp_path):
    """entireio/cli: `jd-tool dup cmd/entire/cli 50 …` was rejected ("Permission for this tool use was denied"):
    it changed nothing and is no program the session ran."""
    cwd, calls, state = _replayed_state("unknown-rejected", tmp_path)
    assert effect(shell_text(calls[0]) or "").unknown == ("jd-tool",)  # had it run, it would be one
    assert state.unknown_programs == {} and state.uncertain == {} and state.everything is None


@pytest.mark.parametrize(("case", "command"), [
    ("version", "./entire version"),
    ("help", "/tmp/entire --help"),
    ("list", "entire plugin list 2>&1; echo \"---\"; ls -la"),
    ("assignment", "BASE_SHA=$(git merge-base main HEAD) && HEAD_SHA=$(git rev-parse HEAD)"),
])
def test_read_only_forms_and_assignments_change_nothing(case, command):
    """A program's version, help and listings, and variables set from commands that read."""
    cwd, calls = _session(case)
    (call,) = _shell(calls)
    text = shell_text(call) or ""
    assert text.startswith(command)
    assert effect(text, cwd, call.output).none


@pytest.mark.parametrize(("case", "paths"), [
    # `# remove the now-redundant …` in a comment and `s.replace(a, b)` (a string's): it only prints
    ("inline-comment", ()),
    # `import json, copy`: it reads a design file and prints; a module's name is no call
    ("inline-import", ()),
    # `path.write_text(…)` with `path = Path('internal/syncer/integration_test.go')`
    ("inline-write", ("internal/syncer/integration_test.go",)),
])
def test_inline_python_is_judged_by_the_calls_it_makes(case, paths):
    """`python3 - <<'EOF'` scripts from entire-graph, cipher-box and git-sync sessions."""
    cwd, calls = _session(case)
    (call,) = _shell(calls)
    text = shell_text(call) or ""
    if case == "inline-comment":  # it ran after `cd ~/Projects/entire-sem`: the script alone, as if run here
        text = text.split("&& ", 1)[1]
    found = effect(text, cwd, call.output)
    assert found.paths == paths and found.unknown == ()


# ------------------------------------------------------------------ the rule, on calls written for it

def _bash(line: int, command: str, output: str = "") -> ToolCall:
    return ToolCall("s.jsonl", line, "claude-code", "s", "Bash", output, f"c{line}", call_index=line,
                    args=json.dumps({"command": command}))


DIFF = ("diff --git a/lib/app.ex b/lib/app.ex\nindex 1..2 100644\n--- a/lib/app.ex\n+++ b/lib/app.ex\n"
        "@@ -1 +1 @@\n-a\n+{}\n")


def test_a_file_a_status_listed_before_the_program_is_not_its_doing():
    """Work no commit holds shows in every status: only what a later one adds is the program's."""
    calls = [_bash(1, "git status --short", " M README.md\n"), _bash(2, "mix compile"),
             _bash(3, "git status --short", " M README.md\n?? priv/gen.ex\n")]
    assert start_state.read(calls, "/p").later == {call_key(calls[1]): ("priv/gen.ex",)}


def test_a_whole_status_between_clears_the_programs_before_it():
    """`git status` after the first program listed nothing: what a later one shows is the second program's."""
    calls = [_bash(1, "mix deps.get"), _bash(2, "git status", "On branch main\nnothing to commit\n"),
             _bash(3, "bd sync"), _bash(4, "git status --short", " M .beads/issues.jsonl\n")]
    assert start_state.read(calls, "/p").later == {call_key(calls[2]): (".beads/issues.jsonl",)}


def test_a_diff_that_differs_from_the_one_before_is_the_programs_doing():
    calls = [_bash(1, "git diff", DIFF.format("+b")), _bash(2, "mix format --check-formatted || ./bin/fix"),
             _bash(3, "git diff", DIFF.format("+c")), _bash(4, "./bin/other"), _bash(5, "git diff", DIFF.format("+c"))]
    later = start_state.read(calls, "/p").later
    assert later == {call_key(calls[1]): ("lib/app.ex",)}  # the second diff is the first's: nothing for ./bin/other


def test_the_sessions_own_edits_are_not_a_programs_doing():
    edit = ToolCall("s.jsonl", 2, "claude-code", "s", "Edit", "ok", "c2", call_index=2, args=json.dumps(
        {"file_path": "/p/lib/app.ex", "old_string": "a", "new_string": "b"}))
    calls = [_bash(1, "mix test"), edit, _bash(3, "git status --short", " M lib/app.ex\n")]
    assert start_state.read(calls, "/p").later == {}


def test_codex_shell_outputs_are_read_out_of_their_wrapper():
    """Codex 0.3x-0.5x `shell` records `{"output": …, "metadata": …}`: its status is read from inside."""
    wrapped = json.dumps({"output": "## main\n?? out/report.md\n", "metadata": {"exit_code": 0}})
    calls = [_bash(1, "./scripts/report.sh"), _bash(2, "git status -sb", wrapped)]
    assert start_state.read(calls, "/p").later == {call_key(calls[0]): ("out/report.md",)}
    assert start_state.read(calls, "/p").changed == ("out/report.md",)


def test_a_file_under_a_folder_the_session_wrote_is_its_own_work():
    """spec-kit's create-new-feature writes under specs/: what a later status lists there is the session's."""
    calls = [_bash(1, ".specify/scripts/bash/create-new-feature.sh --json 'Add login'"), _bash(2, "mix compile"),
             _bash(3, "git status --short", "?? specs/001-add-login/spec.md\n?? priv/static/app.js\n")]
    start = start_state.read(calls, "/p")
    assert start.changed == ("priv/static/app.js",)
    assert start.later == {call_key(calls[1]): ("priv/static/app.js",)}


def test_a_codex_diff_of_its_own_folder_or_cut_in_the_middle_is_not_taken():
    """`.codex/history.jsonl` changes as the session runs; Codex's `[... omitted k of N lines ...]` cut a diff."""
    own = DIFF.replace("lib/app.ex", ".codex/history.jsonl").format("+x")
    cut = DIFF.format("+c").replace("@@ -1 +1 @@", "@@ -1 +1 @@\n[... omitted 10 of 300 lines ...]")
    calls = [_bash(1, "git diff", json.dumps({"output": own, "metadata": {"exit_code": 0}})), _bash(2, "git diff", cut)]
    assert start_state.read(calls, "/p").diffs == {}


def test_the_note_names_an_unknown_program_and_what_it_left_uncertain(tmp_path):
    """The report's one line per session: the program, and the one file the later `git diff` showed it changed."""
    _, _, state = _replayed_state("unknown-then-diff", tmp_path)
    note = state.unknown_note()
    assert note is not None and note.startswith("ran 1 program(s) replay does not know (entire): ")
    assert "showed 1 file(s) changed" in note and "the rest of the workspace stays certain" in note
    _, _, quiet = _replayed_state("unknown-no-change", tmp_path)
    assert quiet.unknown_note() is not None and "(claude): nothing the session later showed" in quiet.unknown_note()
    assert "so the workspace stays certain" in quiet.unknown_note()
    _, _, rejected = _replayed_state("unknown-rejected", tmp_path)
    assert rejected.unknown_note() is None  # it never ran: no program to name


def test_the_note_reaches_the_report_with_names_redacted(tmp_path):
    """`toolaudit replay` on the cut session: the JSON notes and the table name `claude`; a program whose name
    holds a secret is named redacted (the table writes control characters as escapes, as in every line)."""
    from click.testing import CliRunner

    from toolaudit.cli import cli

    session = FIXTURES / "unknown-no-change" / "session.jsonl"
    runner = CliRunner()
    done = runner.invoke(cli, ["replay", str(session), "--workspace", str(tmp_path), "--identity", "--no-checkout",
                               "-f", "json"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    notes = json.loads(done.output)["notes"]
    assert any("ran 1 program(s) replay does not know (claude): nothing the session later showed" in n
               for n in notes), notes
    table = runner.invoke(cli, ["replay", str(session), "--workspace", str(tmp_path), "--identity", "--no-checkout"],
                          catch_exceptions=False)
    assert table.exit_code == 0 and "replay does not know (claude)" in table.output
    state = SessionState(tmp_path, "/repo")
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    state.unknown_programs = {f"./bin/{secret}": []}
    assert secret not in (state.unknown_note() or "")
