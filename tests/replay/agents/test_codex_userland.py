"""macOS's own programs word a missing path otherwise than the GNU ones replay runs (agents.codex_userland).

jdx/mise's Codex 0.142.5 sessions (MIT; entire/checkpoints/v1:08/f468d8cae5/0 and ad/8a00fb57ea/0) ran on a Mac,
in a worktree whose checkout lacked `e2e/run` and a build's `target/debug/mise`: BSD sed and ls answered with the
path bare and exit code 1, where GNU's say `can't read` / `cannot access '…'` and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand
from toolaudit.replay.agents.codex_userland import as_userland, recorded_userland
from toolaudit.replay.base import Sandbox

CWD = "/Users/jdx/.codex/worktrees/418c/mise"
SED = ("Chunk ID: f99d7b\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 10\n"
       "Output:\nsed: e2e/run: No such file or directory\n")
LS = ("Chunk ID: 2c3cb1\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 13\n"
      "Output:\nls: target/debug/mise: No such file or directory\n")


def _replay(root: Path, command: str, recorded: str):
    emulation = ExecCommand()
    call = Call(tool="exec_command", args={"cmd": command, "workdir": CWD}, root=root, cwd=CWD, version="0.142.5",
                sandbox=Sandbox(root), session="s", call_id="c1", model="gpt-5.5")
    params = {**emulation.from_recording(recorded, call), "duration": "0.0000",
              "chunk_id": recorded.split("\n")[0].removeprefix("Chunk ID: ")}
    return emulation.run(Call(**{**call.__dict__, "params": params}))


@pytest.mark.parametrize(("command", "recorded"), [("sed -n '1,220p' e2e/run", SED), ("ls -l target/debug/mise", LS)])
def test_a_missing_path_is_answered_as_the_mac_answered(tmp_path: Path, command: str, recorded: str):
    (tmp_path / "README.md").write_text("x\n")
    got = _replay(tmp_path, command, recorded)
    assert got.output == recorded and got.is_error  # before: GNU's words and exit code 2


def test_a_gnu_recording_keeps_gnu_words(tmp_path: Path):
    # a Mac with GNU coreutils first on its PATH (yyopc/yyork's nix shell) recorded the GNU form: nothing changes
    gnu = SED.replace("code 1", "code 2").replace("sed: e2e/run", "sed: can't read e2e/run").replace(": 10", ": 12")
    assert recorded_userland(gnu) == {}
    assert "can't read e2e/run" in _replay(tmp_path, "sed -n '1,220p' e2e/run", gnu).output


@pytest.mark.parametrize(("gnu", "code", "command", "bsd", "exit_code"), [
    ("ls: cannot access 'New project/x': No such file or directory\n", 2, "ls -la 'New project/x'",
     "ls: New project/x: No such file or directory\n", 1),
    ("find: ‘a/b’: No such file or directory\n", 1, "find a/b -type f", "find: a/b: No such file or directory\n", 1),
    ("head: cannot open 'x' for reading: No such file or directory\n", 1, "head -5 x",
     "head: x: No such file or directory\n", 1),
    ("du: cannot access 'x': No such file or directory\n", 1, "du -sh x", "du: x: No such file or directory\n", 1),
    # the exit code is the last command's: a pipe's reader, or a program that is neither ls nor sed
    ("ls: cannot access 'x': No such file or directory\n", 2, "cat a && ls x | wc -l",
     "ls: x: No such file or directory\n", 2),
    ("sed: can't read x: No such file or directory\n", 2, "cd src && FOO=1 sed -n 1p x",
     "sed: x: No such file or directory\n", 1),
    ("ls: cannot access 'x': No such file or directory\n", 2, "ls -la x 2>&1",
     "ls: x: No such file or directory\n", 1),  # a redirection's `&` separates nothing
])
def test_each_program_s_words(gnu: str, code: int, command: str, bsd: str, exit_code: int):
    assert as_userland(gnu, code, command, {"userland": "bsd"}) == (bsd, exit_code)
    assert as_userland(gnu, code, command, {}) == (gnu, code)  # not recorded on a Mac's own programs
