"""The commits a Codex session's user wrote on its branch while it waited move the replay's worktree before the next
call, as high as a HEAD the session's own `git log` shows.

The shape is entireio/skills' Codex 0.125 rollout 019dc0d3… (entire/checkpoints/v1:1f/76301dbef6/0, MIT): it began on
667da6d of its branch add-what-happened-skill, listed `?? plugins/entire/skills/what-happened/`, its user committed
that folder between two turns (9a3cc84, 20:05:56), and its `git log --oneline -1` at 20:14 printed the commit above
it; made small, the times its own.
"""

from __future__ import annotations

import json

from conftest import committed_repo, run_git

from toolaudit.model import ToolCall
from toolaudit.replay.later_commits import LaterCommits, follow, heads_shown
from toolaudit.replay.state import SessionState

BRANCH = "add-what-happened-skill"
FIRST_TURN = "2026-04-24T18:53:05.000Z"
NEXT_TURN = "2026-04-24T20:07:07.000Z"


def _call(cmd: str, ts: str, output: str = "", line: int = 1) -> ToolCall:
    return ToolCall("r.jsonl", line, "codex", "s", "exec_command", "Process exited with code 0\nOutput:\n" + output,
                    f"c{line}", args=json.dumps({"cmd": cmd}), ts=ts)


def _log(head: str, line: int = 9) -> ToolCall:
    return _call("git log --oneline -1", "2026-04-24T20:14:32.000Z", f"{head[:7]} Improve fallback responses\n", line)


def _commit(repo, files: dict[str, str], when: str, message: str) -> str:
    for rel, text in files.items():
        (repo / rel).write_text(text)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", message, f"--date={when}")
    return run_git(repo, "rev-parse", "HEAD")


def _session(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {"SKILL.md": "v1\n", "README.md": "skills\n"})
    run_git(repo, "commit", "-q", "--amend", "--no-edit", "--date=2026-04-24T10:00:00Z")
    run_git(repo, "branch", "-M", BRANCH)
    return repo, run_git(repo, "rev-parse", "HEAD")


def _two_commits(repo, start):
    user = _commit(repo, {"what-happened.md": "the skill\n", "SKILL.md": "v2\n"}, "2026-04-24T20:05:56Z",
                   "Add initial what happened skill")
    own = _commit(repo, {"what-happened.md": "the skill, improved\n"}, "2026-04-24T20:14:11Z", "Improve fallback")
    run_git(repo, "checkout", "-q", "--detach", start)
    return user, own


def test_a_session_follows_what_its_user_committed_between_two_turns(tmp_path):
    repo, start = _session(tmp_path)
    user, own = _two_commits(repo, start)
    (repo / "notes.md").write_text("the session's own file\n")  # never committed: kept
    state = SessionState(repo, "/Users/sven/skills")
    state.uncertain.update({"what-happened.md": "listed untracked", "notes.md": "listed untracked"})
    moves = LaterCommits(repo, start, BRANCH, [_log(own)])
    follow(moves, state, _call("rg --files", FIRST_TURN))
    assert not moves.moved and (repo / "SKILL.md").read_text() == "v1\n"  # nothing written before it yet
    follow(moves, state, _call("nl -ba what-happened.md", NEXT_TURN, line=2))
    assert moves.moved == [user] and run_git(repo, "rev-parse", "HEAD") == user
    assert (repo / "SKILL.md").read_text() == "v2\n" and (repo / "notes.md").exists()
    assert list(state.uncertain) == ["notes.md"]  # the folder it committed is certain again
    # the session's own commit, written while its `git commit` ran, is no wait's
    follow(moves, state, _call('git commit -m "Improve fallback"', "2026-04-24T20:14:12.000Z", line=3))
    assert moves.moved == [user] and not state.everything


def test_nothing_is_followed_past_a_head_the_session_showed_or_on_another_branch(tmp_path):
    repo, start = _session(tmp_path)
    user, own = _two_commits(repo, start)
    for branch, calls in ((BRANCH, []), (BRANCH, [_log(start)]), ("gone", [_log(own)]), (None, [_log(own)])):
        moves = LaterCommits(repo, start, branch, calls)
        state = SessionState(repo, "/Users/sven/skills")
        follow(moves, state, _call("rg --files", NEXT_TURN))
        assert not moves.moved and not state.everything
    assert (repo / "SKILL.md").read_text() == "v1\n"


def test_after_its_own_commit_the_session_is_not_moved(tmp_path):
    repo, start = _session(tmp_path)
    _, own = _two_commits(repo, start)
    state = SessionState(repo, "/Users/sven/skills")
    state.head = "HEAD: the session's own `git commit -m x` made a commit, which replay does not make"
    moves = LaterCommits(repo, start, BRANCH, [_log(own)])
    follow(moves, state, _call("rg --files", NEXT_TURN))
    assert not moves.moved and (repo / "SKILL.md").read_text() == "v1\n"


def test_the_heads_a_session_shows():
    full = "0975fbe1d2c3b4a5968778695a4b3c2d1e0f9a8b"
    calls = [_log(full), _call("git rev-parse HEAD", NEXT_TURN, full + "\n", 2),
             _call("git log --oneline main", NEXT_TURN, "82b7366 other\n", 3),  # names a branch: no HEAD
             _call("git log -1", NEXT_TURN, f"commit 26aaf64{full[7:]}\nAuthor: x\n", 4)]
    assert heads_shown(calls) == {"0975fbe", full, f"26aaf64{full[7:]}"}
    # after its own `git merge --ff-only origin/main` (chikachow/cyspbot 0.142), a HEAD it shows is the merge's
    merge = _call("git merge --ff-only origin/main", NEXT_TURN, "Updating d169a29..7d04b0b\nFast-forward\n", 5)
    assert heads_shown([merge, _log(full, 6)]) == set()
    assert heads_shown([_call('git commit -m "x"', NEXT_TURN, line=7), _log(full, 8)]) == {"0975fbe"}
