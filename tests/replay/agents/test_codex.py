"""Codex's shell tools emulated: the read-only interpreter, the envelopes and cuts per version, and byte
identity with a real 0.58.0 rollout (tests/fixtures/agents/codex)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.agents.codex import (
    ExecCommand,
    Shell,
    ShellCommand,
    command_of,
    recorded_noise,
    without_noise,
)
from toolaudit.replay.agents.shell_words import NotReplayable, parse
from toolaudit.replay.base import Sandbox

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "codex" / "session-view.json"
SHOWN = "/home/me/proj"  # the working folder the agent saw


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A small workspace: text files, a folder, a dotfile, and a secret outside it."""
    root = tmp_path / "proj"
    (root / "src" / "deep").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\nbeta\ngamma\ndelta\nepsilon\n")
    (root / "b.txt").write_text("beta two\n")
    (root / ".hidden.txt").write_text("beta hidden\n")
    (root / "src" / "main.py").write_text("import os\nprint('Beta')\n")
    (root / "src" / "deep" / "x.py").write_text("beta = 1\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    return root


def call(root: Path, command, tool: str = "shell", version: str | None = "0.58.0", **params: str) -> Call:
    """A recorded call of `tool` running `command` in `root` (seen by the agent as SHOWN)."""
    if tool == "shell":
        args = {"command": ["bash", "-lc", command] if isinstance(command, str) else command, "workdir": SHOWN}
    elif tool == "exec_command":
        args = {"cmd": command, "workdir": SHOWN}
    else:
        args = {"command": command, "workdir": SHOWN}
    return Call(tool=tool, args=args, root=root, cwd=SHOWN, version=version, sandbox=Sandbox(root),
                params={"duration": "0", **params}, session="s", call_id="c1")


def out(root: Path, command, **kw) -> str:
    """What the command printed (the JSON wrapper's `output`)."""
    got = Shell().run(call(root, command, **kw))
    assert got.status == "replayed", got.reason
    return json.loads(got.output)["output"]


def refused(root: Path, command, tool: str = "shell") -> str:
    """The reason the emulation refuses the command."""
    emulation = EMULATIONS[("codex", tool)]()
    got = emulation.run(call(root, command, tool=tool))
    assert got.status == "refused" and got.output == "", got
    return got.reason


# ------------------------------------------------------------------ the allow-list

@pytest.mark.parametrize("command, reason", [
    ("python -c 1", "unknown program python"),
    ("rm a.txt", "unknown program rm"),
    ("cat a.txt > b.txt", "redirection"),
    ("cat < a.txt", "redirection"),
    ("(cat a.txt)", "subshell"),
    ("cat $HOME/x", "variable expansion"),
    ('echo "$(ls)"', "variable expansion"),
    ("echo `ls`", "command substitution"),
    ("ls &", "background job"),
    ("FOO=1 ls", "env assignment"),
    ("ls ~", "tilde expansion"),
    ("ls {a,b}.txt", "brace expansion"),
    ("sed -i 's/a/b/' a.txt", "sed -i: edits files in place"),
    ("sed 's/a/b/w out' a.txt", "only printing commands"),
    ("find . -delete", "find -delete: deletes files"),
    ("find . -exec cat {} ;", "find -exec: runs programs"),
    ("find -L .", "follows symlinks"),
    ("rg --pre cat beta", "runs a preprocessor"),
    ("rg -L beta", "follows symlinks"),
    ("grep -R beta .", "follows symlinks"),
    ("tail -f a.txt", "follows the file"),
    ("git commit -m x", "git commit: only show, diff, log, status"),
    ("git -C .. log", "path outside the workspace: .."),
    ("git -C src push", "git push: only show, diff, log, status"),
    ("git diff --output=x", "writes files or runs programs"),
    ("head --bogus a.txt", "unsupported head option --bogus"),
    ("echo -e 'a\\n'", "echo -e"),
    ("cat ../secret.txt", "path outside the workspace: ../secret.txt"),
    ("cat /etc/passwd", "path outside the workspace: /etc/passwd"),
    ("cd .. && cat secret.txt", "path outside the workspace: .."),
    ("ls ../*", "a glob outside the workspace: ../*"),
    ("echo /etc/pass*", "a glob outside the workspace: /etc/pass*"),
    ("echo 'open", "unparsable"),
    ("ls |", "unparsable"),
])
def test_refused_with_the_reason(ws: Path, command: str, reason: str) -> None:
    got = refused(ws, command)
    assert got.startswith("not replayable: ") and reason in got


def test_a_symlink_out_of_the_workspace_is_refused(ws: Path) -> None:
    (ws / "link.txt").symlink_to(ws.parent / "secret.txt")
    assert "outside the workspace" in refused(ws, "cat link.txt")


def test_exec_command_in_a_terminal_or_another_shell_is_refused(ws: Path) -> None:
    with pytest.raises(NotReplayable, match="tty"):
        command_of("exec_command", {"cmd": "ls", "tty": True})
    with pytest.raises(NotReplayable, match="shell pwsh"):
        command_of("exec_command", {"cmd": "ls", "shell": "pwsh"})


def test_workdir_outside_is_refused(ws: Path) -> None:
    c = call(ws, "ls")
    c.args["workdir"] = "/elsewhere"
    assert "workdir outside the workspace" in Shell().run(c).reason


def test_quoted_operators_and_globs_are_data() -> None:
    (_, [cmd]), = parse("rg -n 'a|b' \"*.py\" 2>/dev/null")
    assert [w.text for w in cmd.words] == ["rg", "-n", "a|b", "*.py"] and cmd.drop_err
    assert not any(w.glob for w in cmd.words)


# ------------------------------------------------------------------ the programs

def test_cat_sed_head_tail_nl_wc(ws: Path) -> None:
    assert out(ws, "cat b.txt") == "beta two\n"
    assert out(ws, "sed -n '2,3p' a.txt") == "beta\ngamma\n"
    assert out(ws, "sed -n '4,$p' a.txt") == "delta\nepsilon\n"
    assert out(ws, "sed -n 5p a.txt") == "epsilon\n"
    assert out(ws, "head -n 2 a.txt") == "alpha\nbeta\n"
    assert out(ws, "head -2 a.txt") == "alpha\nbeta\n"
    assert out(ws, "tail -n 1 a.txt") == "epsilon\n"
    assert out(ws, "tail -n +4 a.txt") == "delta\nepsilon\n"
    assert out(ws, "nl -ba b.txt") == "     1\tbeta two\n"
    assert out(ws, "wc -l a.txt") == "5 a.txt\n"


def test_globs_expand_as_bash_would(ws: Path) -> None:
    assert out(ws, "cat *.txt") == "alpha\nbeta\ngamma\ndelta\nepsilon\nbeta two\n"  # sorted, no dotfile
    assert out(ws, "wc -l src/*.py") == "2 src/main.py\n"
    missing = Shell().run(call(ws, "cat *.md"))  # no match: the word stays, cat complains
    assert json.loads(missing.output)["output"] == "cat: '*.md': No such file or directory\n" and missing.is_error
    assert out(ws, "cat '*.txt' || true") == "cat: '*.txt': No such file or directory\n"  # quoted: no expansion


def test_pipelines_and_lists(ws: Path) -> None:
    assert out(ws, "sed -n '1,3p' a.txt | nl -ba | tail -n 1") == "     3\tgamma\n"
    assert out(ws, "rg -l beta | wc -l") == "3\n"  # no dotfile, and `Beta` is another word
    assert out(ws, "cd src && ls && pwd") == f"deep\nmain.py\n{SHOWN}/src\n"
    assert out(ws, "ls missing && echo no") == "ls: cannot access 'missing': No such file or directory\n"
    assert out(ws, "ls missing 2>/dev/null; echo yes") == "yes\n"
    assert out(ws, "ls missing 2>/dev/null || echo fallback") == "fallback\n"
    assert out(ws, "cd nowhere && ls") == "bash: line 1: cd: nowhere: No such file or directory\n"


def test_ls_find(ws: Path) -> None:
    assert out(ws, "ls") == "a.txt\nb.txt\nsrc\n"
    assert out(ws, "ls -a") == ".\n..\n.hidden.txt\na.txt\nb.txt\nsrc\n"
    assert sorted(out(ws, "find . -name '*.py'").split()) == ["./src/deep/x.py", "./src/main.py"]
    assert out(ws, "find src -maxdepth 1 -type f") == "src/main.py\n"
    assert sorted(out(ws, "find . -maxdepth 1 -type d").split()) == [".", "./src"]


def test_rg_and_grep(ws: Path) -> None:
    assert out(ws, "rg -n beta") == "a.txt:2:beta\nb.txt:1:beta two\nsrc/deep/x.py:1:beta = 1\n"
    assert out(ws, "rg -n -i beta src") == "src/deep/x.py:1:beta = 1\nsrc/main.py:2:print('Beta')\n"
    assert out(ws, 'rg -n beta -g"*.py"') == "src/deep/x.py:1:beta = 1\n"
    assert out(ws, "rg --files src") == "src/deep/x.py\nsrc/main.py\n"
    assert out(ws, "rg -n beta a.txt") == "2:beta\n"
    assert out(ws, "rg --hidden -l beta") == ".hidden.txt\na.txt\nb.txt\nsrc/deep/x.py\n"
    assert sorted(out(ws, "grep -rn beta .").split("\n")) == sorted(
        ["./.hidden.txt:1:beta hidden", "./a.txt:2:beta", "./b.txt:1:beta two", "./src/deep/x.py:1:beta = 1", ""])
    assert out(ws, "grep -c beta a.txt b.txt") == "a.txt:1\nb.txt:1\n"
    assert out(ws, f"rg -n beta {SHOWN}/a.txt") == "2:beta\n"
    assert out(ws, f"rg -n alpha {SHOWN}") == f"{SHOWN}/a.txt:1:alpha\n"  # printed under the recorded path


def test_rg_missing_path_message_as_its_walk_prints_it(ws: Path) -> None:
    # rg searching several paths walks them in parallel: `rg: P: No such file…`; one path that is no folder is one
    # search on one thread, as is --sort: `rg: P: IO error for operation on P: …` (both in real recordings)
    got = out(ws, "rg -n beta nope b.txt")
    assert got == "b.txt:1:beta two\nrg: nope: No such file or directory (os error 2)\n"
    one = out(ws, "rg -n beta nope")
    assert one == "rg: nope: IO error for operation on nope: No such file or directory (os error 2)\n"
    assert out(ws, "rg --files src nope") == ("src/deep/x.py\nsrc/main.py\n"
                                             "rg: nope: No such file or directory (os error 2)\n")
    assert "IO error for operation on nope" in out(ws, "rg -n beta --sort path nope b.txt")


def test_echo_pwd_and_an_argv_without_shell(ws: Path) -> None:
    assert out(ws, "echo hi there; echo -n x") == "hi there\nx"
    assert out(ws, "pwd") == SHOWN + "\n"
    assert out(ws, ["cat", "a.txt"]).startswith("alpha\n")
    assert out(ws, ["ls", "*.txt"]) == "ls: cannot access '*.txt': No such file or directory\n"  # no shell: no glob


def test_git_read_only(ws: Path) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(ws)}
    for cmd in (["init", "-q"], ["add", "a.txt"], ["commit", "-qm", "first"]):
        subprocess.run(["git", *cmd], cwd=ws, env=env, check=True)
    (ws / "a.txt").write_text("alpha\n")
    assert out(ws, "git log --format=%s") == "first\n"
    assert out(ws, "git status --short") == " M a.txt\n?? .hidden.txt\n?? b.txt\n?? src/\n"
    assert out(ws, "git diff --stat").startswith(" a.txt | 4 ----")
    assert out(ws, "git show --stat --format=%s HEAD").startswith("first\n")


# ------------------------------------------------------------------ envelopes and cuts per version

def test_json_wrapper(ws: Path) -> None:
    got = Shell().run(call(ws, "cat b.txt", duration="0.04"))
    assert got.output == '{"output":"beta two\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}'
    bad = Shell().run(call(ws, "ls nope", duration="1.25"))
    assert bad.output.endswith('"metadata":{"exit_code":2,"duration_seconds":1.3}}') and bad.is_error


def test_freeform_shell_command(ws: Path) -> None:
    got = ShellCommand().run(call(ws, "head -n 1 a.txt", tool="shell_command", version="0.63.0"))
    assert got.output == "Exit code: 0\nWall time: 0 seconds\nOutput:\nalpha\n"
    unknown = ShellCommand().run(call(ws, "make", tool="shell_command", version="0.63.0"))
    assert unknown.status == "refused" and unknown.reason == "not replayable: unknown program make"
    timed = ShellCommand().run(call(ws, "ls", tool="shell_command", version="0.63.0", duration="2.04"))
    assert timed.output.startswith("Exit code: 0\nWall time: 2 seconds\nOutput:\n")


PROFILE = "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted\n"


def test_the_login_shells_profile_line_is_read_from_the_recording(ws: Path) -> None:
    """macOS recordings of 0.63-0.66 `shell_command` begin every output with what Homebrew's shellenv.sh said
    under Codex's sandbox: machine noise, read from the recording like the wall time, and printed first."""
    recorded = f"Exit code: 0\nWall time: 0.1 seconds\nOutput:\n{PROFILE}alpha\n"
    noise = recorded_noise(recorded)
    assert noise == {"duration": "0.1", "preamble": PROFILE}
    got = ShellCommand().run(call(ws, "head -n 1 a.txt", tool="shell_command", version="0.63.0", **noise))
    assert got.output == recorded
    wrapped = '{"output":"' + PROFILE.replace("\n", "\\n") + 'beta two\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}'
    assert recorded_noise(wrapped)["preamble"] == PROFILE
    # an output whose first line is the command's own (a path and a line number, but no profile's form) is no preamble
    assert "preamble" not in recorded_noise("Exit code: 0\nWall time: 0 seconds\nOutput:\nsrc/a.py:3: x\n")


def test_unified_exec(ws: Path) -> None:
    got = ExecCommand().run(call(ws, "cat b.txt", tool="exec_command", version="0.104.0", chunk_id="ab12cd"))
    assert got.output == ("Chunk ID: ab12cd\nWall time: 0.0000 seconds\nProcess exited with code 0\n"
                          "Original token count: 3\nOutput:\nbeta two\n")
    anon = ExecCommand().run(call(ws, "ls nope", tool="exec_command", version="0.104.0"))
    assert anon.is_error and "\nProcess exited with code 2\n" in anon.output
    assert anon.output.startswith("Chunk ID: ") and len(anon.output.split("\n")[0]) == len("Chunk ID: ") + 6


def _lines(root: Path, n: int) -> None:
    (root / "many.txt").write_text("".join(f"line {i}\n" for i in range(1, n + 1)))


def test_legacy_cut_058_and_044(ws: Path) -> None:
    _lines(ws, 300)
    text = out(ws, "cat many.txt")
    assert text.startswith("Total output lines: 300\n\nline 1\n")
    assert "line 128\n\n[... omitted 44 of 300 lines ...]\n\nline 173\n" in text and text.endswith("line 300\n")
    old = out(ws, "cat many.txt", version="0.44.0")
    assert old.startswith("line 1\n") and "[... omitted 44 of 300 lines ...]" in old


def test_legacy_cut_before_045_joins_lines(ws: Path) -> None:
    # 0.34.0 / 0.36.0 recordings: head and tail read with str::lines() and joined with "\n", so neither keeps its
    # last newline (`…\n[... omitted 4 of 260 lines ...]\n\n…check=True)` with no newline at the end)
    _lines(ws, 300)
    old = out(ws, "cat many.txt", version="0.36.0")
    assert "line 128\n[... omitted 44 of 300 lines ...]\n\nline 173\n" in old and old.endswith("line 300")
    (ws / "crlf.txt").write_bytes(b"".join(b"row %d\r\n" % i for i in range(1, 301)))
    assert out(ws, "cat crlf.txt", version="0.36.0").endswith("row 299\nrow 300")  # lines() drops the \r too


def test_legacy_byte_cut_marker_by_version(ws: Path) -> None:
    # 200 lines of 60 bytes: over 10 KiB, under 256 lines. 0.34 - 0.47 recordings say `omitted 0`, 0.48 - 0.58 the
    # byte marker (openai/codex#5451)
    (ws / "wide.txt").write_text("".join(f"{i:03d} {'x' * 55}\n" for i in range(200)))
    for version in ("0.36.0", "0.47.0"):
        assert "\n[... omitted 0 of 200 lines ...]\n\n" in out(ws, "cat wide.txt", version=version)
    assert out(ws, "cat wide.txt", version="0.47.0").startswith("Total output lines: 200\n\n000 ")
    assert "\n[... output truncated to fit 10240 bytes ...]\n\n" in out(ws, "cat wide.txt", version="0.48.0")


def test_policy_cut_by_version(ws: Path) -> None:
    _lines(ws, 30)
    mid = out(ws, "cat many.txt", version="0.63.0", truncation_policy="bytes:100")
    assert mid.startswith("Total output lines: 30\n\nline 1\n") and "chars truncated…" in mid
    warned = out(ws, "cat many.txt", version="0.141.0", truncation_policy="tokens:25")
    # 231 bytes: ceil(231 / 4) = 58 tokens; 131 bytes over the 100-byte budget: 33 tokens cut
    assert warned.startswith("Warning: truncated output (original token count: 58)\nTotal output lines: 30\n\n")
    assert "…33 tokens truncated…" in warned
    assert out(ws, "cat many.txt", version="0.63.0", truncation_policy='{"mode": "bytes", "limit": 10000}') \
        == (ws / "many.txt").read_text()
    forced = out(ws, "cat many.txt", version="0.63.0", truncation="legacy")
    assert forced == (ws / "many.txt").read_text()  # within 10 KiB and 256 lines


def test_freeform_and_unified_cuts(ws: Path) -> None:
    _lines(ws, 30)
    free = ShellCommand().run(call(ws, "cat many.txt", tool="shell_command", version="0.63.0",
                                   truncation_policy="bytes:100")).output
    assert free.startswith("Exit code: 0\nWall time: 0 seconds\nTotal output lines: 30\nOutput:\nline 1\n")
    exe = ExecCommand().run(call(ws, "cat many.txt", tool="exec_command", version="0.104.0", chunk_id="x",
                                 max_output_tokens="20")).output
    assert "Original token count: 58\nOutput:\nTotal output lines: 30\n\nline 1\n" in exe
    assert "…38 tokens truncated…" in exe  # 151 bytes over 80


def test_noise_helpers() -> None:
    wrapped = '{"output":"x","metadata":{"exit_code":0,"duration_seconds":0.3}}'
    assert recorded_noise(wrapped) == {"duration": "0.3"}
    assert without_noise(wrapped) == '{"output":"x","metadata":{"exit_code":0,"duration_seconds":_}}'
    unified = "Chunk ID: 1a2b3c\nWall time: 0.0123 seconds\nProcess exited with code 0\nOutput:\nWall time: 9 seconds"
    assert recorded_noise(unified) == {"duration": "0.0123", "chunk_id": "1a2b3c"}
    assert without_noise(unified) == ("Chunk ID: _\nWall time: _ seconds\nProcess exited with code 0\n"
                                      "Output:\nWall time: 9 seconds")


def test_local_shell_and_arguments_as_text(ws: Path) -> None:
    action = {"type": "exec", "command": ["bash", "-lc", "head -n 1 a.txt"], "working_directory": SHOWN + "/src"}
    c = call(ws, "x")
    got = EMULATIONS[("codex", "local_shell")]().run(Call("local_shell", action, ws, SHOWN, "0.46.0", Sandbox(ws),
                                                         {"duration": "0"}))
    assert got.output == '{"output":"head: cannot open \'a.txt\' for reading: No such file or directory\\n",' \
        '"metadata":{"exit_code":1,"duration_seconds":0.0}}'
    text = Shell().run(Call("shell", json.dumps(c.args), ws, SHOWN, "0.58.0", Sandbox(ws), {"duration": "0"}))
    assert text.status == "refused" and "unknown program x" in text.reason


def test_registered() -> None:
    assert {("codex", t) for t in ("shell", "local_shell", "shell_command", "exec_command")} <= set(EMULATIONS)


# ------------------------------------------------------------------ identity with the recording

def _materialise(doc: dict, root: Path) -> None:
    for d in doc["dirs"]:
        (root / d).mkdir(parents=True, exist_ok=True)
    for e in doc["empty"]:
        (root / e).parent.mkdir(parents=True, exist_ok=True)
        (root / e).touch()
    for path, f in doc["files"].items():
        lines = {int(k): v for k, v in f["lines"].items()}
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("".join(lines.get(i, "") + "\n" for i in range(1, f["end"] + 1)))


FIXTURE_DOC = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("recorded", FIXTURE_DOC["calls"], ids=lambda c: c["arguments"]["command"][2])
def test_byte_identical_to_the_recording(tmp_path: Path, recorded: dict) -> None:
    doc, root = FIXTURE_DOC, tmp_path / "chatbot-ui"
    root.mkdir()
    _materialise(doc, root)
    c = Call(tool=doc["tool"], args=recorded["arguments"], root=root, cwd=doc["cwd"], version=doc["version"],
             sandbox=Sandbox(root), params=recorded_noise(recorded["output"]), call_id=recorded["call_id"])
    got = Shell().run(c)
    assert got.output == recorded["output"]
    assert got.is_error == ('"exit_code":0,' not in recorded["output"][-60:])
