"""hermes collector: ShareGPT and session-log samples, the corpus counted by hand, positional pairing, broken input."""

from __future__ import annotations

import json
from functools import partial

import pytest

from conftest import SAMPLES
from helpers import (DEEP, check_deep_line, check_empty, check_junk, check_odd_values, check_trip, check_truncated_line,
                     corpus_path, jsonl, kinds, lone_surrogate_calls, records_of, writer)
from toolaudit.collectors.hermes import HermesCollector
from toolaudit.model import ORPHAN, PAIRED, UNPAIRED, ModelText, SessionEnd, Skipped, ToolCall

HERE = SAMPLES / "hermes"
SESSIONS = "hermes/agent-sessions"

collect = partial(records_of, HermesCollector)
write = writer("trajectories.jsonl")


def gpt(*calls, text=""):
    blocks = "".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>\n" for c in calls)
    return {"from": "gpt", "value": f"<think>\n</think>\n{text}\n{blocks}".rstrip()}


def tool(*results):
    return {"from": "tool", "value": "\n".join(f"<tool_response>\n{json.dumps(r)}\n</tool_response>" for r in results)}


def test_sample_sharegpt():
    path = HERE / "trajectories.jsonl"
    out = collect(path)
    calls = kinds(out, ToolCall)
    assert kinds(out, Skipped) == []
    # counted apart from the collector: each tool turn split on "\n</tool_response>", the opening tag line
    # dropped, len() of the JSON left (see the report of the helper that wrote this sample)
    assert [(c.session, c.tool, c.call_id, len(c.output), c.request_index, c.status) for c in calls] == [
        ("trajectories#1", "search_files", "call_6c1f0a9d2e7b4835", 619, 1, PAIRED),
        ("trajectories#1", "read_file", "call_b84e3d17c5a29f60", 650, 1, PAIRED),
        ("trajectories#1", "patch", "call_2d9a7e4b0f1c6358", 335, 2, PAIRED),
        ("trajectories#1", "terminal", "call_e5037b8c4a6d1f92", 212, 3, PAIRED),
        ("trajectories#2", "search_files", "call_71f4c0b9e2a83d56", 265, 1, PAIRED),
        ("trajectories#2", "patch", "call_0a5d8f3c7b1e9426", 239, 2, PAIRED),
        ("trajectories#2", "patch", "#3", 0, None, UNPAIRED),  # interrupted: the second patch never answered
    ]
    first = calls[0]
    assert first.output.startswith('{"tool_call_id": "call_6c1f0a9d2e7b4835", "name": "search_files", '
                                   '"content": {"total_count": 4')
    assert first.args == '{"pattern":"strftime|closed_at","path":"~/src/kanban"}'
    assert {c.model for c in calls} == {"anthropic/claude-sonnet-4"}
    assert kinds(out, SessionEnd) == [SessionEnd(str(path), "trajectories#1", (4,)),
                                      SessionEnd(str(path), "trajectories#2", (2,))]
    texts = [t.text for t in kinds(out, ModelText)]
    # the <think> text is kept; its tags and the tool_call blocks are not
    assert texts[0] == "The CLI formats created_at/closed_at; find where and read that part."
    assert not any("<tool_call>" in t for t in texts)


def test_sample_session_log():
    path = HERE / "session_20250605_101544_3f9a2c.json"
    out = collect(path)
    calls = kinds(out, ToolCall)
    assert kinds(out, Skipped) == []
    # jq: [.messages[] | select(.role=="tool") | .content | length] == [175, 191, 333]
    assert [(c.tool, c.call_id, len(c.output), c.request_index, c.line) for c in calls] == [
        ("terminal", "call_Rk2vN8xQ4mT7bW1e", 175, 1, 3), ("terminal", "call_Hs5cJ0pL9yF3gD6u", 191, 1, 4),
        ("terminal", "call_Wb7eK3tZ1qV9nA4s", 333, 2, 6)]
    assert kinds(out, SessionEnd) == [SessionEnd(str(path), "20250605_101544_3f9a2c", (3,))]
    assert kinds(out, ModelText)[0].text == "Check filesystem usage first, then the biggest directories under /var."


@pytest.mark.parametrize("name", ["stage0-hermes-large.json", "stage0-hermes-schema_drift.json", "stage0-hermes-small.json"])
def test_every_corpus_file(name):
    out = collect(corpus_path(SESSIONS) / name)
    assert [s for s in kinds(out, Skipped) if not s.benign] == []
    assert all(c.status == PAIRED for c in kinds(out, ToolCall))


def test_corpus_folder_is_covered():
    assert sorted(p.name for p in corpus_path(SESSIONS).iterdir()) == [
        "stage0-hermes-large.json", "stage0-hermes-schema_drift.json", "stage0-hermes-small.json"]


def test_corpus_counts_by_hand():
    # read off the files: one tool message each in large (shell, 37 chars) and schema_drift (memory, 11), none in small
    found = {}
    for name in ("stage0-hermes-large.json", "stage0-hermes-schema_drift.json", "stage0-hermes-small.json"):
        out = collect(corpus_path(SESSIONS) / name)
        found[name] = [(c.session, c.tool, c.call_id, c.output) for c in kinds(out, ToolCall)]
        found[name + " requests"] = kinds(out, SessionEnd)[0].requests
    assert found == {
        "stage0-hermes-large.json": [
            ("20260429_hermes_large", "shell", "call_001", "/Users/alexm/Repository/Codex-History")],
        "stage0-hermes-large.json requests": (2,),
        "stage0-hermes-schema_drift.json": [("20260429_hermes_schema_drift", "memory", "call_drift", "No results.")],
        "stage0-hermes-schema_drift.json requests": (1,),
        "stage0-hermes-small.json": [], "stage0-hermes-small.json requests": (1,),  # role session_meta passed over
    }


def test_positional_pairing_and_ids(tmp_path):
    a, b = {"name": "read_file", "arguments": {"path": "a"}}, {"name": "terminal", "arguments": {"command": "ls"}}
    conv = {"conversations": [
        {"from": "human", "value": "go"},
        gpt(a, b),
        # the k-th block answers the k-th call; the name inside is hermes' own guess by position
        tool({"tool_call_id": "t1", "name": "read_file", "content": {"content": "1|x"}},
             {"tool_call_id": "t2", "name": "terminal", "content": "a.py </tool_response> b.py"}),
        gpt({"name": "search_files", "arguments": {}, "id": "s1"}, {"name": "patch", "arguments": {}}),
        tool({"tool_call_id": "s1", "name": "search_files", "content": "found"}),  # by the id its call carried
        gpt(b),
        {"from": "tool", "value": "plain text, no blocks"},  # one output for the first call
        {"from": "tool", "value": "<tool_response>\nnot json\n</tool_response>"},  # more results than calls
    ]}
    out = collect(write(tmp_path, json.dumps(conv) + "\n"))
    assert [(c.tool, c.call_id, c.output, c.status, c.request_index) for c in kinds(out, ToolCall)] == [
        ("read_file", "t1", '{"tool_call_id": "t1", "name": "read_file", "content": {"content": "1|x"}}', PAIRED, 1),
        ("terminal", "t2", '{"tool_call_id": "t2", "name": "terminal", "content": "a.py </tool_response> b.py"}', PAIRED, 1),
        ("search_files", "s1", '{"tool_call_id": "s1", "name": "search_files", "content": "found"}', PAIRED, 2),
        ("terminal", "#5", "plain text, no blocks", PAIRED, 3),
        ("unknown", "", "not json", ORPHAN, 3),
        ("patch", "#4", "", UNPAIRED, None),
    ]
    # LLaMA-Factory's variant: function_call / observation turns
    lf = {"conversations": [{"from": "human", "value": "q"}, {"from": "function_call", "value": json.dumps(a)},
                            {"from": "observation", "value": "1|x"}, {"from": "function_call", "value": json.dumps([a, b])},
                            {"from": "observation", "value": "2|y"}, {"from": "gpt", "value": "done"}]}
    out = collect(write(tmp_path, json.dumps([lf]), "lf.json"))
    assert [(c.session, c.tool, c.output, c.status) for c in kinds(out, ToolCall)] == [
        ("lf#1", "read_file", "1|x", PAIRED), ("lf#1", "read_file", "2|y", PAIRED), ("lf#1", "terminal", "", UNPAIRED)]
    assert kinds(out, SessionEnd)[0].requests == (3,)
    # a call the model wrote in Python-dict style, as hermes' own system prompt shows it: the name is still found
    loose = {"conversations": [{"from": "gpt", "value": "<tool_call>\n{'name': 'ls', 'arguments': {}}\n</tool_call>"},
                               {"from": "tool", "value": "a.py"}]}
    calls = kinds(collect(write(tmp_path, json.dumps(loose) + "\n", "loose.jsonl")), ToolCall)
    assert [(c.tool, c.args, c.output) for c in calls] == [("ls", "{'name': 'ls', 'arguments': {}}", "a.py")]


def test_session_log_without_ids(tmp_path):
    log = {"session_id": "s", "platform": "cli", "model": "m", "messages": [
        {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "read_file", "arguments": "{}"}}, {"function": {"name": "terminal", "arguments": "{}"}}]},
        {"role": "tool", "tool_name": "terminal", "content": "T"},  # matched by name
        {"role": "tool", "content": "R"},  # then the oldest open call
        {"role": "tool", "tool_call_id": "nope", "content": "?"},  # an id nobody made: an orphan
    ]}
    out = collect(write(tmp_path, json.dumps(log, indent=1), "session_s.json"))
    assert [(c.tool, c.call_id, c.output, c.status) for c in kinds(out, ToolCall)] == [
        ("terminal", "#2", "T", PAIRED), ("read_file", "#1", "R", PAIRED), ("unknown", "nope", "?", ORPHAN)]


def test_not_claimed_by_openai_chat_and_vice_versa():
    log = json.loads((HERE / "session_20250605_101544_3f9a2c.json").read_text())
    assert HermesCollector.sniff_doc(log)
    assert not HermesCollector.sniff_doc({"messages": log["messages"]})  # a bare chat log is openai-chat's


@pytest.mark.parametrize("line, reason", [
    ({"conversations": [{"from": "gpt", "value": 5}]}, "turn without a string value"),
    ({"conversations": [{"from": "gpt"}]}, "turn without a string value"),
    ({"conversations": "x"}, "neither a ShareGPT conversation nor a hermes session log"),
    ({"session_id": "s", "model": "m", "messages": [3]}, "expected a message object, got int"),
    ({"session_id": "s", "model": "m", "messages": [{"role": "assistant", "tool_calls": [{"function": {}}]}]},
     "tool call without a function name"),
    ({"session_id": "s", "model": "m", "messages": [{"role": "assistant", "tool_calls": "x"}]},
     "tool call without a function name"),
    (7, "neither a ShareGPT conversation nor a hermes session log"),
])
def test_wrong_types_are_skipped(tmp_path, line, reason):
    good = {"conversations": [{"from": "human", "value": "hi"}]}
    out = collect(write(tmp_path, f"{json.dumps(good)}\n{json.dumps(line)}\n"))
    skipped = kinds(out, Skipped)
    assert kinds(out, ToolCall) == [] and skipped and reason in skipped[0].reason


def test_odd_value_types_lose_one_message_not_the_file(tmp_path):
    # a session log: a role that is a list or an object was hashed, and the whole file was lost
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": {"name": "ls", "arguments": "{}"}}]}
    log = {"session_id": "s", "model": "m", "platform": "cli", "messages": [
        call, {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": [], "content": "x"},
        {"role": {}, "tool_call_id": "c1"},
        {"role": "assistant", "reasoning": ["x"], "tool_calls": [{"id": {}, "function": {"name": 5}}]},
        {"role": "assistant", "content": {"type": []}, "tool_calls": [{"id": [], "function": {"name": "cat"}}]},
        {"role": "tool", "tool_call_id": {}, "name": ["cat"], "content": [{"type": "text", "text": 5}],
         "timestamp": 9},
    ]}
    out = check_odd_values(collect(write(tmp_path, json.dumps(log), "session_x.json")), ["c1", "#2"], [
        (3, "message whose role is not a string: list"), (4, "message whose role is not a string: dict"),
        (5, "tool call without a function name")])
    assert [(c.tool, c.output, c.ts) for c in kinds(out, ToolCall)][1] == ("cat", '{"type":"text","text":5}', None)
    # ShareGPT: a turn whose `from` is not a string, and a call whose name is not one
    conv = {"conversations": [
        gpt({"name": "ls", "arguments": {}}), tool({"tool_call_id": [], "name": "ls", "content": "ok"}),
        {"from": ["gpt"], "value": "x"}, gpt({"name": 5, "arguments": []}), tool({"tool_call_id": {}, "content": 1}),
    ], "model": ["m"]}
    out = check_odd_values(collect(write(tmp_path, jsonl(conv))), ["#1", "#2"], [
        (1, "turn whose `from` is not a string: list")])
    assert [(c.tool, c.model) for c in kinds(out, ToolCall)] == [("ls", None), ("unknown", None)]


def test_a_reader_that_trips_on_one_message_loses_that_message(monkeypatch):
    # message 4 holds the second result: it is lost (its call stays, unpaired), nothing else
    out = check_trip(monkeypatch, HermesCollector, HERE / "session_20250605_101544_3f9a2c.json", 4)
    assert [c.call_id for c in kinds(out, ToolCall) if c.status == UNPAIRED] == ["call_Hs5cJ0pL9yF3gD6u"]


def test_deep_nesting_loses_one_line_or_reads_as_text(tmp_path):
    conv = {"conversations": [gpt({"name": "ls", "arguments": {}}), tool({"tool_call_id": "a", "content": "ok"})]}
    check_deep_line(tmp_path, HermesCollector, jsonl(conv), jsonl(conv))
    # JSON inside the turns nested too deep to decode: the block's text, as when it is not JSON
    deep = {"conversations": [{"from": "gpt", "value": f"<tool_call>\n{DEEP}\n</tool_call>"},
                              {"from": "tool", "value": f"<tool_response>\n{DEEP}\n</tool_response>"},
                              {"from": "function_call", "value": DEEP}, {"from": "observation", "value": "x"}]}
    out = collect(write(tmp_path, jsonl(deep)))
    assert kinds(out, Skipped) == []
    assert [(c.tool, c.status, len(c.output)) for c in kinds(out, ToolCall)] == [
        ("unknown", PAIRED, len(DEEP)), ("unknown", PAIRED, 1)]


def test_truncated_empty_junk_surrogates(tmp_path):
    conv = {"conversations": [gpt({"name": "ls", "arguments": {}}),
                              tool({"tool_call_id": "a", "name": "ls", "content": "ok"})]}
    check_truncated_line(tmp_path, HermesCollector, conv, 40)
    check_empty(tmp_path, HermesCollector)
    check_junk(tmp_path, HermesCollector)

    lone = {"conversations": [gpt({"name": "ls", "arguments": {"p": "\ud83d"}}),
                              tool({"tool_call_id": "a", "name": "ls", "content": "half \ud83d"})]}
    # \ud83d escapes, inside JSON inside JSON
    calls = lone_surrogate_calls(tmp_path, HermesCollector, json.dumps(lone) + "\n")
    assert "\\ud83d" in calls[0].output
    raw = {"conversations": [gpt({"name": "ls", "arguments": {}}), {"from": "tool", "value": "raw \ud83d"}]}
    calls = lone_surrogate_calls(tmp_path, HermesCollector, json.dumps(raw) + "\n")  # a real lone surrogate once parsed
    assert calls[0].output == "raw \ud83d"
    assert [s.reason for s in HermesCollector().collect(tmp_path / "x.json", "str")] == [
        "neither a ShareGPT conversation nor a hermes session log"]
