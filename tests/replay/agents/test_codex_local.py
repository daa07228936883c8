"""A Codex shell command reading what no commit holds: the commands are EntityProcess/agentv's (Codex 0.140.0
entire/checkpoints/v1:1f/4427577930, `sed -n '1,120p' .git/hooks/pre-push`; 0.141.0 88/8ba8f699fb,
`sed -n '1,220p' .beads/README.md`, which .beads/.gitignore ignores; 0.142 `cat .workmux.yaml`, ignored by
.gitignore), on a small tree of ours."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand
from toolaudit.replay.base import Sandbox

CWD = "/home/entity/projects/EntityProcess/agentv"


def _run(root: Path, command: str):
    args = {"cmd": command, "workdir": CWD, "yield_time_ms": 10000, "max_output_tokens": 12000}
    return ExecCommand().run(Call(tool="exec_command", args=args, root=root, cwd=CWD, version="0.141.0",
                                  sandbox=Sandbox(root), params={"duration": "0"}, session="s", call_id="c1",
                                  model="gpt-5.5"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "agentv"
    (root / ".beads").mkdir(parents=True)
    (root / ".gitignore").write_text(".workmux.yaml\n")
    (root / ".beads/.gitignore").write_text("# Generated local docs/export snapshots\nREADME.md\n")
    (root / "README.md").write_text("# AgentV\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.mark.parametrize(("command", "named"), [
    ("sed -n '1,120p' .git/hooks/pre-push", ".git/hooks/pre-push"),
    ("rg -n \"prek|pre-commit\" .git/hooks || true", ".git/hooks"),
    ("sed -n '1,220p' .beads/README.md", ".beads/README.md"),
    ("cat .workmux.yaml", ".workmux.yaml"),
])
def test_a_read_of_what_no_commit_holds_is_not_replayable(repo: Path, command: str, named: str) -> None:
    got = _run(repo, command)
    assert got.status == "refused" and got.reason.startswith(f"not replayable: reads {named}"), got.reason


def test_a_tracked_or_present_file_is_read(repo: Path) -> None:
    assert _run(repo, "sed -n '1,20p' README.md").status == "replayed"
    assert _run(repo, "cat notes.md").status == "replayed"  # missing, not ignored: a start-state question
    (repo / ".workmux.yaml").write_text("windows: []\n")  # the session's own edit made it
    assert _run(repo, "cat .workmux.yaml").status == "replayed"


def test_a_long_listing_is_the_machines_and_an_empty_one_is_replayed(repo: Path) -> None:
    """agentv's 0.141.0 `ls -la` named its owner `entity` and its folders' times: no checkout prints them."""
    got = _run(repo, "ls -la")
    assert got.status == "refused" and got.reason == "not replayable: ls -l: the recording machine's owners, " \
                                                     "groups and times"
    assert _run(repo, "ls -la todos/ 2>/dev/null || echo TODOS_DIR_NOT_FOUND").status == "replayed"
    assert _run(repo, "ls -a").status == "replayed"
