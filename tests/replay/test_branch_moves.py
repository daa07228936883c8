"""A session whose recorded git branch changed with no checkout among its commands (the user switched branch in
another terminal): the files after the change are another commit's, so the calls after it are set aside with the
branch named (replay.branch_moves), and the calls before it are compared."""

from __future__ import annotations

from pathlib import Path

from conftest import committed_repo

import toolaudit
from toolaudit.collectors import discover
from toolaudit.model import SessionInfo
from toolaudit.replay.branch_moves import moved

# entireio/git-sync (MIT): four lines of one session; see the folder's README
SESSION = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "claude-code-branch-moved" / "session.jsonl"
CHANGED = "2026-04-15T11:47:31.144Z"  # the first line recorded on main


def _info() -> SessionInfo:
    cls, doc = discover.detect(SESSION, None)
    return next(r for r in cls().records(SESSION, doc) if isinstance(r, SessionInfo))


def test_the_collector_keeps_each_change_of_the_recorded_branch():
    info = _info()
    assert info.branch == "soph/plan-optimization"
    assert info.branches == ((CHANGED, "main"),)


def test_the_files_are_unknown_from_the_change_on():
    info = _info()
    assert moved(info, "2026-04-15T08:18:14.403Z") is None  # the Glob, on the branch it began on
    why = moved(info, "2026-04-15T11:47:31.147Z")  # the Read's result
    assert why is not None and "from soph/plan-optimization to main at 2026-04-15T11:47:31.144Z" in why


def test_a_branch_that_changes_back_is_still_a_change():
    # soph/x -> main -> soph/x: the second checkout may have moved the files as well (another commit of soph/x)
    info = SessionInfo("s", "s", "/w", branch="soph/x", branches=(("T1", "main"), ("T2", "soph/x")))
    assert moved(info, "T0") is None and "to main at T1" in moved(info, "T3")


def test_replay_sets_the_read_after_the_change_aside_and_compares_the_glob(tmp_path):
    repo = tmp_path / "repo"
    committed_repo(repo, {"cmd/git-sync/main.go": "package main\n",
                          "internal/strategy/bootstrap/bootstrap.go": "package bootstrap\n"})
    result = toolaudit.replay([str(SESSION)], workspace=str(repo), identity=True)
    rows = {row.tool: row for row in result.identity.tools}
    assert rows["Glob"].replayed == 1
    assert rows["Read"].replayed == 0
    assert any("recorded git branch changed from soph/plan-optimization to main" in reason
               for reason, _ in rows["Read"].reasons)
