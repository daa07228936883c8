"""Claude Code sessions record no commit: one replayed at --at-session-start starts where the earlier sessions in
its folder, begun after its commit was written, left it (Entire's checkpoints hold such runs)."""

from __future__ import annotations

from pathlib import Path

from conftest import committed_repo, run_git

import toolaudit

# entireio/git-sync (MIT): two sessions behind one checkpoint; see the folder's README
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "claude-code-chain"
EARLIER, LATER = FIXTURE / "earlier.jsonl", FIXTURE / "later.jsonl"


def _repo(tmp_path: Path, written: str) -> Path:
    """A repository without .github/workflows/ci.yml (the earlier session wrote it), its one commit written at `written`."""
    repo = tmp_path / "repo"
    committed_repo(repo, {"go.mod": "module github.com/entireio/git-sync\n"})
    run_git(repo, "commit", "--amend", "-q", "--no-edit", f"--date={written}")
    return repo


def _read(repo: Path, earlier: list[Path]):
    """The identity row of the later session's Read of ci.yml, and the run's notes."""
    result = toolaudit.replay([str(LATER)], workspace=str(repo), identity=True, at_session_start=True,
                              earlier=[str(p) for p in earlier])
    return next(row for row in result.identity.tools if row.tool == "Read"), result.notes


def test_the_later_session_reads_what_the_earlier_one_wrote(tmp_path):
    repo = _repo(tmp_path, "2026-04-15T12:00:00Z")
    row, notes = _read(repo, [EARLIER])
    assert (row.replayed, row.identical) == (1, 1)
    assert any("started where 1 earlier session(s) on its commit left the folder (1 of their edits applied)" in n
               for n in notes)
    alone, _ = _read(repo, [])
    assert alone.identical == 0  # without it, ci.yml is not in the commit


def test_a_session_begun_before_the_commit_was_written_is_not_chained(tmp_path):
    # the commit was written after the earlier session began (09:00, its Write at 08:04): its work may be in it
    repo = _repo(tmp_path, "2026-04-16T09:00:00Z")
    row, notes = _read(repo, [EARLIER])
    assert row.identical == 0 and not any("earlier session" in n for n in notes)
