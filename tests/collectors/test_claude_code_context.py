"""ClaudeCodeCollector(context_events=True): calibrate's ContextEvent records, the other records unchanged."""

from __future__ import annotations

import pytest

from toolaudit.collectors import base
from toolaudit.collectors.claude_code import ClaudeCodeCollector
from toolaudit.model import ContextEvent, ToolCall, Usage

from conftest import SAMPLES
from helpers import jsonl, writer

MAIN = SAMPLES / "claude-code" / "-home-dev-shop" / "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11.jsonl"
write = writer("s.jsonl")
REQUEST, OTHER, UNREADABLE = ContextEvent.REQUEST, ContextEvent.OTHER, ContextEvent.UNREADABLE


def events(records) -> list[tuple]:
    return [(e.line, e.agent, e.kind, e.message_id, e.thinking, e.visible)
            for e in records if isinstance(e, ContextEvent)]


def test_events_only_when_asked_and_nothing_else_changes():
    plain = list(ClaudeCodeCollector().records(MAIN))
    asked = list(ClaudeCodeCollector(context_events=True).records(MAIN))
    assert not events(plain)  # scan and simulate never ask: they get what they always got
    assert [r for r in asked if not isinstance(r, ContextEvent)] == plain
    got = events(asked)
    assert [e[0] for e in got] == sorted(e[0] for e in got)  # in line order: calibrate bisects them
    # every request with usage has its events, in the context the Usage names (nested subagent included)
    usage = {(u.agent, u.request_id) for u in asked if isinstance(u, Usage)}
    assert usage <= {(agent, mid) for _, agent, kind, mid, *_ in got if kind == REQUEST}
    assert ("b41c9d2", "msg_01SubA") in usage
    assert [(line, kind) for line, _, kind, *_ in got if kind != REQUEST] == [
        (2, "user text"), (23, "compaction"), (24, "compaction"), (32, OTHER)]
    assert got[1] == (3, "main", REQUEST, "msg_01A", True, ())  # a thinking line: split lines apart


def test_each_kind_of_event(tmp_path):
    def assistant(mid, *blocks, model="claude-opus-4-6"):
        return {"type": "assistant", "sessionId": "s", "message": {"id": mid, "model": model, "content": list(blocks)}}

    def user(content, **extra):
        return {"type": "user", "sessionId": "s", "message": {"content": content}, **extra}

    nested = {"type": "progress", "sessionId": "s", "parentToolUseID": "toolu_T",
              "data": {"type": "agent_progress", "agentId": 7, "message": assistant(
                  "msg_2", {"type": "tool_use", "id": "toolu_N", "name": "Grep", "input": {"pattern": "é"}})}}
    nested_result = {**nested, "data": {**nested["data"], "message": user(
        [{"type": "tool_result", "tool_use_id": "toolu_N", "content": "hit"}])}}
    path = write(tmp_path, jsonl(
        user("hi"),
        assistant("msg_1", {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "ok"},
                  {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}),
        user([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}]),  # only results: no event
        {"type": "attachment", "sessionId": "s"},
        user([{"type": "image", "source": {}}, {"type": "tool_result", "tool_use_id": "x", "content": ""}]),
        assistant("msg_s", {"type": "text", "text": "No response requested."}, model="<synthetic>"),
        {"type": "system", "subtype": "compact_boundary", "sessionId": "s"},
        user("summary", isCompactSummary=True),
        nested,
        nested_result,
        user([{"type": {"x": 1}}]),  # values of odd types: the turn it falls in is passed over
    ))
    out = list(ClaudeCodeCollector(context_events=True).records(path))
    assert events(out) == [
        (1, "main", "user text", None, False, ()),
        (2, "main", REQUEST, "msg_1", True, ("ok", 'Bash{"command": "ls"}')),
        (4, "main", "attachment", None, False, ()),
        (5, "main", "image", None, False, ()),
        (6, "main", OTHER, None, False, ()),
        (7, "main", "compaction", None, False, ()),
        (8, "main", "compaction", None, False, ()),
        # a nested subagent's context is named as the collector names its calls: a non-string agentId
        # falls back to the parent's tool_use id, so calibrate's request indices line up
        (9, "toolu_T", REQUEST, "msg_2", False, ('Grep{"pattern": "é"}',)),
        (11, "main", UNREADABLE, None, False, ()),
    ]
    assert {c.call_id: c.agent for c in out if isinstance(c, ToolCall)}["toolu_N"] == "toolu_T"


def test_debug_raises_what_an_odd_line_trips_on(tmp_path, monkeypatch):
    path = write(tmp_path, jsonl({"type": "user", "sessionId": "s", "message": {"content": [{"type": ["x"]}]}}))
    monkeypatch.setattr(base, "DEBUG", True)
    with pytest.raises(TypeError):
        list(ClaudeCodeCollector(context_events=True).records(path))
    assert list(ClaudeCodeCollector().records(path))  # without events, nothing trips on it
