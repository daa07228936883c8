"""A recorded `git merge`/`git pull` fast-forward is done in the replay's worktree; one that failed changed nothing.

The outputs are cut from chikachow/cyspbot's (MIT License, Copyright (c) 2026 cysp) Codex 0.142 rollout 019f1b24… (`git merge --ff-only origin/main`, first
refused by Codex's sandbox, then a fast-forward), with the commit ids replaced by this test repository's.
"""

from __future__ import annotations

from toolaudit.replay.fast_forward import MOVED, UNCHANGED, merged
from toolaudit.replay.start_state import printed
from toolaudit.replay.state import SessionState

from conftest import committed_repo, run_git

REFUSED = ("Chunk ID: b4f80d\nWall time: 0.0000 seconds\nProcess exited with code 128\nOriginal token count: 41\n"
           "Output:\nfatal: update_ref failed for ref 'ORIG_HEAD': cannot lock ref 'ORIG_HEAD': Unable to create "
           "'/Users/cysp/src/cyspbot/.git/ORIG_HEAD.lock': Operation not permitted\n")


def _forward(a: str, b: str) -> str:
    return ("Chunk ID: eab590\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 553\n"
            f"Output:\nUpdating {a[:7]}..{b[:7]}\nFast-forward\n README.md | 2 +-\n 1 file changed, 1 insertion(+), "
            "1 deletion(-)\n")


def _repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    a = committed_repo(repo, {"README.md": "old\n", "notes.md": "notes\n"})
    (repo / "README.md").write_text("new\n")
    run_git(repo, "commit", "-qam", "later")
    b = run_git(repo, "rev-parse", "HEAD")
    run_git(repo, "checkout", "-q", "--detach", a)
    return repo, a, b


def _merge(repo, output: str) -> str | None:
    return merged("git merge --ff-only origin/main", output, printed(output), repo)


def test_a_fast_forward_moves_the_tree_and_keeps_the_uncommitted_work(tmp_path):
    repo, a, b = _repo(tmp_path)
    (repo / "notes.md").write_text("the session's work\n")
    assert _merge(repo, _forward(a, b)) == MOVED
    assert run_git(repo, "rev-parse", "HEAD") == b
    assert (repo / "README.md").read_text() == "new\n"
    assert (repo / "notes.md").read_text() == "the session's work\n"


def test_a_fast_forward_from_another_commit_or_to_one_the_clone_lacks_is_not_made(tmp_path):
    repo, a, b = _repo(tmp_path)
    assert _merge(repo, _forward(b, b)) is None  # the tree is at a, the merge began at b
    assert _merge(repo, _forward(a, "deadbee" * 5 + "dead")) is None
    assert run_git(repo, "rev-parse", "HEAD") == a
    assert merged("git fetch && git merge --ff-only origin/main", _forward(a, b), printed(_forward(a, b)), repo) is None


def test_a_merge_refused_before_it_began_or_with_nothing_to_do_changed_nothing(tmp_path):
    assert _merge(None, REFUSED) == UNCHANGED
    up = "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nAlready up to date.\n"
    assert merged("git pull", up, printed(up), None) == UNCHANGED
    conflict = "Exit code: 1\nOutput:\nAuto-merging a.txt\nCONFLICT (content): Merge conflict in a.txt\n"
    assert merged("git merge topic", conflict, printed(conflict), None) is None


def test_the_state_goes_on_after_a_fast_forward(tmp_path):
    repo, a, b = _repo(tmp_path)
    state = SessionState(repo, "/Users/cysp/src/cyspbot")
    state._shell("git merge --ff-only origin/main", REFUSED)
    assert not state.everything
    state._shell("git merge --ff-only origin/main", _forward(a, b))
    assert not state.everything and (repo / "README.md").read_text() == "new\n"
    state._shell("git merge topic", "Exit code: 0\nOutput:\nMerge made by the 'ort' strategy.\n")
    assert "git merge" in state.everything
