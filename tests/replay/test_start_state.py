"""The start state read from a session's own recorded `git diff`: which commands count, which files are taken."""

from __future__ import annotations

import json

import pytest

from toolaudit.model import ToolCall
from toolaudit.replay.start_state import apply, call_key, read, sections, status_paths
from toolaudit.replay.state import SessionState

CWD = "/home/dev/proj"
DIFF = ("diff --git a/cfg.json b/cfg.json\nindex 885cc30a..f7dea8b1 100644\n--- a/cfg.json\n+++ b/cfg.json\n"
        "@@ -1,3 +1,3 @@\n {\n-  \"local\": true\n+  \"local\": false\n }\n"
        "diff --git a/main.go b/main.go\nindex 1111111..2222222 100644\n--- a/main.go\n+++ b/main.go\n"
        "@@ -1,2 +1,2 @@\n package main\n-// old\n+// new\n")


def _diffs(calls: list[ToolCall], cwd: str) -> dict[str, str]:
    return read(calls, cwd).diffs


def _bash(command: str, output: str = "", line: int = 1, is_error: bool = False) -> ToolCall:
    return ToolCall("s.jsonl", line, "claude-code", "s", "Bash", output, f"c{line}",
                    args=json.dumps({"command": command}), is_error=is_error)


def _edit(path: str, line: int) -> ToolCall:
    return ToolCall("s.jsonl", line, "claude-code", "s", "Edit", "ok", f"c{line}", args=json.dumps(
        {"file_path": f"{CWD}/{path}", "old_string": "// old", "new_string": "// mine"}))


@pytest.mark.parametrize(("command", "used"), [
    ("git diff", True), ("git diff HEAD", True), ("git -C /home/dev/proj diff", True),
    ("git diff -- cfg.json", True), ("git --no-pager diff cfg.json 2>&1", True),
    ("git diff --cached", False), ("git diff --stat", False), ("git diff HEAD~1", False),
    ("git diff main", False), ("git diff main.go", False), ("git diff | head -50", False), ("git diff > out.patch", False),
    ("git status && git diff", False), ("git log -p", False),
])
def test_only_a_plain_diff_of_the_working_tree_is_read(command, used):
    output = DIFF if "cfg.json" not in command else DIFF[:DIFF.index("diff --git a/main.go")]
    found = _diffs([_bash(command, output)], CWD)
    assert (found != {}) is used


def test_files_the_session_changed_before_the_diff_are_not_taken_and_a_moved_tree_stops_the_reading():
    found = _diffs([_edit("main.go", 1), _bash("git diff", DIFF, 2)], CWD)
    assert sorted(found) == ["cfg.json"]  # main.go's diff holds the session's own edit
    assert _diffs([_edit("main.go", 3), _bash("git diff", DIFF, 4)], CWD)["cfg.json"].startswith("diff --git")
    assert _diffs([_bash("git stash", "", 1), _bash("git diff", DIFF, 2)], CWD) == {}  # another state
    assert _diffs([_bash("git diff", DIFF, 1, is_error=True)], CWD) == {}


def test_a_cut_output_keeps_only_the_whole_file_sections_before_the_cut():
    cut = DIFF + "diff --git a/big.go b/big.go\n--- a/big.go\n+++ b/big.go\n@@ -1,900 +1,900 @@\n-x\n" \
        "\n\n... [812 lines truncated] ...\n\n+y\n"
    assert sorted(sections(cut)) == ["cfg.json", "main.go"]
    assert sections("<persisted-output>\nOutput too large (40KB)…\n" + DIFF) == {}


def test_a_section_applies_to_the_base_it_was_made_from_and_to_no_other():
    cfg = sections(DIFF)["cfg.json"]
    assert apply(cfg, '{\n  "local": true\n}\n') == '{\n  "local": false\n}\n'
    assert apply(cfg, '{\n  "remote": true\n}\n') is None  # not the text the diff was made from
    assert apply(cfg, None) is None  # the base lacks the file and the diff does not add it
    added = "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n"
    assert apply(sections(added)["n.txt"], None) == "hi\n"


SHORT = "Exit code: 0\nWall time: 0 seconds\nOutput:\n## master...origin/master\n M docs/requirements.md\n" \
        "R  old.py -> new.py\n?? .codex/sessions/2025/12/17/\n?? \"with space.txt\"\n"
LONG = ("On branch main\nChanges not staged for commit:\n  (use \"git add <file>...\")\n\tmodified:   cmd/a.go\n"
        "\tdeleted:    cmd/b.go\n\nUntracked files:\n  (use \"git add <file>...\")\n\tnotes/\n\tplan.md\n\n"
        "no changes added to commit\n")


def test_git_status_lists_changed_and_untracked_paths_in_both_formats():
    """The short form as Codex 0.72 recorded `git status -sb` (Ogekuri/G), and git's long form."""
    assert read([_bash("git status -sb", SHORT)], CWD).changed == ("docs/requirements.md", "old.py", "new.py",
                                                                   "with space.txt")  # the agent's own logs: not
    assert status_paths(SHORT) == ["docs/requirements.md", "old.py", "new.py", ".codex/sessions/2025/12/17/",
                                   "with space.txt"]
    assert status_paths(LONG) == ["cmd/a.go", "cmd/b.go", "notes/", "plan.md"]
    assert read([_bash("git -C cmd status -s", SHORT)], CWD).changed == ()  # paths relative to cmd/: not placed


def test_what_status_lists_is_uncertain_from_the_start_unless_a_diff_shows_it_or_the_session_made_it(tmp_path):
    calls = [_edit("cmd/a.go", 1), _bash("git diff", DIFF, 2), _bash("git status", LONG, 3)]
    start = read(calls, CWD)
    assert start.changed == ("cmd/b.go", "notes/", "plan.md")  # cmd/a.go holds the session's own edit
    assert sorted(start.diffs) == ["cfg.json", "main.go"]
    (tmp_path / "cfg.json").write_text('{\n  "local": true\n}\n')
    state = SessionState(tmp_path, CWD)
    assert state.prime(start) == 1  # main.go is not in this base: its diff does not apply
    assert (tmp_path / "cfg.json").read_text() == '{\n  "local": false\n}\n'
    assert state.doubt([f"{CWD}/cfg.json"]) is None
    assert "`git status` showed it changed" in state.doubt([f"{CWD}/notes/todo.md"])
    assert "does not apply here" in state.doubt([f"{CWD}/main.go"])
    assert state.doubt([f"{CWD}/cmd/a.go"]) is None


def test_line_endings_quoted_names_and_other_revisions():
    """CRLF files keep their endings, `\\ No newline at end of file` is honoured, git's quoted names are
    decoded, and a diff against another revision is not the working tree's."""
    crlf = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n l1\n-l2\n+L2\n l3\n"
    assert apply(sections(crlf)["f"], "l1\r\nl2\r\nl3\r\n") == "l1\r\nL2\r\nl3\r\n"
    drop = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n one\n-two\n+two\n\\ No newline at end of file\n"
    assert apply(sections(drop)["f"], "one\ntwo\n") == "one\ntwo"
    add = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+two\n"
    assert apply(sections(add)["f"], "one\ntwo") == "one\ntwo\n"
    quoted = ('diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"\n--- "a/caf\\303\\251.txt"\n'
              '+++ "b/caf\\303\\251.txt"\n@@ -1 +1 @@\n-a\n+b\n')
    assert list(sections(quoted)) == ["café.txt"]
    assert status_paths(' M "caf\\303\\251.txt"\n') == ["café.txt"]
    assert _diffs([_bash("git diff HEAD~1 -- cfg.json", DIFF)], CWD) == {}


def test_a_file_a_first_whole_status_left_out_changed_later_not_before_the_session():
    """Real-s/mini-simclr-assignment (Codex 0.142): an empty `git status --short`, then a script the session ran,
    then a status listing results/…json: the script's doing, not work the session started on."""
    run = _bash("python code/linear_probe.py", "done", 3)
    calls = [_bash("git status --short", "", 2), run, _bash("git status --short --ignored", LATER, 4)]
    start = read(calls, CWD)
    assert start.changed == ()
    assert start.later == {call_key(run): ("results/probe.json", "report/")}
    # a diff after it is not the start's either: it shows what changed since
    assert read(calls + [_bash("git diff", DIFF, 5)], CWD).diffs == {}


def test_a_file_changed_by_nothing_the_transcript_records_is_uncertain_but_not_the_start(tmp_path):
    """entireio/git-sync (Codex 0.118): a clean status, then one listing a test file the session never wrote and no
    program of it explains (the user's editor): not the start's, yet no read of it can be trusted."""
    calls = [_bash("git status --short", "", 2), _bash("git status --short", " M cmd/a.go\n", 3)]
    start = read(calls, CWD)
    assert (start.changed, start.later, start.drifted) == ((), {}, ("cmd/a.go",))
    assert read(calls[:1] + [_bash("python gen.py", "", 3)] + calls[1:], CWD).drifted == ()  # the script's doing
    (tmp_path / "cmd").mkdir()
    (tmp_path / "cmd/a.go").write_text("package a\n")
    state = SessionState(tmp_path, CWD)
    state.prime(start)
    assert state.doubt([f"{CWD}/cmd/a.go"]).startswith("uncertain: cmd/a.go: the session's own later")
    assert state.doubt([f"{CWD}/main.go"]) is None


@pytest.mark.parametrize("first", [
    _bash("git status --short", "fatal: not a git repository\n", 2, is_error=True),  # showed nothing
    _bash("git status", "Auf Branch main\nÄnderungen, die nicht zum Commit vorgemerkt sind:\n\tgeändert:  a.py\n", 2),
])
def test_a_status_not_read_whole_leaves_later_listings_as_the_start(first):
    calls = [first, _bash("python code/linear_probe.py", "done", 3), _bash("git status --short", LATER, 4)]
    assert "results/probe.json" in read(calls, CWD).changed


LATER = " M results/probe.json\n?? report/\n!! .codex/\n"
