"""A start commit whose clone lacks some blobs (a partial clone offline, a mirror that left its largest files out):
the files it holds are checked out and replay, those it lacks are uncertain by path; a commit that cannot be checked
out at all is refused with its own reason. Written by us (the failure seen on punt-labs/langlearn-tts' snapshot)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import committed_repo, run_git

from test_worktree_replay import _replay, _session

from toolaudit.cli import cli
from toolaudit.replay.base import Base
from toolaudit.replay.partial_checkout import MISSING
from toolaudit.replay.runner import NO_CHECKOUT
from toolaudit.replay.workspace import session_base


def _lose(repo: Path, path: str) -> None:
    """Delete the loose object of `path`'s blob at HEAD from `repo`'s object store."""
    blob = run_git(repo, "rev-parse", f"HEAD:{path}")
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()


def _repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    start = committed_repo(repo, {"src/rates.py": "RATE = 1\n", "data/big.py": "RATE = 9\n"}, "start")
    _lose(repo, "data/big.py")
    return repo, start


def test_the_files_the_clone_holds_are_checked_out_and_the_others_are_named(tmp_path):
    repo, start = _repo(tmp_path)
    with session_base(repo, Base(), start, None, False) as found:
        assert found.commit == start and found.missing == ("data/big.py",)
        assert (found.folder / "src" / "rates.py").read_text() == "RATE = 1\n"
        assert not (found.folder / "data" / "big.py").exists()
        assert "lacks the content of 1 file(s)" in found.note
    assert run_git(repo, "worktree", "list").count("\n") == 0  # the worktree is gone


def test_a_read_of_a_missing_file_is_set_aside_and_the_rest_replays(tmp_path):
    repo, start = _repo(tmp_path)
    ok = _replay(_session(tmp_path / "a.jsonl", start, "src/rates.py:1:RATE = 1\n"), repo)["calls"][0]
    assert ok["replay_status"] == "replayed" and ok["output"].splitlines() == ["src/rates.py:1:RATE = 1"]
    rollout = tmp_path / "b.jsonl"
    _session(rollout, start, "data/big.py:1:RATE = 9\n")
    rollout.write_text(rollout.read_text().replace(" src\\\"", " data/big.py\\\""))
    done = CliRunner().invoke(cli, ["replay", str(rollout), "--workspace", str(repo), "--identity", "-f", "json",
                                    "-q"], catch_exceptions=False)
    reasons = json.loads(done.output)["identity"]["reasons"]
    assert reasons == [{"reason": f"uncertain: data/big.py: {MISSING}", "calls": 1}]
    said = CliRunner().invoke(cli, ["replay", str(rollout), "--workspace", str(repo), "--identity"],
                              catch_exceptions=False, env={"COLUMNS": "400"}).output
    assert "the clone lacks files the session read: fetch them (a clone without --filter) and replay again" in said


def test_a_commit_that_cannot_be_checked_out_is_refused_with_gits_reason(tmp_path):
    repo, start = _repo(tmp_path)
    tree = run_git(repo, "rev-parse", f"{start}^{{tree}}")
    (repo / ".git" / "objects" / tree[:2] / tree[2:]).unlink()  # not a missing blob: nothing can be checked out
    with session_base(repo, Base(at_session_start=True), None, "2999-01-01T00:00:00Z", False) as found:
        assert found.commit is None and found.failed.startswith(f"commit {start[:12]} could not be checked out (")
        assert found.note == found.failed  # nothing replays: no "replayed against the workspace as it is"
    # the session's calls are refused with that reason, not "no commit before the session started"
    rollout = _session(tmp_path / "a.jsonl", start, "src/rates.py:1:RATE = 1\n")
    done = CliRunner().invoke(cli, ["replay", str(rollout), "--workspace", str(repo), "--identity",
                                    "--at-session-start", "-f", "json", "-q"], catch_exceptions=False)
    reasons = [r["reason"] for r in json.loads(done.output)["reasons"]]
    assert len(reasons) == 1 and reasons[0].startswith(f"commit {start[:12]} could not be checked out (")
    assert reasons[0].endswith(NO_CHECKOUT)
