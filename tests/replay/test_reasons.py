"""Reports that are true: a path no disk can hold is its own reason (redacted, the run goes on), each call not
replayed is counted by its reason, a parameter a tool does not use is refused naming those it takes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolaudit.cli import cli
from toolaudit.errors import UsageError
from toolaudit.replay.agents import parse_spec

KEY = "AIza" + "SyD4kR7b2" + "x" * 26  # a Google API key's shape: redaction must hide it


def claude_session(path: Path, cwd: str, calls: list[tuple[str, dict, str, bool]], version: str = "2.1.42") -> Path:
    """A Claude Code transcript of `calls` (tool, arguments, recorded output, is_error), one second apart."""
    rows, base = [], {"cwd": cwd, "sessionId": "s1", "version": version, "gitBranch": "main"}
    for i, (name, args, output, error) in enumerate(calls):
        ts = f"2026-01-01T00:00:0{i}Z"
        rows.append({**base, "type": "assistant", "uuid": f"a{i}", "timestamp": ts, "message": {
            "role": "assistant", "model": "claude-opus-4-6",
            "content": [{"type": "tool_use", "id": f"t{i}", "name": name, "input": args}]}})
        rows.append({**base, "type": "user", "uuid": f"u{i}", "timestamp": ts, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": output, "is_error": error}]}})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _session(path: Path, cwd: str, reads: list[tuple[str, str, bool]], version: str = "2.1.42") -> Path:
    return claude_session(path, cwd, [("Read", {"file_path": p}, out, err) for p, out, err in reads], version)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "a.txt").write_text("hi\n", encoding="utf-8")
    return folder


def test_a_path_component_over_255_bytes_is_its_own_reason_and_never_printed(repo: Path, tmp_path: Path) -> None:
    long = KEY + "k" * 300
    session = _session(tmp_path / "s.jsonl", str(repo), [
        (f"{repo}/{long}/x.py", "<tool_use_error>File does not exist.</tool_use_error>", True),
        (f"{repo}/a.txt", "     1→hi\n     2→", False)])
    for fmt in ("table", "json"):
        result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--identity",
                                          "--no-checkout", "-f", fmt], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert KEY not in result.output and "k" * 100 not in result.output
    doc = json.loads(result.output)
    assert {"reason": "path too long", "calls": 1} in doc["not_replayed"]
    assert doc["identity"]["within_1pct"] == 1  # the run went on: the next Read is reproduced


def _commit_in_2027(repo: Path) -> None:
    """`repo` made a git repository whose only commit is dated 2027: no session of these tests began after it."""
    for args in (["init", "-q"], ["add", "."], ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env={"GIT_COMMITTER_DATE": "2027-01-01T00:00:00Z",
                                                                    "GIT_AUTHOR_DATE": "2027-01-01T00:00:00Z"})


def test_a_session_with_no_commit_before_it_is_refused_with_a_reason(repo: Path, tmp_path: Path) -> None:
    _commit_in_2027(repo)
    session = _session(tmp_path / "s.jsonl", str(repo), [(f"{repo}/a.txt", "     1→hi\n     2→", False)])
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--identity",
                                      "--at-session-start"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    verdict = next(line for line in result.output.splitlines() if line.startswith("verdict:"))
    assert "no start commit" in verdict and "--no-checkout" in verdict


def test_a_codex_session_with_no_commit_before_it_says_so_first(repo: Path, tmp_path: Path) -> None:
    # the Codex identity table leaves out the calls refused before identity ran: the verdict named the one call
    # that never ran instead (seokhyeonhong/motion-jepa's 0.145 rollout: 121 refused, 2 never ran)
    _commit_in_2027(repo)
    rollout = tmp_path / "rollout.jsonl"
    meta = {"id": "019a06f2-0000-7d2e-9b8a-4f1e6c2d7a90", "timestamp": "2026-01-01T00:00:00Z", "cwd": str(repo),
            "originator": "codex_cli_rs", "cli_version": "0.50.0", "source": "cli", "model_provider": "openai"}
    lines = [{"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": meta},
             {"timestamp": "2026-01-01T00:00:01Z", "type": "turn_context", "payload": {"cwd": str(repo),
                                                                                       "model": "gpt-5-codex"}}]
    for i, (command, output) in enumerate((("cat a.txt", "hi\n"), ("cat a.txt", "aborted by user"))):
        lines += [{"timestamp": f"2026-01-01T00:00:0{2 + i}Z", "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": f"c{i}",
            "arguments": json.dumps({"command": ["bash", "-lc", command], "workdir": str(repo)})}},
            {"timestamp": f"2026-01-01T00:00:0{2 + i}Z", "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": f"c{i}", "output": output if i else json.dumps(
                    {"output": output, "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}}]
    rollout.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(rollout), "--workspace", str(repo), "--identity",
                                      "--at-session-start"], catch_exceptions=False, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    verdict = next(line for line in result.output.splitlines() if line.startswith("verdict:"))
    assert verdict.startswith("verdict: no call of a known agent tool could be re-run: 1 × no start commit — "
                              "pass --no-checkout"), verdict
    assert "× refused" not in verdict


def test_a_whole_folder_in_doubt_is_said_in_words(repo: Path, tmp_path: Path) -> None:
    # the state's key for the whole folder is `.`: the verdict said "the commonest .: `cp -r …` may have written it"
    (repo / "vendor").mkdir()
    (repo / "vendor" / "b.txt").write_text("x\n", encoding="utf-8")
    session = claude_session(tmp_path / "s.jsonl", str(repo), [
        ("Bash", {"command": "cp -r vendor/* ."}, "", False), ("Read", {"file_path": f"{repo}/a.txt"}, "     1→hi\n     2→", False)])
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--identity", "--no-checkout"],
                                catch_exceptions=False, env={"COLUMNS": "400"})
    verdict = next(line for line in result.output.splitlines() if line.startswith("verdict:"))
    assert "1 × unknown state (Read 1), the whole folder: `cp -r vendor/* .` may have written it — " in verdict, verdict


def test_claude_codes_own_files_are_not_sent_to_path_map(repo: Path, tmp_path: Path) -> None:
    # its auto memory and saved outputs exist only on the recording machine: "map it onto a copy" helps no one
    memory = "/Users/me/.claude/projects/-Users-me-repo/memory/MEMORY.md"
    session = _session(tmp_path / "s.jsonl", str(repo), [(memory, "     1→# Memory\n     2→", False)])
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--identity", "--no-checkout"],
                                catch_exceptions=False, env={"COLUMNS": "400"})
    verdict = next(line for line in result.output.splitlines() if line.startswith("verdict:"))
    assert verdict.endswith("— Claude Code's own files on the recording machine, which no commit holds: nothing to "
                            "compare"), verdict


def test_a_newer_version_is_replayed_and_flagged(repo: Path, tmp_path: Path) -> None:
    session = _session(tmp_path / "s.jsonl", str(repo), [(f"{repo}/a.txt", "1\thi\n2\t", False)], version="2.9.0")
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--identity",
                                      "--no-checkout", "-f", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["newer_versions"] == [{"agent": "claude-code", "version": "2.9.0", "emulated_as": "2.1.332"}]
    assert doc["identity"]["identical"] == 1


def test_a_parameter_the_tool_does_not_use_is_refused_naming_those_it_takes() -> None:
    with pytest.raises(UsageError) as caught:
        parse_spec("codex/shell_command?max_output_tokens=100")
    assert "max_output_tokens" in str(caught.value) and "truncation" in str(caught.value)
    assert parse_spec("codex/exec_command?max_output_tokens=100")[1] == {"max_output_tokens": "100"}


def test_a_codex_version_newer_than_any_read_is_flagged() -> None:
    from toolaudit.model import SessionInfo, ToolCall
    from toolaudit.replay.replayed import Replayed
    from toolaudit.replay.runner import newer_than_read

    call = ToolCall("r.jsonl", 3, "codex", "s", "shell_command", "Exit code: 0", args='{"command": "ls"}')
    item = Replayed(call, None, "", emulated=True)
    assert newer_than_read([item], SessionInfo("r.jsonl", "s", "/w", version="0.160.0")) == \
        {("codex", "0.160.0", "0.141")}
    assert newer_than_read([item], SessionInfo("r.jsonl", "s", "/w", version="0.120.0")) == set()


def test_a_variant_call_without_an_identity_replay_is_set_aside_under_its_reason(repo: Path, tmp_path: Path) -> None:
    session = _session(tmp_path / "s.jsonl", str(repo), [(f"{repo}/a.txt", "     1→hi\n     2→", False)], version="")
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--no-checkout",
                                      "--tool", "Read=builtin:read_file", "-f", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["totals"]["replayed"] == 0 and doc["totals"]["drifted"] == 1  # nothing to measure the variant by
    assert doc["not_replayed"] == [{"reason": "version", "calls": 1}]
    assert doc["drifted"][0]["reason"].startswith("no identity replay: no Claude Code version recorded")


def test_a_session_replaying_none_names_the_reason_of_its_read_only_calls_too(repo: Path, tmp_path: Path) -> None:
    """Safecast/safecast-map-MCP, 2.1.42: its shell commands are not replayable and its Reads were set aside after
    a command that may have moved the tree; the verdict named only the first ("replay the read-only tools", which
    it had tried). It names both, each with what to do."""
    session = claude_session(tmp_path / "s.jsonl", str(repo), [
        ("Bash", {"command": "git checkout main"}, "Switched to branch 'main'", False),
        ("Read", {"file_path": f"{repo}/a.txt"}, "     1→hi\n     2→", False)])
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--identity",
                                      "--no-checkout"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    verdict = next(line for line in result.output.splitlines() if line.startswith("verdict:"))
    assert "1 × not replayable" in verdict and "1 × unknown state" in verdict and "--commit REV" in verdict


def test_a_call_refused_for_want_of_a_version_is_not_also_counted_uncertain(repo: Path, tmp_path: Path) -> None:
    """A session with no version whose unknown program names the file it later reads: every Read is refused for the
    version, and the verdict said '4 × version; 2 × unknown state' of 4 calls (a review on a real session)."""
    read = ("Read", {"file_path": f"{repo}/a.txt"}, "     1→hi\n     2→", False)
    session = claude_session(tmp_path / "s.jsonl", str(repo), [read, ("Bash", {"command": "mytool a.txt"}, "ok", False),
                                                               read, read], version="")
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--no-checkout",
                                      "--identity"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    verdict = next(line for line in result.output.splitlines() if line.startswith("verdict:"))
    assert "4 × version" in verdict and "unknown state" not in verdict


@pytest.mark.parametrize("why, said", [
    ("path 'REDACTED.md' holds Entire's REDACTED: the recording hid part of it", "the recording hid part of the path"),
    ("a whole-file Read over the token cap (a partial view from 2.1.162, cut by the API's count) is not emulated",
     "replay does not emulate this form of the call"),
    ("path '/private/tmp/claude-501/-Users-me-repo/x/tasks/b1.output' is outside the recorded working folder /r",
     "Claude Code's own files on the recording machine")])
def test_a_refusal_says_what_it_is_not_a_generic_hint(why: str, said: str) -> None:
    # these said "see the reasons above (a path outside the workspace, an edit tool)", which they are not
    from toolaudit.reports.replay_view import _act

    assert _act("refused", why).startswith(said)


def test_the_verdict_and_the_counts_read_a_reason_the_same_way() -> None:
    # the verdict took any reason holding "version" for a version refusal ("printf conversion not emulated")
    from toolaudit.replay.fidelity import reason_kind

    assert reason_kind("no Claude Code version recorded; name one with ?version=2.1.332") == "version"
    assert reason_kind("a %b conversion replay does not read") is None
    assert reason_kind("not replayable: printf conversion not emulated") == "not replayable"
    assert reason_kind("a path component over 255 bytes") == "path too long"
