"""mcp:COMMAND against servers that misbehave while alive: a JSON-RPC error -32000, stdout noise, one huge answer."""

from __future__ import annotations

import logging
import sys
import tracemalloc
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the `mcp` SDK is not installed (pip install 'agent-toolaudit[mcp]')")

from toolaudit.replay.base import FAILED, REPLAYED, Sandbox
from toolaudit.replay.mcp import McpServer

# servers started per test, differential sweeps: seconds each (make test-all runs them, make test does not)
pytestmark = pytest.mark.slow

SERVERS = Path(__file__).resolve().parent / "mcp_servers"


@pytest.fixture
def start(tmp_path):
    """Start a test server as `mcp:python SCRIPT`; every one started is closed afterwards."""
    started: list[McpServer] = []

    def make(script: str, **limits) -> McpServer:
        impl = McpServer(f"{sys.executable} {SERVERS / script}", Sandbox(tmp_path, **limits))
        started.append(impl)
        return impl

    yield make
    for impl in started:
        impl.close()


def test_a_jsonrpc_error_minus_32000_from_a_live_server_is_one_failed_call(start, tmp_path):
    impl = start("unruly.py")
    pid = impl.call("pid", {}, tmp_path).output
    busy = [impl.call("busy", {}, tmp_path) for _ in range(3)]  # more than a crash would be allowed
    for outcome in busy:
        assert (outcome.status, outcome.is_error) == (FAILED, True)
        assert outcome.reason == "MCP error -32000: Server busy: retry later (token=[REDACTED])"
    after = impl.call("pid", {}, tmp_path)
    assert (after.status, after.output) == (REPLAYED, pid)  # the same process answered: it was kept


def test_lines_that_are_not_jsonrpc_are_one_note_and_no_traceback(start, tmp_path, caplog, capfd):
    impl = start("noisy.py")
    with caplog.at_level(logging.DEBUG):
        first = impl.call("echo", {"text": "hi"}, tmp_path)
        second = impl.call("pid", {}, tmp_path)
    assert (first.status, first.output) == (REPLAYED, "hi")
    assert second.status == REPLAYED and second.output.isdigit()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "Traceback" not in capfd.readouterr().err
    # two lines at startup, three with each call
    assert impl.take_notes() == [(f"mcp:{impl.spec} wrote 8 lines that are not JSON-RPC to stdout "
                                  "(the first: 'debug: starting'): ignored")]
    assert impl.take_notes() == []  # each line is reported once


def test_one_huge_answer_fails_at_the_cap_without_being_read_and_the_server_restarts(start, tmp_path):
    impl = start("unruly.py", max_output_bytes=1_000_000, timeout=120)
    pid = impl.call("pid", {}, tmp_path).output
    tracemalloc.start()
    try:
        huge = impl.call("huge", {"megabytes": 50}, tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (huge.status, huge.is_error) == (FAILED, True)
    assert "output cap of 1000000 bytes" in huge.reason and huge.output == ""
    assert peak < 10_000_000  # the 50 MB answer was never held
    after = impl.call("pid", {}, tmp_path)
    assert after.status == REPLAYED and after.output.isdigit() and after.output != pid


def test_the_noise_note_reaches_the_replays_notes(tmp_path):
    import json

    from click.testing import CliRunner

    from toolaudit.cli import cli

    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"tool": "echo", "args": {"text": "hi"}, "session": "s1"}) + "\n")
    done = CliRunner().invoke(cli, ["replay", str(calls), "--workspace", str(tmp_path), "--tool",
                                    f"echo=mcp:{sys.executable} {SERVERS / 'noisy.py'}", "-f", "json", "-q"],
                              catch_exceptions=False)
    assert done.exit_code == 0, done.output
    notes = json.loads(done.output)["notes"]
    assert [n for n in notes if "lines that are not JSON-RPC to stdout" in n and n.endswith("ignored")]
