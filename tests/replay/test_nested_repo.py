"""A session started in a folder above the repository reads the repository's files from where it sat.

Fixture: tests/fixtures/replay-nested-repo (tomochang/aidev, MIT: two Reads of a Claude Code 2.1.58 session whose
working folder `/Users/tomo/clawd` holds the repository at `projects/odysseus/aidev`; README.md there)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from conftest import committed_repo, run_git
from test_reasons import claude_session

import toolaudit
from toolaudit.cli import cli
from toolaudit.model import ToolCall
from toolaudit.replay.nested_repo import folder, place

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


# helper-49's review of the rule above (5556df4): each failed at 5556df4, and all but the second passed before it


def _home_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel in ("package.json", "README.md", "tsconfig.json", "src/a.ts", "src/b.ts", "src/c.ts"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    return root


def test_a_tie_places_nothing(tmp_path):
    calls = [_read("/home/u/app/package.json"), _read("/home/u/app/README.md"),
             _read("/home/u/proj/src/a.ts"), _read("/home/u/proj/src/b.ts")]
    assert folder(calls, "/home/u", _home_repo(tmp_path)) is None  # at 5556df4: /home/u/app, by name


def test_every_folder_voted_for_is_tried(tmp_path):
    other = [_read(f"/home/u/web/{name}") for name in ("package.json", "README.md", "tsconfig.json", "main.go",
                                                       "go.mod", "cmd/x.go")]
    proj = [_read("/home/u/proj/src/a.ts"), _read("/home/u/proj/src/b.ts")]
    assert folder(other + proj, "/home/u", _home_repo(tmp_path)) == "/home/u/proj"  # web (3 of 6) fails alone


def test_files_read_then_rewritten_still_place_the_repository(tmp_path):
    # Claude Code's Write refuses an existing file not read first: a rewrite is a Read and a Write of one path
    calls = [call for name in "abc" for call in (_read(f"/home/u/proj/src/{name}.ts"),
                                                  _read(f"/home/u/proj/src/{name}.ts", tool="Write"))]
    assert folder(calls, "/home/u", _home_repo(tmp_path)) == "/home/u/proj"


def test_a_written_path_the_checkout_holds_keeps_the_session_where_it_started(tmp_path):
    # at the repository root: it wrote src/new.ts (src/ is the repository's) and read copies it made (cp -r src web/)
    calls = [_read("/r/src/new.ts", tool="Write"), _read("/r/web/src/a.ts"), _read("/r/web/src/b.ts")]
    assert folder(calls, "/r", _home_repo(tmp_path)) is None
    # a dotfiles repository at the home folder: ~/.zshrc read and rewritten, another project's files read
    dotfiles = tmp_path / "dotfiles"
    for rel in (".zshrc", "README.md", ".gitignore"):
        (dotfiles / rel).parent.mkdir(parents=True, exist_ok=True)
        (dotfiles / rel).write_text("x\n")
    calls = [_read("/home/u/.zshrc"), _read("/home/u/.zshrc", tool="Write"), _read("/home/u/work/app/README.md"),
             _read("/home/u/work/app/.gitignore")]
    assert folder(calls, "/home/u", dotfiles) is None


# kv-248/TeacherEvaluation's Codex 0.115 sessions ran in /workspace above the repository (no licence: the shapes of
# their paths here, not their text). Each assertion failed before the rule, which left the session at /workspace.


def _teacher_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    committed_repo(root, {".gitignore": "evaluation/local_data/\n", "artifacts/run_1/summary.md": "x\n",
                          "evaluation/a.py": "x\n", "evaluation/b.py": "x\n", "nonverbal_eval/c.py": "x\n"})
    return root


def test_a_first_folder_alone_is_outvoted(tmp_path):
    # a run's output beside the repository, whose own artifacts/ holds other runs
    root = _teacher_repo(tmp_path)
    beside = [_read("/workspace/artifacts/run_9/summary.md")]
    inside = [_read(f"/workspace/TeacherEvaluation/{rel}") for rel in ("evaluation/a.py", "evaluation/b.py",
                                                                       "nonverbal_eval/c.py")]
    assert folder(beside + inside, "/workspace", root) == "/workspace/TeacherEvaluation"
    more = [_read(f"/workspace/artifacts/run_9/{name}.md") for name in ("a", "b", "c")]
    assert folder(more + inside, "/workspace", root) is None  # 3 paths for each: no more below than at the top
    held = [_read("/workspace/artifacts/run_1/summary.md")]  # a path the repository holds: it is where it began
    assert folder(held + inside, "/workspace", root) is None


def test_ignored_files_and_later_commits_place_the_repository(tmp_path):
    root = _teacher_repo(tmp_path)
    since = 1.0  # the session began before every commit here (Unix seconds)
    committed_repo(root, {"evaluation/report.md": "later\n"}, message="later")  # written after the session began
    run_git(root, "checkout", "-q", "HEAD~1")
    top = "/workspace/TeacherEvaluation/evaluation/"
    calls = [_read(top + "a.py"), _read(top + "report.md")] + [
        _read(f"{top}local_data/batch_{n}.csv") for n in range(3)]  # git ignores these: no commit holds them
    assert folder(calls, "/workspace", root) is None  # 1 of 5 in the checkout
    assert folder(calls, "/workspace", root, since) == "/workspace/TeacherEvaluation"  # 2 of the 2 not ignored
    assert folder(calls + [_read(top + "new.md"), _read(top + "new2.md")], "/workspace", root, since) is None  # 2 of 4
    # the later file where the session began: the repository is there
    at_top = [_read("/workspace/evaluation/report.md"), _read("/workspace/x/evaluation/a.py"),
              _read("/workspace/x/evaluation/b.py")]
    assert folder(at_top, "/workspace", root, since) is None


# anmol0b/Trezo-Ai's committed Codex 0.120 session ran in its user's home folder and read 14 paths of another project
# (`~/Documents/New project`, a Solana program): 18 of its 19 calls replayed missed against `No such file`


def test_a_session_whose_paths_the_repository_lacks_worked_elsewhere(tmp_path):
    root = _home_repo(tmp_path)
    other = [_read(f"/Users/u/Documents/New project/{rel}") for rel in ("README.md", "Cargo.toml", "programs/x/lib.rs")]
    placed = place(other, "/Users/u", root)
    assert placed.below is None and "none of the 3 paths" in placed.nowhere and "/Users/u" in placed.nowhere
    assert not place(other[:2], "/Users/u", root).nowhere  # two paths say too little
    assert not place(other + [_read("/Users/u/src/new.ts")], "/Users/u", root).nowhere  # src/ is the repository's


def test_its_reads_are_set_aside_with_the_reason(tmp_path):
    root = _home_repo(tmp_path)
    committed_repo(root)
    text = "     1→[package]\n     2→name = \"cfo_oracle\"\n     3→version = \"0.1.0\"\n"
    reads = [("Read", {"file_path": f"/Users/u/Documents/New project/{rel}"}, text, False)
             for rel in ("README.md", "Cargo.toml", "programs/x/lib.rs")]
    session = claude_session(tmp_path / "s.jsonl", "/Users/u", reads)
    result = toolaudit.replay([str(session)], workspace=str(root), identity=True)
    row = next(row for row in result.identity.tools if row.tool == "Read")
    assert row.replayed == 0  # before: 3 replayed, 0 within ±1% (`File does not exist`)
    assert any("it worked in another folder" in note for note in result.notes)
    out = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(root), "--identity"],
                             env={"COLUMNS": "400"}).output
    verdict = next(line for line in out.splitlines() if line.startswith("verdict:"))
    assert "it worked in another folder — replay it with the repository it worked in as --workspace" in verdict


def test_not_where_an_earlier_session_made_the_files_it_read(tmp_path):
    # ujuc/agent-stuff's Claude Code 2.1.41 sessions read 18 files an earlier session on their commit had written
    root = _home_repo(tmp_path)
    committed_repo(root)
    text = "     1→# notes\n     2→more\n"
    names = ("notes/a.md", "notes/b.md", "plans/c.md")
    writes = [("Write", {"file_path": f"/Users/u/app/{rel}", "content": "# notes\nmore\n"},
               f"File created successfully at: /Users/u/app/{rel}", False) for rel in names]
    first = claude_session(tmp_path / "a.jsonl", "/Users/u/app", writes)
    # after the commit (written now): a session begun before it is no session on it
    first.write_text(first.read_text().replace("2026-01-01T", "2099-01-01T"))
    reads = [("Read", {"file_path": f"/Users/u/app/{rel}"}, text, False) for rel in names]
    later = claude_session(tmp_path / "b.jsonl", "/Users/u/app", reads)
    text_b = later.read_text().replace('"s1"', '"s2"').replace("2026-01-01T00:00:0", "2099-01-01T01:00:0")
    for key in ('"uuid": "', '"id": "', '"tool_use_id": "'):  # its own ids: not the first session's again
        text_b = text_b.replace(key, key + "b")
    later.write_text(text_b)
    alone = toolaudit.replay([str(later)], workspace=str(root), identity=True, at_session_start=True)
    assert any("it worked in another folder" in note for note in alone.notes)
    both = toolaudit.replay([str(first), str(later)], workspace=str(root), identity=True, at_session_start=True)
    assert not any("it worked in another folder" in note for note in both.notes)  # before: said, and 3 set aside
    row = next(row for row in both.identity.tools if row.tool == "Read")
    assert row.replayed == 3  # compared with the files the first session wrote
