"""A gone branch is found by the merge message git wrote on it, and only by that message, on the nearest ref.

Written by us: a main line, a branch `fix/x` merged into from main (git's own message), then deleted; its commits
kept by a pull request's ref, by a branch made from it, by a branch whose name only begins with it, and by a ref
that holds no code (Entire's checkpoints)."""

from __future__ import annotations

from conftest import committed_repo, run_git

from toolaudit.replay.branch_tip import merged_tip


def _commit(repo, name: str) -> str:
    (repo / f"{name}.txt").write_text(name)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", name)
    return run_git(repo, "rev-parse", "HEAD")


def _merge_main_into(repo, branch: str, message: str | None = None) -> str:
    run_git(repo, "checkout", "-qb", branch, "main~1")
    _commit(repo, branch.replace("/", "-"))
    run_git(repo, "merge", "-q", "--no-ff", "-m", message or f"Merge branch 'main' into {branch}", "main")
    return run_git(repo, "rev-parse", "HEAD")


def _github_merge(repo, number: int, branch: str = "fix/x") -> str:
    """`branch` merged into main as GitHub's button does (its message); the merge's id."""
    run_git(repo, "checkout", "-q", "main")
    run_git(repo, "merge", "-q", "--no-ff", "-m", f"Merge pull request #{number} from someone/{branch}", branch)
    return run_git(repo, "rev-parse", "HEAD")


def _repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {"start.txt": "start\n"})
    run_git(repo, "branch", "-M", "main")
    _commit(repo, "c1")
    _commit(repo, "c2")
    return repo


def test_the_ref_nearest_the_merge_is_taken_before_a_branch_made_from_it(tmp_path):
    repo = _repo(tmp_path)
    merge = _merge_main_into(repo, "fix/x")
    run_git(repo, "update-ref", "refs/pull/9/head", merge)
    _commit(repo, "later work on a branch made from it")
    run_git(repo, "branch", "-qm", "fix/x", "aaa-made-from-it")  # sorts before refs/pull: only depth decides
    run_git(repo, "checkout", "-q", "main")
    assert merged_tip(repo, "fix/x", 30.0) == ("refs/pull/9/head", merge)


def test_a_merge_into_a_longer_name_or_written_otherwise_names_no_branch(tmp_path):
    repo = _repo(tmp_path)
    _merge_main_into(repo, "fix/x-old")  # `into fix/x` is in its message, as the start of another name
    run_git(repo, "checkout", "-q", "main")
    _merge_main_into(repo, "other", "Merge pull request #9 from someone/fix/x-old")  # GitHub's, another branch
    run_git(repo, "checkout", "-q", "main")
    assert merged_tip(repo, "fix/x", 30.0) is None


def test_a_ref_that_holds_no_code_is_not_taken(tmp_path):
    repo = _repo(tmp_path)
    merge = _merge_main_into(repo, "fix/x")
    run_git(repo, "update-ref", "refs/entire/checkpoints/ab/cdef", merge)
    run_git(repo, "checkout", "-q", "main")
    run_git(repo, "branch", "-qD", "fix/x")
    assert merged_tip(repo, "fix/x", 30.0) is None


def test_a_branch_gone_after_github_merged_its_pull_request_is_read_from_the_newest_merges_second_parent(tmp_path):
    repo = _repo(tmp_path)
    run_git(repo, "checkout", "-qb", "fix/x")
    first = _commit(repo, "first pull request")
    _github_merge(repo, 8)
    run_git(repo, "checkout", "-q", "fix/x")
    second = _commit(repo, "second pull request")
    merge = _github_merge(repo, 9)
    run_git(repo, "branch", "-qD", "fix/x")
    assert merged_tip(repo, "fix/x", 30.0) == (f"{merge}^2", merge)
    assert run_git(repo, "rev-parse", f"{merge}^2") == second and run_git(repo, "merge-base", second, first) == first
    assert merged_tip(repo, "fix", 30.0) is None and merged_tip(repo, "x", 30.0) is None


def test_a_branch_updated_from_main_then_merged_by_its_pull_request_is_read_from_that_merge(tmp_path):
    # found by review: GitHub's "Update branch" wrote `Merge branch 'main' into fix/x` on it, so the pull-request
    # fallback was skipped, though no ref's first-parent line holds that merge once the branch is gone
    repo = _repo(tmp_path)
    _merge_main_into(repo, "fix/x")
    tip = _commit(repo, "after the update")
    merge = _github_merge(repo, 7)
    run_git(repo, "branch", "-qD", "fix/x")
    assert merged_tip(repo, "fix/x", 30.0) == (f"{merge}^2", merge)
    assert run_git(repo, "rev-parse", f"{merge}^2") == tip
