"""Claude Code's Read, Grep and Glob as each version printed them (2.0.64 - 2.1.332), Windows paths, and caps as ceilings.

The expected texts are the format strings of the tools' code in the published npm packages (`cli.js`, and the
`@anthropic-ai/claude-code-linux-x64` binary's embedded JavaScript from 2.1.113 on), quoted in
toolaudit/replay/agents/claude_code/versions.py and docs/replay.md ("Versions").
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.agents.claude_code import common, versions
from toolaudit.replay.base import FAILED, REPLAYED, Sandbox

CWD = "/Users/dev/cli"
WIN = "D:\\repo"
REMINDER = common.MALWARE_REMINDER
T0 = 1_700_000_000


def run(tool: str, root: Path, args: dict, at: str, cwd: str = CWD, model: str | None = None, **params: str):
    call = Call(tool=tool, args=args, root=root, cwd=cwd, version=at, sandbox=Sandbox(workspace=root, timeout=60),
                params=params, session="s", call_id="toolu_x", model=model, main_model=model)
    return EMULATIONS[("claude-code", tool)]().run(call)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "r" / "src").mkdir(parents=True)
    (tmp_path / "r" / "src" / "x.py").write_text("a = 1\nb = 2\n", encoding="utf-8")
    return tmp_path / "r"


@pytest.mark.parametrize(("at", "model", "expected"), [
    ("2.1.42", "claude-sonnet-4-5", "     1→a = 1\n     2→b = 2\n     3→" + REMINDER),
    ("2.1.42", "claude-opus-4-6", "     1→a = 1\n     2→b = 2\n     3→"),  # 2.1.39 on: none for Opus 4.6
    ("2.1.85", "claude-sonnet-4-5", "     1→a = 1\n     2→b = 2\n     3→" + REMINDER),
    ("2.1.86", "claude-sonnet-4-5", "1\ta = 1\n2\tb = 2\n3\t" + REMINDER),  # `N\t` prefixes from 2.1.86
    ("2.1.91", "claude-sonnet-4-6", "1\ta = 1\n2\tb = 2\n3\t" + REMINDER),  # the list of models left out
    ("2.1.92", "claude-sonnet-4-6", "1\ta = 1\n2\tb = 2\n3\t"),  # 2.1.92 on: only older models get it
    ("2.1.121", "claude-haiku-4-5", "1\ta = 1\n2\tb = 2\n3\t" + REMINDER),
    ("2.1.121", "claude-opus-4-7", "1\ta = 1\n2\tb = 2\n3\t"),
    ("2.1.124", "claude-haiku-4-5", "1\ta = 1\n2\tb = 2\n3\t" + REMINDER),
    ("2.1.126", "claude-haiku-4-5", "1\ta = 1\n2\tb = 2\n3\t"),  # no malware reminder at all
])
def test_read_numbering_and_reminder_by_version(root: Path, at: str, model: str, expected: str) -> None:
    assert run("Read", root, {"file_path": f"{CWD}/src/x.py"}, at, model=model).output == expected


def test_a_version_newer_than_any_read_replays_as_the_newest(root: Path) -> None:
    out = run("Read", root, {"file_path": f"{CWD}/src/x.py"}, "2.3.0", model="claude-opus-4-7")
    assert out.status == REPLAYED and out.output == "1\ta = 1\n2\tb = 2\n3\t"
    assert EMULATIONS[("claude-code", "Read")].newest == versions.NEWEST


def test_a_missing_file_names_the_working_folder_from_2_1_48(root: Path) -> None:
    args = {"file_path": f"{CWD}/src/nope.py"}
    assert run("Read", root, args, "2.1.47").output == "File does not exist."
    assert run("Read", root, args, "2.1.121").output == \
        f"File does not exist. Note: your current working directory is {CWD}."


def test_an_unchanged_re_read_is_the_stub_the_recording_shows(root: Path) -> None:
    stub = versions.UNCHANGED_STUBS[0]
    read = EMULATIONS[("claude-code", "Read")]()
    call = Call("Read", {"file_path": f"{CWD}/src/x.py"}, root, CWD, "2.1.121", Sandbox(workspace=root))
    assert read.from_recording(stub, call) == {"unchanged": stub}
    assert run("Read", root, call.args, "2.1.121", unchanged=stub).output == stub
    assert run("Read", root, call.args, "2.1.85", unchanged=stub, model="claude-opus-4-6").output.startswith("     1→")


def test_windows_paths_map_onto_the_workspace(root: Path) -> None:
    for path in (f"{WIN}\\src\\x.py", "D:/repo/src/x.py", "d:\\repo\\src\\x.py", "src\\x.py"):
        out = run("Read", root, {"file_path": path}, "2.1.210", cwd=WIN, model="claude-opus-4-7")
        assert out.output == "1\ta = 1\n2\tb = 2\n3\t", path
    os.utime(root / "src" / "x.py", (T0, T0))
    assert run("Glob", root, {"pattern": "**/*.py"}, "2.1.210", cwd=WIN).output == "src\\x.py"  # relative: 2.1.84
    assert run("Grep", root, {"pattern": "b = "}, "2.1.210", cwd=WIN).output == "Found 1 file\nsrc\\x.py"


def test_glob_prints_paths_relative_to_the_working_folder_from_2_1_84(root: Path) -> None:
    # 2.1.84's cli.js maps Glob's files through the function Grep's paths go through (relative unless `..`);
    # recorded: entireio/git-sync 2.1.91 `cmd/git-sync/*.go` -> `cmd/git-sync/main.go`
    (root / "lib").mkdir()
    (root / "lib" / "y.py").write_text("", encoding="utf-8")
    os.utime(root / "src" / "x.py", (T0, T0))
    assert run("Glob", root, {"pattern": "**/*.py"}, "2.1.83").output == f"{CWD}/src/x.py\n{CWD}/lib/y.py"
    assert run("Glob", root, {"pattern": "**/*.py"}, "2.1.84").output == "src/x.py\nlib/y.py"
    assert run("Glob", root, {"pattern": "*.py", "path": f"{CWD}/lib"}, "2.1.91").output == "lib/y.py"


def test_grep_default_head_limit_and_pagination_only_when_cut_from_2_1_84(root: Path) -> None:
    (root / "many.txt").write_text("".join(f"hit {i}\n" for i in range(300)), encoding="utf-8")
    content = {"pattern": "hit", "output_mode": "content", "path": f"{CWD}/many.txt"}
    old = run("Grep", root, content, "2.1.83").output
    assert old.count("\n") == 299 and "pagination" not in old
    new = run("Grep", root, content, "2.1.84").output
    assert new.endswith("hit 249\n\n[Showing results with pagination = limit: 250]")
    small = run("Grep", root, {**content, "head_limit": 400}, "2.1.84").output
    assert "pagination" not in small  # a limit that cut nothing is not noted
    assert run("Grep", root, {**content, "head_limit": 0}, "2.1.84").output.count("\n") == 299  # 0: unlimited


def test_a_read_limit_is_a_ceiling_never_raising_the_models_own(root: Path) -> None:
    (root / "long.txt").write_text("".join(f"{i}\n" for i in range(1, 31)), encoding="utf-8")
    args = {"file_path": f"{CWD}/long.txt", "limit": 15}
    own = run("Read", root, args, "2.1.42", model="claude-opus-4-6").output
    assert own.count("\n") == 14
    assert run("Read", root, args, "2.1.42", model="claude-opus-4-6", limit="200").output == own
    capped = run("Read", root, args, "2.1.42", model="claude-opus-4-6", limit="5").output
    assert capped.count("\n") == 4


def test_grep_head_limit_is_a_ceiling_that_adds_no_note_to_an_output_it_did_not_cut(root: Path) -> None:
    content = {"pattern": "=", "output_mode": "content"}
    for at in ("2.1.42", "2.1.121"):
        own = run("Grep", root, content, at).output
        assert run("Grep", root, content, at, head_limit="50").output == own  # 2 lines: nothing cut, no note
        assert run("Grep", root, {**content, "head_limit": 1}, at, head_limit="50").output == \
            run("Grep", root, {**content, "head_limit": 1}, at).output  # the model's own 1 stands
    # a cut whose note is longer than what it cut is not taken: a cap never grows an output
    assert run("Grep", root, content, "2.1.42", head_limit="1").output == run("Grep", root, content, "2.1.42").output
    (root / "many.txt").write_text("".join(f"x = {i}\n" for i in range(40)), encoding="utf-8")
    cut = run("Grep", root, {**content, "path": f"{CWD}/many.txt"}, "2.1.42", head_limit="1").output
    assert cut == "1:x = 0\n\n[Showing results with pagination = limit: 1, offset: 0]"


def test_a_cap_must_be_a_whole_number_above_zero(root: Path) -> None:
    out = run("Read", root, {"file_path": f"{CWD}/src/x.py"}, "2.1.42", limit="lots")
    assert out.status == FAILED and "limit" in out.reason


def test_posix_and_windows_forms() -> None:
    assert versions.posix_form("D:\\repo\\x.py") == "/D:/repo/x.py"
    assert versions.posix_form("d:/repo") == "/D:/repo"
    assert versions.posix_form("/home/x") == "/home/x"
    assert versions.windows_form("/D:/repo/x.py") == "D:\\repo\\x.py"
    assert versions.is_windows("C:\\") and not versions.is_windows("/C:/x")


def test_a_windows_sessions_edit_paths_map_onto_the_workspace(tmp_path: Path) -> None:
    from toolaudit.replay.state import SessionState
    from toolaudit.replay.workspace import map_path, mappings

    pairs = mappings(WIN)
    assert map_path("d:\\repo\\src\\x.py", pairs) == "src/x.py" and map_path("D:/repo", pairs) == "."
    (tmp_path / "src").mkdir()
    assert SessionState(tmp_path, WIN).local("D:\\repo\\src\\x.py") == tmp_path / "src" / "x.py"


def test_bash_on_windows_is_not_replayable(root: Path) -> None:
    out = run("Bash", root, {"command": "ls"}, "2.1.210", cwd=WIN)
    assert out.status == "refused" and "Windows" in out.reason


def test_a_blank_window_is_numbered_from_2_1_210(root: Path) -> None:
    (root / "gap.txt").write_text("a\n\nb\n", encoding="utf-8")
    args = {"file_path": f"{CWD}/gap.txt", "offset": 2, "limit": 1}
    assert run("Read", root, args, "2.1.202").output == ("<system-reminder>Warning: the file exists but is shorter "
                                                         "than the provided offset (2). The file has 4 lines."
                                                         "</system-reminder>")
    assert run("Read", root, args, "2.1.219").output == "2\t"


def test_the_already_in_context_stub_is_taken_from_the_recording(root: Path) -> None:
    stub = (versions.SEEDED_STUB + f' (see "Contents of {CWD}/src/x.py" above) and has not changed on disk. Use that '
            "content instead of re-reading.</system-reminder>")
    call = Call("Read", {"file_path": f"{CWD}/src/x.py"}, root, CWD, "2.1.219", Sandbox(workspace=root))
    assert EMULATIONS[("claude-code", "Read")]().from_recording(stub, call) == {"unchanged": stub}
    assert run("Read", root, call.args, "2.1.219", unchanged=stub).output == stub


def test_a_cut_glob_list_says_how_many_it_left_out_from_2_1_200(root: Path) -> None:
    for i in range(3):
        (root / "src" / f"m{i}.py").write_text("", encoding="utf-8")
    old = run("Glob", root, {"pattern": "**/*.py"}, "2.1.150", max_results="2").output.splitlines()
    assert len(old) == 3 and old[-1] == common.TRUNCATED_GLOB
    new = run("Glob", root, {"pattern": "**/*.py"}, "2.1.200", max_results="2").output.splitlines()
    assert new[-1] == ("(Showing 2 of 4 matching files; 2 more are not listed. Narrow the pattern or path to see "
                       "the rest.)")


def test_grep_counts_every_match_and_tells_an_offset_past_the_results_from_2_1_210(root: Path) -> None:
    (root / "src" / "y.py").write_text("a = 3\n", encoding="utf-8")
    count = {"pattern": "a =", "output_mode": "count", "head_limit": 1}
    # order=rg: a cut of the default (path) order is not replayable (the walk's order decided what it kept)
    old = run("Grep", root, count, "2.1.200", order="rg").output
    assert old.endswith("Found 1 total occurrence across 1 file. with pagination = limit: 1")
    new = run("Grep", root, count, "2.1.219", order="rg").output
    assert new.endswith("Found 2 total occurrences across 2 files. with pagination = limit: 1")
    single = {"pattern": "a =", "output_mode": "count", "path": f"{CWD}/src/x.py"}
    assert run("Grep", root, single, "2.1.121").output.startswith("1\n")  # one file: rg -c names none
    assert run("Grep", root, single, "2.1.140").output.startswith("src/x.py:1\n")  # -H
    past = {"pattern": "a =", "output_mode": "content", "offset": 9}
    assert run("Grep", root, past, "2.1.200").output.startswith("No matches found")
    assert run("Grep", root, past, "2.1.219").output == \
        "No entries at this offset\n\n[Showing results with pagination = offset: 9]"
    assert run("Grep", root, {"pattern": "a =", "offset": 9}, "2.1.219").output == \
        "No entries at this offset. [Showing results with pagination = offset: 9]"


def test_grep_only_matching_from_2_1_143_and_string_numbers_from_2_1_80(root: Path) -> None:
    only = {"pattern": "b", "output_mode": "content", "-o": True}
    assert run("Grep", root, only, "2.1.143").output == "src/x.py:2:b"
    assert "InputValidationError" in run("Grep", root, only, "2.1.136").output
    limited = {"pattern": "=", "output_mode": "content", "head_limit": "1"}
    assert "InputValidationError" in run("Grep", root, limited, "2.1.75").output
    assert run("Grep", root, limited, "2.1.80").output.startswith("src/x.py:1:a = 1\n\n[Showing")


def test_a_token_cap_a_recorded_error_names_is_the_sessions(root: Path) -> None:
    """ShamsiievDmytro/entire-bmad, 2.1.81: a 14,572-token file refused at `maximum allowed tokens (10000)`, not
    the 25,000 default: CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS (or a remote flag) set it, which no transcript
    records. Identity takes the cap from the recorded error."""
    (root / "src" / "big.md").write_text("alpha beta gamma delta epsilon\n" * 2500, encoding="utf-8")
    args = {"file_path": f"{CWD}/src/big.md"}
    recorded = ("File content (14572 tokens) exceeds maximum allowed tokens (10000). " + versions.NEW_TOO_BIG_HINT)
    read = EMULATIONS[("claude-code", "Read")]()
    call = Call("Read", args, root, CWD, "2.1.81", Sandbox(workspace=root))
    seen = read.from_recording(recorded, call)
    assert seen == {"max_tokens": "10000"}
    assert run("Read", root, args, "2.1.81").output.startswith("     1→alpha")  # under the default cap
    capped = run("Read", root, args, "2.1.81", **seen)
    assert capped.is_error and "exceeds maximum allowed tokens (10000)." in capped.output
