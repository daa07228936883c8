"""A walk's order cut by `head`: rg (walking in parallel), `grep -r` and find print files in an order the recording
does not keep; replay sorts them, and a cut after that keeps other lines than the recording's. Entireio/git-sync's
Codex 0.126 session 019ddba6-d9ca-71d2-89c3-5dd074c317b3 (entire/checkpoints/v1:8a/21e9e6fa95/1) ran
`pwd && rg --files -g '!*node_modules*' | head -80` over a tree of more than 80 files: which 80 its walk gave first is
the recording machine's."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand
from toolaudit.replay.base import Sandbox

CWD = "/Users/rizel/git-sync"


def _run(root: Path, command: str):
    args = {"cmd": command, "workdir": CWD}
    return ExecCommand().run(Call(tool="exec_command", args=args, root=root, cwd=CWD, version="0.126.0",
                                  sandbox=Sandbox(root), params={"duration": "0"}, session="s", call_id="c1"))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for name in ("a.go", "b.go", "c.go", "docs/x.md", "docs/y.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("package x\n")
    return root


@pytest.mark.parametrize("command", [
    "pwd && rg --files -g '!*node_modules*' | head -3",  # the recorded command's form, on a smaller tree
    "rg -n package | head -2", "grep -rn package . | head -n 2", "find . -name '*.go' | sed -n '1,2p'",
    "rg --files | tail -2",
])
def test_a_cut_of_a_walks_output_is_not_replayable(tree: Path, command: str) -> None:
    got = _run(tree, command)
    assert got.status == "refused" and "cut" in got.reason and "walk" in got.reason, got


@pytest.mark.parametrize("command", [
    "rg --files | head -80",  # nothing cut: every file is there, in replay's order (reported as reordered)
    "rg --sort path --files | head -3",  # the recording sorted too
    "rg --files | wc -l", "ls | head -2", "rg -n package a.go | head -1",  # no walk: one file
])
def test_no_cut_or_no_walk_is_replayed(tree: Path, command: str) -> None:
    got = _run(tree, command)
    assert got.status == "replayed", got.reason


def test_exec_command_reports_the_reason_as_not_replayable(tree: Path) -> None:
    got = _run(tree, "rg --files | head -2")
    assert got.status == "refused" and got.reason.startswith("not replayable: head cut rg's output")
