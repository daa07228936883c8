"""gemini-stream-json collector: Gemini CLI's headless event stream (the sample, hand counts, broken input)."""

from __future__ import annotations

import json
from functools import partial

from conftest import SAMPLES
from helpers import (check_deep_line, check_empty, check_junk, check_odd_values, check_trip, jsonl, kinds,
                     records_of, writer)
from toolaudit.collectors import collectors
from toolaudit.collectors.discover import detect
from toolaudit.collectors.gemini_stream import GeminiStreamCollector
from toolaudit.model import PAIRED, UNPAIRED, ModelText, SessionEnd, Skipped, ToolCall, Usage

SAMPLE = SAMPLES / "gemini-stream-json" / "ci-run-test-py312.jsonl"
collect = partial(records_of, GeminiStreamCollector)
write = writer("run.jsonl", lambda items: jsonl(*items))
TS = "2026-06-03T14:22:01.000Z"


def ev(kind, **fields):
    return {"type": kind, "timestamp": TS, **fields}


def test_sample_counts_the_display_text_of_each_result():
    out = collect(SAMPLE)
    assert kinds(out, Skipped) == [] and kinds(out, Usage) == []
    calls = kinds(out, ToolCall)
    events = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    shown = {e["tool_id"]: e.get("output") or e.get("error", {}).get("message", "") for e in events
             if e["type"] == "tool_result"}
    assert [(c.tool, c.call_id, c.output, c.is_error, c.status) for c in calls] == [
        (e["tool_name"], e["tool_id"], shown[e["tool_id"]], e["tool_id"].startswith(("run_shell_command-1780496538",
                                                                                    "write_file")), PAIRED)
        for e in events if e["type"] == "tool_use"]
    # read_file displays nothing: its output is empty though the model read the file (a lower bound)
    assert [c.output for c in calls if c.tool == "read_file"] == [""]
    # a failed call without display text: its error message
    assert calls[-1].output.startswith('Tool execution for "write_file" requires user approval')
    # model turns: the first test run (0), the search and read batch (1), the edit (2), the rerun (3),
    # the write (4), then the closing answer; results are carried first by the next turn
    assert [c.request_index for c in calls] == [1, 2, 2, 3, 4, 5]
    assert all(c.session == "7c1e9a42-5d3b-4f80-a1c6-2e9b8d7f6a35" and c.model == "gemini-2.5-pro" for c in calls)
    assert calls[0].args == '{"command":"python -m pytest -q tests/","description":"Run the test suite"}'
    assert kinds(out, SessionEnd) == [SessionEnd(str(SAMPLE), "7c1e9a42-5d3b-4f80-a1c6-2e9b8d7f6a35", (6,))]
    assert kinds(out, ModelText)[0].text == "I'll run the failing test first."


def test_detection_and_the_note_every_report_carries(tmp_path, scan_json):
    assert detect(SAMPLE) == (GeminiStreamCollector, None)
    doc = scan_json(SAMPLE)
    assert doc["totals"]["calls"] == 6 and doc["meta"]["collectors"] == {"gemini-stream-json": 1}
    assert doc["notes"] == [f"gemini-stream-json: {GeminiStreamCollector.note}"]
    # no other format claims an event line, nor this one another format's first line
    for cls in collectors.all().values():
        if cls is not GeminiStreamCollector:
            assert not any(cls.jsonl and cls.sniff_line(json.loads(line)) for line in SAMPLE.read_text().splitlines())


def test_unanswered_calls_and_a_result_without_its_call(tmp_path):
    path = write(tmp_path, [
        ev("init", session_id="s1", model="gemini-2.5-flash"),
        ev("tool_use", tool_name="glob", tool_id="g1", parameters={"pattern": "**/*.py"}),
        ev("tool_result", tool_id="zz", status="success", output="orphan"),
        ev("result", status="error", error={"type": "FatalTurnLimitedError", "message": "turn limit"}, stats={}),
    ])
    calls = kinds(collect(path), ToolCall)
    assert [(c.tool, c.status, c.output) for c in calls] == [("unknown", "orphan", "orphan"), ("glob", UNPAIRED, "")]


def test_odd_values_lose_one_line_not_the_file(tmp_path):
    path = write(tmp_path, [
        ev("init", session_id="s1", model="m"),
        ev("tool_use", tool_name="read_file", tool_id="c1", parameters={"absolute_path": "/a"}),
        ev("tool_result", tool_id="c1", status="success", output=""),
        ev("tool_use", tool_name="ls", tool_id={}, parameters={}),
        ev("tool_use", tool_name=["x"], tool_id="c3", parameters=[1]),
        ev("tool_result", tool_id="c3", status="error", error={"message": []}),
        ev("tool_result", tool_id=[], status="success"),
    ])
    out = check_odd_values(GeminiStreamCollector().collect(path), ["c1", "c3"], [
        (4, "tool_use event without a tool_id"), (7, "tool_result event without a tool_id")])
    c3 = kinds(out, ToolCall)[1]
    assert (c3.tool, c3.is_error, c3.output, c3.args) == ("unknown", True, "", "[1]")


def test_a_reader_that_trips_on_one_line_loses_that_line(monkeypatch):
    check_trip(monkeypatch, GeminiStreamCollector, SAMPLE, 5)


def test_deep_nesting_empty_files_and_junk(tmp_path):
    check_deep_line(tmp_path, GeminiStreamCollector, jsonl(ev("init", session_id="s", model="m"),
                                                           ev("tool_use", tool_name="a", tool_id="c1", parameters={})),
                    jsonl(ev("tool_result", tool_id="c1", status="success", output="ok")))
    check_empty(tmp_path, GeminiStreamCollector)
    assert kinds(check_junk(tmp_path, GeminiStreamCollector), ToolCall) == []
