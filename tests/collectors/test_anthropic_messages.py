"""anthropic-messages collector: the request-log sample (dedupe), claude-trace pairs, broken input."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SAMPLES
from helpers import (SHAPE, check_deep_document, check_deep_line, check_empty, check_junk, check_odd_values, check_trip,
                     check_truncated_line, corpus_path, jsonl, kinds, records_of, split, write)
from toolaudit.collectors.anthropic_messages import AnthropicMessagesCollector, is_anthropic_body
from toolaudit.collectors.discover import detect
from toolaudit.model import ORPHAN, PAIRED, UNPAIRED, SessionEnd, Skipped, ToolCall

SAMPLE = SAMPLES / "anthropic-messages" / "requests.jsonl"
MINE = {"openai-chat", "anthropic-messages", "toolaudit-jsonl"}


def records(path: Path):
    return split(records_of(AnthropicMessagesCollector, path))


def forced(path: Path):
    return split(records_of(AnthropicMessagesCollector, path, forced=True))


def use(call_id, name, **args):
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def result(call_id, content, **extra):
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, **extra}


def test_sample_counts_each_result_once():
    calls, skipped, ends = records(SAMPLE)
    assert skipped == []
    # jq over the whole file finds 4 tool_result blocks (the Grep result is re-sent by request 3);
    # over the last request, 3 distinct ones: Grep 197 chars, Read 696 (text parts), Bash 530 (is_error)
    assert [(c.tool, len(c.output), c.is_error, c.request_index, c.line) for c in calls] == [
        ("Grep", 197, False, 1, 2), ("Read", 696, False, 2, 3), ("Bash", 530, True, 2, 3)]
    # metadata.user_id names the user, not the session: the session is the file's one conversation
    assert all(c.status == PAIRED and c.session == "requests" for c in calls)
    assert all(c.model == "claude-sonnet-4-5-20250929" for c in calls)
    assert calls[0].output.startswith('src/toolbelt/config.py:19:    data = tomllib.loads(path.read_text())["toolbelt"]')
    assert calls[2].output.endswith("KeyError: 'toolbelt'\nExit code 1")
    assert calls[1].args == '{"file_path":"/srv/toolbelt/src/toolbelt/config.py"}'
    # three logged requests; the appended response is not a request. The Grep result is in the
    # messages of requests 2 and 3, the other two in request 3 only
    assert ends == [SessionEnd(str(SAMPLE), "requests", (3,), carried=(
        ("toolu_01GrepQk7vXc3Lp9", 2), (calls[1].call_id, 1), (calls[2].call_id, 1)))]


def trace(body, response=None, url="https://api.anthropic.com/v1/messages?beta=true", at="2026-02-01T10:00:00Z"):
    return {"request": {"timestamp": 1.0, "method": "POST", "url": url, "headers": {}, "body": body},
            "response": response, "logged_at": at}


def sse(*events) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_claude_trace_pairs(tmp_path):
    u0 = {"role": "user", "content": "go"}
    a1 = {"role": "assistant", "content": [use("t1", "Read", file_path="a.py")]}
    u1 = {"role": "user", "content": [result("t1", [{"type": "text", "text": "print(1)"},
                                                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}])]}
    a2 = {"role": "assistant", "content": [use("t2", "Bash", command="ls")]}
    u2 = {"role": "user", "content": [result("t2", "a.py\nb.py")]}
    body = {"model": "claude-opus-4-1", "max_tokens": 100, "system": "s"}
    streamed = sse(
        {"type": "message_start", "message": {"model": "claude-opus-4-1", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t3", "name": "Grep", "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"pattern\": "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "\"TODO\"}"}},
        {"type": "message_stop"})
    path = write(tmp_path, jsonl(
        trace({**body, "messages": [u0]}, {"status_code": 200, "body": {"type": "message", "role": "assistant", "content": a1["content"], "stop_reason": "tool_use"}}),
        trace({"messages": [u0]}, {"body": {"input_tokens": 12}}, url="https://api.anthropic.com/v1/messages/count_tokens"),
        trace(None, {"body": {"ok": True}}, url="https://api.anthropic.com/api/oauth/profile"),
        trace({**body, "messages": [u0, a1, u1]}, None, at="2026-02-01T10:00:05Z"),
        trace({**body, "messages": [u0, a1, u1, a2, u2]}, {"status_code": 200, "body_raw": streamed}, at="2026-02-01T10:00:09Z"),
    ), "log-2026-02-01-10-00-00.jsonl")
    calls, skipped, ends = records(path)
    assert skipped == []
    assert [(c.tool, c.output, c.status, c.request_index, c.line, c.ts) for c in calls] == [
        ("Read", "print(1)", PAIRED, 1, 4, "2026-02-01T10:00:05Z"),
        ("Bash", "a.py\nb.py", PAIRED, 2, 5, "2026-02-01T10:00:09Z"),
        ("Grep", "", UNPAIRED, None, 5, "2026-02-01T10:00:09Z"),  # asked for in the last (streamed) response
    ]
    assert (calls[0].images, calls[0].image_bytes) == (1, 3)
    assert calls[0].args == '{"file_path":"a.py"}' and calls[0].line == 4  # the result's line
    assert calls[2].args == '{"pattern": "TODO"}'  # the streamed JSON, as the model wrote it
    # count_tokens and other endpoints are not model requests
    assert ends == [SessionEnd(str(path), "log-2026-02-01-10-00-00", (3,), carried=(("t1", 2), ("t2", 1)))]


def test_document_shapes_and_sessions(tmp_path):
    session = "0f3e1a2b-5c6d-4e7f-8a9b-0c1d2e3f4a5b"
    body = {"model": "claude-haiku-4-5", "metadata": {"user_id": f"user_9f2c_account_1b2c_session_{session}"}, "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [use("t1", "Glob", pattern="*.py")]},
        {"role": "user", "content": [result("t1", "a.py", is_error=False)]},
    ]}
    one = write(tmp_path, json.dumps(body, indent=2), "request.json")
    cls, doc = detect(one)
    assert cls is AnthropicMessagesCollector and doc == body
    calls, skipped, ends = records(one)
    # Claude Code's user_id ends with the session id: that names the session
    assert [(c.tool, c.output, c.session, c.request_index) for c in calls] == [("Glob", "a.py", session, 0)]
    assert ends == [SessionEnd(str(one), session, (1,), carried=(("t1", 1),))]

    plain = {k: v for k, v in body.items() if k != "metadata"}
    many = write(tmp_path, json.dumps([plain, {**plain, "session": "other"}]), "requests.json")
    calls, _, ends = records(many)
    assert [(c.session, c.status) for c in calls] == [("requests", PAIRED)]  # one result, counted once per file
    # the second request names another session: the same result in it is not read again, but it carried it
    assert ends == [SessionEnd(str(many), "requests", (1,), carried=(("t1", 2),)), SessionEnd(str(many), "other", (1,))]


def test_orphans_and_bare_responses(tmp_path):
    req = {"model": "m", "system": "s", "messages": [{"role": "user", "content": [result("gone", "lost output")]}]}
    resp = {"type": "message", "role": "assistant", "model": "m", "stop_reason": "tool_use",
            "content": [{"type": "text", "text": "next"}, use("t9", "Write", file_path="b")]}
    path = write(tmp_path, jsonl(req, resp))
    calls, skipped, ends = records(path)
    assert [(c.tool, c.status, c.output) for c in calls] == [("unknown", ORPHAN, "lost output"), ("Write", UNPAIRED, "")]
    assert ends == [SessionEnd(str(path), "log", (1,), carried=(("gone", 1),))]


def test_sniffing_is_exclusive_with_openai_chat():
    openai = {"model": "gpt-4o", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
              "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}
    assert not is_anthropic_body(openai) and not AnthropicMessagesCollector.sniff_line(openai)
    tools_only = {"model": "c", "messages": [{"role": "user", "content": "u"}],
                  "tools": [{"name": "f", "input_schema": {"type": "object"}}]}
    assert AnthropicMessagesCollector.sniff_line(tools_only)
    # the same shape carrying a tool_calls message is OpenAI, whatever else it has
    assert not is_anthropic_body({**tools_only, "messages": [{"role": "assistant", "tool_calls": []}]})
    # a plain chat with string contents only is ambiguous: left to openai-chat
    assert not AnthropicMessagesCollector.sniff_line({"model": "c", "messages": [{"role": "user", "content": "u"}]})
    # Codex legacy items are `type: message` too, but carry no stop_reason
    assert not AnthropicMessagesCollector.sniff_line({"type": "message", "role": "assistant", "content": []})


def test_detection_on_samples_and_corpus():
    assert detect(SAMPLE)[0] is AnthropicMessagesCollector
    corpus = corpus_path()
    assert detect(corpus / "claude-code/spotter/short.jsonl")[0].key == "claude-code"
    for path in sorted((corpus / "codex/localpush").glob("*.jsonl")):
        assert detect(path)[0].key == "codex", path


def test_wrong_types_are_skipped_once(tmp_path):
    broken = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": 5, "content": "x"}]}
    bad_use = {"role": "assistant", "content": [{"type": "tool_use", "id": None, "name": "Read"}]}
    msgs = [{"role": "user", "content": "go"}, bad_use, broken]
    path = write(tmp_path, jsonl(
        {"model": "m", "system": "s", "messages": msgs},
        {"model": "m", "system": "s", "messages": msgs + [{"role": "assistant", "content": "done"}]},
        {"messages": "nope"},
        [1, 2],
        {"model": "m", "messages": [7, {"role": "user", "content": 3}, {"role": "user", "content": [None, "x"]}]},
    ))
    calls, skipped, ends = forced(path)
    assert calls == []
    # the broken blocks are re-sent by request 2 but reported once
    assert [(s.line, s.reason) for s in skipped] == [
        (1, "tool_use block without a string id and name"),
        (1, "tool_result block without a tool_use_id"),
        (3, "not an Anthropic request body, response or trace pair"),
        (4, "expected a JSON object, got list"),
    ]
    # line 5 extends no earlier request: a conversation of its own
    assert ends == [SessionEnd(str(path), "log", (2,)), SessionEnd(str(path), "log#2", (1,))]


def test_odd_value_types_lose_one_block_not_the_file(tmp_path):
    # a role that is an object or a list was hashed by the sniffers: the file was lost
    first = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [use("a", "ls")]},
             {"role": "user", "content": [result("a", "ok")]}]
    more = first + [
        {"role": [], "content": [result("zz", "never a user's")]}, {"role": {}, "content": "x"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": {}, "name": "x"}, use("b", "cat"),
                                          {"type": [], "id": "c"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": [], "content": "?"},
                                     result("b", [{"type": "image", "source": 7}, {"type": "text", "text": "t"}],
                                            is_error="yes")]}]
    sse = ('data: {"type": "content_block_start", "index": [], "content_block": {"type": "tool_use", "id": "d"}}\n'
           'data: {"type": "content_block_delta", "index": {}, "delta": {"partial_json": "{"}}\n')
    path = write(tmp_path, jsonl(
        {"model": "m", "system": "s", "messages": first},
        {"model": ["m"], "system": "s", "messages": more, "metadata": {"user_id": []}},
        {"type": {}, "content": []},
        {"request": {"url": [], "body": {"messages": more}}, "response": {"body_raw": sse}, "logged_at": 5},
    ))
    out = check_odd_values(records_of(AnthropicMessagesCollector, path), ["a", "b"], [
        (2, "tool_use block without a string id and name"), (2, "tool_result block without a tool_use_id"),
        (3, "not an Anthropic request body, response or trace pair")])
    assert [(c.tool, c.output, c.images, c.is_error, c.model) for c in kinds(out, ToolCall)] == [
        ("ls", "ok", 0, False, "m"), ("cat", "t", 1, False, None)]


def test_a_message_that_trips_is_one_problem_however_often_it_is_resent(monkeypatch, tmp_path):
    from toolaudit.collectors import anthropic_messages

    real = anthropic_messages._blocks

    def blocks(msg):
        if isinstance(msg, dict) and msg.get("content") == "boom":
            raise TypeError("unhashable type: 'dict'")
        return real(msg)

    monkeypatch.setattr(anthropic_messages, "_blocks", blocks)
    msgs = [{"role": "user", "content": "boom"}, {"role": "assistant", "content": [use("a", "ls")]},
            {"role": "user", "content": [result("a", "ok")]}]
    path = write(tmp_path, jsonl(*({"model": "m", "system": "s", "messages": msgs[:n]} for n in (1, 2, 3))))
    out = check_odd_values(records_of(AnthropicMessagesCollector, path), ["a"], [
        (1, f"{SHAPE}TypeError: unhashable type: 'dict'")])
    assert kinds(out, SessionEnd)[0].requests == (3,)


def test_a_reader_that_trips_on_one_line_loses_that_line(monkeypatch):
    # line 3 first holds a message with two results: the trip on the first ends that message, so both
    # are lost (their calls stay, unpaired; later requests re-send them as taken); nothing else
    out = check_trip(monkeypatch, AnthropicMessagesCollector, SAMPLE, 3)
    assert [(c.tool, c.line) for c in kinds(out, ToolCall) if c.status == UNPAIRED] == [("Read", 3), ("Bash", 3)]


def test_deep_nesting_loses_one_line(tmp_path):
    req = {"model": "m", "system": "s", "messages": [{"role": "assistant", "content": [use("t1", "Read")]},
                                                     {"role": "user", "content": [result("t1", "ok")]}]}
    check_deep_line(tmp_path, AnthropicMessagesCollector, jsonl(req), jsonl(req))
    check_deep_document(tmp_path, AnthropicMessagesCollector)


def test_truncated_empty_junk_surrogates(tmp_path):
    req = {"model": "m", "system": "s", "messages": [
        {"role": "assistant", "content": [use("t1", "Read", file_path="\ud83d")]},
        {"role": "user", "content": [result("t1", [{"type": "text", "text": "half \udc00 emoji"}])]}]}
    calls = kinds(check_truncated_line(tmp_path, AnthropicMessagesCollector, req, 50), ToolCall)
    assert [c.output for c in calls] == ["half \udc00 emoji"] and calls[0].args == '{"file_path":"\ud83d"}'

    check_empty(tmp_path, AnthropicMessagesCollector)

    junk = check_junk(tmp_path, AnthropicMessagesCollector, b"\x00\xff\xfe{\x89PNG\r\n\x1a\n")
    assert len(kinds(junk, Skipped)) == 2
