"""agent:claude-code Read, Grep and Glob: recorded Claude Code tool results (2.0.64 to 2.1.42) reproduced byte for byte.

The recorded cases are cut from real sessions (tests/fixtures/agents/claude-code/README.md); the others pin
behaviour read in Claude Code's cli.js, with the texts it printed. File times are set here, never assumed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolaudit.replay.agents.claude_code import common, js, read
from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.base import REFUSED, REPLAYED, Sandbox

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "claude-code"
CASES = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
CWD = "/Users/dev/cli"  # the recorded working folder of the synthetic calls
REMINDER = common.MALWARE_REMINDER
T0 = 1_700_000_000  # a fixed epoch second for mtimes


def stamp(root: Path, oldest_first: list[str]) -> None:
    """Give the files of `oldest_first` mtimes one second apart, in that order."""
    for i, rel in enumerate(oldest_first):
        os.utime(root / rel, (T0 + i, T0 + i))


def build(case: dict, tmp_path: Path) -> Path:
    """The replay folder of a recorded case: its files (a null one is empty), mtimes as recorded."""
    root = tmp_path / "root"
    root.mkdir()
    for rel, fixture in case["files"].items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes((FIXTURES / fixture).read_bytes() if fixture else b"")
    stamp(root, case["mtime_order"] or [])
    return root


def run(tool: str, root: Path, args: dict, at: str | None = "2.1.42", cwd: str = CWD, **params: str):
    """One call of an emulated tool recorded by Claude Code `at`, as the runner would make it."""
    call = Call(tool=tool, args=args, root=root, cwd=cwd, version=at, sandbox=Sandbox(workspace=root, timeout=60),
                params=params, session="0f1e2d3c-session", call_id="toolu_test")
    return EMULATIONS[("claude-code", tool)]().run(call)


def saved_path(cwd: str, session: str, call_id: str) -> str:
    """Where Claude Code saved a persisted output (the recording redacts it)."""
    home = "/".join(cwd.split("/")[:3])
    return f"{home}/.claude/projects/{cwd.replace('/', '-').replace('.', '-')}/{session}/tool-results/{call_id}.txt"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    return folder


def write(root: Path, rel: str, data: bytes | str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


# --- recorded cases -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_a_recorded_call_is_reproduced_byte_for_byte(case: dict, tmp_path: Path) -> None:
    root = build(case, tmp_path)
    call = Call(tool=case["tool"], args=case["args"], root=root, cwd=case["cwd"], version=case["version"],
                sandbox=Sandbox(workspace=root, timeout=60), params={"model": case["model"]},
                session=case["session"], call_id=case["call_id"])
    out = EMULATIONS[("claude-code", case["tool"])]().run(call)
    expected = (FIXTURES / case["expected"]).read_bytes().decode("utf-8")
    for redacted in case.get("redacted", []):  # the recording pipeline hid the saved output's path
        expected = expected.replace(redacted, saved_path(case["cwd"], case["session"], case["call_id"]))
    assert out.status == REPLAYED
    assert out.output == expected
    assert out.is_error == expected.startswith("<tool_use_error>")


def test_every_tool_is_registered_with_its_range() -> None:
    for tool in ("Read", "Grep", "Glob"):
        emulation = EMULATIONS[("claude-code", tool)]
        assert emulation.versions == "2.0.64 - 2.1.332"
        assert "version" in emulation.params and all(emulation.params.values())


# --- Read ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2.0.76", "2.1.42"])
def test_read_numbers_lines_in_six_columns_and_never_clips(root: Path, version: str) -> None:
    long = "x" * 5000
    write(root, "a.txt", f"one\n{long}\n" + "y\n" * 999_998)
    out = run("Read", root, {"file_path": f"{CWD}/a.txt", "limit": 2}, version, model="claude-sonnet-4-5")
    assert out.output == f"     1→one\n     2→{long}" + REMINDER
    far = run("Read", root, {"file_path": f"{CWD}/a.txt", "offset": 1_000_000, "limit": 1}, version, model="x")
    assert far.output.startswith("1000000→y\n")  # seven digits: no padding, no space


def test_read_offset_zero_numbers_from_zero(root: Path) -> None:
    write(root, "a.txt", "first\nsecond\n")
    assert run("Read", root, {"file_path": f"{CWD}/a.txt", "offset": 0, "limit": 1}, "2.1.7").output == \
        "     0→first" + REMINDER


@pytest.mark.parametrize("version", ["2.1.7", "2.1.42"])
def test_read_of_an_empty_file_warns_that_it_is_shorter_than_the_offset(root: Path, version: str) -> None:
    # the "contents are empty" text needs 0 lines, and splitting "" gives one: Claude Code never printed it
    write(root, "empty.go", b"")
    out = run("Read", root, {"file_path": f"{CWD}/empty.go"}, version)
    assert out.output == ("<system-reminder>Warning: the file exists but is shorter than the provided offset (1). "
                          "The file has 1 lines.</system-reminder>")
    assert not out.is_error


def test_read_strips_crlf_and_only_the_streaming_reader_drops_a_bom(root: Path) -> None:
    write(root, "bom.txt", "\ufeffa\r\nb\r\n")
    assert run("Read", root, {"file_path": f"{CWD}/bom.txt"}, "2.1.40").output == \
        "     1→\ufeffa\n     2→b\n     3→" + REMINDER
    assert run("Read", root, {"file_path": f"{CWD}/bom.txt"}, "2.1.41", model="claude-opus-4-6").output == \
        "     1→a\n     2→b\n     3→"


def test_read_reminder_follows_the_model_from_2_1_39(root: Path) -> None:
    write(root, "a.go", "package a\n")
    path = {"file_path": f"{CWD}/a.go"}
    assert run("Read", root, path, "2.1.38", model="claude-opus-4-6").output.endswith(REMINDER)
    assert not run("Read", root, path, "2.1.39", model="claude-opus-4-6[1m]").output.endswith(REMINDER)
    assert run("Read", root, path, "2.1.39", model="claude-sonnet-4-5-20250929").output.endswith(REMINDER)
    assert not run("Read", root, path, "2.1.20", reminder="off").output.endswith(REMINDER)


def test_a_subagents_read_follows_the_sessions_model_not_its_own(root: Path) -> None:
    """cli.js tests the main loop's model: a Haiku subagent of an Opus 4.6 session gets no reminder."""
    write(root, "a.go", "package a\n")
    call = Call(tool="Read", args={"file_path": f"{CWD}/a.go"}, root=root, cwd=CWD, version="2.1.39",
                sandbox=Sandbox(workspace=root, timeout=60), model="claude-haiku-4-5-20251001",
                main_model="claude-opus-4-6")
    assert not EMULATIONS[("claude-code", "Read")]().run(call).output.endswith(REMINDER)
    alone = Call(tool="Read", args={"file_path": f"{CWD}/a.go"}, root=root, cwd=CWD, version="2.1.39",
                 sandbox=Sandbox(workspace=root, timeout=60), model="claude-haiku-4-5-20251001")
    assert EMULATIONS[("claude-code", "Read")]().run(alone).output.endswith(REMINDER)


@pytest.mark.parametrize(("version", "wrapped"), [("2.1.29", True), ("2.1.42", False)])
def test_read_of_a_file_over_256kb_without_a_range(root: Path, version: str, wrapped: bool) -> None:
    write(root, "big.jsonl", b"{}\n" * (3250586 // 3) + b"\n" * (3250586 % 3))  # 3.1MB, as recorded by 2.1.29
    text = ("File content (3.1MB) exceeds maximum allowed size (256KB). Please use offset and limit parameters "
            "to read specific portions of the file, or use the GrepTool to search for specific content.")
    out = run("Read", root, {"file_path": f"{CWD}/big.jsonl"}, version)
    assert out.output == (f"<tool_use_error>{text}</tool_use_error>" if wrapped else text)
    assert out.is_error
    assert run("Read", root, {"file_path": f"{CWD}/big.jsonl", "limit": 2}, version).output.startswith("     1→{}\n")


def test_read_over_the_token_limit_reports_the_count(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(root, "small.go", "x\n" * 10)
    monkeypatch.setattr(read, "estimated_tokens", lambda text, model: pytest.fail("a small file needs no count"))
    assert run("Read", root, {"file_path": f"{CWD}/small.go"}, "2.1.33").output.startswith("     1→x")
    write(root, "checkpoint_test.go", "y" * 80_000)
    monkeypatch.setattr(read, "estimated_tokens", lambda text, model: 26800)
    out = run("Read", root, {"file_path": f"{CWD}/checkpoint_test.go"}, "2.1.33")
    assert out.output == ("File content (26800 tokens) exceeds maximum allowed tokens (25000). Please use offset "
                          "and limit parameters to read specific portions of the file, or use the GrepTool to "
                          "search for specific content.")  # recorded by 2.1.31 and 2.1.33
    assert out.is_error and out.reason == common.ESTIMATED


def test_the_offline_token_estimate_is_the_claude_tokenizers(root: Path) -> None:
    from toolaudit.tokenizers import get_tokenizer

    text = "".join(f"func handler{i}(w http.ResponseWriter) {{ log.Printf(\"%d\", {i}) }}\n" for i in range(3000))
    write(root, "handlers.go", text)
    tokens = get_tokenizer("claude").count_for("".join(f"{n + 1:6}→{line}\n" for n, line in
                                                       enumerate(text.splitlines()))[:-1], "claude-sonnet-4-5")
    assert tokens > 25_000  # so Read must count, offline
    out = run("Read", root, {"file_path": f"{CWD}/handlers.go"}, "2.1.33")
    assert out.output.startswith("File content (") and "exceeds maximum allowed tokens (25000)" in out.output
    assert out.reason == common.ESTIMATED


def test_read_errors_per_version(root: Path) -> None:
    (root / "logs").mkdir()
    write(root, "lib.so", b"\x7fELF")
    assert run("Read", root, {"file_path": f"{CWD}/logs"}, "2.1.7").output == \
        "EISDIR: illegal operation on a directory, read"  # recorded by 2.1.7 and 2.1.29
    assert run("Read", root, {"file_path": "logs/"}, "2.1.42").output == \
        f"EISDIR: illegal operation on a directory, read '{CWD}/logs'"
    assert run("Read", root, {"file_path": f"{CWD}/gone.go"}, "2.1.40").output == \
        "<tool_use_error>File does not exist.</tool_use_error>"
    assert run("Read", root, {"file_path": f"{CWD}/gone.go"}, "2.1.41").output == "File does not exist."
    assert run("Read", root, {"file_path": f"{CWD}/gone.go"}, "2.1.7", start_cwd="/Users/dev").output == \
        f"<tool_use_error>File does not exist. Current working directory: {CWD}</tool_use_error>"
    assert run("Read", root, {"file_path": f"{CWD}/lib.so"}).output == (
        "<tool_use_error>This tool cannot read binary files. The file appears to be a binary .so file. "
        "Please use appropriate tools for binary file analysis.</tool_use_error>")


@pytest.mark.parametrize("name", ["shot.png", "paper.pdf", "book.ipynb"])
def test_read_of_images_pdfs_and_notebooks_is_refused(root: Path, name: str) -> None:
    write(root, name, b"\x89PNG")
    out = run("Read", root, {"file_path": f"{CWD}/{name}"})
    assert out.status == REFUSED and "not emulated" in out.reason


def test_paths_outside_the_working_folder_are_refused(root: Path, tmp_path: Path) -> None:
    write(tmp_path / "outside", "secret.txt", "TOP SECRET\n")
    (root / "escape").symlink_to(tmp_path / "outside")
    for path in ("/etc/passwd", f"{CWD}/../other/x.go", "~/notes.md", f"{CWD}/escape/secret.txt"):
        out = run("Read", root, {"file_path": path})
        assert out.status == REFUSED, path
        assert "TOP SECRET" not in out.output
    assert run("Grep", root, {"pattern": "SECRET", "path": f"{CWD}/escape"}).status == REFUSED
    assert run("Glob", root, {"pattern": "/Users/dev/*"}).status == REFUSED


def test_a_path_entire_redacted_is_refused_unless_the_replay_folder_has_it(root: Path) -> None:
    # FSM1/cipher-box's 2.1.4x Read of `{cwd}/.REDACTED.md` (3,540 tokens recorded), Beep206/CyberVPN's `REDACTED.md`
    # (the whole path taken for a secret): before, read as missing files and counted as misses
    for path in (f"{CWD}/.REDACTED.md", "REDACTED.md"):
        out = run("Read", root, {"file_path": path})
        assert (out.status, out.reason) == (REFUSED, f"path {path!r} holds Entire's REDACTED: the "
                                                      "recording hid part of it"), path
    assert run("Grep", root, {"pattern": "x", "path": f"{CWD}/REDACTED"}).status == REFUSED
    write(root, "REDACTED.md", "a file of that name\n")
    assert run("Read", root, {"file_path": f"{CWD}/REDACTED.md"}).status == REPLAYED
    # a real folder whose name holds the word: a file missing in it is answered as missing (helper-49's review)
    write(root, "docs/REDACTED_CLAIMS/a.md", "claims\n")
    out = run("Read", root, {"file_path": f"{CWD}/docs/REDACTED_CLAIMS/missing.md"})
    assert (out.status, out.output.startswith("File does not exist.")) == (REPLAYED, True)


def test_no_version_is_refused_unless_named_and_a_newer_one_replays_as_the_newest(root: Path) -> None:
    write(root, "a.go", "a\n")
    args = {"file_path": f"{CWD}/a.go"}
    assert run("Read", root, args, None).status == REFUSED
    assert run("Read", root, args, None, version="2.1.7").output == "     1→a\n     2→" + REMINDER
    assert run("Read", root, args, "2.0.63").output == "     1→a\n     2→" + REMINDER  # as the oldest read
    assert run("Read", root, args, "2.9.1", model="claude-opus-4-6").output == "1\ta\n2\t"  # as the newest


def test_parameters_override_the_recorded_arguments_but_a_limit_is_a_ceiling(root: Path) -> None:
    write(root, "a.txt", "1\n2\n3\n4\n")
    out = run("Read", root, {"file_path": f"{CWD}/a.txt", "offset": 1, "limit": 1}, "2.1.7", offset="3", limit="2")
    assert out.output == "     3→3" + REMINDER  # the model's own limit 1 stands below the cap 2
    out = run("Read", root, {"file_path": f"{CWD}/a.txt", "offset": 1}, "2.1.7", offset="3", limit="1")
    assert out.output == "     3→3" + REMINDER  # no limit of its own: the cap applies


# --- Grep ---------------------------------------------------------------------------------------


def test_grep_files_are_newest_first_with_icu_order_on_ties(root: Path) -> None:
    # the tie order is what Node 20's localeCompare gives (checked there): punctuation < digits < letters, a < A
    names = ["b.go", "B.go", "a_b.go", "a-b.go", "ab.go", "a.go", "Z.go", "a1.go", "a10.go", "a2.go", "A.go", "_x.go",
             "x y.go", "a.b.go"]
    for name in names + ["new.go"]:
        write(root, f"src/{name}", "match\n")
        os.utime(root / "src" / name, (T0, T0))
    os.utime(root / "src" / "new.go", (T0 + 5, T0 + 5))
    out = run("Grep", root, {"pattern": "match"})
    tied = ["_x.go", "a_b.go", "a-b.go", "a.b.go", "a.go", "A.go", "a1.go", "a10.go", "a2.go", "ab.go", "b.go", "B.go",
            "x y.go", "Z.go"]
    assert out.output == "Found 15 files\n" + "\n".join(f"src/{name}" for name in ["new.go", *tied])


def test_grep_content_and_count_modes(root: Path) -> None:
    write(root, "a.go", "alpha\nbeta\nalpha beta\n")
    write(root, "sub/b.go", "beta\n")
    stamp(root, ["a.go", "sub/b.go"])
    assert run("Grep", root, {"pattern": "beta", "output_mode": "content"}).output == \
        "a.go:2:beta\na.go:3:alpha beta\nsub/b.go:1:beta"
    assert run("Grep", root, {"pattern": "beta", "output_mode": "content", "-n": False, "path": "a.go"}).output == \
        "beta\nalpha beta"
    assert run("Grep", root, {"pattern": "beta", "output_mode": "count"}).output == \
        "a.go:2\nsub/b.go:1\n\nFound 3 total occurrences across 2 files."
    # one file searched: rg prints a bare count, which Claude Code's totals did not parse (recorded so)
    assert run("Grep", root, {"pattern": "beta", "output_mode": "count", "path": f"{CWD}/a.go"}).output == \
        "2\n\nFound 0 total occurrences across 0 files."
    assert run("Grep", root, {"pattern": "gamma", "output_mode": "count"}).output == \
        "No matches found\n\nFound 0 total occurrences across 0 files."
    assert run("Grep", root, {"pattern": "gamma"}).output == "No files found"


def test_grep_head_limit_and_offset(root: Path) -> None:
    write(root, "a.go", "".join(f"hit {i}\n" for i in range(1, 7)))
    content = {"pattern": "hit", "output_mode": "content"}
    assert run("Grep", root, {**content, "head_limit": 2, "offset": 1}).output == \
        "a.go:2:hit 2\na.go:3:hit 3\n\n[Showing results with pagination = limit: 2, offset: 1]"
    assert run("Grep", root, {**content, "offset": 5}).output == \
        "a.go:6:hit 6\n\n[Showing results with pagination = limit: undefined, offset: 5]"
    assert run("Grep", root, {**content, "offset": 526, "head_limit": 15}).output == \
        "No matches found\n\n[Showing results with pagination = limit: 15, offset: 526]"  # recorded by 2.1.38
    assert run("Grep", root, {"pattern": "hit", "head_limit": 1}).output == "Found 1 file limit: 1, offset: 0\na.go"
    assert run("Grep", root, {**content}, head_limit="1").output == \
        "a.go:1:hit 1\n\n[Showing results with pagination = limit: 1, offset: 0]"


def test_grep_shortens_the_text_before_a_content_lines_first_colon_as_node_does(root: Path) -> None:
    write(root, "a.go", "// see: x\nneedle\ny\n")
    out = run("Grep", root, {"pattern": "needle", "output_mode": "content", "-C": 1})
    # context lines are `path-N-text`: one holding a colon is cut there and normalised (`//` became `/`, recorded
    # so by 2.1.7); one without stays absolute
    assert out.output == "a.go-1-/ see: x\na.go:2:needle\n/Users/dev/cli/a.go-3-y"


def test_grep_context_alias_from_2_1_21(root: Path) -> None:
    write(root, "a.go", "a\nb\nc\n")
    args = {"pattern": "b", "output_mode": "content", "context": 1, "-A": 0}
    assert run("Grep", root, args, "2.1.21").output == f"{CWD}/a.go-1-a\na.go:2:b\n{CWD}/a.go-3-c"
    assert run("Grep", root, args, "2.1.20").output == (  # not in the schema yet: zod refused it
        "<tool_use_error>InputValidationError: Grep failed due to the following issue:\n"
        "An unexpected parameter `context` was provided</tool_use_error>")


def test_input_the_schema_refused_gets_claude_codes_message(root: Path) -> None:
    out = run("Grep", root, {"pattern": "x", "file_path": "/a", "-A": "5"}, "2.1.17")
    assert out.output == ("<tool_use_error>InputValidationError: Grep failed due to the following issues:\n"
                          "An unexpected parameter `file_path` was provided\n"
                          "The parameter `-A` type is expected as `number` but provided as `string`</tool_use_error>")
    assert run("Glob", root, {}).output == ("<tool_use_error>InputValidationError: Glob failed due to the following "
                                            "issue:\nThe required parameter `pattern` is missing</tool_use_error>")
    write(root, "a", "a\n")
    assert run("Read", root, {"file_path": f"{CWD}/a", "offset": -1}).status == REFUSED
    assert run("Read", root, {"file_path": f"{CWD}/a"}, unknown="1").reason.startswith("Read has no parameter")


def test_grep_passes_a_dash_pattern_with_e_and_skips_vcs_folders_but_not_hidden_files(root: Path) -> None:
    write(root, ".config/x.toml", "--flag\n")
    write(root, ".git/config", "--flag\n")
    assert run("Grep", root, {"pattern": "--flag"}).output == "Found 1 file\n.config/x.toml"


def test_grep_errors(root: Path) -> None:
    assert run("Grep", root, {"pattern": "x", "path": "cmd/gone"}).output == \
        "<tool_use_error>Path does not exist: cmd/gone</tool_use_error>"
    write(root, "a.go", "a\n")
    assert run("Grep", root, {"pattern": "("}).output == "No files found"  # rg's error was swallowed


def test_large_grep_outputs_per_version(root: Path) -> None:
    write(root, "a.go", "".join(f"line {i:05d} {'z' * 60}\n" for i in range(400)))
    args = {"pattern": "line", "output_mode": "content"}
    whole = "\n".join(f"a.go:{i + 1}:line {i:05d} {'z' * 60}" for i in range(400))  # 30,091 characters
    # before 2.1.2: cut at 20,000 characters, the lines after the cut counted (the 2.0.76 recordings show it)
    assert run("Grep", root, args, "2.0.76").output == whole[:20000] + "\n\n... [152 lines truncated] ..."
    assert run("Grep", root, args, "2.0.76", persistence="on").output == whole
    new = run("Grep", root, args, "2.1.2").output
    size = len(whole)
    assert new.startswith(f"<persisted-output>\nOutput too large ({js.size_text(size)}). Full output saved to: "
                          f"/Users/dev/.claude/projects/-Users-dev-cli/0f1e2d3c-session/tool-results/toolu_test.txt\n\n"
                          "Preview (first 2KB):\na.go:1:line 00000 ")
    assert new.endswith("\n...\n</persisted-output>")


# --- Glob ---------------------------------------------------------------------------------------


def test_glob_lists_absolute_paths_oldest_first(root: Path) -> None:
    for rel in ("b.go", "a.go", "sub/c.go", "sub/d.txt"):
        write(root, rel, "")
    stamp(root, ["sub/c.go", "b.go", "a.go"])
    assert run("Glob", root, {"pattern": "**/*.go"}).output == f"{CWD}/sub/c.go\n{CWD}/b.go\n{CWD}/a.go"
    assert run("Glob", root, {"pattern": "*.go", "path": "sub"}).output == f"{CWD}/sub/c.go"
    assert run("Glob", root, {"pattern": f"{CWD}/sub/*.go"}).output == f"{CWD}/sub/c.go"
    assert run("Glob", root, {"pattern": "*.rs"}).output == "No files found"


def test_glob_truncates_at_100_or_a_parameter(root: Path) -> None:
    for i in range(3):
        write(root, f"f{i}.go", "")
    stamp(root, ["f0.go", "f1.go", "f2.go"])
    assert run("Glob", root, {"pattern": "*.go"}, max_results="2").output == \
        f"{CWD}/f0.go\n{CWD}/f1.go\n(Results are truncated. Consider using a more specific path or pattern.)"


def test_glob_errors(root: Path) -> None:
    write(root, "a.go", "")
    assert run("Glob", root, {"pattern": "*", "path": "nope"}).output == \
        "<tool_use_error>Directory does not exist: nope</tool_use_error>"
    assert run("Glob", root, {"pattern": "*", "path": "a.go"}).output == \
        "<tool_use_error>Path is not a directory: a.go</tool_use_error>"


# --- the JavaScript and Node details ------------------------------------------------------------


@pytest.mark.parametrize(("count", "text"), [(0, "0 bytes"), (1023, "1023 bytes"), (1024, "1KB"), (1536, "1.5KB"),
                                             (20992, "20.5KB"), (25395, "24.8KB"), (263424, "257.3KB"),
                                             (3250586, "3.1MB"), (3 << 30, "3GB")])
def test_sizes_are_written_as_claude_code_writes_them(count: int, text: str) -> None:
    assert js.size_text(count) == text  # the values Node gave for the same function


@pytest.mark.parametrize(("path", "relative"), [
    ("/Users/u/cli/a.go-12-\t// x", "a.go-12-\t/ x"), ("/Users/u/cli/a.go-12-\tx := y // ../z", "a.go-12-\tx := y / ../z"),
    ("/Users/u/other/x.go", "../other/x.go"), ("/Users/u/cli", ""), ("/Users/u/cli/./a//b/../c.go-3-\tq", "a/c.go-3-\tq")])
def test_node_path_relative(path: str, relative: str) -> None:
    assert js.node_relative("/Users/u/cli", "/Users/u/cli", path) == relative  # Node 20's answers


def test_js_lengths_count_utf16_units() -> None:
    assert js.js_len("a😀") == 3 and js.js_slice("a😀b", 0, 3) == "a😀" and js.js_trim("\ufeff x \x1c") == "x \x1c"


def test_a_call_made_after_a_cd_resolves_and_shortens_paths_from_there(root: Path) -> None:
    """Claude Code's Bash `cd` moves its working folder for every later tool: relative paths start there and Grep
    prints paths relative to it; a missing file's error names it."""
    write(root, "cmd/cli/strategy/common.go", "package strategy\n\nfunc GetGitCommonDir() {}\n")
    here = f"{CWD}/cmd/cli/strategy"

    def at_here(tool: str, args: dict) -> str:
        call = Call(tool=tool, args=args, root=root, cwd=CWD, version="2.1.38",
                    sandbox=Sandbox(workspace=root, timeout=60), session="s", call_id="t", here=here)
        return EMULATIONS[("claude-code", tool)]().run(call).output

    assert at_here("Read", {"file_path": "common.go"}).startswith("     1→package strategy\n")
    assert at_here("Grep", {"pattern": "func Get", "output_mode": "content", "-n": True}) == \
        "common.go:3:func GetGitCommonDir() {}"  # recorded so in a session that had cd'd there
    assert at_here("Read", {"file_path": "gone.go"}) == \
        f"<tool_use_error>File does not exist. Current working directory: {here}</tool_use_error>"
