"""openhands collector: samples, every corpus file, figures counted by hand, pairing, usage dedupe, broken input."""

from __future__ import annotations

import json
from functools import partial

import pytest

from conftest import SAMPLES
from helpers import (check_deep_document, check_deep_line, check_empty, check_junk, check_odd_values, check_trip,
                     check_truncated_line, corpus_path, jsonl, kinds, lone_surrogate_calls, records_of, totals, writer)
from toolaudit.collectors.openhands import OpenHandsCollector
from toolaudit.model import ORPHAN, PAIRED, UNPAIRED, ModelText, SessionEnd, Skipped, ToolCall, Usage

HERE = SAMPLES / "openhands"
RESOLVER = "openhands/resolver-mock_output__output.jsonl"
WRONG_STATE = "openhands/runtime-trajs__wrong_initial_state.json"

collect = partial(records_of, OpenHandsCollector)
write = writer("output.jsonl")


def test_sample_trajectory():
    path = HERE / "kanban-closed-at.json"
    out = collect(path)
    calls, usage = kinds(out, ToolCall), kinds(out, Usage)
    assert kinds(out, Skipped) == []
    # jq: [.[] | select(.observation) | not agent_state_changed/recall] | group_by(function_name), content lengths
    assert totals(calls) == ({"execute_bash": 2, "str_replace_editor": 4},
                             {"execute_bash": 1009, "str_replace_editor": 2434})
    assert [c.request_index for c in calls] == [1, 2, 2, 3, 4, 5]
    assert [c.line for c in calls] == [6, 8, 10, 12, 14, 16]  # event positions of the observations
    assert [c.is_error for c in calls] == [False, False, False, True, False, False]  # the `error` observation
    assert all(c.status == PAIRED and c.model == "claude-sonnet-4-20250514" for c in calls)
    # arguments are the model's own JSON string, found in the response by tool_call_id
    assert calls[2].args == ('{"command": "view", "path": "/workspace/kanban/tests/test_board.py", '
                             '"view_range": [25, 35], "security_risk": "LOW"}')
    # 13 events carry a model_response, 6 distinct ids: one Usage each (the parallel reads share one)
    assert [u.request_index for u in usage] == [0, 1, 2, 3, 4, 5]
    assert len({u.request_id for u in usage}) == 6
    assert (usage[1].input_uncached, usage[1].cache_write, usage[1].cache_read, usage[1].output) == (10, 801, 6240, 164)
    assert kinds(out, SessionEnd) == [SessionEnd(str(path), "kanban-closed-at", (6,))]
    assert len(kinds(out, ModelText)) == 5  # thoughts and the finish's final_thought


def test_sample_eval_output():
    path = HERE / "output.jsonl"
    out = collect(path)
    calls = kinds(out, ToolCall)
    assert kinds(out, Skipped) == []
    assert [(c.session, c.tool, c.status, len(c.output), c.request_index, c.line) for c in calls] == [
        ("ledgerline__ledgerline-58", "execute_bash", PAIRED, 992, 1, 1),
        ("ledgerline__ledgerline-58", "str_replace_editor", PAIRED, 568, 2, 1),
        ("ledgerline__ledgerline-58", "execute_bash", PAIRED, 20, 3, 1),
        ("invoicer__invoicer-17", "execute_bash", PAIRED, 273, 1, 2),
        # the runtime died before the test run answered
        ("invoicer__invoicer-17", "execute_bash", UNPAIRED, 0, None, 2),
    ]
    # the finish action of run 1 is a request but no call
    assert kinds(out, SessionEnd) == [SessionEnd(str(path), "ledgerline__ledgerline-58", (4,)),
                                      SessionEnd(str(path), "invoicer__invoicer-17", (2,))]
    assert len(kinds(out, Usage)) == 5


@pytest.mark.parametrize("name", ["resolver-mock_output__output.jsonl", "runtime-trajs__basic.json",
                                  "runtime-trajs__basic_interactions.json", "runtime-trajs__wrong_initial_state.json"])
def test_every_corpus_file(name):
    path = corpus_path("openhands") / name
    out = collect(path)
    assert [s for s in kinds(out, Skipped) if not s.benign] == []
    assert all(c.status == PAIRED for c in kinds(out, ToolCall))


def test_corpus_folder_is_covered():
    assert sorted(p.name for p in corpus_path("openhands").iterdir()) == sorted([
        "resolver-mock_output__output.jsonl", "runtime-trajs__basic.json",
        "runtime-trajs__basic_interactions.json", "runtime-trajs__wrong_initial_state.json"])


def test_resolver_output_counts_by_hand():
    out = collect(corpus_path(RESOLVER))
    calls = kinds(out, ToolCall)
    # counted with jq, independently of the collector:
    #   [.history[] | select(.observation != null)] | group_by(.observation)
    #   | map({calls: length, chars: (map(.content|length)|add)})
    #   line 1: run 2 / 1174, run_ipython 1 / 95; line 2: run 1 / 435, run_ipython 20 / 42736
    assert totals(calls) == ({"run": 3, "run_ipython": 21}, {"run": 1609, "run_ipython": 42831})
    assert sum(len(c.output) for c in calls) == 44440
    # no ids: paired by position; sessions named after the issue; requests = agent actions (= metrics.costs)
    assert [e.session for e in kinds(out, SessionEnd)] == ["neubig/pr-viewer#5", "neubig/pr-viewer#1"]
    assert [e.requests for e in kinds(out, SessionEnd)] == [(4,), (22,)]
    first = calls[0]
    assert (first.tool, first.call_id, first.args, first.output) == (
        "run", "#1", '{"command":"touch LICENSE"}', "\r\nroot@bcd3959393a1:/workspace # ")
    assert kinds(out, Usage) == []  # only costs, no token usage


def test_wrong_initial_state_counts_and_usage_dedupe():
    out = collect(corpus_path(WRONG_STATE))
    calls, usage = kinds(out, ToolCall), kinds(out, Usage)
    # jq: group_by(.tool_call_metadata.function_name) over observations: execute_bash 1 / 0, str_replace_editor 2 / 127+122
    assert totals(calls) == ({"str_replace_editor": 2, "execute_bash": 1}, {"str_replace_editor": 249, "execute_bash": 0})
    assert [c.call_id for c in calls] == ["toolu_01USom24cuiyvAembLhEryrn", "toolu_01PuY3mXrE6fm3j52GscR4rj",
                                          "toolu_01DodVjoeVmEY3gU5ALbqmGj"]
    # 8 events carry a model_response (each action and its observation): 4 distinct ids, 4 usages.
    # litellm's prompt_tokens include Anthropic cache reads and writes: 3616 - 3471 - 139 = 6
    assert [u.request_id for u in usage] == [
        "chatcmpl-90c35dea-eb25-484c-aaa7-d9d00048f64a", "chatcmpl-1f2bc7b4-848a-45ec-a2d8-aff83e5adbd6",
        "chatcmpl-ea298ce5-bc1c-435d-b5f9-6eb6e6e864df", "chatcmpl-fcf8f59b-beb3-4412-94d5-fbe4c02d64a1"]
    assert [(u.input_uncached, u.cache_write, u.cache_read, u.output) for u in usage] == [
        (4, 3471, 0, 95), (6, 139, 3471, 111), (6, 188, 3610, 85), (6, 129, 3798, 67)]
    assert [u.request_index for u in usage] == [0, 1, 2, 3]
    assert kinds(out, SessionEnd)[0].requests == (4,)


def test_plain_messages_are_requests_not_calls():
    out = collect(corpus_path("openhands/runtime-trajs__basic_interactions.json"))
    # two agent messages without tool_call_metadata and a finish: three requests, no call
    assert kinds(out, ToolCall) == [] and kinds(out, SessionEnd)[0].requests == (3,)
    assert [t.text for t in kinds(out, ModelText)][0] == "1 + 1 equals 2."


def test_pairing_by_cause_id_and_position(tmp_path):
    events = [
        {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"}},
        {"id": 2, "source": "agent", "action": "read", "args": {"path": "a"},
         "tool_call_metadata": {"function_name": "str_replace_editor", "tool_call_id": "t2"}},
        {"id": 3, "source": "agent", "observation": "read", "content": "A", "tool_call_metadata": {"tool_call_id": "t2"}},
        {"id": 4, "source": "agent", "observation": "run", "cause": 1, "content": "x y"},
        {"id": 5, "source": "environment", "observation": "agent_state_changed", "content": ""},
        {"id": 6, "source": "environment", "observation": "null", "content": ""},
        {"id": 7, "source": "agent", "observation": "run", "cause": 99, "content": "?"},
        {"id": 8, "source": "agent", "action": "browse", "args": {"url": "http://x"}},
    ]
    path = write(tmp_path, json.dumps(events), "traj.json")
    out = collect(path)
    assert [(c.tool, c.call_id, c.output, c.status) for c in kinds(out, ToolCall)] == [
        ("str_replace_editor", "t2", "A", PAIRED),  # by tool_call_id
        ("run", "1", "x y", PAIRED),  # by cause
        ("unknown", "99", "?", ORPHAN),
        ("browse", "8", "", UNPAIRED),
    ]
    old = {"instance_id": "old-1", "history": [
        [{"action": "run", "command": "ls", "thought": "look"}, {"observation": "run", "content": "a.py", "exit_code": 0}],
        {"action": "run_ipython", "code": "1+1"}, {"action": "run", "command": "pwd"},
        {"observation": "run_ipython", "content": "2"}, {"observation": "run", "content": "/w"}]}
    calls = kinds(collect(write(tmp_path, json.dumps(old) + "\n")), ToolCall)
    # no ids anywhere: each observation answers the oldest open action
    assert [(c.tool, c.output, c.request_index) for c in calls] == [
        ("run", "a.py", 1), ("run_ipython", "2", 3), ("run", "/w", 3)]


@pytest.mark.parametrize("line, reason", [
    ({"instance_id": "x", "history": "nope"}, "not an OpenHands output with a history list"),
    ({"instance_id": "x", "history": [5]}, "neither an action nor an observation"),
    ({"instance_id": "x", "history": [{"action": 3}]}, "action type is not a string"),
    ({"instance_id": "x", "history": [{"observation": ["run"]}]}, "observation type is not a string"),
    ([1, 2], "not an OpenHands output with a history list"),
])
def test_wrong_types_are_skipped(tmp_path, line, reason):
    good = {"instance_id": "ok", "history": [{"action": "run", "source": "agent", "id": 1}]}
    out = collect(write(tmp_path, f"{json.dumps(good)}\n{json.dumps(line)}\n"))
    skipped = kinds(out, Skipped)
    assert [s.line for s in skipped] == [2] and reason in skipped[0].reason


def test_odd_value_types_lose_one_event_not_the_file(tmp_path):
    response = {"id": "chatcmpl-1", "usage": {"prompt_tokens": 10, "completion_tokens": 2}}
    events = [
        {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"},
         "tool_call_metadata": {"tool_call_id": "t1", "function_name": "execute_bash", "model_response": response}},
        {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "ok"},
        {"id": 3, "source": "agent", "action": {}, "args": {}},
        {"id": {}, "source": [], "action": "read", "args": [], "timestamp": 5,
         "tool_call_metadata": {"tool_call_id": ["x"], "function_name": 5, "model_response": {"id": [], "model": {}}}},
        {"source": "agent", "observation": "read", "cause": {}, "content": ["a"], "timestamp": []},
        {"id": 6, "observation": ["run"], "content": "x"},
        {"id": 7, "source": "agent", "action": "run", "args": {"command": "pwd"}, "tool_call_metadata": []},
        {"id": 8, "source": "agent", "observation": "run", "cause": 7, "content": {"out": "/w"}, "success": "no"},
    ]
    out = check_odd_values(collect(write(tmp_path, json.dumps(events), "traj.json")), ["t1", "#2", "7"], [
        (3, "action type is not a string"), (6, "observation type is not a string")])
    assert [(c.tool, c.output, c.ts, c.is_error) for c in kinds(out, ToolCall)] == [
        ("execute_bash", "ok", None, False), ("read", "a", None, False), ("run", '{"out":"/w"}', None, False)]
    # a litellm response id is the provider's, unique across files: deduplicated scan-wide
    assert [(u.request_id, u.global_id) for u in kinds(out, Usage)] == [("chatcmpl-1", True)]
    # in output.jsonl a history's events share its line: each odd event is one problem, the rest is read
    line = {"instance_id": "i", "history": events}
    out = check_odd_values(collect(write(tmp_path, jsonl(line, {**line, "instance_id": "j"}))), ["t1", "#2", "7"] * 2,
                           [(1, "action type is not a string"), (1, "observation type is not a string"),
                            (2, "action type is not a string"), (2, "observation type is not a string")])


def test_a_reader_that_trips_on_one_event_loses_that_event(monkeypatch):
    # event 8 answers toolu_01Lq9…: its output is lost (the call stays, unpaired), nothing else
    out = check_trip(monkeypatch, OpenHandsCollector, HERE / "kanban-closed-at.json", 8)
    assert [c.call_id[:14] for c in kinds(out, ToolCall) if c.status == UNPAIRED] == ["toolu_01Lq9vWm"]


def test_deep_nesting_loses_one_line(tmp_path):
    good = {"instance_id": "i", "history": [{"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"}},
                                            {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "ok"}]}
    check_deep_line(tmp_path, OpenHandsCollector, jsonl(good), jsonl({**good, "instance_id": "j"}))
    check_deep_document(tmp_path, OpenHandsCollector)


def test_truncated_empty_junk_surrogates(tmp_path):
    good = {"instance_id": "i", "history": [{"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"}},
                                            {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "ok"}]}
    check_truncated_line(tmp_path, OpenHandsCollector, good, 50)
    check_empty(tmp_path, OpenHandsCollector)
    check_junk(tmp_path, OpenHandsCollector)

    lone = [{"id": 1, "source": "agent", "action": "run", "args": {"command": "echo \ud83d"}},
            {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "half \ud83d emoji"}]
    calls = lone_surrogate_calls(tmp_path, OpenHandsCollector, json.dumps(lone))  # json.dumps writes \ud83d escapes
    assert calls[0].output == "half \ud83d emoji"

    wrong = list(OpenHandsCollector().collect(tmp_path / "t.json", "a string"))  # --from openhands on other JSON
    assert [s.reason for s in wrong] == ["not an OpenHands output with a history list"]
