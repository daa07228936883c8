"""The commits a Codex session's user wrote while it waited move the replay's worktree before the next call.

The shape is inspi-writer001/gildore-arena's committed Codex 0.130 rollout 019e18dc… (began on 90f7f1d of its
branch codex-approach on 2026-05-11, resumed on 2026-06-22 after the commits above it on that branch), made small:
the dates are its own.
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
    committed_repo(repo, {"app/page.tsx": "v1\n", "AGENTS.md": "switched\n"})
    run_git(repo, "commit", "-q", "--amend", "--no-edit", "--date=2026-05-10T10:00:00Z")
    run_git(repo, "branch", "-M", "codex-approach")
    return repo, run_git(repo, "rev-parse", "HEAD")


def test_a_resumed_session_reads_the_commits_written_meanwhile(tmp_path):
    repo, start = _session(tmp_path)
    later = _commit(repo, {"app/page.tsx": "v2\n"}, "2026-06-15T18:02:02Z", "fix: agent vision")
    run_git(repo, "checkout", "-q", "--detach", start)
    (repo / "pitch-deck.html").write_text("the session's own file\n")  # written by its first turn, never committed
    moves = LaterCommits(repo, start, "codex-approach")
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


def test_work_its_user_committed_meanwhile_is_no_longer_uncertain(tmp_path):
    """entireio/skills' Codex 0.125 session 019dc0d3…: its `git status` listed `?? plugins/entire/skills/what-happened/`,
    the user committed that folder between two turns (9a3cc84), and the next turn read it."""
    repo, start = _session(tmp_path)
    later = _commit(repo, {"what-happened.md": "the skill\n"}, "2026-04-24T20:05:56Z", "Add initial what happened skill")
    run_git(repo, "checkout", "-q", "--detach", start)
    state = SessionState(repo, "/home/u/skills")
    state.uncertain.update({"what-happened.md": "listed untracked", "notes.md": "listed untracked"})
    moves = LaterCommits(repo, start, "codex-approach")
    follow(moves, state, "2026-04-24T20:07:07.000Z")
    assert moves.moved == [later] and list(state.uncertain) == ["notes.md"]


def test_only_the_recorded_branch_is_followed(tmp_path):
    repo, start = _session(tmp_path)
    run_git(repo, "checkout", "-q", "-b", "other", start)
    _commit(repo, {"AGENTS.md": "arena\n"}, "2026-06-16T09:00:00Z", "a branch of its own")
    run_git(repo, "checkout", "-q", "--detach", start)
    state = SessionState(repo, "/home/u/gildore-arena")
    for branch in ("codex-approach", "gone", None):  # nothing above it on its branch; a branch the clone lacks; none
        moves = LaterCommits(repo, start, branch)
        follow(moves, state, RESUMED)
        assert not moves.moved and not state.everything
    assert (repo / "AGENTS.md").read_text() == "switched\n"


def test_after_its_own_commit_the_session_is_not_moved(tmp_path):
    repo, start = _session(tmp_path)
    _commit(repo, {"app/page.tsx": "v2\n"}, "2026-06-15T18:02:02Z", "the session's own")
    run_git(repo, "checkout", "-q", "--detach", start)
    state = SessionState(repo, "/home/u/gildore-arena")
    state.head = "HEAD: the session's own `git commit -m x` made a commit, which replay does not make"
    moves = LaterCommits(repo, start, "codex-approach")
    follow(moves, state, RESUMED)
    assert not moves.moved and (repo / "app/page.tsx").read_text() == "v1\n"


def test_commits_written_after_the_call_change_nothing(tmp_path):
    repo, start = _session(tmp_path)
    _commit(repo, {"app/page.tsx": "v2\n"}, "2026-07-01T00:00:00Z", "after the session")
    run_git(repo, "checkout", "-q", "--detach", start)
    moves = LaterCommits(repo, start, "codex-approach")
    follow(moves, SessionState(repo, None), RESUMED)
    assert not moves.moved and (repo / "app/page.tsx").read_text() == "v1\n"
