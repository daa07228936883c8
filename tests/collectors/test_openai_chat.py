"""openai-chat collector: the samples, the tau-bench corpus file counted by hand, shapes, broken input."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conftest import CORPUS, SAMPLES
from helpers import (check_deep_document, check_deep_line, check_empty, check_junk, check_odd_values, check_trip,
                     check_truncated_line, corpus_path, jsonl, kinds, lone_surrogate_calls, records_of, split, totals,
                     writer)
from toolaudit.collectors.discover import detect
from toolaudit.collectors.openai_chat import OpenAIChatCollector
from toolaudit.model import ORPHAN, PAIRED, UNPAIRED, SessionEnd, ToolCall, ToolMenu

HERE = SAMPLES / "openai-chat"
TAU = "openai-chat/tau-bench/gpt-4o-airline.first5.json"
MINE = {"openai-chat", "anthropic-messages", "toolaudit-jsonl"}
write = writer("chat.jsonl")


def records(path: Path):
    return split(records_of(OpenAIChatCollector, path))


def forced(path: Path):
    """Collect as `--from openai-chat` would, whatever the file holds."""
    return split(records_of(OpenAIChatCollector, path, forced=True))


def test_corpus_root_is_beside_the_repo():
    assert CORPUS == Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def test_sample_run_counts_by_hand():
    path = HERE / "ledgerline-fix.json"
    calls, skipped, ends = records(path)
    assert skipped == []
    # jq: [.messages[] | select(.role=="tool")] | group_by(.name), lengths of content (parts joined "\n")
    assert totals(calls) == ({"search_code": 1, "read_file": 2, "run_tests": 2, "apply_patch": 1},
                             {"search_code": 591, "read_file": 1952, "run_tests": 2007, "apply_patch": 50})
    assert all(c.status == PAIRED and c.model == "gpt-4o-2024-08-06" for c in calls)
    grep = calls[0]
    assert grep.output.splitlines()[0] == "src/ledgerline/parse.py:12:def parse_amount(text: str) -> Decimal:"
    assert grep.args == '{"pattern": "parse_amount|Decimal\\\\(cleaned\\\\)"}'  # the JSON string as sent
    # the two parallel reads came from one assistant message: both first carried by request 2
    reads = [c for c in calls if c.tool == "read_file"]
    assert [c.request_index for c in reads] == [2, 2]
    assert reads[1].output.startswith("     1\tfrom decimal import Decimal")  # list content flattened
    assert [c.request_index for c in calls] == [1, 2, 2, 3, 4, 5]
    assert [c.line for c in calls] == [4, 6, 7, 9, 11, 13]  # message positions in the document
    assert ends == [SessionEnd(str(path), "ledgerline-fix", (6,))]


def test_sample_jsonl_runs_and_legacy_function_calls():
    path = HERE / "runs.jsonl"
    calls, skipped, ends = records(path)
    assert skipped == []
    assert [(c.session, c.tool, c.call_id, len(c.output), c.request_index, c.line, c.model) for c in calls] == [
        ("runs#run-0417", "read_file", "call_Ab1", 208, 1, 1, "gpt-4o-mini"),
        # legacy function_call has no id: answered by the next role=function message of its name
        ("runs#run-0418", "list_dir", "#1", 50, 1, 2, "gpt-3.5-turbo-0613"),
        ("runs#run-0418", "search_code", "#2", 396, 2, 2, "gpt-3.5-turbo-0613"),
    ]
    assert calls[1].args == '{"path": "tests"}'
    assert ends == [SessionEnd(str(path), "runs#run-0417", (2,)), SessionEnd(str(path), "runs#run-0418", (3,))]


def test_tau_bench_counts_by_hand():
    path = corpus_path(TAU)
    calls, skipped, ends = records(path)
    assert skipped == []
    # counted with jq, independently of the collector:
    #   [.[].traj[] | select(.role=="tool")] | group_by(.name) | map({name, calls: length, chars: (map(.content|length)|add)})
    assert totals(calls) == (
        {"get_reservation_details": 13, "update_reservation_flights": 9, "calculate": 5, "get_user_details": 4,
         "think": 3, "search_direct_flight": 2, "search_onestop_flight": 2, "book_reservation": 2,
         "transfer_to_human_agents": 1},
        {"get_reservation_details": 10149, "update_reservation_flights": 3413, "calculate": 23,
         "get_user_details": 3889, "think": 0, "search_direct_flight": 631, "search_onestop_flight": 6082,
         "book_reservation": 738, "transfer_to_human_agents": 19},
    )
    assert len(calls) == 41 and sum(len(c.output) for c in calls) == 24944
    assert all(c.status == PAIRED and not c.is_error for c in calls)
    # one session per run; requests = assistant messages per run (jq: select(.role=="assistant") | length)
    stem = "gpt-4o-airline.first5"
    assert ends == [SessionEnd(str(path), f"{stem}#{i}", (n,)) for i, n in enumerate([15, 5, 11, 30, 12])]
    assert Counter(c.session for c in calls) == {f"{stem}#0": 8, f"{stem}#2": 7, f"{stem}#3": 20, f"{stem}#4": 6}
    # run 0: the first result is traj[7], after 3 assistant messages
    first = calls[0]
    assert (first.tool, first.call_id, first.request_index, first.line) == (
        "get_user_details", "call_oIHazX6yQrB8hUwl4cRilFKj", 3, 8)
    assert first.args == '{"user_id":"mia_li_3668"}'


def test_tau_bench_reused_ids_stay_distinct_calls():
    calls, _, _ = records(corpus_path(TAU))
    # GPT-4o reused 4 ids within runs 0 and 3 (jq: 41 tool_call_ids, 32 distinct per file)
    run0 = [(c.tool, c.call_id) for c in calls if c.session.endswith("#0") and c.call_id.startswith("call_HGn16")]
    assert run0 == [("search_direct_flight", "call_HGn16KZh9oNCruxsMJ4gYXan"),
                    ("search_onestop_flight", "call_HGn16KZh9oNCruxsMJ4gYXan#2")]
    assert len({(c.session, c.call_id) for c in calls}) == 41  # nothing a scan would drop as a duplicate


def test_other_shapes(tmp_path):
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "cat", "arguments": {"path": "x"}}}]},
        {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "B1"}, {"type": "text", "text": "B2"}]},
        {"role": "tool", "content": "A"},  # no id: the oldest pending call
        {"role": "tool", "tool_call_id": "zz", "content": "?"},  # an answer to nothing
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {"name": "never"}}]},
    ]
    bare = write(tmp_path, json.dumps(messages, indent=2), "bare.json")
    calls, skipped, ends = records(bare)
    assert skipped == []
    assert [(c.tool, c.call_id, c.output, c.status, c.args) for c in calls] == [
        ("cat", "b", "B1\nB2", PAIRED, '{"path":"x"}'),
        ("ls", "a", "A", PAIRED, "{}"),
        ("unknown", "zz", "?", ORPHAN, ""),
        ("never", "c", "", UNPAIRED, ""),
    ]
    assert ends == [SessionEnd(str(bare), "bare", (2,))]

    per_line = write(tmp_path, jsonl(*messages), "lines.jsonl")
    calls, skipped, ends = records(per_line)
    assert [c.line for c in calls] == [3, 4, 5, 6] and ends == [SessionEnd(str(per_line), "lines", (2,))]

    wrapped = write(tmp_path, json.dumps({"model": "gpt-4.1", "messages": messages}), "wrapped.json")
    calls, _, _ = records(wrapped)
    assert len(calls) == 4 and {c.model for c in calls} == {"gpt-4.1"}

    repeated = [{"task_id": 7, "trial": t, "traj": messages[:3]} for t in (0, 1)]
    runs = write(tmp_path, json.dumps(repeated), "runs.json")
    _, _, ends = records(runs)
    assert [e.session for e in ends] == ["runs#7", "runs#7/1"]  # trials never merge


def test_jsonl_request_log_is_read_once(tmp_path):
    u = {"role": "user", "content": "fix it"}
    a1 = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "grep", "arguments": "{}"}}]}
    t1 = {"role": "tool", "tool_call_id": "c1", "content": "a.py:1:x"}
    a2 = {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "function": {"name": "read", "arguments": "{}"}}]}
    t2 = {"role": "tool", "tool_call_id": "c2", "content": "x = 1"}
    a9 = {"role": "assistant", "content": None, "tool_calls": [{"id": "c9", "function": {"name": "grep", "arguments": "{}"}}]}
    other = {"id": "r9", "messages": [{"role": "user", "content": "and the docs?"}, a9,
                                      {"role": "tool", "tool_call_id": "c9", "content": "README.md:3:x"}]}
    path = write(tmp_path, jsonl(
        {"id": "r1", "model": "gpt-4.1", "messages": [u]},
        {"id": "r2", "model": "gpt-4.1", "messages": [u, a1, t1]},
        other,  # another conversation in between
        {"id": "r3", "model": "gpt-4.1", "messages": [u, a1, t1, a2, t2]},
    ), "proxy.jsonl")
    calls, skipped, ends = records(path)
    assert skipped == []
    # each line re-sends the conversation so far: every result is read once, from the line that added it
    assert [(c.session, c.tool, c.line, c.request_index) for c in calls] == [
        ("proxy#r1", "grep", 2, 1), ("proxy#r9", "grep", 3, 1), ("proxy#r1", "read", 4, 2)]
    # three lines, three requests: c1 in the last two, c2 in the last; a one-line conversation is a run
    assert ends == [SessionEnd(str(path), "proxy#r1", (3,), carried=(("c1", 2), ("c2", 1))),
                    SessionEnd(str(path), "proxy#r9", (1,))]


def request(messages, tools, model="gpt-4.1-2025-04-14"):
    return {"model": model, "messages": messages, "tools": tools, "tool_choice": "auto", "temperature": 0}


def test_request_log_residency_side_calls_and_menus(tmp_path):
    """A proxy log of an OpenAI-compatible agent: a title side call to a small model interleaved,
    a retried request, a history the client pruned, and the tool menu each request sent."""
    grep = {"type": "function", "function": {"name": "grep", "description": "Search files.", "parameters": {
        "type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}}}
    read = {"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}
    system = {"role": "system", "content": "You are a coding agent. Use the tools."}
    user = {"role": "user", "content": "Why does `ledger sum` skip the last row?"}

    def call(i, name, args):
        return ({"role": "assistant", "content": None, "tool_calls": [
                    {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]},
                {"role": "tool", "tool_call_id": f"call_{i}", "content": f"result {i} " + "x" * 40 * i})

    c1, c2, c3 = call(1, "grep", {"pattern": "def sum"}), call(2, "read_file", {"path": "ledger/sum.py"}), \
        call(3, "grep", {"pattern": "rows\\[:-1\\]"})
    title = request([{"role": "user", "content": "Title for: Why does `ledger sum` skip the last row?"}], [],
                    model="gpt-4.1-nano")
    path = write(tmp_path, jsonl(
        request([system, user], [grep, read]),
        request([system, user, *c1], [grep, read]),
        title,
        request([system, user, *c1], [grep, read]),  # a retry: the same request again
        request([system, user, *c1, *c2], [grep, read]),
        request([system, user, *c2, *c3], [grep]),  # the client pruned call 1 and offers one tool
    ), "agent-proxy.jsonl")
    out = records_of(OpenAIChatCollector, path)
    calls, skipped, ends = split(out)
    assert skipped == []
    assert [(c.call_id, c.session, c.request_index) for c in calls] == [
        ("call_1", "agent-proxy#0", 1), ("call_2", "agent-proxy#0", 3), ("call_3", "agent-proxy#0", 4)]
    # five requests in the conversation (the title call is a session of its own, with no model answer
    # logged); call_1 was in lines 2, 4 and 5 (then pruned), call_2 in 5 and 6, call_3 in 6
    assert ends == [SessionEnd(str(path), "agent-proxy#0", (5,), carried=(("call_1", 3), ("call_2", 2), ("call_3", 1))),
                    SessionEnd(str(path), "agent-proxy#1", (0,))]
    dump = lambda d: json.dumps(d, separators=(",", ":"), ensure_ascii=False)  # noqa: E731
    menus = [(m.session, [n for n, _ in m.tools], m.requests) for m in kinds(out, ToolMenu)]
    assert menus == [("agent-proxy#0", ["grep", "read_file"], 4), ("agent-proxy#0", ["grep"], 1)]
    assert kinds(out, ToolMenu)[0].tools[1] == ("read_file", dump(read))


def test_a_run_carries_its_menu_on_each_model_request(tmp_path):
    tools = [{"type": "function", "function": {"name": "get_order", "parameters": {"type": "object"}}}]
    path = write(tmp_path, json.dumps({"model": "gpt-4o", "tools": tools, "messages": [
        {"role": "user", "content": "where is my order?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
        {"role": "assistant", "content": "It has shipped."}]}), "run.json")
    menus = kinds(records_of(OpenAIChatCollector, path), ToolMenu)
    # one line, a whole run: its two assistant messages took two model requests
    assert [(m.session, m.requests, m.tools) for m in menus] == [
        ("run#0", 2, (("get_order", '{"type":"function","function":{"name":"get_order","parameters":{"type":"object"}}}'),))]


def test_not_claimed_other_formats(tmp_path):
    # a bare list without tool traffic is mini-swe-agent's oldest shape
    plain = write(tmp_path, json.dumps([{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]), "p.json")
    assert detect(plain)[0] is None
    # hermes session logs: session_id + platform
    hermes = {"session_id": "s", "platform": "cli", "model": "m", "messages": [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "a", "function": {"name": "t"}}]}]}
    assert not OpenAIChatCollector.sniff_doc(hermes) and not OpenAIChatCollector.sniff_line(hermes)
    # an Anthropic request body
    anthropic = {"model": "claude", "system": "s", "messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}]}
    assert not OpenAIChatCollector.sniff_line(anthropic) and not OpenAIChatCollector.sniff_doc(anthropic)
    # Responses API items carry `type`
    assert not OpenAIChatCollector.sniff_line({"type": "message", "role": "user", "content": []})


def test_detection_on_the_corpus():
    root = corpus_path()
    assert detect(root / TAU)[0] is OpenAIChatCollector
    assert detect(root / "claude-code/spotter/short.jsonl")[0].key == "claude-code"
    for path in sorted((root / "codex/localpush").glob("*.jsonl")):
        cls, _ = detect(path)
        assert cls is not None and cls.key == "codex", path


@pytest.mark.parametrize("line, reason", [
    ({"messages": "nope"}, "run has no messages list"),
    ({"role": "assistant", "tool_calls": "x"}, "tool_calls is not a list"),
    ({"role": "assistant", "tool_calls": [{"id": "q", "function": {"arguments": "{}"}}]}, "without a function name"),
    ({"role": "assistant", "tool_calls": [7]}, "without a function name"),
    ({"role": "assistant", "function_call": "ls"}, "without a function name"),
    ({"messages": [5]}, "expected a message object, got int"),
    (5, "neither a chat message nor a run"),
    ({"foo": 1}, "neither a chat message nor a run"),
])
def test_wrong_types_are_skipped(tmp_path, line, reason):
    good = {"role": "user", "content": "hi"}
    path = write(tmp_path, f"{json.dumps(good)}\n{json.dumps(line)}\n")
    calls, skipped, _ = forced(path)
    assert calls == []
    assert [s.line for s in skipped] == [2] and reason in skipped[0].reason


def test_wrong_document_types_are_skipped(tmp_path):
    _, skipped, _ = forced(write(tmp_path, "7\n", "n.json"))
    assert "expected a chat message list, got int" in skipped[0].reason
    _, skipped, _ = forced(write(tmp_path, json.dumps([{"traj": 3}, "x"]), "runs.json"))
    assert [s.reason for s in skipped] == ["run has no messages list"] * 2
    calls, skipped, _ = forced(write(tmp_path, json.dumps([{"role": "tool", "content": 12}, None]), "m.json"))
    assert calls[0].output == "12" and calls[0].status == ORPHAN  # a number result is measured as JSON
    assert [s.line for s in skipped] == [2]


def test_odd_value_types_lose_one_message_not_the_file(tmp_path):
    # a role that is a list or an object was hashed (ROLES is a set): the file was lost
    call = {"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "ls", "arguments": "{}"}}]}
    run = {"id": "r1", "model": ["m"], "messages": [
        call, {"role": "tool", "tool_call_id": "a", "content": "ok"}, {"role": [], "content": "x"},
        {"role": {}, "tool_call_id": "a"},
        {"role": "assistant", "content": {"a": 1}, "tool_calls": [{"id": {}, "function": {"name": "cat"}},
                                                                  {"id": "b", "function": {"name": 5}}]},
        {"role": "tool", "tool_call_id": [], "name": {}, "content": [5], "timestamp": []},
    ]}
    other = {"id": "r2", "messages": [call, {"role": "tool", "tool_call_id": "a", "content": "second"}]}
    out = check_odd_values(records_of(OpenAIChatCollector, write(tmp_path, jsonl(run, other))), ["a", "#1", "a"], [
        (1, "message whose role is not a string: list"), (1, "message whose role is not a string: dict"),
        (1, "tool call without a function name")])
    assert [(c.session, c.tool, c.output) for c in kinds(out, ToolCall)] == [
        ("chat#r1", "ls", "ok"), ("chat#r1", "cat", "5"), ("chat#r2", "ls", "second")]
    # one message per line, and a document
    lines = [call, {"role": ["tool"], "content": "x"}, {"role": "tool", "tool_call_id": "a", "content": "ok"}]
    check_odd_values(records_of(OpenAIChatCollector, write(tmp_path, jsonl(*lines)), forced=True), ["a"], [
        (2, "message whose role is not a string: list")])
    doc = write(tmp_path, json.dumps({"messages": lines}, indent=1), "doc.json")  # a document: lines are positions
    check_odd_values(records_of(OpenAIChatCollector, doc), ["a"], [(2, "message whose role is not a string: list")])


def test_a_reader_that_trips_on_one_message_loses_that_message(monkeypatch):
    # message 7 answers call_Rt6…: its output is lost (the call stays, unpaired), nothing else
    out = check_trip(monkeypatch, OpenAIChatCollector, HERE / "ledgerline-fix.json", 7)
    assert [c.call_id for c in kinds(out, ToolCall) if c.status == UNPAIRED] == ["call_Rt6yU1iOq3wEr5tY8uIo"]


def test_deep_nesting_loses_one_line(tmp_path):
    run = {"messages": [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "ls"}}]},
                        {"role": "tool", "tool_call_id": "a", "content": "ok"}]}
    check_deep_line(tmp_path, OpenAIChatCollector, jsonl(run), jsonl(run))
    check_deep_document(tmp_path, OpenAIChatCollector)


def test_truncated_empty_junk_surrogates(tmp_path):
    run = {"messages": [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "ls"}}]},
                        {"role": "tool", "tool_call_id": "a", "content": "ok"}]}
    check_truncated_line(tmp_path, OpenAIChatCollector, run, 40)
    check_empty(tmp_path, OpenAIChatCollector)
    check_junk(tmp_path, OpenAIChatCollector)

    lone = {"messages": [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "ls", "arguments": "\ud83d"}}]},
                         {"role": "tool", "tool_call_id": "a", "content": "half \udc00 emoji"}]}
    calls = lone_surrogate_calls(tmp_path, OpenAIChatCollector, json.dumps(lone) + "\n")  # \\ud83d escapes
    assert calls[0].output == "half \udc00 emoji" and calls[0].args == "\ud83d"
