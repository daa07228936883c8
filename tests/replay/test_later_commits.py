"""The commits a Codex session's user wrote while it waited move the replay's worktree before the next call.

The shape is inspi-writer001/gildore-arena's committed Codex 0.130 rollout 019e18dc… (began on 90f7f1d on
2026-05-11, resumed on 2026-06-22 after the user's commits up to 5adb191), made small: the dates are its own.
"""

from __future__ import annotations

from conftest import committed_repo, run_git

from toolaudit.replay.later_commits import LaterCommits, follow
from toolaudit.replay.state import SessionState

BEGAN = "2026-05-11T21:07:06.000Z"
RESUMED = "2026-06-22T02:17:10.000Z"


def _commit(repo, files: dict[str, str], when: str, message: str) -> str:
    for rel, text in files.items():
        (repo / rel).write_text(text)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", message, f"--date={when}")
    return run_git(repo, "rev-parse", "HEAD")


def _session(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    start = committed_repo(repo, {"app/page.tsx": "v1\n", "AGENTS.md": "switched\n"})
    run_git(repo, "commit", "-q", "--amend", "--no-edit", "--date=2026-05-10T10:00:00Z")
    return repo, run_git(repo, "rev-parse", "HEAD"), start


def test_a_resumed_session_reads_the_commits_written_meanwhile(tmp_path):
    repo, start, _ = _session(tmp_path)
    later = _commit(repo, {"app/page.tsx": "v2\n"}, "2026-06-15T18:02:02Z", "fix: agent vision")
    run_git(repo, "checkout", "-q", "--detach", start)
    (repo / "pitch-deck.html").write_text("the session's own file\n")  # written by its first turn, never committed
    moves = LaterCommits(repo, start)
    state = SessionState(repo, "/home/u/gildore-arena")
    follow(moves, state, BEGAN)
    assert (repo / "app/page.tsx").read_text() == "v1\n" and not moves.moved  # nothing written before it yet
    follow(moves, state, RESUMED)
    assert moves.moved == [later] and run_git(repo, "rev-parse", "HEAD") == later
    assert (repo / "app/page.tsx").read_text() == "v2\n"
    assert (repo / "pitch-deck.html").read_text() == "the session's own file\n"
    assert not state.everything
    follow(moves, state, "2026-06-22T02:18:00.000Z")  # nothing new: stays
    assert moves.moved == [later]


def test_work_on_two_lines_leaves_the_tree_as_it_was(tmp_path):
    repo, start, _ = _session(tmp_path)
    _commit(repo, {"app/page.tsx": "v2\n"}, "2026-06-15T18:02:02Z", "main")
    run_git(repo, "checkout", "-q", "-b", "other", start)
    _commit(repo, {"AGENTS.md": "arena\n"}, "2026-06-16T09:00:00Z", "a branch of its own")
    run_git(repo, "checkout", "-q", "--detach", start)
    state = SessionState(repo, "/home/u/gildore-arena")
    moves = LaterCommits(repo, start)
    follow(moves, state, RESUMED)
    assert not moves.moved and not state.everything
    assert (repo / "app/page.tsx").read_text() == "v1\n"


def test_commits_written_after_the_call_change_nothing(tmp_path):
    repo, start, _ = _session(tmp_path)
    _commit(repo, {"app/page.tsx": "v2\n"}, "2026-07-01T00:00:00Z", "after the session")
    run_git(repo, "checkout", "-q", "--detach", start)
    moves = LaterCommits(repo, start)
    follow(moves, SessionState(repo, None), RESUMED)
    assert not moves.moved and (repo / "app/page.tsx").read_text() == "v1\n"
