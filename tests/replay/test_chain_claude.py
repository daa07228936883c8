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


def _rollout(path: Path, commit: str) -> Path:
    """A Codex 0.50 rollout in the sessions' folder at `commit`, begun between them: one apply_patch (written here,
    in the shape of test_chain's)."""
    import json

    at, cwd = "2026-04-16T09:00:00.000Z", "/Users/soph/Work/entire/devenv/git-sync"
    patch = "*** Begin Patch\n*** Add File: notes.md\n+hello\n*** End Patch\n"
    lines = [
        {"timestamp": at, "type": "session_meta", "payload": {
            "id": "019a06f2-0000-7d2e-9b8a-00000000000a", "timestamp": at, "cwd": cwd, "originator": "codex_cli_rs",
            "cli_version": "0.50.0", "instructions": None, "source": "cli", "model_provider": "openai",
            "git": {"commit_hash": commit, "branch": "main"}}},
        {"timestamp": at, "type": "turn_context", "payload": {"cwd": cwd, "model": "gpt-5-codex"}},
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": "call_000a",
            "arguments": json.dumps({"command": ["apply_patch", patch], "workdir": cwd})}},
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_000a",
            "output": json.dumps({"output": "Success.\n", "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_codex_session_on_the_same_commit_in_its_folder_is_chained_too(tmp_path):
    repo = _repo(tmp_path, "2026-04-15T12:00:00Z")
    here = _rollout(tmp_path / "codex.jsonl", run_git(repo, "rev-parse", "HEAD"))
    elsewhere = _rollout(tmp_path / "other.jsonl", "0123456789abcdef0123456789abcdef01234567")
    row, notes = _read(repo, [EARLIER, here])
    assert row.identical == 1
    assert any("started where 2 earlier session(s) on its commit left the folder (2 of their edits applied)" in n
               for n in notes)
    _, notes = _read(repo, [EARLIER, elsewhere])
    assert any("started where 1 earlier session(s)" in n for n in notes)
