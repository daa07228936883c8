"""atif collector: the sample, the corpus file counted by hand, pairing without source_call_id, broken input."""

from __future__ import annotations

import json
from collections import Counter
from functools import partial

import pytest

from conftest import SAMPLES
from helpers import (check_deep_document, check_empty, check_junk, check_odd_values, check_trip, corpus_path, kinds,
                     lone_surrogate_calls, records_of, writer)
from toolaudit.collectors.atif import AtifCollector
from toolaudit.collectors.discover import detect
from toolaudit.model import ORPHAN, PAIRED, UNPAIRED, ModelText, SessionEnd, Skipped, ToolCall, Usage

SAMPLE = SAMPLES / "atif" / "trajectory.json"
HELLO = "atif/inspect_scout/openhands_hello-world.trajectory.json"

collect = partial(records_of, AtifCollector)
write = writer("trajectory.json", json.dumps)  # a trajectory object, or the bytes of a broken one


def trajectory(steps, **extra):
    return {"schema_version": "ATIF-v1.5", "session_id": "s-1", "agent": {"name": "x", "version": "1"},
            "steps": steps, **extra}


def test_sample():
    out = collect(SAMPLE)
    calls, usage = kinds(out, ToolCall), kinds(out, Usage)
    assert kinds(out, Skipped) == []
    # jq: [.steps[] | .observation.results[]? | .content | length] == [321, 547, 871, 292, 342]
    assert [(c.tool, len(c.output), c.request_index, c.line) for c in calls] == [
        ("Grep", 321, 1, 2), ("Read", 547, 2, 3), ("Bash", 871, 2, 3), ("Edit", 292, 3, 4), ("Bash", 342, 4, 5)]
    assert all(c.status == PAIRED and c.model == "claude-sonnet-4-5-20250929" for c in calls)
    assert calls[0].args == '{"pattern":"discount","path":"src/shop","output_mode":"content","-n":true}'
    # prompt_tokens include cached_tokens (ATIF RFC); the cache write sits in metrics.extra
    assert [(u.request_index, u.input_uncached, u.cache_write, u.cache_read, u.output) for u in usage] == [
        (0, 3, 14279, 0, 142), (1, 7, 418, 14279, 171), (2, 6, 1688, 14697, 308), (3, 3, 424, 16385, 96),
        (4, 3, 309, 16809, 58)]
    assert usage[0].request_id == "6f2d0c9e-4b1a-4e37-9d58-a3c7e1f05b82#2"
    assert kinds(out, SessionEnd) == [SessionEnd(str(SAMPLE), "6f2d0c9e-4b1a-4e37-9d58-a3c7e1f05b82", (5,))]
    assert kinds(out, ModelText)[0].text.startswith("Second application probably")  # reasoning, then message


def test_corpus_file_counts_by_hand():
    path = corpus_path(HELLO)
    out = collect(path)
    assert [s for s in kinds(out, Skipped) if not s.benign] == []
    calls = kinds(out, ToolCall)
    # read off the file (jq '.steps[] | .tool_calls, .observation'): step 5 str_replace_editor answered with
    # "File created successfully at: /app/hello.txt" (44 chars); step 6 calls finish, never answered
    assert [(c.tool, c.call_id, len(c.output), c.status, c.request_index) for c in calls] == [
        ("str_replace_editor", "call_fake_1", 44, PAIRED, 1), ("finish", "call_fake_2", 0, UNPAIRED, None)]
    assert Counter(c.tool for c in calls) == {"str_replace_editor": 1, "finish": 1}
    usage = kinds(out, Usage)
    assert [(u.input_uncached, u.output, u.request_index) for u in usage] == [(100, 50, 0), (120, 30, 1)]
    assert kinds(out, SessionEnd) == [SessionEnd(str(path), "NORMALIZED_SESSION_ID", (2,))]


def test_corpus_folder_is_covered():
    assert sorted(str(p.relative_to(corpus_path())) for p in corpus_path("atif").rglob("*") if p.is_file()) == [HELLO]


def test_results_without_source_call_id(tmp_path):
    # Harbor's mini-swe-agent converter: `call_<step>_1` on the call, no source_call_id on the output
    steps = [
        {"step_id": 1, "source": "user", "message": "fix"},
        {"step_id": 2, "source": "agent", "message": "THOUGHT: look", "tool_calls": [
            {"tool_call_id": "call_2_1", "function_name": "bash_command", "arguments": {"command": "ls"}}],
         "observation": {"results": [{"content": "a.py"}, {"content": "extra"}]},
         "metrics": {"prompt_tokens": 900, "completion_tokens": 20, "cached_tokens": 640}},
        {"step_id": 3, "source": "system", "message": "context reset",
         "observation": {"results": [{"source_call_id": None, "content": "summary"}]}},
        {"step_id": 4, "source": "agent", "message": "", "tool_calls": [
            {"tool_call_id": "c4", "function_name": "bash_command", "arguments": {}}],
         "observation": {"results": [{"source_call_id": "c4", "is_error": True,
                                      "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}]}},
    ]
    out = collect(write(tmp_path, trajectory(steps)))
    assert [(c.tool, c.call_id, c.output, c.status, c.is_error, c.request_index) for c in kinds(out, ToolCall)] == [
        ("bash_command", "call_2_1", "a.py", PAIRED, False, 1),
        ("unknown", "", "extra", ORPHAN, False, 1),  # an action's output that answers no call
        ("unknown", "", "summary", ORPHAN, False, 1),
        ("bash_command", "c4", "x\ny", PAIRED, True, 2),
    ]
    usage = kinds(out, Usage)
    assert [(u.input_uncached, u.cache_read, u.output) for u in usage] == [(260, 640, 20)]  # step 4 has no metrics


@pytest.mark.parametrize("step, reason", [
    (5, "expected a step object, got int"),
    ({"source": "agent", "message": "", "tool_calls": [{"function_name": "x"}]}, "without a tool_call_id or function_name"),
    ({"source": "agent", "message": "", "tool_calls": [None]}, "without a tool_call_id or function_name"),
    ({"source": "agent", "message": "", "tool_calls": "ls"}, "without a tool_call_id or function_name"),
    ({"source": "agent", "message": "", "observation": {"results": "x"}}, "observation results is not a list"),
    ({"source": "agent", "message": "", "observation": {"results": [3]}}, "observation result is not an object"),
])
def test_wrong_types_are_skipped(tmp_path, step, reason):
    out = collect(write(tmp_path, trajectory([{"step_id": 1, "source": "user", "message": "hi"}, step])))
    skipped = kinds(out, Skipped)
    assert kinds(out, ToolCall) == [] and [s.line for s in skipped] == [2] and reason in skipped[0].reason


def test_metrics_of_wrong_types_are_no_usage(tmp_path):
    steps = [{"step_id": 1, "source": "agent", "message": "", "metrics": {"prompt_tokens": "12", "completion_tokens": True}},
             {"step_id": 2, "source": "agent", "message": "", "metrics": "lots"}]
    out = collect(write(tmp_path, trajectory(steps, model=None)))
    assert kinds(out, Usage) == [] and kinds(out, Skipped) == [] and kinds(out, SessionEnd)[0].requests == (2,)


def test_odd_value_types_lose_one_step_not_the_file(tmp_path):
    steps = [
        {"step_id": 1, "source": "user", "message": "hi"},
        {"step_id": 2, "source": "agent", "message": "", "metrics": {"prompt_tokens": 10, "completion_tokens": 2},
         "tool_calls": [{"tool_call_id": "c1", "function_name": "ls", "arguments": {}}],
         "observation": {"results": [{"source_call_id": "c1", "content": "ok"}]}},
        {"step_id": {}, "source": ["agent"], "message": {}, "tool_calls": [{"tool_call_id": "cx", "function_name": "x"}]},
        {"step_id": 4, "source": "agent", "message": ["x"], "tool_calls": [{"tool_call_id": {}, "function_name": "x"}]},
        {"step_id": [], "source": "agent", "model_name": [], "timestamp": {}, "metrics": {"prompt_tokens": 3, "extra": []},
         "tool_calls": [{"tool_call_id": "c2", "function_name": "cat", "arguments": [1]}],
         "observation": {"results": [{"source_call_id": [], "content": [{"type": "text", "text": "x"}], "is_error": "y"}]}},
        {"step_id": 6, "source": "agent", "observation": {"results": "x"}},
    ]
    out = check_odd_values(collect(write(tmp_path, trajectory(steps, agent={"name": "x", "model_name": 5}))),
                           ["c1", "c2"], [(4, "tool call without a tool_call_id or function_name"),
                                          (6, "observation results is not a list")])
    assert [(c.tool, c.args, c.output, c.is_error, c.model, c.ts) for c in kinds(out, ToolCall)] == [
        ("ls", "{}", "ok", False, None, None), ("cat", "[1]", "x", False, None, None)]
    # ATIF keeps no provider response id: `<session>#<step>` is unique in the file only
    assert [(u.request_id, u.global_id) for u in kinds(out, Usage)] == [("s-1#2", False), ("s-1#[]", False)]


def test_a_reader_that_trips_on_one_step_loses_that_step(monkeypatch):
    # step 3 holds two results: the trip on the first ends the step, so both are lost (their calls stay,
    # unpaired); the other steps are read as without it
    out = check_trip(monkeypatch, AtifCollector, SAMPLE, 3)
    assert [(c.tool, c.line) for c in kinds(out, ToolCall) if c.status == UNPAIRED] == [("Read", 3), ("Bash", 3)]


def test_deep_nesting_is_one_problem(tmp_path):
    check_deep_document(tmp_path, AtifCollector, "trajectory.json", reason="not an ATIF trajectory: no steps list")


def test_truncated_empty_junk_surrogates(tmp_path):
    text = json.dumps(trajectory([{"step_id": 1, "source": "user", "message": "hi"}]))
    truncated = write(tmp_path, text[:-20].encode(), "cut.json")
    assert detect(truncated) == (None, None)  # not a document at all
    assert [s.reason for s in collect(truncated, forced=True)] == ["not an ATIF trajectory: no steps list"]

    check_empty(tmp_path, AtifCollector, [("not an ATIF trajectory: no steps list", False)])
    check_junk(tmp_path, AtifCollector, reason="not an ATIF trajectory")

    lone = trajectory([{"step_id": 1, "source": "agent", "message": "\ud83d", "tool_calls": [
        {"tool_call_id": "a", "function_name": "ls", "arguments": {"p": "\ud83d"}}],
        "observation": {"results": [{"source_call_id": "a", "content": "half \ud83d"}]}}])
    calls = lone_surrogate_calls(tmp_path, AtifCollector, json.dumps(lone))  # json.dumps writes \ud83d escapes
    assert calls[0].output == "half \ud83d"
    assert not AtifCollector.sniff_doc({"steps": [], "agent": {}})  # no schema_version
