"""A session started in a folder above the repository reads the repository's files from where it sat.

Fixture: tests/fixtures/replay-nested-repo (tomochang/aidev, MIT: two Reads of a Claude Code 2.1.58 session whose
working folder `/Users/tomo/clawd` holds the repository at `projects/odysseus/aidev`; README.md there)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import committed_repo

import toolaudit
from toolaudit.model import ToolCall
from toolaudit.replay.nested_repo import folder

FIXTURE = Path(__file__).parent.parent / "fixtures" / "replay-nested-repo"


def _within(tmp_path: Path, files: Path) -> tuple[int, int, list[str]]:
    repo = tmp_path / "repo"
    shutil.copytree(files, repo)
    committed_repo(repo)
    result = toolaudit.replay([str(FIXTURE / "session.jsonl")], workspace=str(repo), identity=True)
    row = next(row for row in result.identity.tools if row.tool == "Read")
    return row.within_1pct, row.replayed, list(result.notes)


def test_the_reads_below_the_working_folder_are_read_from_the_repository(tmp_path):
    within, replayed, notes = _within(tmp_path, FIXTURE / "repo")
    assert (within, replayed) == (2, 2)  # before the rule: 0 of 2 (`File does not exist`)
    assert any("above the repository" in note and "/Users/tomo/clawd/projects/odysseus/aidev" in note
               for note in notes)


def test_a_repository_at_the_working_folder_stays_there(tmp_path):
    # the same files one level up: projects/ is in the repository, so it sits where the session started
    nested = tmp_path / "nested" / "projects" / "odysseus" / "aidev"
    shutil.copytree(FIXTURE / "repo", nested)
    calls = [_read("/Users/tomo/clawd/projects/odysseus/aidev/src/config/merge-config.ts"),
             _read("/Users/tomo/clawd/projects/odysseus/aidev/src/config/issue-config.ts")]
    assert folder(calls, "/Users/tomo/clawd", tmp_path / "nested") is None
    assert folder(calls, "/Users/tomo/clawd", FIXTURE / "repo") == "/Users/tomo/clawd/projects/odysseus/aidev"


def test_one_path_or_a_minority_decides_nothing(tmp_path):
    one = [_read("/Users/tomo/clawd/projects/odysseus/aidev/src/config/merge-config.ts")]
    assert folder(one, "/Users/tomo/clawd", FIXTURE / "repo") is None
    below = "/Users/tomo/clawd/projects/odysseus/aidev/"
    others = one + [_read(below + "src/config/issue-config.ts"), _read(below + "notes/a.md"),
                    _read(below + "notes/b.md"), _read(below + "notes/c.md")]
    assert folder(others, "/Users/tomo/clawd", FIXTURE / "repo") is None  # 2 of the 5 below it: not most


def test_paths_beside_the_repository_do_not_count_against_it():
    # ikihin/bhavana's 2.1.177 session, started in the home folder: 7 Reads of ~/.claude/skills (Claude Code's
    # own), 7 of the repository at ~/bhavana (here 2 and 3 of them, the fixture's files)
    skills = [_read(f"/home/u/.claude/skills/s{n}/references/r.md") for n in range(3)]
    repo = [_read("/home/u/aidev/src/config/merge-config.ts"), _read("/home/u/aidev/src/config/issue-config.ts")]
    assert folder(skills + repo, "/home/u", FIXTURE / "repo") == "/home/u/aidev"  # before: None (2 of 5)


def test_files_a_write_names_decide_nothing():
    # the same session wrote 28 new files in ~/bhavana: none is in the start commit
    repo = [_read("/home/u/aidev/src/config/merge-config.ts"), _read("/home/u/aidev/src/config/issue-config.ts")]
    new = [_read(f"/home/u/aidev/src/new{n}.ts", tool="Write") for n in range(4)]
    assert folder(repo + new, "/home/u", FIXTURE / "repo") == "/home/u/aidev"  # before: None (2 of 6)
    assert folder([_read(path, tool="Read") for path in ("/home/u/aidev/src/new0.ts", "/home/u/aidev/src/new1.ts",
                                                         "/home/u/aidev/src/new2.ts")] + repo,
                  "/home/u", FIXTURE / "repo") is None  # read, they count: 2 of 5


def test_windows_paths(tmp_path):
    calls = [_read("D:\\work\\apps\\aidev\\src\\config\\merge-config.ts"),
             _read("D:\\work\\apps\\aidev\\src\\config\\issue-config.ts")]
    assert folder(calls, "D:\\work", FIXTURE / "repo") == "D:\\work\\apps\\aidev"


def _read(path: str, tool: str = "Read") -> ToolCall:
    return ToolCall(source="s.jsonl", line=1, collector="claude-code", session="s", tool=tool,
                    args=json.dumps({"file_path": path}), output="")
