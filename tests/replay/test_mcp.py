"""mcp:COMMAND: real MCP servers written with the SDK, started over stdio, replaying a recorded kanban session."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the `mcp` SDK is not installed (pip install 'agent-toolaudit[mcp]')")

from toolaudit.collectors.toolaudit_jsonl import ToolauditJsonlCollector  # noqa: E402
from toolaudit.errors import UsageError  # noqa: E402
from toolaudit.model import Skipped, ToolCall  # noqa: E402
from toolaudit.replay.base import FAILED, REPLAYED, Sandbox, implementations  # noqa: E402
from toolaudit.replay.mcp import McpServer, result_content  # noqa: E402
from toolaudit.model import ToolMenu  # noqa: E402
from toolaudit.replay.summary import menu_of  # noqa: E402
from toolaudit.tokenizers import get_tokenizer  # noqa: E402

# servers started per test, differential sweeps: seconds each (make test-all runs them, make test does not)
pytestmark = pytest.mark.slow

SERVERS = Path(__file__).resolve().parent / "mcp_servers"
SESSION = Path(__file__).resolve().parents[1] / "fixtures" / "kanban_session.jsonl"


def _load(name: str):
    """A module of mcp_servers/ by file, without putting the folder on sys.path for good."""
    spec = importlib.util.spec_from_file_location(f"mcp_servers_{name}", SERVERS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BOARD = _load("kanban_data").tasks()


def board_text(status: str | None, bodies: bool) -> str:
    """list_tasks' answer built from the board data alone: a JSON array, indent 2, non-ASCII kept."""
    rows = [{k: v for k, v in t.items() if bodies or k != "body"}
            for t in BOARD if status is None or t["status"] == status]
    return json.dumps(rows, ensure_ascii=False, indent=2)


def recorded() -> list[dict]:
    return [json.loads(line) for line in SESSION.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def count():
    return get_tokenizer("o200k_base").count


@pytest.fixture
def start(tmp_path):
    """Start a test server as `mcp:python SCRIPT`; every one started is closed afterwards."""
    started: list[McpServer] = []

    def make(script: str, extra: str = "", **limits) -> McpServer:
        spec = f"{sys.executable} {SERVERS / script} {extra}".strip()
        names = limits.pop("tool_names", ())
        impl = McpServer(spec, Sandbox(tmp_path, **limits), tool_names=names)
        started.append(impl)
        return impl

    yield make
    for impl in started:
        impl.close()


def replay(impl: McpServer, workspace: Path):
    return [(rec, impl.call(rec["tool"], rec["args"], workspace)) for rec in recorded()]


# --- the recorded session ------------------------------------------------------------------


def test_recorded_session_is_a_transcript_with_what_v1_returns():
    records = list(ToolauditJsonlCollector().collect(SESSION))
    assert not [r for r in records if isinstance(r, Skipped)]
    calls = [r for r in records if isinstance(r, ToolCall)]
    assert [c.tool for c in calls].count("mcp__kanban__list_tasks") == 5
    assert [c.tool for c in calls].count("mcp__kanban__get_task") == 3
    assert [c.request_index for c in calls] == list(range(1, 9))
    for rec in recorded():
        if rec["tool"].endswith("list_tasks"):
            assert rec["output"] == board_text(rec["args"].get("status"), bodies=True)
        else:
            task = next(t for t in BOARD if t["id"] == rec["args"]["id"])
            assert json.loads(rec["output"]) == task
    assert all(300 <= len(t["body"]) <= 600 for t in BOARD) and len(BOARD) == 20


# --- replay --------------------------------------------------------------------------------


def test_v1_reproduces_the_recorded_outputs_exactly(start, tmp_path):
    impl = start("kanban_v1.py")
    for rec, outcome in replay(impl, tmp_path):
        assert (outcome.status, outcome.is_error, outcome.reason) == (REPLAYED, False, "")
        assert outcome.output == rec["output"]


def test_v2_list_tasks_is_smaller_by_independently_counted_tokens(start, tmp_path, count):
    impl = start("kanban_v2.py")
    before = after = expected_after = 0
    for rec, outcome in replay(impl, tmp_path):
        assert outcome.status == REPLAYED
        if rec["tool"].endswith("get_task"):
            assert outcome.output == rec["output"]  # unchanged in v2
            continue
        status = rec["args"].get("status")
        assert outcome.output == board_text(status, bodies=False)
        assert len(outcome.output.encode()) < len(rec["output"].encode())
        before += count(rec["output"])
        after += count(outcome.output)
        expected_after += count(board_text(status, bodies=False))
    assert before == sum(count(board_text(r["args"].get("status"), True))
                         for r in recorded() if r["tool"].endswith("list_tasks"))
    assert after == expected_after
    assert after < before / 3  # the bodies were most of it


def test_recorded_names_are_resolved_and_renamed(start, tmp_path):
    impl = start("kanban_v1.py", tool_names={"mcp__kanban__tasks": "list_tasks"})
    renamed = impl.call("mcp__kanban__tasks", {"status": "done"}, tmp_path)
    assert renamed.status == REPLAYED
    assert renamed.output == board_text("done", bodies=True)
    plain = impl.call("get_task", {"id": "T-7"}, tmp_path)
    assert json.loads(plain.output)["id"] == "T-7"


def test_unknown_tool_fails_with_the_servers_text(start, tmp_path):
    impl = start("kanban_v1.py")
    outcome = impl.call("mcp__kanban__archive_task", {"id": "T-1"}, tmp_path)
    assert (outcome.status, outcome.is_error) == (FAILED, True)
    assert "archive_task" in outcome.reason and "archive_task" in outcome.output
    # a listed tool's own error is the new tool's answer, not a failure
    missing = impl.call("get_task", {"id": "T-99"}, tmp_path)
    assert (missing.status, missing.is_error) == (REPLAYED, True)


def test_output_is_capped_on_a_character_boundary(start, tmp_path):
    impl = start("kanban_v1.py", max_output_bytes=1000)
    full = board_text(None, bodies=True)
    outcome = impl.call("list_tasks", {}, tmp_path)
    assert outcome.status == REPLAYED and outcome.reason == "output capped at 1000 bytes"
    assert full.startswith(outcome.output)
    assert 996 <= len(outcome.output.encode()) <= 1000


# --- the menu ------------------------------------------------------------------------------


def raw_tools_list(script: str) -> list[dict]:
    """tools/list spoken as raw JSON-RPC lines to the server, without the SDK's client.

    Stdin stays open until the answer is read: a server may drop what is in flight at EOF.
    """
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    proc = subprocess.Popen([sys.executable, str(SERVERS / script)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    watchdog = threading.Timer(120, proc.kill)  # a server that never answers ends the read with EOF
    watchdog.start()
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        for line in proc.stdout:
            answer = json.loads(line)
            if answer.get("id") == 2:
                return answer["result"]["tools"]
        raise AssertionError("the server ended without answering tools/list")
    finally:
        watchdog.cancel()
        proc.kill()
        proc.communicate()


def anthropic_definition(tool: dict) -> str:
    body = {"name": tool["name"], "description": tool.get("description", ""), "input_schema": tool["inputSchema"]}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def test_menu_lists_both_tools_and_counts_like_an_independent_count(start, count):
    menu = start("kanban_v1.py").menu()
    assert [d.name for d in menu] == ["list_tasks", "get_task"]
    raw = raw_tools_list("kanban_v1.py")
    assert [d.definition for d in menu] == [anthropic_definition(t) for t in raw]
    got = menu_of("mcp__kanban__*=mcp:x", menu, count, len(recorded()), [])
    assert got.tokens == sum(count(anthropic_definition(t)) for t in raw) > 50
    assert got.carried_tokens == got.tokens * 8  # it rides along on each of the session's 8 requests


def test_menu_of_counts_the_new_menu_and_the_recorded_tools_it_replaces(start, count):
    menu = start("kanban_v1.py").menu()
    recorded = ToolMenu("s.jsonl", "s", (("mcp__kanban__list_tasks", '{"a":1}'), ("Read", '{"b":2}')), 4)
    got = menu_of("mcp__kanban__*=mcp:x", menu, count, 8, [recorded])
    assert [(t.name, t.tokens) for t in got.tools] == [(d.name, count(d.definition)) for d in menu]
    assert (got.tokens, got.requests) == (sum(count(d.definition) for d in menu), 8)
    # Claude Code's mcp__SERVER__ prefix is the server's tool; Read is not replaced
    assert [(t.name, t.tokens) for t in got.before_tools] == [("mcp__kanban__list_tasks", count('{"a":1}'))]
    assert got.before_tokens == count('{"a":1}')
    assert menu_of("m", menu, count, 8, [ToolMenu("s.jsonl", "s", (("Read", "{}"),), 1)]).before_tokens is None


# --- crashes, hangs, cleanup, safety -----------------------------------------------------------


def test_a_crashing_server_is_restarted_once_then_its_calls_fail(start, tmp_path):
    impl = start("crashy.py")
    first_pid = impl.call("pid", {}, tmp_path).output
    steps = [impl.call("crash", {}, tmp_path), impl.call("pid", {}, tmp_path),
             impl.call("crash", {}, tmp_path), impl.call("echo", {"text": "hi"}, tmp_path),
             impl.call("pid", {}, tmp_path)]
    assert [s.status for s in steps] == [FAILED, REPLAYED, FAILED, FAILED, FAILED]
    assert [s.reason for s in steps if s.status == FAILED] == ["server crashed"] * 4
    assert steps[1].output.isdigit() and steps[1].output != first_pid  # a new process answered
    assert impl.menu() is None


def test_a_hanging_call_times_out_and_the_next_call_works(start, tmp_path):
    impl = start("slow.py", timeout=2)
    hung = impl.call("sleep", {"seconds": 60}, tmp_path)
    assert (hung.status, hung.is_error, hung.reason) == (FAILED, True, "timed out after 2 s")
    after = impl.call("ping", {}, tmp_path)
    assert (after.status, after.output) == (REPLAYED, "pong")


def _children() -> dict[int, str]:
    """This process's children (zombies too) and their command lines, from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
            found[int(entry.name)] = cmdline
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see child processes")
def test_close_leaves_no_child_process_and_no_loop_thread(start, tmp_path):
    before, threads = set(_children()), set(threading.enumerate())
    impl = start("kanban_v1.py")
    assert impl.menu()
    impl.call("crash", {}, tmp_path)  # an unknown tool: the server stays up
    running = {pid: cmd for pid, cmd in _children().items() if pid not in before}
    assert any("kanban_v1.py" in cmd for cmd in running.values())
    impl.close()
    impl.close()  # twice is harmless
    assert not set(_children()) - before
    assert [t.name for t in threading.enumerate() if t not in threads] == []


def test_environment_is_scrubbed_and_the_workspace_is_the_cwd(start, tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_API_TOKEN", "do-not-leak")
    monkeypatch.setenv("PASSED_ON", "yes")
    impl = start("crashy.py", env=("PASSED_ON",))
    names = impl.call("env", {}, tmp_path).output.splitlines()
    assert "PASSED_ON" in names and "PATH" in names
    assert "SECRET_API_TOKEN" not in names
    assert Path(impl.call("cwd", {}, tmp_path).output).resolve() == tmp_path.resolve()


def test_the_spec_is_split_like_a_shell_and_never_run_by_one(start, tmp_path):
    impl = start("crashy.py", extra="'x; touch pwned' $(touch pwned2)")
    assert impl.call("echo", {"text": "a; rm -rf ~"}, tmp_path).output == "a; rm -rf ~"
    assert not list(tmp_path.iterdir())
    with pytest.raises(UsageError):
        McpServer("python 'unbalanced", Sandbox(tmp_path))
    with pytest.raises(UsageError):
        McpServer("  ", Sandbox(tmp_path))


def test_a_server_that_cannot_start_fails_its_calls_with_the_reason(tmp_path):
    impl = McpServer(str(tmp_path / "no-such-server"), Sandbox(tmp_path))
    try:
        outcomes = [impl.call("x", {}, tmp_path) for _ in range(3)]
    finally:
        impl.close()
    assert {o.status for o in outcomes} == {FAILED}
    assert all(o.reason.startswith("server did not start:") and "no-such-server" in o.reason for o in outcomes)


def test_registered_under_mcp():
    assert implementations.get("mcp") is McpServer


def test_result_content_joins_text_and_counts_media():
    png = "iVBORw0KGgo="  # 8 bytes once decoded
    seen = result_content({"content": [
        {"type": "text", "text": "one"},
        {"type": "image", "data": png, "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "file:///a", "text": "two"}},
        {"type": "audio", "data": png, "mimeType": "audio/wav"},
    ], "structuredContent": {"ignored": True}})
    assert (seen.text, seen.images, seen.image_bytes) == ("one\ntwo", 2, 16)
    only = result_content({"content": [], "structuredContent": {"a": "é"}})
    assert only.text == '{"a":"é"}'
