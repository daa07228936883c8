"""A `git status` among other commands of one line: its output told apart (replay.segments) and read as the start.

The lines are cut from real sessions: teslamint/entirecontext (Codex 0.147, its find-bugs skill's first cell: a
skill file, then `printf` markers around `git status --short` and `git diff --stat`), entireio/git-sync (Codex
0.120, `git status --short && git log --oneline -5 --decorate`), PackmindHub/context-evaluator (Claude Code 2.1.5x,
`git status && echo "---DIFF---" && git diff FILE`); outputs shortened, names kept.
"""

from __future__ import annotations

import json

import pytest

from toolaudit.model import ToolCall
from toolaudit.replay import segments
from toolaudit.replay.start_state import read

CWD = "/Users/teslamint/workspace/entirecontext"
FIND_BUGS = ("cat /Users/teslamint/.agents/skills/find-bugs/SKILL.md && printf '\\n---STATUS---\\n' && "
             "git status --short && printf '\\n---DIFF STAT---\\n' && git diff --stat && git diff --cached --stat")
SKILL = "---\nname: find-bugs\n---\n\n# Find Bugs\n\n1. List all files modified\n"
STATUS = (" M CHANGELOG.md\n M src/entirecontext/core/decisions.py\n?? .entire/\n"
          "?? src/entirecontext/db/migrations/v021.py\n")
STAT = " CHANGELOG.md                        |  2 +-\n src/entirecontext/core/decisions.py |  8 +\n"
FIND_BUGS_OUT = SKILL + "\n---STATUS---\n" + STATUS + "\n---DIFF STAT---\n" + STAT
LONG = ("On branch main\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be "
        "committed)\n\tmodified:   frontend/src/components/RemediateTab.tsx\n\nno changes added to commit (use "
        "\"git add\" and/or \"git commit -a\")\n")


def _cell(command: str, output: str, line: int = 1) -> ToolCall:
    """A Codex code-mode cell running one command and printing its output, as 0.147 records it."""
    code = f"const r = await tools.exec_command({{cmd: {json.dumps(command)}, workdir: {json.dumps(CWD)}}});\n" \
        "text(r.output);\n"
    return ToolCall("r.jsonl", line, "codex", "s", "exec", f"Script completed\nWall time 3.9 seconds\nOutput:\n{output}",
                    f"c{line}", args=code)


def _bash(command: str, output: str, line: int = 1, is_error: bool = False) -> ToolCall:
    return ToolCall("s.jsonl", line, "claude-code", "s", "Bash", output, f"c{line}",
                    args=json.dumps({"command": command}), is_error=is_error)


def test_markers_tell_each_output_apart():
    found = segments.split(FIND_BUGS, FIND_BUGS_OUT)
    assert [(i, part) for i, part, _ in found] == [
        (0, "cat /Users/teslamint/.agents/skills/find-bugs/SKILL.md"), (2, "git status --short")]
    assert found[1][2] == STATUS
    # two commands between the same markers (`git diff --stat && git diff --cached --stat`): neither is known
    assert all(part != "git diff --stat" for _, part, _ in found)


@pytest.mark.parametrize(("command", "output", "status"), [
    ("git status --short && git log --oneline -5 --decorate", " M README.md\n?? docs/x.md\nab12cd3 (HEAD) msg\n",
     " M README.md\n?? docs/x.md\n"),  # the short lines end where the log's begin
    ("git status && git diff frontend/x.tsx", LONG + "diff --git a/x b/x\n", LONG),  # at the long form's closing line
    ("git status --short; echo '--- x ---'; git log -1", "?? a\n--- x ---\nlog\n", "?? a\n"),
    ("git status --short 2>&1 && echo done", " M a\ndone\n", " M a\n"),
])
def test_a_first_status_ends_where_its_form_says(command, output, status):
    assert segments.split(command, output)[0][1:] == (command.split(" &&")[0].split(";")[0].removesuffix(" 2>&1"),
                                                      status)


@pytest.mark.parametrize(("command", "output"), [
    ("git status --short && sed -n '1,5p' a.txt", " M a\n?? b\n"),  # a file's lines could look like status lines
    ("git status && git log -1", "On branch main\nChanges to be committed:\n\tnew file:   a\nabc\n"),  # no closing
    ("echo '---S---' && git status --short && echo '---S---'", "---S---\n M a\n---S---\n"),  # a marker twice
    ("false && printf '\\n---STATUS---\\n' && git status --short", "boom\n"),  # a part failed: no marker
    ("git status --short || true", " M a\n"), ("git status & git log", " M a\n"),
    ("git status > s.txt && cat s.txt", " M a\n"), ("echo $(date) && git status", "now\n M a\n"),
])
def test_nothing_is_taken_where_an_output_cannot_be_told_apart(command, output):
    assert not [part for _, part, _ in segments.split(command, output) if part.startswith("git status")]


def test_quotes_are_respected_and_only_constant_markers_count():
    assert segments.parts('echo "a && b; c" && git status') == ['echo "a && b; c"', "git status"]
    assert segments.printed_by("printf '\\n---STATUS---\\n'") == "\n---STATUS---\n"
    assert segments.printed_by("echo '--- x ---'") == "--- x ---\n"
    assert segments.printed_by("echo -n x") is None and segments.printed_by("printf '%s' x") is None
    assert segments.printed_by('echo "$HOME"') is None


def test_the_find_bugs_cell_lists_the_work_the_session_started_on():
    start = read([_cell(FIND_BUGS, FIND_BUGS_OUT)], CWD)
    assert start.changed == ("CHANGELOG.md", "src/entirecontext/core/decisions.py", ".entire/",
                             "src/entirecontext/db/migrations/v021.py")  # as a plain `git status` lists them


def test_a_status_after_a_part_that_writes_or_in_a_failed_line_is_not_the_start():
    assert read([_bash("rm -rf .gocache && git status --short", " M README.md\n")], CWD).changed == ()
    assert read([_bash("git status --short && git log -1", " M README.md\nab12cd3 m\n", is_error=True)],
                CWD).changed == ()
    assert read([_bash("git status --short && git log -1", " M README.md\nab12cd3 m\n")], CWD).changed == (
        "README.md",)


def test_a_cell_of_several_commands_is_not_cut():
    code = ("const a = await tools.exec_command({cmd: \"git status --short && git log -1\"});\n"
            "const b = await tools.exec_command({cmd: \"ls\"});\ntext(a.output); text(b.output);\n")
    call = ToolCall("r.jsonl", 1, "codex", "s", "exec", "Script completed\nWall time 1 seconds\nOutput:\n M a\nab1 m\n",
                    "c1", args=code)
    assert read([call], CWD).changed == ()


def test_an_unknown_program_later_on_the_line_ran_after_the_status():
    """`git status --short; echo ---; ec decision sync` then a status listing new.md: ec's doing, not the start."""
    calls = [_bash("git status --short; echo ---; ec decision sync", " M a.py\n---\nsynced\n", 1),
             _bash("git status --short", " M a.py\n?? new.md\n", 2)]
    assert list(read(calls, CWD).later.values()) == [("new.md",)]  # the status before it on its line: no new.md


@pytest.mark.parametrize("command", [
    "cd frontend && echo '---S---' && git status --short", "cd /home/u/other && echo '---S---' && git status --short",
    "cd .. && echo '---S---' && git status --short", "pushd web && echo '---S---' && git status --short",
    "cd && echo '---S---' && git status --short", "export GIT_DIR=/x/.git && echo '---S---' && git status --short",
])
def test_a_status_run_elsewhere_on_its_line_is_not_the_start(command):
    """A review's findings (helper-44, round 8): a `cd` before the status moves where its paths are relative to."""
    assert read([_bash(command, "---S---\n M src/x.ts\n")], CWD).changed == ()
    assert read([_bash(f"cd {CWD} && echo '---S---' && git status --short", "---S---\n M src/x.ts\n")],
                CWD).changed == ("src/x.ts",)  # into the session's own folder: as if it were not there


@pytest.mark.parametrize(("command", "output"), [
    ("git status --short && git log --oneline -200", "<persisted-output>\nOutput too large\nPreview:\n M a.py\n"),
    ("git status && git log --oneline -1", "interactive rebase in progress; onto 1a2b3c4\n   pick bb9021a c2\nabc m\n"),
    ("git status --short && git log -1", "nvm is not compatible with the npm config\n M a.py\nabc m\n"),
    ("git status --short && git mv old.py new.py && git status --short", " M a.py\nR  old.py -> new.py\n M a.py\n"),
    ("echo $'\\'' && rm a.py && echo \\' && echo '---S---' && git status --short", "'\n'\n---S---\n D a.py\n"),
    ("echo '---S---' # && rm a.py\ngit status --short", "---S---\n M a.py\n"),
    ("printf '---S---\\n' && git status --short", " M a.py\n"),  # bash refuses the format: prints nothing
])
def test_what_the_review_found_gives_nothing(command, output):
    assert not [part for _, part, _ in segments.split(command, output) if part.startswith("git status")]


def test_the_review_s_other_cases():
    # a submodule's ` m` line is a status line: what follows is not cut off
    assert segments.split("git status --short && git log --oneline -1", " M a.py\n m vendor/sub\n M z.py\nab1 m\n")[
        0][2] == " M a.py\n m vendor/sub\n M z.py\n"
    # newlines cut the parts, and a spacer `echo ""` is printed text, not a marker
    assert segments.parts("git status --short\ngit log -1") == ["git status --short", "git log -1"]
    assert segments.split("echo '---S---'\ngit status --short\necho '---E---'\ngit log -1",
                          "---S---\n M a\n---E---\nab1 m\n")[0][2] == " M a\n"
    assert segments.split('git status --short; echo ""; echo "=== LOG ==="; git log -1', " M a\n\n=== LOG ===\nab1\n")[
        -1][1:] == ("git log -1", "ab1\n")
    assert segments.printed_by("printf 'a\\\\nb'") == "a\\nb" and segments.printed_by("printf '\\101'") is None


def test_one_short_line_form_for_both_readers():
    """segments.SHORT is start_state's too: a submodule's ` m` is a change, `!!` (ignored) is not, two spaces never."""
    from toolaudit.replay.start_state import status_paths

    assert status_paths(" m vendor/sub\n!! build/\n   pick bb9021a c2\n M a.py\n") == ["vendor/sub", "a.py"]
