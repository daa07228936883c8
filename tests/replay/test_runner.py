"""The replay runner and command: every call accounted for, numbers before/after, calls-out, usage errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolaudit.cli import cli
from toolaudit.replay.base import REPLAYED, Implementation, Outcome, implementations
from toolaudit.tokenizers import get_tokenizer


@implementations.register
class Shout(Implementation):
    """A test implementation: the `text` argument upper-cased, `fail` raises, `err` is an error result."""

    key = "test-shout"

    def call(self, tool, args, workspace):
        if "fail" in args:
            raise RuntimeError("boom")
        if "err" in args:
            return Outcome("bad input", is_error=True)
        return Outcome(str(args.get("text", "")).upper() * int(self.spec), status=REPLAYED)


def _lines(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture
def calls(tmp_path):
    return _lines(tmp_path / "calls.jsonl", [
        {"tool": "Say", "args": {"text": "hello world"}, "output": "hello world", "session": "s", "call_id": "1",
         "request": 0},
        {"tool": "Say", "args": {"text": "abc"}, "output": "abc abc abc abc", "session": "s", "call_id": "2",
         "request": 1},
        {"tool": "Say", "args": {"err": 1}, "output": "ok", "session": "s", "call_id": "3", "request": 2},
        {"tool": "Say", "args": {"fail": 1}, "output": "fine", "session": "s", "call_id": "4", "request": 3},
        {"tool": "Say", "args": "not json", "output": "x", "session": "s", "call_id": "5", "request": 3},
        {"tool": "Read", "args": {"path": "a"}, "output": "kept as it was", "session": "s", "call_id": "6",
         "request": 4},
        {"tool": "Say", "args": {"text": "hello world"}, "output": "hello world", "session": "s", "call_id": "1",
         "request": 0},
    ])


def test_every_call_is_accounted_for_with_exact_numbers(calls, tmp_path):
    code, out = _run("replay", str(calls), "--workspace", str(tmp_path), "--tool", "Say=test-shout:1",
                     "-f", "json", "-q")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["meta"]["command"] == "replay"
    assert doc["meta"]["replay_spec"]["tools"] == ["Say=test-shout:1"]
    say = next(t for t in doc["tools"] if t["tool"] == "Say")
    assert (say["calls"], say["replayed"], say["failed"], say["kept"]) == (5, 3, 2, 0)
    assert doc["duplicates_dropped"] == 1
    read = next(t for t in doc["tools"] if t["tool"] == "Read")
    assert (read["calls"], read["kept"], read["tokens_before"]) == (1, 1, read["tokens_after"])
    tok = get_tokenizer("o200k_base")
    # the two failed calls are listed under their reasons and counted as recorded (no saving, no new text)
    befores = ["hello world", "abc abc abc abc", "ok", "fine", "x"]
    afters = ["HELLO WORLD", "ABC", "bad input", "fine", "x"]
    assert say["tokens_before"] == sum(tok.count(t) for t in befores)
    assert say["tokens_after"] == sum(tok.count(t) for t in afters)
    assert say["bytes_before"] == sum(len(t.encode()) for t in befores)
    assert say["bytes_after"] == sum(len(t.encode()) for t in afters)
    assert (say["errors_before"], say["errors_after"]) == (0, 1)
    # new errors are the replayed calls that became one (errors 0 → 1); a failed call is counted as failed
    assert doc["new_errors"] == 1 and doc["fixed_errors"] == 0
    reasons = {(r["status"], r["reason"]): r["calls"] for r in doc["reasons"]}
    assert reasons[("failed", "recorded arguments are not a JSON object")] == 1
    assert reasons[("failed", "RuntimeError: boom")] == 1
    assert reasons[("kept", "no --tool mapping")] == 1
    total = doc["totals"]
    assert total["calls"] == sum(total[k] for k in ("replayed", "kept", "not_translated", "refused", "failed"))


def test_context_weighted_saving_uses_residency(tmp_path):
    calls = _lines(tmp_path / "c.jsonl", [
        {"tool": "Say", "args": {"text": "a"}, "output": "a " * 50, "session": "s", "call_id": "1", "request": 0},
        {"tool": "Say", "args": {"text": "b"}, "output": "b", "session": "s", "call_id": "2", "request": 3},
    ])
    code, out = _run("replay", str(calls), "--workspace", str(tmp_path), "--tool", "Say=test-shout:1", "-f", "json")
    assert code == 0, out
    doc = json.loads(out)
    tok = get_tokenizer("o200k_base")
    saved_first = tok.count("a " * 50) - tok.count("A")
    # the session's last request is 3 (+1 = 4 requests): the first output rode on 4, the second on 1
    assert doc["totals"]["weighted_tokens_saved"] == saved_first * 4 + (tok.count("b") - tok.count("B")) * 1


def test_calls_out_is_a_transcript_scan_reads(calls, tmp_path):
    out_file = tmp_path / "replayed.jsonl"
    code, out = _run("replay", str(calls), "--workspace", str(tmp_path), "--tool", "Say=test-shout:2",
                     "--calls-out", str(out_file), "-f", "json", "-q")
    assert code == 0, out
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert len(lines) == 6  # the duplicate copy is left out
    first = lines[0]
    assert (first["output"], first["session"], first["call_id"], first["request"]) == ("HELLO WORLDHELLO WORLD",
                                                                                        "s", "1", 0)
    assert lines[-1]["replay_status"] == "kept" and lines[-1]["output"] == "kept as it was"
    code, scanned = _run("scan", str(out_file), "-f", "json", "-q")
    assert code == 0
    replay_doc = json.loads(out)
    # the calls-out file holds every call; the two failed ones as recorded, as the sizes count them
    assert json.loads(scanned)["totals"]["tokens"] == replay_doc["totals"]["tokens_after"]
    assert [line["output"] for line in lines if line["replay_status"] == "failed"] == ["fine", "x"]


def test_a_calls_file_without_outputs_is_replayed(tmp_path):
    calls = _lines(tmp_path / "c.jsonl", [{"tool": "Say", "args": {"text": "hi"}}, {"tool": "Say", "args": {"text": "yo"}}])
    code, out = _run("replay", str(calls), "--workspace", str(tmp_path), "--tool", "Say=test-shout:1", "-f", "json")
    assert code == 0, out
    totals = json.loads(out)["totals"]
    assert (totals["replayed"], totals["unrecorded"], totals["tokens_before"]) == (2, 2, 0)
    assert totals["tokens_after"] == 2 * get_tokenizer("o200k_base").count("HI")


@pytest.mark.parametrize("args, message", [
    ([], "nothing to replay"),
    (["--tool", "Say"], "GLOB=KIND:SPEC"),
    (["--tool", "Say=nosuch:x"], "unknown replay implementation 'nosuch'"),
    (["--tool-name", "x", "--tool", "Say=test-shout:1"], "--tool-name"),
])
def test_usage_errors_are_one_line_and_exit_2(calls, tmp_path, args, message):
    code, out = _run("replay", str(calls), "--workspace", str(tmp_path), *args)
    assert code == 2
    assert message in out and "Traceback" not in out


def test_mappings_come_from_pyproject(calls, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.toolaudit.replay.tools]\n"Say" = "test-shout:3"\n')
    monkeypatch.chdir(tmp_path)
    code, out = _run("replay", str(calls), "-f", "json", "-q")
    assert code == 0, out
    assert json.loads(out)["meta"]["replay_spec"]["tools"] == ["Say=test-shout:3"]


def test_table_and_markdown_show_the_verdict(calls, tmp_path):
    for fmt in ("table", "markdown", "csv"):
        code, out = _run("replay", str(calls), "--workspace", str(tmp_path), "--tool", "Say=test-shout:1", "-f", fmt)
        assert code == 0, out
        assert "Say" in out
    code, out = _run("replay", str(calls), "--workspace", str(tmp_path), "--tool", "Say=test-shout:1")
    assert "verdict:" in out and "kept as recorded 1" in out


def test_strict_fails_on_a_file_it_cannot_read_in_a_folder(calls, tmp_path):
    # as scan --strict: a FIFO named *.jsonl is passed over, and --strict says so
    folder = tmp_path / "logs"
    folder.mkdir()
    calls.rename(folder / "calls.jsonl")
    os.mkfifo(folder / "pipe.jsonl")
    args = ("replay", str(folder), "--workspace", str(tmp_path), "--tool", "Say=test-shout:1", "-f", "json", "-q")
    code, out = _run(*args)
    assert code == 0, out
    assert any("pipe.jsonl: not a regular file" in e for e in json.loads(out)["errors"])
    code, out = _run(*args, "--strict")
    assert code == 1, out
    assert "pipe.jsonl: not a regular file" in out and "--strict" in out


def _claude_grep_session(path: Path, grep_input: dict) -> Path:
    """A Claude Code session with one Grep call (its recorded result: Claude Code's file list)."""
    envelope = {"sessionId": "s1", "cwd": "/home/dev/app", "timestamp": "2026-11-30T10:00:00Z"}
    return _lines(path, [
        {**envelope, "type": "assistant", "uuid": "a1", "message": {
            "id": "m1", "model": "claude-sonnet-4-5", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Grep", "input": grep_input}]}},
        {**envelope, "type": "user", "uuid": "u1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Found 1 file\nsrc/delivery/webhook.py"}]}},
    ])


@pytest.mark.parametrize("grep_input, lists_files", [
    ({"pattern": "RETRY_LIMIT", "path": "src"}, True),  # Claude Code's default: files_with_matches
    ({"pattern": "RETRY_LIMIT", "path": "src", "output_mode": "content"}, False),
])
def test_claude_code_grep_without_output_mode_is_replayed_as_claude_code_reads_it(tmp_path, grep_input, lists_files):
    repo = Path(__file__).parent.parent / "fixtures" / "search_repo"
    session = _claude_grep_session(tmp_path / "s1.jsonl", grep_input)
    code, out = _run("replay", str(session), "--workspace", str(repo), "--tool", "Grep=builtin:grep",
                     "--calls-out", str(tmp_path / "after.jsonl"), "-f", "json", "-q")
    assert code == 0, out
    after = [json.loads(line) for line in (tmp_path / "after.jsonl").read_text().splitlines()]
    output = next(r["output"] for r in after if r.get("tool") == "Grep")
    assert "src/delivery/webhook.py" in output
    assert (":" not in output.replace("src/delivery/webhook.py", "")) is lists_files  # no path:line:text rows
