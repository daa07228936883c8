"""otel-genai collector: the samples (OTLP/JSON document and JSONL batches), sessions, unpaired results, broken input."""

from __future__ import annotations

import json
from functools import partial

import pytest

from conftest import SAMPLES
from helpers import (check_deep_document, check_deep_line, check_empty, check_junk, check_odd_values, check_trip,
                     check_truncated_line, jsonl, kinds, lone_surrogate_calls, records_of, writer)
from toolaudit.collectors.otel_genai import OtelGenAICollector
from toolaudit.model import PAIRED, UNPAIRED, SessionEnd, Skipped, ToolCall, Usage

HERE = SAMPLES / "otel-genai"

collect = partial(records_of, OtelGenAICollector)
write = writer("spans.jsonl")


def s(v):
    return {"stringValue": v}


def otlp(*spans):
    scope = {"scope": {"name": "t"}, "spans": list(spans)}
    return {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [scope]}]}


def tool(trace, sid, start, name, call_id, result=None):
    attrs = [{"key": "gen_ai.operation.name", "value": s("execute_tool")}, {"key": "gen_ai.tool.name", "value": s(name)},
             {"key": "gen_ai.tool.call.id", "value": s(call_id)}, {"key": "gen_ai.tool.call.arguments", "value": s("{}")}]
    if result is not None:
        attrs.append({"key": "gen_ai.tool.call.result", "value": s(result)})
    return {"traceId": trace, "spanId": sid, "name": f"execute_tool {name}", "startTimeUnixNano": str(start),
            "attributes": attrs}


def chat(trace, sid, start, inp=100, out=10, **more):
    attrs = [{"key": "gen_ai.operation.name", "value": s("chat")},
             {"key": "gen_ai.usage.input_tokens", "value": {"intValue": str(inp)}},
             {"key": "gen_ai.usage.output_tokens", "value": {"intValue": out}}]  # a number is read too
    attrs += [{"key": k, "value": v} for k, v in more.items()]
    return {"traceId": trace, "spanId": sid, "name": "chat m", "startTimeUnixNano": str(start), "attributes": attrs}


def test_sample_document():
    path = HERE / "refund-trace.json"
    out = collect(path)
    assert kinds(out, Skipped) == []
    calls = kinds(out, ToolCall)
    # jq: the gen_ai.tool.call.result string lengths: lookup_order 227, get_refund_policy 202, issue_refund none
    assert [(c.tool, c.status, len(c.output), c.request_index, c.model) for c in calls] == [
        ("lookup_order", PAIRED, 227, 1, "gpt-4.1-mini-2025-04-14"),
        ("get_refund_policy", PAIRED, 202, 1, "gpt-4.1-mini-2025-04-14"),
        # errored and its result was not captured: unpaired, never an empty output
        ("issue_refund", UNPAIRED, 0, None, "gpt-4.1-mini-2025-04-14"),
    ]
    assert calls[0].call_id == "call_fJ2dQ8vN0sWb6kT1mR4yLp7X" and calls[0].args == '{"order_id": "A-10293"}'
    usage = kinds(out, Usage)
    # input_tokens include the cache reads (semantic conventions): 1788 - 1408 = 380
    assert [(u.request_id[-4:], u.request_index, u.input_uncached, u.cache_read, u.output) for u in usage] == [
        ("d0Ye", 0, 1483, 0, 61), ("f8Va", 1, 380, 1408, 57), ("q5Lp", 2, 248, 1664, 88)]
    # no conversation id: the trace is the session
    assert kinds(out, SessionEnd) == [SessionEnd(str(path), "5b8efff798038103d269b633813fc60c", (3,))]


def test_sample_jsonl_batches_one_conversation():
    path = HERE / "docs-helper.jsonl"
    out = collect(path)
    assert kinds(out, Skipped) == []
    calls = kinds(out, ToolCall)
    # two traces (turns) share gen_ai.conversation.id; trace 1 is split over both lines; the HTTP span is ignored
    assert [(c.session, c.tool, len(c.output), c.request_index, c.line) for c in calls] == [
        ("conv_68de0f2a91c48190b5e3d7a2", "search_docs", 391, 1, 1),
        ("conv_68de0f2a91c48190b5e3d7a2", "fetch_page", 538, 2, 2),
        ("conv_68de0f2a91c48190b5e3d7a2", "search_docs", 179, 4, 2),
    ]
    assert [u.request_index for u in kinds(out, Usage)] == [0, 1, 2, 3, 4]
    assert kinds(out, SessionEnd) == [SessionEnd(str(path), "conv_68de0f2a91c48190b5e3d7a2", (5,))]


def test_order_by_start_time_and_sessions(tmp_path):
    # spans arrive children-first and out of order; two traces without a conversation id are two sessions
    line1 = otlp(tool("t1", "b", 300, "grep", "g1", "x.py:1"), chat("t1", "a", 100), chat("t2", "c", 50))
    line2 = otlp(chat("t1", "d", 400, **{"gen_ai.usage.cache_read.input_tokens": {"intValue": "60"},
                                         "gen_ai.usage.cache_creation.input_tokens": {"intValue": "30"}}),
                 tool("t1", "e", 500, "read", "r1"), tool("t2", "f", 60, "ls", "", "a b"))
    out = collect(write(tmp_path, json.dumps(line1) + "\n" + json.dumps(line2) + "\n"))
    assert [(c.session, c.tool, c.call_id, c.status, c.request_index) for c in kinds(out, ToolCall)] == [
        ("t1", "grep", "g1", PAIRED, 1), ("t1", "read", "r1", UNPAIRED, None),
        ("t2", "ls", "f", PAIRED, 1)]  # no call id: the span id
    usage = kinds(out, Usage)
    assert [(u.session, u.input_uncached, u.cache_write, u.cache_read) for u in usage] == [
        ("t1", 100, 0, 0), ("t1", 10, 30, 60), ("t2", 100, 0, 0)]
    assert [e.requests for e in kinds(out, SessionEnd)] == [(2,), (1,)]


@pytest.mark.parametrize("doc, reason", [
    ({"resourceSpans": [{"scopeSpans": [{"spans": "x"}]}]}, "scopeSpans entry without a spans list"),
    ({"resourceSpans": [{"scopeSpans": [{"spans": [4]}]}]}, "expected a span object, got int"),
    (otlp({"attributes": [{"key": "gen_ai.operation.name", "value": s("chat")}]}),
     "GenAI span without a traceId"),
    ({"resourceLogs": []}, "not an OTLP/JSON document"),
    ([1], "not an OTLP/JSON document"),
])
def test_wrong_types_are_skipped(tmp_path, doc, reason):
    good = otlp(chat("t", "a", 1))
    out = collect(write(tmp_path, f"{json.dumps(good)}\n{json.dumps(doc)}\n"))
    skipped = kinds(out, Skipped)
    assert [s.line for s in skipped] == [2] and reason in skipped[0].reason


def test_odd_values_are_not_crashes(tmp_path):
    odd = otlp({"traceId": "t", "spanId": "a", "startTimeUnixNano": "soon", "attributes": [
        {"key": "gen_ai.operation.name", "value": {"arrayValue": {"values": [s("chat")]}}},  # not a string: no operation
        {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "many"}}, {"key": 5}, "junk"]},
        tool("t", "b", "later", "ls", "c") | {"status": {"code": "STATUS_CODE_ERROR"}},  # a start time that is no number
        chat("t", "c", 2, inp=True, **{"gen_ai.conversation.id": {"kvlistValue": {}}}))
    out = collect(write(tmp_path, json.dumps(odd), "odd.json"))
    assert kinds(out, Skipped) == [] and [c.status for c in kinds(out, ToolCall)] == [UNPAIRED]


def test_odd_value_types_lose_one_span_not_the_file(tmp_path):
    odd_tool = tool("t1", "s2", 20, "ls", "c2", "x")
    odd_tool["attributes"][1]["value"] = s(5)  # a tool name that is a number
    odd_tool["attributes"][2]["value"] = s({})  # a call id that is an object: the span id stands in
    odd_tool["status"] = {"code": []}
    odd_tool["startTimeUnixNano"] = ["1"]
    spans = [
        chat("t1", "s1", 10, **{"gen_ai.response.id": s("chatcmpl-9")}), tool("t1", "s0", 15, "cat", "c1", "ok"),
        odd_tool,
        {**tool("t1", "s3", 30, "rm", "c3", "gone"), "traceId": []},
        {**tool("t1", "s4", 40, "pwd", "c4"), "attributes": [
            {"key": "gen_ai.operation.name", "value": s(["execute_tool"])}, {"key": [], "value": s("x")}, 7]},
        {**chat("t1", "s5", 50, inp=float("1e300")), "attributes": [{"key": "gen_ai.operation.name", "value": s("chat")},
            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": [1]}},
            {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "7"}}]},
        tool("t1", "s6", 60, "find", "c6", "found"),
    ]
    spans[-1]["attributes"].append({"key": "gen_ai.tool.call.result", "value": {"arrayValue": {"values": [
        s("a"), {"intValue": "x"}, {"boolValue": True}]}}})
    # the odd span's start time is no number: it counts as 0, the earliest
    out = check_odd_values(collect(write(tmp_path, jsonl(otlp(*spans[:4]), otlp(*spans[4:])))), ["s2", "c1", "c6"], [
        (1, "GenAI span without a traceId")])
    assert [(c.tool, c.output, c.ts, c.is_error) for c in kinds(out, ToolCall)] == [
        ("unknown", "x", None, False), ("cat", "ok", "1970-01-01T00:00:00+00:00", False),
        ("find", "a\n\ntrue", "1970-01-01T00:00:00+00:00", False)]
    # a provider's response id is unique across files; a span id stands in, unique only within the file
    assert [(u.request_id, u.global_id, u.output) for u in kinds(out, Usage)] == [
        ("chatcmpl-9", True, 10), ("s5", False, 7)]


def test_a_reader_that_trips_on_one_span_loses_that_span(monkeypatch):
    # line 2 holds two results: the first is lost to the trip (its call stays, unpaired), nothing else
    out = check_trip(monkeypatch, OtelGenAICollector, HERE / "docs-helper.jsonl", 2)
    assert len([c for c in kinds(out, ToolCall) if c.status == UNPAIRED]) == 1


def test_deep_nesting_loses_one_line(tmp_path):
    doc = otlp(chat("t1", "s1", 10), tool("t1", "s2", 20, "ls", "c1", "ok"))
    check_deep_line(tmp_path, OtelGenAICollector, jsonl(doc), jsonl(otlp(tool("t2", "s3", 30, "cat", "c2", "x"))))
    check_deep_document(tmp_path, OtelGenAICollector)


def test_truncated_empty_junk_surrogates(tmp_path):
    good = otlp(chat("t", "a", 1), tool("t", "b", 2, "ls", "c1", "ok"))
    check_truncated_line(tmp_path, OtelGenAICollector, good, 40)
    check_empty(tmp_path, OtelGenAICollector)
    check_junk(tmp_path, OtelGenAICollector)

    lone = otlp(tool("t", "b", 2, "ls", "c1", "half \ud83d"))
    calls = lone_surrogate_calls(tmp_path, OtelGenAICollector, json.dumps(lone, indent=1))  # \ud83d escapes
    assert calls[0].output == "half \ud83d"
