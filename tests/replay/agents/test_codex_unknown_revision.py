"""A git command naming a commit only the recording machine had: Real-s/mini-simclr-assignment (Codex 0.142 on Windows,
entire/checkpoints/v1:3d/78d3170b07/0) ran `git show --stat --oneline -1 3ab9bbc`, a commit its public history lacks
(amended or never pushed); on a small repository of ours."""

from __future__ import annotations

import subprocess
from pathlib import Path

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand, ShellCommand
from toolaudit.replay.base import Sandbox

CWD = "D:\\Desktop\\MedAI\\mini-simclr-assignment"
SHOWN = ("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n3ab9bbc fix: entire\n .entire/.gitignore | 10 +--\n"
         " 1 file changed, 5 insertions(+), 5 deletions(-)\n")
# PowerShell's exit code for a failed last command is 1, git's 128 aside (agents.codex_windows)
REFUSED = ("Exit code: 1\nWall time: 0.1 seconds\nOutput:\nfatal: ambiguous argument '3ab9bbc': unknown revision or "
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


def test_a_path_in_a_commit_the_replay_repository_lacks_is_not_replayable(tmp_path: Path) -> None:
    """chikachow/cyspbot's (MIT) Codex 0.142 `git show c3f1dae^:.github/workflows/deploy.yml` (a commit its public history
    lacks), which git answers `fatal: invalid object name 'c3f1dae^'.`"""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    c = Call(tool="exec_command", args={"cmd": "git show c3f1dae^:.github/workflows/deploy.yml"}, root=tmp_path,
             cwd="/Users/cysp/src/cyspbot", version="0.142.4", sandbox=Sandbox(tmp_path), session="s", call_id="c1")
    recorded = ("Chunk ID: 5f6619\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 262\n"
                "Output:\nname: deploy\n\non:\n  workflow_run:\n")
    params = ExecCommand().from_recording(recorded, c)
    got = ExecCommand().run(Call(**{**c.__dict__, "params": params}))
    assert got.status == "refused" and got.reason.startswith("not replayable: git names c3f1dae^"), got.reason


def test_rev_parse_of_head_or_an_id_is_replayed_and_of_a_ref_is_not(tmp_path: Path) -> None:
    """`git rev-parse --short HEAD` and `git rev-parse HEAD` (entireio/git-sync's and agentv's Codex sessions): HEAD's
    id, the abbreviation at the recorded length; `git rev-parse --verify main` names the recording machine's ref."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_AUTHOR_DATE": "2026-06-16T17:00:00Z", "GIT_COMMITTER_DATE": "2026-06-16T17:00:00Z", "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "c"]):
        subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout.strip()

    def replay(command: str, printed: str):
        recorded = f"Exit code: 0\nWall time: 0 seconds\nOutput:\n{printed}"
        c = Call(tool="shell_command", args={"command": command}, root=tmp_path, cwd=str(tmp_path),
                 version="0.142.4", sandbox=Sandbox(tmp_path), session="s", call_id="c1")
        return ShellCommand().run(Call(**{**c.__dict__, "params": {**ShellCommand().from_recording(recorded, c),
                                                                   "duration": "0"}})), recorded

    for command, printed in (("git rev-parse HEAD", head + "\n"), ("git rev-parse --short HEAD", head[:9] + "\n")):
        got, recorded = replay(command, printed)
        assert got.status == "replayed" and got.output == recorded, got.output
    got, _ = replay("git rev-parse --verify main", head + "\n")
    assert got.status == "refused" and "only commit ids of HEAD" in got.reason
