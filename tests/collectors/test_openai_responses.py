"""openai-responses collector: samples, NeMo-Gym corpus counted by hand, input+output read once, broken input."""

from __future__ import annotations

import json
from functools import partial

import pytest

from conftest import SAMPLES
from helpers import (check_deep_document, check_deep_line, check_empty, check_junk, check_odd_values, check_trip,
                     check_truncated_line, corpus_path, jsonl, kinds, lone_surrogate_calls, records_of, totals, writer)
from toolaudit.collectors.openai_responses import OpenAIResponsesCollector
from toolaudit.model import ORPHAN, PAIRED, UNPAIRED, ModelText, SessionEnd, Skipped, ToolCall, Usage

HERE = SAMPLES / "openai-responses"
NEMO = "openai-responses/nemo-gym"
HERMES = f"{NEMO}/anyterminal_agent.example_rollouts_hermes.jsonl"
CLAUDE = f"{NEMO}/anyswe_agent.example_rollouts_claude_code.jsonl"

collect = partial(records_of, OpenAIResponsesCollector)
write = writer("rollouts.jsonl")


def fc(call_id, name="terminal", args="{}"):
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": args}


def fco(call_id, output):
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def say(text, role="assistant"):
    part = {"type": "output_text" if role == "assistant" else "input_text", "text": text}
    return {"type": "message", "role": role, "content": [part]}


def test_sample_rollouts():
    path = HERE / "rollouts.jsonl"
    out = collect(path)
    calls = kinds(out, ToolCall)
    assert kinds(out, Skipped) == []
    # jq: (input + output) | function_call_output lengths by the name of their call
    assert [(c.session, c.tool, len(c.output), c.request_index) for c in calls] == [
        ("anyterminal-reports::empty-summary/0", "search_files", 358, 1),
        ("anyterminal-reports::empty-summary/0", "read_file", 1128, 1),  # parallel calls: both first seen by request 1
        ("anyterminal-reports::empty-summary/0", "patch", 265, 2),
        ("anyterminal-reports::empty-summary/0", "terminal", 138, 3),
        # turn 2: the first turn's call comes back in the input and is read from there
        ("anyterminal-reports::round-revenue/0", "terminal", 101, 1),
        ("anyterminal-reports::round-revenue/0", "patch", 108, 3),
    ]
    assert all(c.status == PAIRED and c.model == "openai/gpt-oss-120b" for c in calls)
    usage = kinds(out, Usage)  # rollout 2 has usage null
    assert [(u.session, u.request_id, u.request_index, u.input_uncached, u.cache_read, u.output, u.reasoning)
            for u in usage] == [
        ("anyterminal-reports::empty-summary/0", "anyterminal-reports::empty-summary/0", None, 6107, 15360, 1288, 402)]
    assert kinds(out, SessionEnd) == [SessionEnd(str(path), "anyterminal-reports::empty-summary/0", (4,)),
                                      SessionEnd(str(path), "anyterminal-reports::round-revenue/0", (4,))]
    assert any("DictReader" in t.text for t in kinds(out, ModelText))


def test_sample_exchange_document():
    path = HERE / "release-check.json"
    out = collect(path)
    calls = kinds(out, ToolCall)
    assert [(c.tool, c.status, c.output) for c in calls] == [
        ("git", PAIRED, "v2.14.1\n"), ("read_file", UNPAIRED, ""), ("git", UNPAIRED, "")]  # the log ends at the calls
    usage = kinds(out, Usage)
    assert [(u.request_id, u.input_uncached, u.cache_read, u.output, u.reasoning) for u in usage] == [
        ("resp_68b1c2e9f4a08193a7d5e2c6b0f91d3e", 338, 1536, 212, 128)]
    assert kinds(out, SessionEnd)[0].requests == (2,)


@pytest.mark.parametrize("name", ["anyswe_agent.example_rollouts_claude_code.jsonl",
                                  "anyterminal_agent.example_rollouts_hermes.jsonl",
                                  "hermes_agent.example_math_rollouts.jsonl"])
def test_every_corpus_file(name):
    out = collect(corpus_path(NEMO) / name)
    assert [s for s in kinds(out, Skipped) if not s.benign] == []
    assert all(c.status == PAIRED for c in kinds(out, ToolCall))
    assert len(kinds(out, SessionEnd)) == 5  # one session per rollout line


def test_corpus_folder_is_covered():
    assert sorted(p.name for p in corpus_path(NEMO).iterdir()) == [
        "anyswe_agent.example_rollouts_claude_code.jsonl", "anyterminal_agent.example_rollouts_hermes.jsonl",
        "hermes_agent.example_math_rollouts.jsonl"]


def test_hermes_rollouts_counts_by_hand():
    out = collect(corpus_path(HERMES))
    calls = kinds(out, ToolCall)
    # counted with jq, independently of the collector:
    #   (.responses_create_params.input + .response.output) as $i | names by call_id from $i's function_calls |
    #   $i[] | select(.type=="function_call_output") | {tool: name, n: (.output|length)} | group_by(.tool)
    assert totals(calls) == (
        {"terminal": 117, "read_file": 11, "patch": 5, "write_file": 5, "execute_code": 3, "send_message": 1},
        {"terminal": 119005, "read_file": 24225, "patch": 5583, "write_file": 223, "execute_code": 1098,
         "send_message": 237},
    )
    assert sum(len(c.output) for c in calls) == 150371
    assert kinds(out, Usage) == []  # usage is null in every rollout
    # one request per assistant message (each a run of model items): 7 + 14 + 18 + 17 + 91
    assert [e.requests for e in kinds(out, SessionEnd)] == [(7,), (14,), (18,), (17,), (91,)]


def test_claude_code_rollouts_share_an_id_but_stay_apart():
    out = collect(corpus_path(CLAUDE))
    calls = kinds(out, ToolCall)
    # jq as above: Read 6 / 66309, Edit 9 / 1633, Bash 1 / 1198
    assert totals(calls) == ({"Read": 6, "Edit": 9, "Bash": 1}, {"Read": 66309, "Edit": 1633, "Bash": 1198})
    # every rollout has response.id "anyswe-astropy__astropy-12907": the rollout index tells them apart
    usage = kinds(out, Usage)
    assert [u.request_id for u in usage] == [f"anyswe-astropy__astropy-12907/{i}" for i in (0, 3, 4, 1, 2)]
    assert [(u.input_uncached, u.output) for u in usage] == [(174322, 21397), (31397, 3125), (31259, 3147),
                                                             (32994, 4735), (51762, 5342)]
    assert all(u.request_index is None for u in usage)  # an aggregate over the rollout, not one request


def test_math_rollouts_zero_usage_is_no_usage():
    out = collect(corpus_path(f"{NEMO}/hermes_agent.example_math_rollouts.jsonl"))
    assert kinds(out, Usage) == []
    # jq: assistant messages with text: 7 (one of the 8 is only a call)
    assert len(kinds(out, ToolCall)) == 3 and len(kinds(out, ModelText)) == 7


def test_input_and_output_are_read_once(tmp_path):
    earlier = [say("fix it", "user"), fc("c1", "grep"), fco("c1", "a.py:1"), say("found it")]
    later = [fc("c2", "read"), fco("c2", "x = 1"), say("done")]
    # an agent that returns the whole conversation: the output starts with the input again
    resent = {"responses_create_params": {"input": earlier}, "response": {"id": "r1", "output": earlier + later}}
    # and one that repeats a single item out of order
    again = {"responses_create_params": {"input": earlier},
             "response": {"id": "r2", "output": [fco("c1", "a.py:1"), fc("c1", "grep")] + later}}
    out = collect(write(tmp_path, json.dumps(resent) + "\n" + json.dumps(again) + "\n"))
    calls = kinds(out, ToolCall)
    assert [(c.session, c.tool, c.output) for c in calls] == [
        ("r1", "grep", "a.py:1"), ("r1", "read", "x = 1"), ("r2", "grep", "a.py:1"), ("r2", "read", "x = 1")]
    assert [e.requests for e in kinds(out, SessionEnd)] == [(3,), (3,)]


def test_other_items_and_shapes(tmp_path):
    items = [
        {"role": "user", "content": "hello"},  # an easy input message: no type
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},  # hosted: no output to measure
        {"type": "custom_tool_call", "call_id": "k1", "name": "apply_patch", "input": "*** Begin Patch"},
        {"type": "custom_tool_call_output", "call_id": "k1", "output": [
            {"type": "input_text", "text": "ok"}, {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]},
        {"type": "mcp_call", "id": "mcp_1", "name": "get_issue", "arguments": "{}", "output": "issue #4"},
        {"type": "mcp_call", "id": "mcp_2", "name": "get_pr", "arguments": "{}", "output": None,
         "error": {"message": "404"}},
        fco("zz", "lost"),
    ]
    out = collect(write(tmp_path, json.dumps(items), "items.json"))
    assert [(c.tool, c.output, c.images, c.status, c.is_error, c.args) for c in kinds(out, ToolCall)] == [
        ("apply_patch", "ok", 1, PAIRED, False, "*** Begin Patch"),
        ("get_issue", "issue #4", 0, PAIRED, False, "{}"),
        ("get_pr", '{"message":"404"}', 0, PAIRED, True, "{}"),
        ("unknown", "lost", 0, ORPHAN, False, ""),
    ]
    # reasoning, web search and the custom call are one request; the MCP calls after its output another
    assert kinds(out, SessionEnd) == [SessionEnd(str(tmp_path / "items.json"), "items", (2,))]
    response = {"object": "response", "id": "resp_9", "output": [fc("c9", "ls")],
                "usage": {"input_tokens": 0, "output_tokens": 0}}
    out = collect(write(tmp_path, json.dumps(response), "resp.json"))
    assert [(c.session, c.status) for c in kinds(out, ToolCall)] == [("resp_9", UNPAIRED)] and kinds(out, Usage) == []


def test_not_claimed_other_formats():
    assert not OpenAIResponsesCollector.sniff_line({"timestamp": "t", "type": "response_item", "payload": fc("c")})  # Codex
    assert not OpenAIResponsesCollector.sniff_line({"role": "assistant", "content": "x"})  # a chat message
    assert not OpenAIResponsesCollector.sniff_doc([{"role": "user", "content": "x"}])  # chat messages, no type
    assert not OpenAIResponsesCollector.sniff_doc([{"type": "text", "text": "x"}])  # Anthropic blocks
    assert not OpenAIResponsesCollector.sniff_line({"tool": "Grep", "output": "x"})  # toolaudit-jsonl


@pytest.mark.parametrize("line, reason", [
    ({"responses_create_params": {"input": 5}, "response": {"output": []}}, "input or output is not a list"),
    ({"responses_create_params": {}, "response": {"output": {"a": 1}}}, "input or output is not a list"),
    ({"responses_create_params": {}, "response": {"output": [7]}}, "expected an item object, got int"),
    ({"responses_create_params": {}, "response": {"output": [{"type": "function_call", "name": "x"}]}}, "without a call_id"),
    ({"responses_create_params": {}, "response": {"output": [{"type": ["message"], "role": "user"}]}}, None),
    ("a string", "expected a run object, got str"),
])
def test_wrong_types_are_skipped(tmp_path, line, reason):
    good = {"responses_create_params": {"input": "hi"}, "response": {"id": "g", "output": [say("hello")]}}
    out = collect(write(tmp_path, f"{json.dumps(good)}\n{json.dumps(line)}\n"))
    assert kinds(out, ToolCall) == []
    skipped = kinds(out, Skipped)
    if reason is None:  # an unknown item type is not an error: passed over
        assert skipped == []
    else:
        assert [s.line for s in skipped] == [2] and reason in skipped[0].reason


def test_odd_value_types_lose_one_item_not_the_file(tmp_path):
    odd = {"responses_create_params": {"input": "hi", "model": []}, "response": {
        "id": {}, "created_at": [], "usage": {"input_tokens": "5"}, "output": [
            fc("a"), fco("a", "ok"), {"type": "function_call", "call_id": {}, "name": "x"},
            {"type": "function_call", "call_id": "b", "name": 5, "arguments": {"k": []}},
            {"type": "message", "role": [], "content": {"type": []}},
            fco("b", [{"type": "input_image", "image_url": {"url": 7}}, {"type": [], "text": "t"}])]}}
    bad_run = {"responses_create_params": {"input": {}}, "response": {"output": []}}
    good = {"responses_create_params": {"input": []}, "response": {
        "id": "resp_1", "output": [fc("c"), fco("c", "x")], "usage": {"input_tokens": 10, "output_tokens": 2}}}
    out = check_odd_values(collect(write(tmp_path, jsonl(odd, bad_run, good))), ["a", "b", "c"], [
        (1, "function_call without a call_id"), (2, "input or output is not a list of items")])
    b = kinds(out, ToolCall)[1]
    assert (b.session, b.tool, b.args, b.images, b.image_bytes, b.output, b.model) == (
        "rollouts#1", "unknown", '{"k":[]}', 1, 0, "t", None)
    # the request id is the session name (`<response id>/<rollout>` or the file's): unique in the file only
    assert [(u.request_id, u.global_id) for u in kinds(out, Usage)] == [("resp_1", False)]


def test_a_reader_that_trips_on_one_item_loses_that_item(monkeypatch):
    # line 2 holds two results: the first is lost to the trip (its call stays, unpaired), nothing else
    out = check_trip(monkeypatch, OpenAIResponsesCollector, HERE / "rollouts.jsonl", 2)
    assert len([c for c in kinds(out, ToolCall) if c.status == UNPAIRED]) == 1


def test_deep_nesting_loses_one_line(tmp_path):
    run = {"responses_create_params": {"input": []}, "response": {"id": "r", "output": [fc("a"), fco("a", "ok")]}}
    check_deep_line(tmp_path, OpenAIResponsesCollector, jsonl(run), jsonl({**run, "response": {**run["response"], "id": "s"}}))
    check_deep_document(tmp_path, OpenAIResponsesCollector)


def test_truncated_empty_junk_surrogates(tmp_path):
    run = {"responses_create_params": {"input": []}, "response": {"id": "r", "output": [fc("a"), fco("a", "ok")]}}
    check_truncated_line(tmp_path, OpenAIResponsesCollector, run, 40)
    check_empty(tmp_path, OpenAIResponsesCollector)
    check_junk(tmp_path, OpenAIResponsesCollector)

    lone = {"responses_create_params": {"input": []},
            "response": {"id": "r", "output": [fc("a", args="\ud83d"), fco("a", "half \ud83d")]}}
    calls = lone_surrogate_calls(tmp_path, OpenAIResponsesCollector, json.dumps(lone) + "\n")  # \ud83d escapes
    assert calls[0].output == "half \ud83d"
    wrong = OpenAIResponsesCollector().collect(tmp_path / "x.json", 42)  # --from openai-responses on other JSON
    assert [s.reason for s in wrong] == ["expected a run object, got int"]
