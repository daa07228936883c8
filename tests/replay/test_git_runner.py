"""replay.git, the one runner of replay's own git: its timeout is the replay's `--timeout` (never under 120 s) in every
module that runs git, the user's own git configuration is never read, and a failure says why. Written by us."""

from __future__ import annotations

from conftest import committed_repo, run_git

from toolaudit.replay import git as replay_git
from toolaudit.replay.base import Base
from toolaudit.replay.fast_forward import MOVED, merged
from toolaudit.replay.git import GIT_TIMEOUT, failure, output, wait
from toolaudit.replay.later_commits import LaterCommits
from toolaudit.replay.start_state import printed
from toolaudit.replay.workspace import session_base


def test_the_timeout_is_the_replays_and_never_under_the_least_a_checkout_needs():
    assert wait(10.0) == GIT_TIMEOUT and wait(None) == GIT_TIMEOUT and wait(600.0) == 600.0


def _spy(monkeypatch) -> list[float]:
    """The timeouts every git run of replay's own is given, as the sandbox's runner sees them."""
    seen: list[float] = []
    real = replay_git.run

    def spy(argv, **kwargs):
        seen.append(kwargs["timeout"])
        return real(argv, **kwargs)

    monkeypatch.setattr(replay_git, "run", spy)
    return seen


def test_every_module_passes_its_timeout_down(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    a = committed_repo(repo, {"README.md": "old\n"})
    (repo / "README.md").write_text("new\n")
    run_git(repo, "commit", "-qam", "later")
    b = run_git(repo, "rev-parse", "HEAD")
    seen = _spy(monkeypatch)
    with session_base(repo, Base(at_session_start=True), None, "2999-01-01T00:00:00Z", False, 321.0,
                      branch="gone") as found:
        assert found.commit == b
    LaterCommits(repo, a, "master", [], 322.0)
    run_git(repo, "checkout", "-q", "--detach", a)
    recorded = f"Process exited with code 0\nOutput:\nUpdating {a[:7]}..{b[:7]}\nFast-forward\n"
    assert merged("git merge --ff-only origin/main", recorded, printed(recorded), repo, 323.0) == MOVED
    assert {321.0, 322.0, 323.0} <= set(seen) and GIT_TIMEOUT not in seen


def test_the_users_own_configuration_is_not_read(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {"a.txt": "a\n"})
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = someone\n")
    monkeypatch.setenv("HOME", str(home))
    assert output(repo, ["config", "--get", "user.name"]) is None
    run_git(repo, "config", "user.name", "the repository's")
    assert output(repo, ["config", "--get", "user.name"]) == "the repository's\n"


def test_a_failure_says_why(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {"a.txt": "a\n"})
    assert failure(repo, ["rev-parse", "--verify", "HEAD"]) is None
    assert failure(repo, ["rev-parse", "--verify", "deadbeef"]) == " (fatal: Needed a single revision)"
    assert output(repo, ["rev-parse", "--verify", "deadbeef"]) is None
    assert output(repo, ["log", "--format=%H"], max_output=8) is None  # cut at the cap: not whole, so not read
