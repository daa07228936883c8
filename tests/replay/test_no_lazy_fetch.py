"""No git run of replay's fetches: in a partial clone (`git clone --filter=blob:none`) a blob the clone lacks is not
fetched from its promisor remote, neither by replay's own git (a worktree, a commit's text) nor by a replayed
`git show`: replay runs with no network, and a remote's transport (ssh, a credential helper) is a program the
recording never asked to run. The remote here is a local folder (file://), so nothing leaves the machine even
when it is fetched. Written by us."""

from __future__ import annotations

import subprocess

import pytest
from conftest import committed_repo, run_git

from toolaudit.replay import start_base
from toolaudit.replay.agents.shell_readonly import ENV as SHELL_ENV
from toolaudit.replay.git import failure, output
from toolaudit.replay.sandbox import run
from toolaudit.replay.workspace import session_workspace


@pytest.fixture
def partial(tmp_path):
    """A partial clone lacking every blob of its one commit, and that commit's id."""
    origin = tmp_path / "origin"
    origin.mkdir()
    commit = committed_repo(origin, {"a.txt": "hello\n"})
    run_git(origin, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    try:
        run_git(tmp_path, "clone", "-q", "--filter=blob:none", "--no-checkout", f"file://{origin}", str(clone))
    except subprocess.CalledProcessError:
        pytest.skip("this git makes no partial clone")
    assert _missing(clone)
    return clone, commit


def _missing(clone) -> int:
    """How many objects the clone lacks."""
    listed = run_git(clone, "rev-list", "--objects", "--missing=print", "--all")
    return sum(line.startswith("?") for line in listed.splitlines())


def test_replays_own_git_fetches_no_blob(partial, tmp_path):
    clone, commit = partial
    assert output(clone, ["cat-file", "blob", f"{commit}:a.txt"]) is None
    assert failure(clone, ["worktree", "add", "--detach", "--quiet", str(tmp_path / "tree"), commit], safe=True)
    assert start_base.base_text(clone, commit, "a.txt") is False
    assert _missing(clone) == 1


def test_a_replayed_git_show_fetches_no_blob(partial):
    clone, commit = partial
    done = run(["git", "show", f"{commit}:a.txt"], cwd=clone, timeout=60.0, env=SHELL_ENV)
    assert done.exit_code != 0 and b"hello" not in done.stdout
    assert _missing(clone) == 1


def test_a_partial_clone_is_checked_out_with_what_it_holds(partial):
    clone, commit = partial
    with session_workspace(clone, commit) as found:
        assert found.commit == commit and found.missing == ("a.txt",) and not found.failed
    assert _missing(clone) == 1
