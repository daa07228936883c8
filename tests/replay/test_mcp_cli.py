"""replay through a real MCP server from the command line, and ci gating it: a tool whose output grows fails."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolaudit.cli import cli
from toolaudit.tokenizers import get_tokenizer

# servers started per test, differential sweeps: seconds each (make test-all runs them, make test does not)
pytestmark = pytest.mark.slow

pytest.importorskip("mcp", reason="the mcp extra is not installed")

HERE = Path(__file__).parent
SESSION = HERE.parent / "fixtures" / "kanban_session.jsonl"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The test servers, with `server.py` = version 2 (list_tasks without bodies)."""
    folder = tmp_path / "ws"
    shutil.copytree(HERE / "mcp_servers", folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(folder / "kanban_v2.py", folder / "server.py")
    return folder


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _mapping() -> str:
    return f"mcp__kanban__*=mcp:{sys.executable} server.py"


def test_replay_through_the_server_counts_outputs_and_the_menu(workspace):
    done = _run("replay", str(SESSION), "--workspace", str(workspace), "--tool", _mapping(), "-f", "json", "-q")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.output)
    tok = get_tokenizer("o200k_base")
    recorded = [json.loads(line) for line in SESSION.read_text().splitlines()]
    listed = [r for r in recorded if r["tool"] == "mcp__kanban__list_tasks"]
    row = next(t for t in doc["tools"] if t["tool"] == "mcp__kanban__list_tasks")
    assert row["tokens_before"] == sum(tok.count(r["output"]) for r in listed)
    # version 2 lists the same tasks without bodies: built here from the recorded JSON, independently
    expected = [json.dumps([{k: v for k, v in t.items() if k != "body"} for t in json.loads(r["output"])],
                           ensure_ascii=False, indent=2) for r in listed]
    assert row["tokens_after"] == sum(tok.count(text) for text in expected)
    assert row["replayed"] == len(listed) and row["tokens_after"] < row["tokens_before"]
    (menu,) = doc["menu"]
    assert sorted(t["name"] for t in menu["tools"]) == ["get_task", "list_tasks"]
    assert menu["tokens_per_request"] == sum(t["tokens"] for t in menu["tools"])
    assert menu["carried_tokens"] == menu["tokens_per_request"] * menu["requests"] and menu["requests"] > 0


def test_ci_fails_when_the_servers_tool_output_grows(workspace, tmp_path):
    base = tmp_path / "replay-baseline.json"
    done = _run("replay", str(SESSION), "--workspace", str(workspace), "--tool", _mapping(), "-f", "json",
                "-o", str(base), "-q")
    assert done.exit_code == 0, done.output
    # a baseline runs no program by itself: the server is named on the command line, where it is
    allow = ("--tool", _mapping(), "--workspace", str(workspace))
    same = _run("ci", str(SESSION), "--baseline", str(base), "-q", *allow)
    assert same.exit_code == 0, same.output
    # the next version brings the bodies back: list_tasks grows
    shutil.copy(workspace / "kanban_v1.py", workspace / "server.py")
    grown = _run("ci", str(SESSION), "--baseline", str(base), "-f", "json", "-q", *allow)
    assert grown.exit_code == 3, grown.output
    failed = {c["scope"] for c in json.loads(grown.output)["checks"] if not c["passed"]}
    assert "mcp__kanban__list_tasks" in failed and "mcp__kanban__get_task" not in failed


def test_a_renamed_tool_is_called_by_its_new_name_and_the_old_menu_is_compared(workspace, tmp_path):
    """An Anthropic request log carries the old definitions: fetch_tasks, now list_tasks on the server."""
    old_def = {"name": "fetch_tasks", "description": "Fetch every task of the board with its full body, "
               "its history and its comments, optionally filtered by status.",
               "input_schema": {"type": "object", "properties": {"status": {"type": "string",
                                "enum": ["todo", "doing", "blocked", "done"]}}}}
    other = {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}
    first = {"role": "user", "content": "What is blocked on the board?"}
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "fetch_tasks",
                                              "input": {"status": "blocked"}}]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                           "content": "[{\"id\": \"T-3\", \"body\": \"...\"}]"}]}
    requests = [{"model": "claude-sonnet-4-5-20250929", "max_tokens": 1024, "tools": [old_def, other],
                 "messages": msgs} for msgs in ([first], [first, call, result])]
    log = tmp_path / "requests.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in requests))
    done = _run("replay", str(log), "--workspace", str(workspace), "--tool", f"fetch_tasks=mcp:{sys.executable} server.py",
                "--tool-name", "fetch_tasks=list_tasks", "--calls-out", str(tmp_path / "out.jsonl"), "-f", "json", "-q")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.output)
    row = next(t for t in doc["tools"] if t["tool"] == "fetch_tasks")
    assert (row["replayed"], row["failed"]) == (1, 0)
    out = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[0])
    assert all(task["status"] == "blocked" for task in json.loads(out["output"]))
    (menu,) = doc["menu"]
    tok = get_tokenizer("o200k_base")
    assert menu["before_tokens_per_request"] == tok.count(json.dumps(old_def, separators=(",", ":"), ensure_ascii=False))
    assert [t["name"] for t in menu["before_tools"]] == ["fetch_tasks"]


def test_a_calls_file_has_nothing_recorded_to_compare_and_no_requests_to_carry_a_menu(workspace, tmp_path):
    # "0.0% more tokens" for 0 -> 32,738 tokens, and a menu x 0 requests, before
    calls = tmp_path / "calls.jsonl"
    calls.write_text("".join(json.dumps({"tool": "mcp__kanban__list_tasks", "args": {}}) + "\n" for _ in range(3)))
    done = _run("replay", str(calls), "--workspace", str(workspace), "--tool", _mapping(), "-q")
    assert done.exit_code == 0, done.output
    assert "verdict: nothing recorded to compare with: the 3 replayed calls had no recorded output" in done.output
    assert "3 calls had no recorded output (3 from a calls file)" in done.output
    assert "(no model request recorded: nothing carried it)" in done.output and "× 0 requests" not in done.output


def test_two_mappings_of_one_server_share_it_and_its_menu(workspace):
    command = f"mcp:{sys.executable} server.py"
    done = _run("replay", str(SESSION), "--workspace", str(workspace), "--tool", f"mcp__kanban__list_tasks={command}",
                "--tool", f"mcp__kanban__get_task={command}", "-f", "json", "-q")
    assert done.exit_code == 0, done.output
    assert len(json.loads(done.output)["menu"]) == 1
