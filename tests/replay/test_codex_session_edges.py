"""A Codex session's state and calls at their edges, on small rollouts of ours shaped as recorded:
- blackgirlbytes/planetfall-seed-signalkit (Codex 0.137, entire/checkpoints/v1:07/d253ca52d8/0) began on the commit
  its rollout recorded, and its `git status --short` listed README.md and index.html changed before it began: the
  other tracked files were as committed, so its reads of them are compared;
- therealjhay/Soul (Codex 0.128, its committed codex-session.jsonl) had every sandboxed command fail with
  `bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted` before the shell ran, and its last calls have no
  result: a skill copied the rollout into the repository while they ran."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import toolaudit

CWD = "/home/jhay/Desktop/Soul"
TS = "2026-05-02T10:00:{:02d}.000Z"
HEAD = "Chunk ID: 82fb32\nWall time: 0.0000 seconds\nProcess exited with code {}\nOriginal token count: {}\nOutput:\n"
BWRAP = HEAD.format(1, 16) + "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted\n"


def _repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "README.md").write_text("# Soul\n")
    (repo / "index.html").write_text("<html></html>\n")
    (repo / "src/a.js").write_text("export const a = 1;\n")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True)
    return repo, head.stdout.strip()


def _rollout(path: Path, commit: str, calls: list[tuple[str, str | None]]) -> Path:
    lines = [{"timestamp": TS.format(0), "type": "session_meta", "payload": {
        "id": "019e04fb-ab76-7743-8864-f3fade8aaecd", "timestamp": TS.format(0), "cwd": CWD, "cli_version": "0.128.0",
        "git": {"commit_hash": commit, "branch": "main"}}},
        {"timestamp": TS.format(0), "type": "turn_context", "payload": {"cwd": CWD, "model": "gpt-5.5"}}]
    for i, (command, output) in enumerate(calls, 1):
        lines.append({"timestamp": TS.format(i), "type": "response_item", "payload": {
            "type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": command, "workdir": CWD}),
            "call_id": f"call_{i}"}})
        if output is not None:
            lines.append({"timestamp": TS.format(i), "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": f"call_{i}", "output": output}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _replayed(tmp_path: Path, calls: list[tuple[str, str | None]]):
    """(each call as the calls file has it, the identity report's reasons of its exec_command calls)."""
    repo, head = _repo(tmp_path)
    out = tmp_path / "calls.jsonl"
    result = toolaudit.replay([str(_rollout(tmp_path / "rollout.jsonl", head, calls))], workspace=str(repo),
                              identity=True, at_session_start=True, calls_out=out)
    reasons = dict(next(row.reasons for row in result.identity.tools if row.tool == "exec_command"))
    return [json.loads(line) for line in out.read_text().splitlines()], reasons


def test_on_the_recorded_commit_a_tracked_file_the_status_listed_doubts_only_its_own_reads(tmp_path: Path) -> None:
    (status, read, other), reasons = _replayed(tmp_path, [
        ("git status --short", HEAD.format(0, 4) + " M README.md\n M index.html\n"),
        ("sed -n '1,5p' src/a.js", HEAD.format(0, 5) + "export const a = 1;\n"),
        ("cat README.md", HEAD.format(0, 3) + "# Soul, changed\n")])
    assert read["replay_status"] == "replayed", read.get("replay_reason")
    # the status and the read of README.md are set aside, by README.md (index.html would do for the status)
    doubted = {r: n for r, n in reasons.items() if r.startswith("uncertain:")}
    assert sum(doubted.values()) == 2 and any(r.startswith("uncertain: README.md") for r in doubted), reasons


def test_a_command_codex_sandbox_never_started_and_one_with_no_result_are_not_compared(tmp_path: Path) -> None:
    (log, pending), _ = _replayed(tmp_path, [("git log --oneline -20", BWRAP), ("git remote -v", None)])
    assert log["replay_status"] == "never_ran" and "sandbox could not start" in log["replay_reason"]
    assert pending["replay_status"] == "kept" and "never recorded" in pending["replay_reason"]


def test_a_first_look_that_differs_puts_the_whole_folder_in_doubt_again(tmp_path: Path) -> None:
    """entireio/git-sync's 0.118 session 019d7d4c… recorded a commit, listed one tracked file changed, then read
    others that differed from that commit too: the tree held work no listing showed (192 calls outside ±1% when
    each was doubted by its own path only)."""
    (status, first, later), reasons = _replayed(tmp_path, [
        ("git status --short", HEAD.format(0, 2) + " M README.md\n"),
        ("sed -n '1,5p' src/a.js", HEAD.format(0, 6) + "export const a = 2; // not the commit's\n"),
        ("sed -n '1,5p' index.html", HEAD.format(0, 4) + "<html></html>\n")])
    assert first["replay_status"] == "replayed"
    doubted = {r: n for r, n in reasons.items() if r.startswith("uncertain:")}
    assert sum(doubted.values()) == 2, reasons  # the status (README.md) and, from the differing look on, index.html


def test_a_status_listing_a_file_the_commit_lacks_as_modified_keeps_the_whole_folder_doubted(tmp_path: Path) -> None:
    """entireio/git-sync's 0.118 session 019d7d4c… recorded c86a9b07, a commit of 7 files, and its `git status --short`
    listed `M  internal/syncer/syncer.go`: HEAD was elsewhere when it ran, so its listing does not say the other
    tracked files were as committed."""
    from toolaudit.model import ToolCall
    from toolaudit.replay.recorded_base import holds, listed_as_changed

    repo, _ = _repo(tmp_path)
    status = [ToolCall("r.jsonl", 1, "codex", "s", "exec_command",
                       HEAD.format(0, 9) + "A  internal/auth/auth.go\nM  internal/syncer/syncer.go\n M README.md\n",
                       "c1", args=json.dumps({"cmd": "git status --short"}))]
    assert listed_as_changed(status) == {"internal/syncer/syncer.go", "README.md"}  # an added file: HEAD lacked it
    assert not holds(status, repo)
    assert holds([], repo) and holds([replace(status[0], output=HEAD.format(0, 2) + " M README.md\n")], repo)
    (tmp_path / "again").mkdir()
    (_, read), reasons = _replayed(tmp_path / "again", [
        ("git status --short", HEAD.format(0, 6) + " M README.md\nM  src/gone.js\n"),
        ("sed -n '1,5p' src/a.js", HEAD.format(0, 5) + "export const a = 1;\n")])
    assert sum(n for r, n in reasons.items() if r.startswith("uncertain:")) == 2, reasons  # the read too
