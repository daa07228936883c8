"""A Codex shell call is doubted by the paths it reads when every uncertain path of the state is one the checkout
does not track: entireio/external-agents' Codex 0.121.0 session 019da9c1 (entire/checkpoints/v1:2f/9ea0aa2380/0,
MIT) began with `git status --short` printing `?? .codex/` and `?? .pi/`, an untracked folder that made every later
shell call uncertain; its `sed -n '1,220p' mise.toml` reads a tracked file the folder says nothing of."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from toolaudit.model import ToolCall
from toolaudit.replay.agents.codex_reads import reads
from toolaudit.replay.calls import _paths
from toolaudit.replay.start_state import read
from toolaudit.replay.state import SessionState

CWD = "/Users/soph/Work/entire/devenv/external-agents"
STATUS = ("Chunk ID: 9f70dd\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 5\n"
          "Output:\n?? .codex/\n?? .pi/\n")


@pytest.mark.parametrize(("command", "paths"), [
    ("sed -n '1,220p' mise.toml", ["mise.toml"]),
    ("nl -ba agents/a.go | sed -n '5,9p'", ["agents/a.go"]),
    ("cd agents && cat a.go b.go", ["agents/a.go", "agents/b.go"]),
    ("rg -n 'func main' agents cmd", ["agents", "cmd"]),
    ("rg --files -g 'mise.toml' -g 'README*'", ["."]),
    ("ls -la", ["."]), ("ls docs/*.md", ["docs"]), ("grep -rn x .", ["."]),
    ("git status --short", ["."]), ("git diff", ["."]), ("git show 1234567:a.go | head -5", []),
    ("git log --oneline -5", []), ("pwd && echo ok", []),
])
def test_what_a_command_reads(command, paths):
    assert reads(command, CWD) == [f"{CWD}/{p}".rstrip("/.") if p != "." else CWD for p in paths]


@pytest.mark.parametrize("command", ["mise run test-all", "go test ./...", "cat a > b", "cat $(ls)"])
def test_what_it_cannot_say_is_left_to_the_whole_folder(command):
    assert reads(command, CWD) is None


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "external-agents"
    repo.mkdir()
    (repo / "mise.toml").write_text("[tools]\ngo = '1.24'\n")
    (repo / ".pi").mkdir()
    (repo / ".pi" / "settings.json").write_text("{}\n")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(repo), "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q"], ["add", "mise.toml"], ["commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def _exec(command: str, output: str = "", line: int = 1) -> ToolCall:
    return ToolCall("r.jsonl", line, "codex", "s", "exec_command", output, f"c{line}",
                    args=json.dumps({"cmd": command, "workdir": CWD}))


def _doubt(state: SessionState, command: str) -> str | None:
    return state.doubt(_paths({"cmd": command, "workdir": CWD}, "exec_command", state))


def test_an_untracked_folder_doubts_only_the_calls_that_read_it(tmp_path):
    state = SessionState(_repo(tmp_path), CWD)
    state.prime(read([_exec("git status --short", STATUS)], CWD))
    assert _doubt(state, "sed -n '1,220p' mise.toml") is None
    assert _doubt(state, "cat .pi/settings.json").startswith("uncertain: .pi")
    assert _doubt(state, "rg --files -g 'mise.toml'") is not None  # a walk of the folder reads .pi too


def test_a_tracked_file_uncertain_from_the_start_doubts_every_shell_call(tmp_path):
    state = SessionState(_repo(tmp_path), CWD)
    status = STATUS.replace("?? .pi/", " M mise.toml\n?? .pi/")
    state.prime(read([_exec("git status --short", status)], CWD))
    assert _doubt(state, "cat .pi/settings.json") is not None
    assert _doubt(state, "git log --oneline -5") is not None  # the tree held other work than the commit's


def test_a_tracked_file_only_the_session_may_have_written_doubts_only_the_calls_that_read_it(tmp_path):
    """Real-s/mini-simclr-assignment (Codex 0.142, Windows): a script the session wrote with `@'…'@ | Set-Content`
    made code/linear_probe.py uncertain, and every later read of the session was set aside with it."""
    repo = _repo(tmp_path)
    (repo / "README.md").write_text("# x\n")
    state = SessionState(repo, CWD)
    state.record(_exec("python tools/fmt.py mise.toml", "", 2))  # a program replay cannot read, naming the file
    assert _doubt(state, "cat mise.toml").startswith("uncertain: mise.toml")
    assert _doubt(state, "cat README.md") is None
    assert _doubt(state, "git log --oneline -5") is None
    # a recorded edit that did not apply to it says the start held other work: every shell call again
    state.record(ToolCall("r.jsonl", 3, "codex", "s", "apply_patch", "Success", "c3", args=json.dumps({"input": (
        "*** Begin Patch\n*** Update File: mise.toml\n@@\n-nothing like it\n+x\n*** End Patch\n")})))
    assert "did not apply" in state.uncertain["mise.toml"] and _doubt(state, "cat README.md") is not None


def test_a_workdir_above_the_repository_is_doubted_as_the_whole_folder(tmp_path):
    # kv-248/TeacherEvaluation's Codex 0.115 sessions ran in /workspace, the repository placed at
    # /workspace/TeacherEvaluation (replay.nested_repo), every command's workdir /workspace: after an edit that did
    # not apply to a tracked file, their reads were doubted by that workdir, which the replay folder does not hold, so
    # by nothing (47 start-state misses compared)
    state = SessionState(_repo(tmp_path), CWD)
    state.prime(read([_exec("git status --short", STATUS.replace("?? .pi/", " M mise.toml\n?? .pi/"))], CWD))
    above = CWD.rsplit("/", 1)[0]
    paths = _paths({"cmd": f"sed -n '1,20p' {CWD}/mise.toml", "workdir": above}, "exec_command", state)
    assert paths == [CWD] and state.doubt(paths) is not None
    assert _paths({"cmd": "ls", "workdir": "/elsewhere"}, "exec_command", state) == ["/elsewhere"]  # beside: as it is
