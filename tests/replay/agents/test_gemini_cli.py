"""Gemini CLI's read-only tools emulated: each format per release, errors as the model got them, and byte
identity with a real session's read_file (tests/fixtures/agents/gemini-cli)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolaudit.collectors.gemini_cli import GeminiCLICollector
from toolaudit.model import ToolCall
from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.agents.gemini_cli.text import icu_key
from toolaudit.replay.base import Outcome, Sandbox

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "gemini-cli"
SHOWN = "/home/dev/proj"  # the working folder the agent saw
NOW = 1_780_000_000  # the glob's clock in these tests (seconds)

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def run(root: Path, tool: str, args: dict, version: str | None = None, **params: str) -> Outcome:
    """One recorded call of `tool`, answered by its emulation in `root` (seen by the agent as SHOWN)."""
    call = Call(tool=tool, args=args, root=root, cwd=SHOWN, version=version, sandbox=Sandbox(root), params=params)
    return EMULATIONS[("gemini-cli", tool)]().run(call)


def out(root: Path, tool: str, args: dict, version: str | None = None, **params: str) -> str:
    got = run(root, tool, args, version, **params)
    assert got.status == "replayed", got.reason
    return got.output


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A git repository: sources, a .gitignore'd log, a node_modules folder, a file outside it."""
    root = tmp_path / "proj"
    (root / "src" / "deep").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\n")
    (root / "debug.log").write_text("log foo\n")
    (root / "src" / "main.py").write_text("import os\n\ndef foo():\n    return 1\n")
    (root / "src" / "deep" / "util.py").write_text("  foo = 2  \n")
    (root / "node_modules" / "dep" / "index.js").write_text("foo\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    return root


# ------------------------------------------------------------------ read_file

def test_read_file_is_byte_identical_to_a_real_session(tmp_path):
    doc = json.loads((FIXTURES / "read-file-session.json").read_text())
    [recorded] = [r for r in GeminiCLICollector().collect(FIXTURES / "read-file-session.json", doc)
                  if isinstance(r, ToolCall)]
    (tmp_path / "test-gemini.txt").write_text(recorded.output)
    got = run(tmp_path, "read_file", json.loads(recorded.args))
    assert (got.output, got.is_error) == (recorded.output, recorded.is_error)


def test_read_file_ranges_print_the_truncation_notice_of_their_release(ws):
    (ws / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 238)))  # 238 lines with the last, empty
    new = out(ws, "read_file", {"file_path": "big.txt", "start_line": 101, "end_line": 120})
    assert new == ("\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 101-120 of 238 total lines.\n"
                   "Action: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a "
                   "subsequent 'read_file' call. For example, to read the next section of the file, use start_line: "
                   "121.\n\n--- FILE CONTENT (truncated) ---\n" + "\n".join(f"line {n}" for n in range(101, 121)))
    old = out(ws, "read_file", {"file_path": "big.txt", "offset": 100, "limit": 20}, version="0.20.0")
    assert old.startswith("\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 101-120 of 238 "
                          "total lines.\nAction: To read more of the file, you can use the 'offset' and 'limit' "
                          "parameters in a subsequent 'read_file' call. For example, to read the next section of the "
                          "file, use offset: 120.\n\n--- FILE CONTENT (truncated) ---\nline 101\n")
    assert out(ws, "read_file", {"file_path": "big.txt", "offset": 0, "limit": 5}, version="0.20.0").count(
        "use offset: 5.") == 1  # no offset: the next one is the last line shown


def test_read_file_caps_lines_and_their_length(ws):
    (ws / "long.txt").write_text("x" * 2005 + "\n" + "".join(f"{n}\n" for n in range(2, 2501)))
    text = out(ws, "read_file", {"file_path": "long.txt"})
    assert "Status: Showing lines 1-2000 of 2501 total lines." in text and "use start_line: 2001." in text
    assert text.split("--- FILE CONTENT (truncated) ---\n")[1].startswith("x" * 2000 + "... [truncated]\n2\n")
    assert text.endswith("\n2000")


def test_read_file_whole_file_crlf_per_release(ws):
    (ws / "w.txt").write_bytes(b"\xef\xbb\xbfa\r\nb\n")
    assert out(ws, "read_file", {"file_path": "w.txt"}) == "a\nb\n"  # BOM dropped, CRLF split (0.34+)
    assert out(ws, "read_file", {"file_path": "w.txt"}, version="0.33.0") == "a\r\nb\n"


def test_read_file_errors_are_what_the_model_got(ws):
    assert out(ws, "read_file", {"file_path": "nope.txt"}) == f'{{"error":"File not found: {SHOWN}/nope.txt"}}'
    assert run(ws, "read_file", {"file_path": "src"}).output == \
        f'{{"error":"Path is a directory, not a file: {SHOWN}/src"}}'
    ignored = run(ws, "read_file", {"file_path": f"{SHOWN}/debug.log"})
    assert ignored.is_error and ignored.output == \
        f'{{"error":"File path \'{SHOWN}/debug.log\' is ignored by configured ignore patterns."}}'
    assert out(ws, "read_file", {"file_path": "debug.log"}, git="false") == "log foo\n"  # not a repository
    assert out(ws, "read_file", {"absolute_path": "src/main.py"}, version="0.11.0") == \
        '{"error":"File path must be absolute, but was relative: src/main.py. You must provide an absolute path."}'
    assert out(ws, "read_file", {"file_path": "big.txt", "start_line": 5, "end_line": 2}) == \
        '{"error":"start_line cannot be greater than end_line"}'


def test_read_file_outside_the_folder_is_refused(ws):
    for path in ("../secret.txt", "/etc/passwd", f"{SHOWN}/../secret.txt"):
        got = run(ws, "read_file", {"file_path": path})
        assert got.status == "refused" and got.output == ""


def test_read_file_images_and_binaries(ws):
    (ws / "dot.png").write_bytes(PNG)
    (ws / "blob.dat").write_bytes(b"\0\1\2")
    new = run(ws, "read_file", {"file_path": "dot.png"})
    assert (new.output, new.images) == ("Binary content provided (1 item(s)).", 1)
    old = run(ws, "read_file", {"file_path": "dot.png"}, version="0.20.0")
    assert (old.output, old.images) == ("Binary content of type image/png was processed.", 1)
    assert out(ws, "read_file", {"file_path": "blob.dat"}) == "Cannot display content of binary file: blob.dat"


# ------------------------------------------------------------------ list_directory

def test_list_directory_formats_per_release(ws):
    listing = out(ws, "list_directory", {"dir_path": "."})
    assert listing == (f"Directory listing for {SHOWN}:\n[DIR] node_modules\n[DIR] src\n.gitignore (6 bytes)\n\n"
                       "(2 ignored)")  # .git and the .gitignore'd debug.log
    assert out(ws, "list_directory", {"dir_path": "src"}, version="0.30.0") == \
        f"Directory listing for {SHOWN}/src:\n[DIR] deep\nmain.py"
    assert out(ws, "list_directory", {"path": f"{SHOWN}/src/"}, version="0.11.0") == \
        f"Directory listing for {SHOWN}/src/:\n[DIR] deep\nmain.py"
    assert out(ws, "list_directory", {"path": SHOWN}, version="0.11.0").endswith("(2 git-ignored)")
    assert out(ws, "list_directory", {"path": "src"}, version="0.11.0") == '{"error":"Path must be absolute: src"}'


def test_list_directory_sorts_as_localecompare(ws):
    names = ["b.txt", "A.txt", "a.txt", "_x", "Z", "10.txt", "9.txt", "a-b", "ab", "é", "E", "e"]
    (ws / "names").mkdir()
    for name in names:
        (ws / "names" / name).write_text("")
    listing = out(ws, "list_directory", {"dir_path": "names"}, version="0.30.0").split("\n")[1:]
    # as node's "".localeCompare orders them: punctuation, digits, letters; accents, then case, break ties
    assert listing == ["_x", "10.txt", "9.txt", "a-b", "a.txt", "A.txt", "ab", "b.txt", "e", "E", "é", "Z"]
    assert sorted(names, key=icu_key) == listing


def test_list_directory_errors(ws):
    assert out(ws, "list_directory", {"dir_path": "src/main.py"}) == \
        f'{{"error":"Error: Path is not a directory: {SHOWN}/src/main.py"}}'
    assert out(ws, "list_directory", {"dir_path": "gone"}) == \
        f'{{"error":"Error listing directory: ENOENT: no such file or directory, stat \'{SHOWN}/gone\'"}}'
    (ws / "empty").mkdir()
    assert out(ws, "list_directory", {"dir_path": "empty"}) == f"Directory {SHOWN}/empty is empty."


# ------------------------------------------------------------------ glob

def test_glob_puts_recent_files_first_then_paths_in_order(ws):
    for name, age in (("src/b.py", 100), ("src/a.py", 50), ("src/z_old.py", 3 * 86400), ("src/C_old.py", 2 * 86400)):
        (ws / name).write_text("")
        os.utime(ws / name, (NOW - age, NOW - age))
    for name in ("src/main.py", "src/deep/util.py"):
        os.utime(ws / name, (NOW - 9 * 86400, NOW - 9 * 86400))
    text = out(ws, "glob", {"pattern": "src/**/*.PY"}, now=str(NOW))
    assert text == (f'Found 6 file(s) matching "src/**/*.PY" within {SHOWN}, sorted by modification time (newest '
                    f"first):\n{SHOWN}/src/a.py\n{SHOWN}/src/b.py\n{SHOWN}/src/C_old.py\n{SHOWN}/src/deep/util.py\n"
                    f"{SHOWN}/src/main.py\n{SHOWN}/src/z_old.py")


def test_glob_takes_its_clock_from_when_the_call_was_recorded(ws):
    """Without ?now=, the 24-hour cut is measured from the call's recorded time, not from today."""
    for name, age in (("src/a.py", 100), ("src/b.py", 50), ("src/main.py", 9 * 86400), ("src/deep/util.py", 9 * 86400)):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).touch()
        os.utime(ws / name, (NOW - age, NOW - age))
    when = datetime.fromtimestamp(NOW, timezone.utc).isoformat().replace("+00:00", "Z")
    call = Call(tool="glob", args={"pattern": "src/**/*.py"}, root=ws, cwd=SHOWN, version=None,
                sandbox=Sandbox(ws), ts=when)
    listed = EMULATIONS[("gemini-cli", "glob")]().run(call).output.split("\n")[1:]
    assert listed == [f"{SHOWN}/src/{n}" for n in ("b.py", "a.py", "deep/util.py", "main.py")]  # a day: newest first
    today = out(ws, "glob", {"pattern": "src/**/*.py"}).split("\n")[1:]
    assert today == [f"{SHOWN}/src/{n}" for n in ("a.py", "b.py", "deep/util.py", "main.py")]  # all old: by path


def test_glob_drops_symlinks_from_0_51(ws):
    (ws / "src" / "link.py").symlink_to(ws / "src" / "main.py")
    assert f"{SHOWN}/src/link.py" in out(ws, "glob", {"pattern": "src/*.py"}, version="0.50.0")
    assert f"{SHOWN}/src/link.py" not in out(ws, "glob", {"pattern": "src/*.py"})  # b5fc06ee33: matched by real path


def test_glob_counts_ignored_files_and_skips_dependencies(ws):
    assert out(ws, "glob", {"pattern": "**/*.{log,js}"}) == \
        f'No files found matching pattern "**/*.{{log,js}}" within {SHOWN} (1 files were ignored)'
    text = out(ws, "glob", {"pattern": "*", "dir_path": "src"}, now=str(NOW))
    assert text.startswith(f'Found 1 file(s) matching "*" within {SHOWN}/src, sorted')
    assert out(ws, "glob", {"pattern": "x", "dir_path": "gone"}) == f'{{"error":"Search path does not exist {SHOWN}/gone"}}'


# ------------------------------------------------------------------ search_file_content / grep_search

def test_grep_groups_matches_by_file_per_release(ws):
    old = out(ws, "search_file_content", {"pattern": "foo"}, version="0.20.0")
    assert old == ('Found 2 matches for pattern "foo" in path ".":\n---\nFile: src/deep/util.py\nL1: foo = 2\n---\n'
                   "File: src/main.py\nL3: def foo():\n---")
    new = out(ws, "grep_search", {"pattern": "foo", "dir_path": "src"})  # 2 matches: 15 lines of context
    assert new == ('Found 2 matches for pattern "foo" in path "src":\n---\nFile: deep/util.py\nL1:   foo = 2\n---\n'
                   "File: main.py\nL1- import os\nL2- \nL3: def foo():\nL4-     return 1\n---")
    assert out(ws, "search_file_content", {"pattern": "foo", "dir_path": "src"}, version="0.30.0") == \
        'Found 2 matches for pattern "foo" in path "src":\n---\nFile: deep/util.py\nL1:   foo = 2\n---\n' \
        "File: main.py\nL3: def foo():\n---"


def test_grep_names_only_filters_and_misses(ws):
    assert out(ws, "grep_search", {"pattern": "o", "names_only": True}) == \
        'Found 2 files with matches for pattern "o" in path ".":\nsrc/deep/util.py\nsrc/main.py'
    assert out(ws, "grep_search", {"pattern": "nothing", "include_pattern": "*.py"}) == \
        'No matches found for pattern "nothing" in path "." (filter: "*.py").'
    assert out(ws, "grep_search", {"pattern": "FOO", "case_sensitive": True}).startswith("No matches found")
    assert out(ws, "grep_search", {"pattern": "x", "dir_path": "gone"}) == \
        f'{{"error":"Path does not exist: {SHOWN}/gone"}}'


def test_grep_caps_matches(ws):
    (ws / "many.txt").write_text("hit\n" * 150)
    text = out(ws, "grep_search", {"pattern": "hit"})
    assert text.startswith('Found 100 matches for pattern "hit" in path "." (results limited to 100 matches for '
                           "performance):\n---\nFile: many.txt\nL1: hit\n")
    assert text.endswith("L100: hit\n---")


# ------------------------------------------------------------------ read_many_files

def test_read_many_files_concatenates_with_separators(ws):
    (ws / "dot.png").write_bytes(PNG)
    text = out(ws, "read_many_files", {"include": ["src/**/*.py", "*.log", "*.png"]})
    assert text == (f"--- {SHOWN}/src/deep/util.py ---\n\n  foo = 2  \n\n\n\n--- {SHOWN}/src/main.py ---\n\n"
                    "import os\n\ndef foo():\n    return 1\n\n\n\n\n--- End of content ---")
    old = out(ws, "read_many_files", {"paths": ["src/main.py"]}, version="0.12.0")
    assert old == f"Tool execution succeeded.\n--- {SHOWN}/src/main.py ---\n\nimport os\n\ndef foo():\n    return 1\n" \
                  "\n\n\n\n--- End of content ---"
    assert out(ws, "read_many_files", {"include": ["*.md"]}) == \
        "No files matching the criteria were found or all were skipped."


def test_every_gemini_emulation_says_what_it_reproduces():
    tools = {tool for agent, tool in EMULATIONS if agent == "gemini-cli"}
    assert tools == {"read_file", "read_many_files", "glob", "search_file_content", "grep_search", "list_directory"}
    for tool in tools:
        cls = EMULATIONS[("gemini-cli", tool)]
        assert cls.versions and "version" in cls.params and cls.__doc__
