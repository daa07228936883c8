"""anthropic-messages collector: the request-log sample (dedupe), claude-trace pairs, broken input."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import SAMPLES
from helpers import (SHAPE, check_deep_document, check_deep_line, check_empty, check_junk, check_odd_values,
                     check_record_types, check_trip, check_truncated_line, corpus_path, jsonl, kinds, records_of,
                     split, write)
from toolaudit.collectors.anthropic_messages import AnthropicMessagesCollector, is_anthropic_body
from toolaudit.collectors.discover import detect
from toolaudit.model import ORPHAN, PAIRED, UNPAIRED, SessionEnd, Skipped, ToolCall, ToolMenu, Usage

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


# ------------------------------------------------------------------ residency, usage and menus of a claude-trace log

USER = "user_6f1d0c9a4b3e2d1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f"  # Claude Code 1.0.x: the user, not the session
READ = {"name": "Read", "description": "Reads a file from the local filesystem.",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}
BASH = {"name": "Bash", "description": "Executes a bash command.", "cache_control": {"type": "ephemeral"},
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}
MCP = {"name": "mcp__tasks__list_tasks", "description": "List the board's tasks.",
       "input_schema": {"type": "object", "properties": {}}}


def cached(msg):
    """The message as Claude Code sends it when it is the last one: a cache_control mark on its last block."""
    content = msg["content"] if isinstance(msg["content"], list) else [{"type": "text", "text": msg["content"]}]
    return {**msg, "content": content[:-1] + [{**content[-1], "cache_control": {"type": "ephemeral"}}]}


def main_body(messages, tools=(READ, BASH)):
    return {"model": "claude-sonnet-4-5-20250929", "max_tokens": 32000, "stream": True,
            "system": [{"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}}],
            "tools": list(tools), "metadata": {"user_id": USER},
            "messages": messages[:-1] + [cached(messages[-1])]}


def side_body(text):
    return {"model": "claude-3-5-haiku-20241022", "max_tokens": 512, "messages": [{"role": "user", "content": text}],
            "system": [{"type": "text", "text": "Summarize this coding conversation in under 50 characters."}],
            "metadata": {"user_id": USER}}


def streamed(msg_id, uses, start_usage, output_tokens):
    events = [{"type": "message_start", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": [], "stop_reason": None, "usage": {**start_usage, "output_tokens": 1}}}]
    for i, block in enumerate(uses):
        events += [{"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}},
                   {"type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}},
                   {"type": "content_block_stop", "index": i}]
    events += [{"type": "message_delta", "delta": {"stop_reason": "tool_use" if uses else "end_turn"},
                "usage": {"output_tokens": output_tokens}}, {"type": "message_stop"}]
    return {"timestamp": 2.0, "status_code": 200, "headers": {"content-type": "text/event-stream"},
            "body_raw": sse(*events)}


def answered(msg_id, model, usage):
    return {"timestamp": 2.0, "status_code": 200, "headers": {}, "body": {
        "id": msg_id, "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": "Fix empty config crash"}], "stop_reason": "end_turn", "usage": usage}}


def claude_trace_log(tmp_path):
    """A Claude Code session through claude-trace --include-all-requests: a quota check, three main
    requests (the third after an MCP server added a tool), a title call between them, a 529 that
    was retried, then /clear and a second conversation of two requests."""
    u0 = {"role": "user", "content": [{"type": "text", "text": "<system-reminder>CLAUDE.md says: run make test</system-reminder>"},
                                      {"type": "text", "text": "why does sync crash on an empty config?"}]}
    a1 = {"role": "assistant", "content": [use("toolu_01Read", "Read", file_path="/srv/app/config.py")]}
    u1 = {"role": "user", "content": [result("toolu_01Read", "     1\timport tomllib\n     2\tdata = tomllib.loads(text)['app']\n")]}
    a2 = {"role": "assistant", "content": [{"type": "text", "text": "Let me run the tests."},
                                           use("toolu_02Bash", "Bash", command="make test")]}
    u2 = {"role": "user", "content": [result("toolu_02Bash", "FAILED tests/test_sync.py::test_empty - KeyError: 'app'\n1 failed, 41 passed",
                                             is_error=True)]}
    v0 = {"role": "user", "content": "now list the open tasks"}
    b1 = {"role": "assistant", "content": [use("toolu_03Tasks", "mcp__tasks__list_tasks")]}
    v1 = {"role": "user", "content": [result("toolu_03Tasks", [{"type": "text", "text": "#12 empty config crash\n#14 docs"}])]}
    cache = {"input_tokens": 4, "cache_creation_input_tokens": 1200, "cache_read_input_tokens": 14000}
    lines = [
        trace({"model": "claude-3-5-haiku-20241022", "max_tokens": 1, "messages": [{"role": "user", "content": "quota"}],
               "metadata": {"user_id": USER}},
              answered("msg_quota", "claude-3-5-haiku-20241022", {"input_tokens": 8, "output_tokens": 1})),
        trace(main_body([u0]), streamed("msg_m1", [a1["content"][0]], cache, 61)),
        trace(main_body([u0, a1, u1]), {"timestamp": 3.0, "status_code": 529, "headers": {},
                                        "body": {"type": "error", "error": {"type": "overloaded_error"}}}),
        trace(main_body([u0, a1, u1]), streamed("msg_m2", [a2["content"][1]], {**cache, "cache_read_input_tokens": 15200}, 88)),
        trace(side_body("why does sync crash on an empty config?"),
              answered("msg_title", "claude-3-5-haiku-20241022", {"input_tokens": 96, "output_tokens": 7})),
        trace(main_body([u0, a1, u1, a2, u2], tools=(READ, BASH, MCP)),
              answered("msg_m3", "claude-sonnet-4-5-20250929", {**cache, "output_tokens": 40})),
        trace(main_body([v0], tools=(READ, BASH, MCP)), streamed("msg_n1", [b1["content"][0]], cache, 20)),
        trace(main_body([v0, b1, v1], tools=(READ, BASH, MCP)), None),  # Claude Code quit before the answer
    ]
    return write(tmp_path, jsonl(*lines), "log-2026-03-02-09-15-00.jsonl")


def test_a_result_is_carried_by_exactly_the_requests_whose_messages_hold_it(tmp_path):
    path = claude_trace_log(tmp_path)
    out = check_record_types(records_of(AnthropicMessagesCollector, path))
    calls, skipped, ends = split(out)
    assert skipped == []
    stem = path.stem
    # the quota check, the title call and the second conversation are sessions of their own:
    # one shared user-id hash does not make them one conversation
    assert [(c.tool, c.session, c.request_index, c.status) for c in calls] == [
        ("Read", f"{stem}#2", 1, PAIRED), ("Bash", f"{stem}#2", 2, PAIRED), ("mcp__tasks__list_tasks", f"{stem}#4", 1, PAIRED)]
    # main: 3 requests (the 529 reached no model); Read was in requests 2 and 3, Bash in 3 only
    assert ends == [SessionEnd(str(path), stem, (1,)),
                    SessionEnd(str(path), f"{stem}#2", (3,), carried=(("toolu_01Read", 2), ("toolu_02Bash", 1))),
                    SessionEnd(str(path), f"{stem}#3", (1,)),
                    SessionEnd(str(path), f"{stem}#4", (2,), carried=(("toolu_03Tasks", 1),))]


def test_usage_of_json_and_streamed_responses_once_per_id(tmp_path):
    path = claude_trace_log(tmp_path)
    resend = {"id": "msg_m3", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
              "content": [], "stop_reason": "end_turn", "usage": {"input_tokens": 999, "output_tokens": 999}}
    path.write_text(path.read_text() + json.dumps(resend) + "\n")  # a proxy that logged msg_m3 twice
    out = records_of(AnthropicMessagesCollector, path)
    usage = kinds(out, Usage)
    stem = path.stem
    assert [(u.request_id, u.session, u.request_index, u.input_uncached, u.cache_write, u.cache_read, u.output)
            for u in usage] == [
        ("msg_quota", stem, 0, 8, 0, 0, 1),
        ("msg_m1", f"{stem}#2", 0, 4, 1200, 14000, 61),  # message_start's input, message_delta's output
        ("msg_m2", f"{stem}#2", 1, 4, 1200, 15200, 88),
        ("msg_title", f"{stem}#3", 0, 96, 0, 0, 7),
        ("msg_m3", f"{stem}#2", 2, 4, 1200, 14000, 40),
        ("msg_n1", f"{stem}#4", 0, 4, 1200, 14000, 20),
    ]
    assert usage[1].model == "claude-sonnet-4-5-20250929" and usage[0].ts == "2026-02-01T10:00:00Z"


def test_newer_streams_report_input_in_message_delta():
    raw = sse({"type": "message_start", "message": {"id": "msg_x", "model": "claude-opus-4-5", "content": [],
                                                    "usage": {"input_tokens": 3, "output_tokens": 1}}},
              {"type": "message_delta", "delta": {}, "usage": {"input_tokens": 5, "cache_read_input_tokens": 700,
                                                               "cache_creation_input_tokens": None, "output_tokens": 9}})
    from toolaudit.collectors.anthropic_messages import _sse_message

    assert _sse_message(raw)["usage"] == {"input_tokens": 5, "output_tokens": 9, "cache_read_input_tokens": 700}


def test_one_tool_menu_per_distinct_menu_per_session(tmp_path):
    path = claude_trace_log(tmp_path)
    menus = kinds(records_of(AnthropicMessagesCollector, path), ToolMenu)
    compact = lambda d: json.dumps(d, separators=(",", ":"), ensure_ascii=False)  # noqa: E731
    two = (("Read", compact(READ)), ("Bash", compact(BASH)))
    three = two + (("mcp__tasks__list_tasks", compact(MCP)),)
    # the side calls send no tools; the main conversation changed its menu once
    assert [(m.session, m.tools, m.requests) for m in menus] == [
        (f"{path.stem}#2", two, 2), (f"{path.stem}#2", three, 1), (f"{path.stem}#4", three, 2)]


def test_a_client_that_clears_or_drops_old_results_stops_carrying_them(tmp_path):
    u0 = {"role": "user", "content": "go"}
    turns = [({"role": "assistant", "content": [use(f"t{i}", "Bash", command=f"step {i}")]},
              {"role": "user", "content": [result(f"t{i}", f"output of step {i}")]}) for i in range(1, 5)]
    cleared = {"role": "user", "content": [result("t1", "[Old tool result content cleared]")]}
    flat = lambda pairs: [m for pair in pairs for m in pair]  # noqa: E731
    bodies = [[u0], [u0, *flat(turns[:1])], [u0, *flat(turns[:2])],
              [u0, turns[0][0], cleared, *flat(turns[1:3])],  # microcompact: t1's content cleared, same conversation
              [u0, *flat(turns[1:4])]]  # a client that dropped the first turn: it still extends request 1
    path = write(tmp_path, jsonl(*({"model": "m", "system": "s", "messages": b} for b in bodies)), "pruned.jsonl")
    calls, skipped, ends = records(path)
    assert skipped == [] and [c.output for c in calls] == [f"output of step {i}" for i in range(1, 5)]
    # t1 is in requests 2 and 3 (cleared in 4, dropped from 5), t2 and t3 in every later request
    assert ends == [SessionEnd(str(path), "pruned", (5,), carried=(("t1", 2), ("t2", 3), ("t3", 2), ("t4", 1)))]


def test_scan_weights_each_output_by_the_requests_that_carried_it(tmp_path):
    from toolaudit.cli import cli
    from toolaudit.tokenizers import get_tokenizer

    path = claude_trace_log(tmp_path)
    res = CliRunner().invoke(cli, ["scan", str(path), "-f", "json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    count = get_tokenizer("o200k_base").count
    outputs = {"Read": "     1\timport tomllib\n     2\tdata = tomllib.loads(text)['app']\n",
               "Bash": "FAILED tests/test_sync.py::test_empty - KeyError: 'app'\n1 failed, 41 passed",
               "mcp__tasks__list_tasks": "#12 empty config crash\n#14 docs"}
    carried = {"Read": 2, "Bash": 1, "mcp__tasks__list_tasks": 1}
    assert doc["totals"]["carried_tokens"] == sum(count(text) * carried[t] for t, text in outputs.items())
    assert doc["totals"]["sessions"] == 2  # sessions with calls: the main conversation and the one after /clear
    # the bill: six responses, their usage as the provider reported it
    assert doc["usage"]["requests"] == 6
    assert doc["usage"]["output"] == 1 + 61 + 88 + 7 + 40 + 20
    res = CliRunner().invoke(cli, ["scan", str(path)], catch_exceptions=False)
    assert res.exit_code == 0 and "billed (provider usage): 6 requests" in res.output
