"""A read that showed other text than replay's state, and taught nothing, leaves the file in an unknown state.

The fixture `partial-reads-differ` is four lines cut verbatim from a Claude Code 2.1.185 session of
github.com/jakobtfaber/dsa110-FLITS (MIT; tests/fixtures/replay-entire/README.md): two partial Reads of
consistency.py made after the session's edits to it (and a formatter hook's rewrite), and the file as the start
commit holds it. The first Read is the difference replay reports; the second cannot be compared with a state
replay knows is not the session's, so it is set aside under its own reason, never counted as a match or a miss.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from toolaudit.cli import cli
from toolaudit.model import ToolCall
from toolaudit.replay.state import SessionState

CASE = Path(__file__).resolve().parents[1] / "fixtures" / "replay-entire" / "partial-reads-differ"
FILE = "scintillation/scint_analysis/consistency.py"
CWD = "/Users/jakobfaber/Developer/repos/github.com/jakobtfaber/dsa110-FLITS"


def _replay(session: Path, workspace: Path) -> dict:
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(workspace), "--identity",
                                      "--no-checkout", "-q", "-f", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _read(report: dict) -> dict:
    return next(row for row in report["identity"]["tools"] if row["tool"] == "Read")


def test_a_partial_read_that_differs_sets_the_later_reads_of_its_file_aside(tmp_path):
    shutil.copytree(CASE / "repo", tmp_path / "repo")
    read = _read(_replay(CASE / "session.jsonl", tmp_path / "repo"))
    assert (read["calls"], read["replayed"], read["within_1pct"]) == (2, 1, 0)  # the first still counts as a miss
    reasons = {r["reason"]: r["calls"] for r in read["reasons"]}
    aside = [r for r in reasons if r.startswith(f"uncertain: {FILE}: an earlier Read of it showed other text")]
    assert len(aside) == 1 and reasons[aside[0]] == 1


def test_without_the_first_read_the_second_is_compared(tmp_path):
    """The control: the second Read alone is replayed and differs (the rule, not the fixture, set it aside)."""
    lines = (CASE / "session.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    session = tmp_path / "second.jsonl"
    session.write_text("".join(lines[2:]), encoding="utf-8")
    shutil.copytree(CASE / "repo", tmp_path / "repo")
    read = _read(_replay(session, tmp_path / "repo"))
    assert (read["calls"], read["replayed"], read["within_1pct"]) == (1, 1, 0)


def _call(tool: str, args: dict, output: str = "", is_error: bool = False) -> ToolCall:
    return ToolCall(source="s.jsonl", line=1, collector="claude-code", session="s", tool=tool, output=output,
                    call_id="c", args=json.dumps(args), is_error=is_error)


def test_a_write_makes_the_file_known_again_an_edit_does_not(tmp_path):
    (tmp_path / "a.py").write_text("one\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("one\n", encoding="utf-8")
    state = SessionState(tmp_path, "/proj")
    for name in ("a.py", "b.py", "gone.py"):
        state.differs([f"/proj/{name}"], _call("Read", {"file_path": f"/proj/{name}"}, "1\tsomething"))
    state.differs(["/proj"], _call("Grep", {"pattern": "x", "path": "/proj"}, "a.py"))  # a folder: left alone
    assert state.doubt(["/proj/gone.py"]) is None  # a file replay lacks: the session's edits or diffs may make it
    assert state.doubt(["/proj/other.py"]) is None and state.doubt(["/proj"]) is None  # by name only
    state.record(_call("Write", {"file_path": "/proj/a.py", "content": "two\n"}))
    state.record(_call("Edit", {"file_path": "/proj/b.py", "old_string": "one", "new_string": "two"}))
    assert state.doubt(["/proj/a.py"]) is None
    assert "an earlier Read of it" in (state.doubt(["/proj/b.py"]) or "")


def test_a_command_reading_several_files_marks_none(tmp_path):
    """`sed -n 1,80p a.py; sed -n 1,80p b.py` differing says one of them is not as replay holds it, not which."""
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("one\n", encoding="utf-8")
    state = SessionState(tmp_path, "/proj")
    state.differs(["/proj/a.py", "/proj/b.py"], _call("Bash", {"command": "sed -n 1,80p a.py; sed -n 1,80p b.py"}))
    assert state.doubt(["/proj/a.py"]) is None and state.doubt(["/proj/b.py"]) is None
    state.differs(["/proj/a.py"], _call("Bash", {"command": "sed -n 1,80p a.py"}))
    assert "an earlier `sed -n 1,80p a.py` of it" in (state.doubt(["/proj/a.py"]) or "")
