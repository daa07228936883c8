"""Recorded paths mapped into the workspace, and sessions replayed at their recorded commit in a
temporary git worktree (a real repository with two commits), removed afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from toolaudit.errors import UsageError
from toolaudit.replay.base import Base
from toolaudit.replay.job import replay_options
from toolaudit.replay.branch_tip import merged_tip
from toolaudit.replay.workspace import map_path, map_paths, mappings, session_base, session_workspace

CWD = "/home/u/proj"


def test_paths_under_the_recorded_cwd_become_relative_to_the_workspace():
    args = {"file_path": "/home/u/proj/src/a.py", "path": "/home/u/proj", "dir": "/home/u/proj/",
            "pattern": "/home/u/proj/src/**/*.py", "include": ["*.py", "/home/u/proj/lib/x"],
            "limit": 5, "flag": True}
    assert map_paths(args, CWD) == {"file_path": "src/a.py", "path": ".", "dir": ".", "pattern": "src/**/*.py",
                                    "include": ["*.py", "lib/x"], "limit": 5, "flag": True}


def test_what_is_not_under_a_prefix_stays_as_recorded():
    args = {"path": "/home/u/proj2/a.py", "file_path": "/etc/passwd", "dir": "src", "other": "~/x"}
    assert map_paths(args, CWD) == args  # /home/u/proj2 is not under /home/u/proj
    assert map_paths({"path": "/home/u/proj/a"}, None) == {"path": "/home/u/proj/a"}
    assert map_paths({"path": "/home/u/proj/a"}, "relative/cwd") == {"path": "/home/u/proj/a"}


def test_a_path_that_climbs_out_stays_a_climb_for_the_sandbox_to_refuse():
    assert map_paths({"path": "/home/u/proj/../secret"}, CWD) == {"path": "../secret"}


def test_other_keys_are_mapped_only_when_the_value_is_a_bare_path():
    args = {"content": "/home/u/proj/a.py is where\nthe bug lives", "query": "/home/u/proj/a.py",
            "command": "cd /home/u/proj && ls", "note": "see /home/u/proj/a.py"}
    assert map_paths(args, CWD) == {**args, "query": "a.py"}
    # under a path key, any value is a path
    assert map_paths({"path": "/home/u/proj/my file.py"}, CWD) == {"path": "my file.py"}


def test_path_maps_add_prefixes_and_the_longest_prefix_wins():
    path_map = [("/app", "."), ("/home/u/proj/vendor", "third_party"), ("/home/u/proj", "main/")]
    pairs = mappings(CWD, path_map)
    assert pairs[0] == ("/home/u/proj/vendor", "third_party")
    assert pairs[1] == ("/home/u/proj", "main")  # a --path-map beats the cwd on the same prefix
    got = map_paths({"path": "/home/u/proj/vendor/x.c", "file": "/home/u/proj/a.c", "dir": "/app/lib"},
                    CWD, path_map)
    assert got == {"path": "third_party/x.c", "file": "main/a.c", "dir": "lib"}


def test_an_absolute_target_inside_the_replay_folder_becomes_relative(tmp_path):
    path_map = [("/srv/code", str(tmp_path / "checkout")), ("/opt", "/elsewhere")]
    assert map_path("/srv/code/a.py", mappings(None, path_map), tmp_path) == "checkout/a.py"
    assert map_path("/opt/a.py", mappings(None, path_map), tmp_path) == "/elsewhere/a.py"


# ------------------------------------------------------------------ the recorded commit

def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository with two commits: a.txt and sub/b.txt "old", then "new"; returns (repo, old, new)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q")
    commits = []
    for text in ("old", "new"):
        (repo / "a.txt").write_text(text)
        (repo / "sub" / "b.txt").write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", text)
        commits.append(git(repo, "rev-parse", "HEAD"))
    return repo, commits[0], commits[1]


def worktrees(repo: Path) -> list[str]:
    return [line for line in git(repo, "worktree", "list", "--porcelain").splitlines() if line.startswith("worktree ")]


def test_a_known_commit_is_replayed_in_a_temporary_worktree_removed_afterwards(repo):
    path, old, _ = repo
    with session_workspace(path, old) as (folder, note, *_):
        assert folder != path.resolve()
        assert (folder / "a.txt").read_text() == "old"
        assert note == f"replayed at commit {old[:12]} in a temporary worktree"
        assert len(worktrees(path)) == 2
    assert not folder.exists()
    assert len(worktrees(path)) == 1
    assert (path / "a.txt").read_text() == "new"  # the workspace itself is untouched


def test_a_workspace_below_the_repository_root_is_that_folder_of_the_worktree(repo):
    path, old, _ = repo
    with session_workspace(path / "sub", old[:10]) as (folder, note, *_):
        assert folder.name == "sub" and (folder / "b.txt").read_text() == "old"
        assert note == f"replayed at commit {old[:10]} in a temporary worktree"
    assert not folder.exists()


def test_the_worktree_is_removed_when_the_replay_raises(repo):
    path, old, _ = repo
    with pytest.raises(RuntimeError):
        with session_workspace(path, old) as (folder, _, *_):
            assert folder.exists()
            raise RuntimeError("boom")
    assert not folder.exists() and len(worktrees(path)) == 1


def test_the_repositorys_hooks_do_not_run(repo):
    path, old, _ = repo
    marker = path.parent / "hook-ran"
    hook = path / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    with session_workspace(path, old) as (folder, _, *_):
        assert (folder / "a.txt").read_text() == "old"
    assert not marker.exists()


def test_an_unknown_commit_falls_back_to_the_workspace_with_a_note(repo):
    path, _, _ = repo
    with session_workspace(path, "0" * 40) as (folder, note, *_):
        assert folder == path.resolve()
        assert note == "commit 000000000000 not in the workspace: replayed against the workspace as it is"
    assert len(worktrees(path)) == 1


def test_no_commit_a_non_repository_and_a_non_hex_commit(tmp_path, repo):
    path, _, _ = repo
    with session_workspace(path, None) as (folder, note, *_):
        assert (folder, note) == (path.resolve(), "")
    plain = tmp_path / "plain"
    plain.mkdir()
    with session_workspace(plain, "abcdef1234") as (folder, note, *_):
        assert folder == plain.resolve()
        assert note == "commit abcdef1234 not in the workspace (not a git repository): " \
                       "replayed against the workspace as it is"
    with session_workspace(path, "--upload-pack=touch x") as (folder, note, *_):
        assert folder == path.resolve() and "is not a commit id" in note


# ------------------------------------------------------------------ --at-session-start

def _commit(repo: Path, name: str, date: str) -> str:
    (repo / "a.txt").write_text(name)
    git(repo, "add", "-A")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", name],
                   cwd=repo, check=True, env={**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def branched(tmp_path: Path) -> Path:
    """main: c1 (Jan 1), c2 (Jan 10); feature: f1 (Jan 5) off c1, then main merged into it (Jan 12)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "branched"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _commit(repo, "c1", "2026-01-01T00:00:00Z")
    git(repo, "checkout", "-q", "-b", "feature")
    _commit(repo, "f1", "2026-01-05T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    _commit(repo, "c2", "2026-01-10T00:00:00Z")
    git(repo, "checkout", "-q", "feature")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "merge", "-q", "-X", "theirs",
                    "-m", "merge main", "main"], cwd=repo, check=True,
                   env={**os.environ, "GIT_AUTHOR_DATE": "2026-01-12T00:00:00Z",
                        "GIT_COMMITTER_DATE": "2026-01-12T00:00:00Z"})
    git(repo, "checkout", "-q", "main")
    return repo


def test_at_session_start_takes_the_last_commit_before_the_session_on_the_branch_history(branched):
    ts = "2026-01-11T09:30:00.000Z"  # after c2 and f1, before the merge
    with session_base(branched, Base(at_session_start=True), None, ts, False) as (folder, note, *_):
        assert (folder / "a.txt").read_text() == "c2" and note.startswith("replayed at commit")  # HEAD (main)
    # on feature, c2 came in with the merge: the session started from f1, on feature's own (first-parent) line
    with session_base(branched, Base("feature", at_session_start=True), None, ts, False) as (folder, _, *_):
        assert (folder / "a.txt").read_text() == "f1"
    with session_base(branched, Base("feature", at_session_start=True), None, "2026-01-03T00:00:00Z",
                      False) as (folder, _, *_):
        assert (folder / "a.txt").read_text() == "c1"
    with session_base(branched, Base(at_session_start=True), None, "2025-12-01T00:00:00Z", False) as (folder, note,
                                                                                                      *_):
        assert folder == branched.resolve() and note.startswith("--at-session-start: no commit of HEAD before 2025")
    with session_base(branched, Base(at_session_start=True), None, None, False) as (folder, note, *_):
        assert folder == branched.resolve() and note == "--at-session-start: the session has no timestamp"


def test_no_start_commit_copies_nothing_and_says_only_why(branched):
    """With edits to apply (`scratch`), a session that will be refused was copied whole and told "replayed in a
    scratch copy of the workspace as it is" beside a verdict refusing every call (helper review)."""
    with session_base(branched, Base(at_session_start=True), None, "2025-12-01T00:00:00Z", True) as (folder, note,
                                                                                                     writable, *_):
        assert folder == branched.resolve() and not writable
        assert note.startswith("--at-session-start: no commit of HEAD") and "scratch copy" not in note


def test_no_checkout_takes_no_commit():
    with pytest.raises(UsageError, match="--no-checkout starts from the folder as it is"):
        replay_options({"tools": ["Read=builtin:read_file"], "no_checkout": True, "commit": "HEAD"})
    options = replay_options({"tools": ["Read=builtin:read_file"], "commit": "main", "at_session_start": True})
    assert options.base == Base("main", True, False)


def test_at_session_start_reads_author_dates_a_rebase_keeps(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "rebased"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _commit(repo, "c1", "2026-01-01T00:00:00Z")
    (repo / "a.txt").write_text("written Jan 5, rebased Jan 20")
    git(repo, "add", "-A")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "c2"],
                   cwd=repo, check=True, env={**os.environ, "GIT_AUTHOR_DATE": "2026-01-05T00:00:00Z",
                                              "GIT_COMMITTER_DATE": "2026-01-20T00:00:00Z"})
    with session_base(repo, Base(at_session_start=True), None, "2026-01-10T00:00:00Z", False) as (folder, _, *_):
        assert (folder / "a.txt").read_text() == "written Jan 5, rebased Jan 20"


def test_at_session_start_follows_the_branch_the_session_recorded(branched):
    ts = "2026-01-11T09:30:00.000Z"
    with session_base(branched, Base(at_session_start=True), None, ts, False, branch="feature") as (folder, _, *_):
        assert (folder / "a.txt").read_text() == "f1"  # HEAD is main, but the session worked on feature
    git(branched, "update-ref", "refs/remotes/origin/gone-locally", git(branched, "rev-parse", "feature"))
    with session_base(branched, Base(at_session_start=True), None, ts, False, branch="gone-locally") as (f, _, *_):
        assert (f / "a.txt").read_text() == "f1"  # a remote-tracking branch will do
    with session_base(branched, Base(at_session_start=True), None, ts, False, branch="deleted") as (f, _, *_):
        assert (f / "a.txt").read_text() == "c2"  # a branch the workspace lacks: HEAD's history


def test_at_session_start_keeps_the_commit_the_session_recorded(branched):
    """A Codex rollout records the HEAD it began on (session_meta.git.commit_hash): --at-session-start starts
    there, not at the last commit of HEAD's history before its clock (the git-sync 0.139 sessions recorded
    commits of branches deleted after their merge, and were replayed on main's)."""
    ts = "2026-01-11T09:30:00.000Z"  # by the clock, HEAD's history gives c2
    c1 = git(branched, "rev-list", "--max-parents=0", "HEAD")
    with session_base(branched, Base(at_session_start=True), c1, ts, False) as (folder, note, *_):
        assert (folder / "a.txt").read_text() == "c1" and note.startswith(f"replayed at commit {c1[:12]}")
    with session_base(branched, Base(at_session_start=True), "ab" * 20, ts, False) as (folder, _, *_):
        assert (folder / "a.txt").read_text() == "c2"  # a recorded commit the workspace lacks: guessed by the clock
    with session_base(branched, Base("feature", at_session_start=True), c1, ts, False) as (folder, _, *_):
        assert (folder / "a.txt").read_text() == "f1"  # --commit REV with it: the user's history wins


def test_a_session_recorded_in_a_subfolder_of_its_repository(branched):
    """entireio/external-agents' 0.123 session worked in `agents/entire-agent-kiro` (its recorded cwd ends so): the
    replay folder is that subfolder of the commit, so `sed -n … internal/kiro/transcript.go` reads its file."""
    (branched / "agents" / "kiro" / "internal").mkdir(parents=True)
    (branched / "agents" / "kiro" / "internal" / "t.go").write_text("package kiro\n")
    (branched / "toolaudit").mkdir()
    (branched / "toolaudit" / "x.py").write_text("")
    git(branched, "add", "-A")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "sub"],
                   cwd=branched, check=True)
    head = git(branched, "rev-parse", "HEAD")
    with session_base(branched, Base(), head, None, False, cwd="/Users/me/ext/agents/kiro") as (folder, note, *_):
        assert (folder / "internal" / "t.go").is_file() and "its working folder is agents/kiro/" in note
    # one trailing name alone is no evidence (a repository holding a folder of its own name)
    with session_base(branched, Base(), head, None, False, cwd="/home/me/toolaudit") as (folder, note, *_):
        assert (folder / "agents").is_dir() and "working folder" not in note
    with session_base(branched, Base(), head, None, False, cwd="/home/me/branched") as (folder, _, *_):
        assert (folder / "agents").is_dir()


def test_at_session_start_reads_a_gone_branch_from_the_ref_a_merge_message_names(branched):
    """The shape of Esdeveniments/esdeveniments-frontend (it states no licence: nothing of it is copied, the
    repository is ours), Claude Code 2.1.220 review session 22ff03b8 (imported checkpoint 03/8c56d4834303): its
    recorded branch fix/ppr-metadata-resume-mismatch was squash-merged and deleted; only
    `refs/pull/441/head` keeps its commits, and `Merge branch 'main' into fix/ppr-metadata-resume-mismatch` names it."""
    git(branched, "checkout", "-q", "feature")
    git(branched, "commit", "-q", "--amend", "-m",
        "Merge branch 'main' into feature")  # git's own message (the author date stays Jan 12)
    git(branched, "update-ref", "refs/pull/7/head", "HEAD")
    git(branched, "checkout", "-q", "main")
    git(branched, "branch", "-q", "-D", "feature")
    assert merged_tip(branched, "feature", 30.0)[0] == "refs/pull/7/head"
    assert merged_tip(branched, "eature", 30.0) is None and merged_tip(branched, "other", 30.0) is None
    ts = "2026-01-11T09:30:00.000Z"  # after c2 and f1, before the merge: feature's own line holds f1
    with session_base(branched, Base(at_session_start=True), None, ts, False, branch="feature") as found:
        assert (found.folder / "a.txt").read_text() == "f1" and "refs/pull/7/head" in found.note
    with session_base(branched, Base(at_session_start=True), None, ts, False, branch="other") as found:
        assert (found.folder / "a.txt").read_text() == "c2"  # no merge names it: HEAD, as before


def test_a_recorded_commit_the_workspace_lacks_starts_from_the_recorded_branch(branched):
    """A Codex rollout's recorded commit that the clone lacks (rebased away, never pushed): --at-session-start reads
    the branch the rollout recorded (session_meta.git.branch), as it does for Claude Code's gitBranch, not HEAD."""
    ts = "2026-01-11T09:30:00.000Z"
    with session_base(branched, Base(at_session_start=True), "ab" * 20, ts, False, branch="feature") as found:
        assert (found.folder / "a.txt").read_text() == "f1"
        assert found.note.startswith("its recorded commit abababababab is not here: started from the last commit of "
                                     "feature before the session began; replayed at commit")
    with session_base(branched, Base(at_session_start=True), "ab" * 20, ts, False, branch="deleted") as found:
        assert (found.folder / "a.txt").read_text() == "c2" and "the last commit of HEAD" in found.note
