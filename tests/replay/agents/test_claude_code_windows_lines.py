"""Claude Code's Read and Grep where a real recording showed the replay printing otherwise (issue 28's fourth round).

- Windows: a Grep context line with no `:` past its path keeps ripgrep's `D:\\repo\\src\\x.go-N-` path (Claude Code's
  shortening cuts at the first `:` past the drive, so such a line is never shortened); cut from
  JanDeDobbeleer/oh-my-posh's checkpoint 0d/cae3896550 (Claude Code 2.1.209, MIT), `func CommandFinished -A 15`.
- Windows: a Read of a folder names it `D:\\oh-my-posh\\src\\segments\\options` (checkpoint 6d/449f3da816, 2.1.209).
- Entire's `REDACTED` in a Read listing is put back into the replayed one, as for Codex: cut from
  theexperiencecompany/gaia's checkpoint cd/56d9b79a11 (2.1.19x), `factory.py` offset 258.
"""

from __future__ import annotations

from pathlib import Path

from toolaudit.replay.agents import claude_code  # noqa: F401  (registers the emulations)
from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.base import Sandbox

WIN = "D:\\oh-my-posh"
WRITER = ["func CommandFinished(code int, ignore bool) string {", "\tif ignore {",
          '\t\treturn fmt.Sprintf(formats.Escape, "\\x1b]133;D\\007")', "\t}", "",
          '\tmark := fmt.Sprintf("\\x1b]133;D;%d\\007", code)', "", "\treturn fmt.Sprintf(formats.Escape, mark)", "}"]
RECORDED_GREP = "\n".join([
    "src\\terminal\\writer.go:310:func CommandFinished(code int, ignore bool) string {",
    "D:\\oh-my-posh\\src\\terminal\\writer.go-311-\tif ignore {",
    'D:\\oh-my-posh\\src\\terminal\\writer.go-312-\t\treturn fmt.Sprintf(formats.Escape, "\\x1b]133;D\\007")',
    "D:\\oh-my-posh\\src\\terminal\\writer.go-313-\t}",
    "D:\\oh-my-posh\\src\\terminal\\writer.go-314-",
    'src\\terminal\\writer.go-315-\tmark := fmt.Sprintf("\\x1b]133;D;%d\\007", code)',  # a `:` in the text: shortened
    "D:\\oh-my-posh\\src\\terminal\\writer.go-316-",
    "D:\\oh-my-posh\\src\\terminal\\writer.go-317-\treturn fmt.Sprintf(formats.Escape, mark)",
    "D:\\oh-my-posh\\src\\terminal\\writer.go-318-}",
])


def run(tool: str, root: Path, args: dict, at: str, cwd: str, **params: str):
    call = Call(tool=tool, args=args, root=root, cwd=cwd, version=at, sandbox=Sandbox(workspace=root, timeout=60),
                params=params, session="s", call_id="toolu_x", model="claude-opus-4-7", main_model="claude-opus-4-7")
    return EMULATIONS[("claude-code", tool)]().run(call)


def test_a_windows_grep_context_line_keeps_ripgreps_drive_path(tmp_path: Path) -> None:
    (tmp_path / "src" / "terminal").mkdir(parents=True)
    (tmp_path / "src" / "terminal" / "writer.go").write_text("\n" * 309 + "\n".join(WRITER) + "\n", encoding="utf-8")
    args = {"pattern": "func CommandFinished", "path": f"{WIN}\\src\\terminal", "output_mode": "content", "-A": 8}
    assert run("Grep", tmp_path, args, "2.1.209", WIN).output == RECORDED_GREP
    # on macOS and Linux the same line stays absolute, as ripgrep printed it
    posix = run("Grep", tmp_path, {**args, "path": "/Users/dev/omp/src/terminal"}, "2.1.209", "/Users/dev/omp").output
    assert "/Users/dev/omp/src/terminal/writer.go-311-\tif ignore {" in posix.split("\n")


def test_a_windows_read_of_a_folder_names_it_as_windows_does(tmp_path: Path) -> None:
    (tmp_path / "src" / "segments" / "options").mkdir(parents=True)
    out = run("Read", tmp_path, {"file_path": f"{WIN}\\src\\segments\\options"}, "2.1.209", WIN)
    assert out.output == "EISDIR: illegal operation on a directory, read 'D:\\oh-my-posh\\src\\segments\\options'"


def test_a_line_entire_redacted_in_a_read_listing_is_printed_as_recorded(tmp_path: Path) -> None:
    cwd = "/Users/dev/gaia"
    lines = ["        subagent_tool_runtime_config=subagent_tool_runtime_config,",
             "        compaction_excluded_tools=CODING_TOOL_NAMES | SPAWN_SUBAGENT_TOOL,", "    )"]
    (tmp_path / "factory.py").write_text("\n" * 269 + "\n".join(lines) + "\n", encoding="utf-8")
    args = {"file_path": f"{cwd}/factory.py", "offset": 270, "limit": 3}
    recorded = ("270\t        subagent_tool_runtime_config=subagent_tool_runtime_config,\n"
                "271\t        REDACTED | SPAWN_SUBAGENT_TOOL,\n272\t    )")
    read = EMULATIONS[("claude-code", "Read")]()
    params = read.from_recording(recorded, Call("Read", args, tmp_path, cwd, "2.1.196", Sandbox(workspace=tmp_path)))
    assert "redacted" in params
    assert run("Read", tmp_path, args, "2.1.196", cwd, **params).output == recorded
    # without the recorded lines the real text shows: the recorder's redaction is what differed
    assert "compaction_excluded_tools=CODING_TOOL_NAMES" in run("Read", tmp_path, args, "2.1.196", cwd).output


def test_a_read_over_50000_characters_is_persisted_from_2_1_51_to_2_1_78(tmp_path: Path) -> None:
    # cli.js: 2.1.51 persists at min(maxResultSizeChars, 50000) (2.1.50: 1e5); 2.1.79 declares Read's Infinity.
    # Recorded: paretoimproved/ZeroToShip 2.1.62 and 2.1.71, a whole-file Read of tests/delivery/email.test.ts
    # answered `<persisted-output>\nOutput too large (54KB). …`
    (tmp_path / "email.test.ts").write_text(("// " + "the quick brown fox " * 3 + "\n") * 1000, encoding="utf-8")
    args = {"file_path": "/Users/dev/zts/email.test.ts"}
    for at, persisted in (("2.1.50", False), ("2.1.51", True), ("2.1.71", True), ("2.1.78", True), ("2.1.79", False)):
        out = run("Read", tmp_path, args, at, "/Users/dev/zts").output
        assert out.startswith("<persisted-output>\nOutput too large (") is persisted, at


def test_a_call_cancelled_for_a_parallel_calls_error_never_ran() -> None:
    # 2.1.69 renamed "Sibling tool call errored" (cli.js); recorded in paretoimproved/ZeroToShip 2.1.71, a Grep
    from toolaudit.model import ToolCall
    from toolaudit.replay.never_ran import never_ran

    text = "<tool_use_error>Cancelled: parallel tool call Bash(grep '\"next\"' web/package.json) errored</tool_use_error>"
    call = ToolCall("s.jsonl", 9, "claude-code", "s", "Grep", text, "toolu_1", is_error=True)
    assert never_ran(call) == "never ran: a sibling call's error"


def test_from_2_1_208_a_pattern_ripgrep_rejects_is_the_error_thrown(tmp_path: Path) -> None:
    # the binary's JavaScript (2.1.208 on; 2.1.207 answers as if nothing matched): a RipgrepUsageError's message;
    # recorded in JanDeDobbeleer/oh-my-posh's checkpoint 59/7e5a60d968 (2.1.217), a look-behind ripgrep rejects
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "x_test.go").write_text("template.Render(x)\n", encoding="utf-8")
    args = {"pattern": "(?<!\\.)\\bRender\\(tc\\.", "path": f"{WIN}\\src", "output_mode": "files_with_matches"}
    out = run("Grep", tmp_path, args, "2.1.217", WIN)
    assert out.is_error and out.output.startswith(
        "Search failed \u2014 ripgrep rejected the pattern, glob, or file type without searching:\n"
        "rg: regex parse error:\n")
    assert "look-around, including look-ahead and look-behind, is not supported" in out.output
    assert run("Grep", tmp_path, args, "2.1.207", WIN).output == "No files found"


def test_a_content_cut_of_several_files_ripgrep_walked_unsorted_is_not_replayable(tmp_path: Path) -> None:
    # Claude Code runs rg without --sort in content and count modes and keeps its (parallel) walk's order, so
    # which lines head_limit kept was the recording machine's: recorded in JanDeDobbeleer/oh-my-posh 2.1.209
    # (`FTCSMarks|ShellIntegration`, head_limit 25) and paretoimproved/ZeroToShip 2.1.62 (`userTier`, head_limit 15)
    for name in ("a.go", "b.go"):
        (tmp_path / name).write_text("x := 1\nx := 2\n", encoding="utf-8")
    args = {"pattern": "x :=", "output_mode": "content", "head_limit": 3}
    out = run("Grep", tmp_path, args, "2.1.209", "/Users/dev/omp")
    assert out.status == "refused" and "recording machine's walk" in out.reason
    assert run("Grep", tmp_path, {**args, "head_limit": 4}, "2.1.209", "/Users/dev/omp").status == "replayed"  # no cut
    one = {**args, "path": "/Users/dev/omp/a.go", "head_limit": 1}  # one file: its own order
    assert run("Grep", tmp_path, one, "2.1.209", "/Users/dev/omp").output.startswith("1:x := 1")
