"""--at-session-start on a history where an older commit landed above a newer one: the shape of
JanDeDobbeleer/oh-my-posh's main in July 2026 (MIT), where a contributor's commit authored July 9 was rebased onto
main on July 18, above the language refactor a session began before on July 17 (checkpoint 6d/449f3da816, Claude
Code 2.1.209): the session's files (src/segments/php.go …) are those before the refactor."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from toolaudit.replay.base import Base
from toolaudit.replay.workspace import session_base


def _history(tmp_path: Path, commits: list[tuple[str, str, str]]) -> Path:
    """A repository whose main holds `commits` in order: (a.txt's text, author date, commit date)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    for text, authored, committed in commits:
        (repo / "a.txt").write_text(text)
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", text],
                       cwd=repo, check=True,
                       env={**os.environ, "GIT_AUTHOR_DATE": authored, "GIT_COMMITTER_DATE": committed})
    return repo


@pytest.fixture
def landed_late(tmp_path: Path) -> Path:
    return _history(tmp_path, [
        ("before the refactor", "2026-07-16T10:00:00Z", "2026-07-16T10:00:00Z"),
        ("the refactor", "2026-07-17T07:23:32Z", "2026-07-17T11:47:33Z"),  # the session's own work
        ("vimode, rebased", "2026-07-09T05:45:02Z", "2026-07-18T18:56:38Z"),  # authored before it all
    ])


def test_a_commit_above_one_written_after_the_session_began_came_later(landed_late: Path) -> None:
    with session_base(landed_late, Base(at_session_start=True), None, "2026-07-17T05:27:03Z", False) as found:
        assert (found.folder / "a.txt").read_text() == "before the refactor"
    # a session after the refactor starts on the newest commit written before it, as before
    with session_base(landed_late, Base(at_session_start=True), None, "2026-07-19T00:00:00Z", False) as found:
        assert (found.folder / "a.txt").read_text() == "vimode, rebased"


def test_an_author_date_after_its_commit_date_is_a_clocks_error(tmp_path: Path) -> None:
    repo = _history(tmp_path, [("old", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
                               ("clock ahead", "2027-06-01T00:00:00Z", "2026-01-02T00:00:00Z"),
                               ("newest", "2026-01-03T00:00:00Z", "2026-01-03T00:00:00Z")])
    with session_base(repo, Base(at_session_start=True), None, "2026-01-04T00:00:00Z", False) as found:
        assert (found.folder / "a.txt").read_text() == "newest"
