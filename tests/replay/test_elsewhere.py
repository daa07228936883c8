"""A Codex shell call run in another repository than the session's folder says nothing of that folder.

Cut from chikachow/cyspbot's (MIT License, Copyright (c) 2026 cysp) Codex 0.142 rollout 019f21d1… (Entire's imported checkpoint 01/0a8005d4ec01): the
session worked in /Users/cysp/src/cyspbot and ran `git status --short` in both repositories, one call each; the second
listed the other repository's changes (` M README.md`, ` M action.yml`), which replay read as the session's own.
"""

from __future__ import annotations

import json

import pytest

from toolaudit.model import ToolCall
from toolaudit.replay.elsewhere import elsewhere
from toolaudit.replay.recorded_base import listed_as_changed
from toolaudit.replay.start_state import read
from toolaudit.replay.state import SessionState

CWD = "/Users/cysp/src/cyspbot"
OTHER = "/Users/cysp/src/cyspbot-app-token-action"
ENVELOPE = ("Chunk ID: 5ce8c5\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 23\n"
            "Output:\n")


def _exec(cmd: str, workdir: str | None, output: str = "", line: int = 1) -> ToolCall:
    args = {"cmd": cmd, **({"workdir": workdir} if workdir else {})}
    return ToolCall("r.jsonl", line, "codex", "s", "exec_command", ENVELOPE + output, f"c{line}",
                    args=json.dumps(args))


@pytest.mark.parametrize(("workdir", "cwd", "outside"), [
    (OTHER, CWD, True),  # a sibling whose name starts with the session's
    (CWD, CWD, False), (CWD + "/workers", CWD, False), ("workers", CWD, False), (None, CWD, False),
    ("/private/tmp/cyspbot-module-exp/source", CWD, True), (OTHER, None, False),
    ("d:\\ripple\\web", "D:\\Ripple", False), ("C:\\Users\\HP\\.codex", "D:\\Ripple", True),
])
def test_a_workdir_outside_the_sessions_folder(workdir, cwd, outside):
    assert elsewhere(_exec("git status --short", workdir), cwd) is outside


def test_another_repositorys_status_is_not_the_sessions_start():
    here = _exec("git status --short", CWD, " M docs/implementation.md\n?? .pnpm-store/\n", 1)
    there = _exec("git status --short", OTHER, " M README.md\n M action.yml\n M src/action.ts\n", 2)
    start = read([here, there], CWD)
    assert set(start.changed) == {"docs/implementation.md", ".pnpm-store/"}
    assert listed_as_changed([here, there], CWD) == {"docs/implementation.md"}
    # without the session's folder nothing is told apart: the other's status, run first, is read as the start
    assert "README.md" in read([there, here], None).changed


def test_a_command_in_another_repository_changes_nothing_here(tmp_path):
    state = SessionState(tmp_path, CWD)
    state.record(_exec("git merge --ff-only origin/main", OTHER, "Already up to date.\n"))
    state.record(_exec("rm -rf dist", OTHER))
    assert not state.everything and not state.uncertain
    state.record(_exec("rm -rf dist", CWD, "", 3))
    assert "dist" in state.uncertain
