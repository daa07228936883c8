"""A session whose recorded git branch changed with no checkout among its commands (the user switched branch in
another terminal): the files after the change are another commit's, so the calls after it are set aside with the
branch named (replay.branch_moves), and the calls before it are compared."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import committed_repo

import toolaudit
from toolaudit.collectors import discover
from toolaudit.model import SessionInfo, ToolCall
from toolaudit.replay.branch_moves import moved, own

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


def _bash(command: str, ts: str) -> ToolCall:
    return ToolCall("s.jsonl", 1, "claude-code", "s", "Bash", "", args=json.dumps({"command": command}), ts=ts)


# The shape of Esdeveniments/esdeveniments-frontend's checkpoint 16/5ffd8c340f16 (Claude Code 2.1.221, written here
# from what its lines show, not copied): the text line of the response that holds `git checkout -b` is stamped with
# the new branch at 08:07:49.270Z, half a second before the call itself (08:07:49.767Z) ran it.
OWN = SessionInfo("s.jsonl", "s", "/w", branch="develop",
                  branches=(("2026-08-04T08:07:49.270Z", "feat/mobile-nav-profile-header"),))


def test_a_branch_change_the_sessions_own_checkout_made_is_no_move():
    calls = [_bash("git status --short && git branch --show-current", "2026-08-04T08:07:41.121Z"),
             _bash("git checkout -b feat/mobile-nav-profile-header", "2026-08-04T08:07:49.767Z")]
    own_moves = own(OWN, calls)
    assert own_moves == {"2026-08-04T08:07:49.270Z"}
    assert moved(OWN, "2026-08-04T08:10:00.000Z", own_moves) is None
    assert "to feat/mobile-nav-profile-header" in moved(OWN, "2026-08-04T08:10:00.000Z")  # without: a move


def test_a_checkout_of_another_branch_or_of_paths_makes_no_change_its_own():
    for command in ("git checkout -b other", "git checkout -- feat/mobile-nav-profile-header",
                    "git stash && git status"):
        assert own(OWN, [_bash(command, "2026-08-04T08:07:49.767Z")]) == frozenset()
    far = [_bash("git status", "2026-08-04T08:07:49.767Z"),  # the call next to the change is not the checkout
           _bash("git switch -c feat/mobile-nav-profile-header", "2026-08-04T08:09:00.000Z")]
    assert own(OWN, far) == frozenset()
    assert own(OWN, [_bash("git switch -c feat/mobile-nav-profile-header", "2026-08-04T08:07:49.100Z")]) == \
        {"2026-08-04T08:07:49.270Z"}  # the usual order: the command, then lines stamped with its branch
