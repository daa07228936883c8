"""A git command naming a commit only the recording machine had: Real-s/mini-simclr-assignment (Codex 0.142 on Windows,
entire/checkpoints/v1:3d/78d3170b07/0) ran `git show --stat --oneline -1 3ab9bbc`, a commit its public history lacks
(amended or never pushed); on a small repository of ours."""

from __future__ import annotations

import subprocess
from pathlib import Path

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ShellCommand
from toolaudit.replay.base import Sandbox

CWD = "D:\\Desktop\\MedAI\\mini-simclr-assignment"
SHOWN = ("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n3ab9bbc fix: entire\n .entire/.gitignore | 10 +--\n"
         " 1 file changed, 5 insertions(+), 5 deletions(-)\n")
REFUSED = ("Exit code: 128\nWall time: 0.1 seconds\nOutput:\nfatal: ambiguous argument '3ab9bbc': unknown revision or "
           "path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n"
           "'git <command> [<revision>...] -- [<file>...]'\n")


def _replay(root: Path, recorded: str):
    c = Call(tool="shell_command", args={"command": "git show --stat --oneline -1 3ab9bbc"}, root=root, cwd=CWD,
             version="0.142.4", sandbox=Sandbox(root), session="s", call_id="c1")
    params = ShellCommand().from_recording(recorded, c)
    return ShellCommand().run(Call(**{**c.__dict__, "params": {**params, "duration": "0.1"}}))


def test_a_commit_the_replay_repository_lacks_is_not_replayable(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    got = _replay(tmp_path, SHOWN)
    assert got.status == "refused" and got.reason.startswith("not replayable: git names 3ab9bbc"), got.reason
    # the recording shows git refusing it too: replayed and compared
    got = _replay(tmp_path, REFUSED)
    assert got.status == "replayed" and got.output == REFUSED
