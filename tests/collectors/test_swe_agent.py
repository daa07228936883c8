"""SWE-agent collector: the sample, every corpus file, hand counts, the pitfalls, broken input, detection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.collectors.discover import detect
from toolaudit.collectors.swe_agent import SWEAgentCollector
from toolaudit.model import ORPHAN, PAIRED, UNPAIRED, ModelText, SessionEnd, ToolCall

from conftest import SAMPLES
from helpers import (check_deep_document, check_empty, check_junk, check_odd_values, check_trip,
                     check_truncated_document, corpus_file, corpus_files, detected, each_path, kinds, per_tool, split,
                     writer)

SAMPLE = SAMPLES / "swe-agent" / "acme__tinycsv-42.traj"
CORPUS_FILES = corpus_files("swe-agent", "*.traj")
PYDICOM = "test_data__pydicom__pydicom-1458.traj"
FUNCTIONS = "demonstrations__function_calling_simple.traj"
traj = writer("x__y-1.traj", json.dumps)


def records(path: Path, doc=None):
    return split(SWEAgentCollector().collect(path, doc), rest=ModelText)


def read(path: Path):
    return records(path, detected(path, SWEAgentCollector, document=True))


def text_history(*pairs: tuple[str, str]) -> list[dict]:
    """A 0.x text-config history: system, task, then (action, observation) pairs."""
    items = [{"role": "system", "content": "SETTING", "agent": "primary"},
             {"role": "user", "content": "We're currently solving the following issue", "agent": "primary"}]
    for action, observation in pairs:
        items.append({"role": "assistant", "content": f"Let's run it.\n```\n{action}\n```", "thought": "Let's run it.",
                      "action": action + "\n", "agent": "primary"})
        if observation is not None:
            items.append({"role": "user", "content": observation, "agent": "primary"})
    return items


# ------------------------------------------------------------------ sample

def test_sample_function_calling_trajectory():
    calls, skipped, ends = read(SAMPLE)
    assert skipped == []
    # jq: non-demo role=tool items' text lengths, joined to the assistant tool_calls by id
    assert per_tool(calls) == {"str_replace_editor": (2, 1175 + 523), "bash": (2, 183 + 59), "submit": (2, 912)}
    assert [c.status for c in calls] == [PAIRED] * 5 + [UNPAIRED]  # the final submit ends the run
    assert all(c.output.startswith("OBSERVATION:\n") for c in calls[:5])  # templated, as the model got it
    assert calls[1].args == '{"command": "grep -rn \\"_rows\\" src tests"}'
    assert calls[0].model == "claude-sonnet-4-20250514"
    # the demonstration's assistant item is no request: six requests, not seven
    assert [c.request_index for c in calls] == [1, 2, 3, 4, 5, None]
    assert ends == [SessionEnd(str(SAMPLE), "acme__tinycsv-42", (6,))]


def test_sample_pitfalls_demo_query_and_raw_observations():
    calls, _, _ = read(SAMPLE)
    doc = json.loads(SAMPLE.read_text())
    demo = next(m for m in doc["history"] if m.get("is_demo") and m["role"] == "tool")
    assert not any(demo["content"][0]["text"] in c.output for c in calls)
    # jq: raw trajectory observations sum to 3169 chars, the 66 `query` messages far more
    assert sum(len(c.output) for c in calls) == 2852 != sum(len(s["observation"]) for s in doc["trajectory"]) == 3169
    assert sum(len(json.dumps(s["query"])) for s in doc["trajectory"]) > 10 * 2852


# ------------------------------------------------------------------ the real corpus

@each_path(CORPUS_FILES)
def test_corpus_file_reads_cleanly(path):
    path = corpus_file(path)
    calls, skipped, ends = read(path)
    assert [s for s in skipped if not s.benign] == []
    assert len(ends) == 1 and calls
    # one request per non-demo assistant item
    doc = json.loads(path.read_text())
    assert ends[0].requests == (sum(m["role"] == "assistant" and not m.get("is_demo") for m in doc["history"]),)


def test_pydicom_hand_counts(corpus):
    path = corpus / "swe-agent" / PYDICOM
    calls, _, ends = read(path)
    # jq over history without is_demo: each assistant `action`'s first word, and the
    # length of the role=user item right after it (the last `submit` has none)
    assert per_tool(calls) == {"create": (1, 156), "edit": (5, 14416), "python": (2, 1448), "find_file": (1, 323),
                               "open": (1, 5057), "rm": (1, 183), "submit": (1, 0)}
    assert sum(len(c.output) for c in calls) == 21583  # history; the raw trajectory observations are 21095
    assert [c.status for c in calls].count(UNPAIRED) == 1 and calls[-1].tool == "submit"
    # the 19,388-char demonstration (is_demo) is in the prompt, not a call of this run
    assert max(len(c.output) for c in calls) == 5158
    assert ends[0].requests == (12,)
    assert [c.request_index for c in calls[:3]] == [1, 2, 3]


def test_function_calling_hand_counts(corpus):
    calls, _, ends = read(corpus / "swe-agent" / FUNCTIONS)
    # jq: role=tool items by tool_call_ids[0], names from the assistant tool_calls
    assert per_tool(calls) == {"find_file": (1, 177), "open": (1, 327), "edit": (1, 609), "bash": (1, 111),
                               "submit": (1, 423)}
    assert calls[0].call_id == "call_PbWErNIge3YTrli3fiVvmIid" and calls[0].args == '{"file_name":"missing_colon.py"}'
    assert ends[0].requests == (5,)


# ------------------------------------------------------------------ formats and rules

def test_text_config_pairs_by_position_and_names_the_command(tmp_path):
    path = traj(tmp_path, {"history": text_history(("open src/app.py 40", "[File: src/app.py]"), ("  ", None),
                                                   ("python -m pytest -x", "1 failed"), ("submit", None)),
                           "info": {"model_stats": {"api_calls": 4}}})
    calls, skipped, ends = read(path)
    assert skipped == []
    # a blank action is no call: the next user item (none here) would not be an output either
    assert [(c.tool, c.args, c.output, c.status, c.request_index) for c in calls] == [
        ("open", "open src/app.py 40", "[File: src/app.py]", PAIRED, 1),
        ("python", "python -m pytest -x", "1 failed", PAIRED, 3),
        ("submit", "submit", "", UNPAIRED, None)]
    assert ends[0].requests == (4,)


def test_demonstrations_in_history_are_not_calls(tmp_path):
    demo = [dict(m, is_demo=True) for m in text_history(("ls", "a.py"))[1:]]
    history = text_history(("cat a.py", "print(1)"))
    path = traj(tmp_path, {"history": history[:1] + demo + history[1:], "info": {}})
    calls, _, ends = read(path)
    assert [(c.tool, c.output) for c in calls] == [("cat", "print(1)")] and ends[0].requests == (1,)


def test_old_files_without_history_read_the_trajectory(tmp_path):
    steps = [{"action": "ls\n", "observation": "a.py\n", "response": "r", "state": "{}", "thought": "t"},
             {"action": "submit\n", "observation": "diff --git", "response": "r", "state": "{}", "thought": "t"}]
    path = traj(tmp_path, {"trajectory": steps, "info": {"model_stats": {}}, "environment": "swe_main"})
    calls, skipped, ends = read(path)
    assert skipped == []
    assert [(c.tool, c.output, c.request_index) for c in calls] == [("ls", "a.py\n", 1), ("submit", "diff --git", 2)]
    assert ends[0].requests == (2,)


def test_retry_agent_attempts_are_sessions_and_the_copy_is_not_read(tmp_path):
    one = {"history": text_history(("ls", "a")), "info": {}}
    two = {"history": text_history(("ls", "b"), ("cat b", "B")), "info": {}}
    path = traj(tmp_path, {"attempts": [one, two], **two, "info": {"best_attempt_idx": 1}})
    calls, _, ends = read(path)
    assert [(c.session, c.output) for c in calls] == [("x__y-1#attempt1", "a"), ("x__y-1#attempt2", "b"),
                                                      ("x__y-1#attempt2", "B")]
    assert [e.requests for e in ends] == [(1,), (2,)]


def test_tool_item_without_its_call_is_an_orphan(tmp_path):
    history = [{"role": "system", "content": "s", "agent": "main", "message_type": "system_prompt"},
               {"role": "tool", "content": "late", "agent": "main", "message_type": "observation",
                "tool_call_ids": ["x"]}]
    calls, _, _ = read(traj(tmp_path, {"history": history}))
    assert [(c.tool, c.status, c.output) for c in calls] == [("unknown", ORPHAN, "late")]


# ------------------------------------------------------------------ broken input

def test_truncated_document(tmp_path):
    check_truncated_document(tmp_path, SWEAgentCollector, SAMPLE, 5000)


def test_wrong_types_become_skipped(tmp_path):
    history = [{"role": "system", "content": "s", "agent": "main"}, "not an item",
               {"role": "assistant", "content": ["odd", 5], "agent": "main", "tool_calls": "nope"},
               {"role": "assistant", "content": None, "agent": "main", "tool_calls": [{"function": {"name": "x"}}, 3]},
               {"role": "assistant", "content": "c", "agent": "main", "action": 17}]
    calls, skipped, ends = records(traj(tmp_path, {"history": history}))
    assert [(s.line, s.reason) for s in skipped] == [
        (2, "expected a history item, got str"), (3, "tool_calls is not a list"),
        (4, "tool call without an id or a function"), (4, "tool call without an id or a function")]
    assert calls == [] and ends[0].requests == (3,)
    for doc, reason in [([1, 2], "expected a .traj object, got list"),
                        ({"info": {}}, "neither a history nor a trajectory list"),
                        ({"attempts": [7]}, "expected a run object, got int"),
                        ({"trajectory": [{"observation": "x"}]}, "trajectory step without an action")]:
        _, skipped, _ = records(traj(tmp_path, doc))
        assert [s.reason for s in skipped] == [reason]


def test_odd_value_types_lose_one_item_not_the_file(tmp_path):
    history = text_history(("ls", "a.py"))
    history += [{"role": [], "content": "x", "agent": "primary"}, {"role": {}, "content": "y", "agent": "primary"},
                {"role": "assistant", "content": {"a": 1}, "agent": "primary", "tool_calls": [
                    {"id": {}, "function": {"name": "x"}}, {"id": "t2", "function": {"name": 5, "arguments": []}}]},
                {"role": "tool", "content": [{"type": "text", "text": "ok"}], "agent": "primary", "tool_call_ids": [{}]},
                {"role": "assistant", "content": "", "agent": "primary", "action": ["ls"]}]
    doc = {"history": history, "replay_config": '{"agent": {"model": {"name": ["m"]}}}'}
    out = check_odd_values(SWEAgentCollector().collect(traj(tmp_path, doc)), ["#1", "t2"], [
        (5, "history item whose role is not a string: list"), (6, "history item whose role is not a string: dict"),
        (7, "tool call without an id or a function")])
    assert [(c.tool, c.args, c.output, c.model) for c in kinds(out, ToolCall)] == [
        ("ls", "ls", "a.py", None), ("unknown", "[]", "ok", None)]


def test_a_reader_that_trips_on_one_item_loses_that_item(monkeypatch):
    # history item 9 answers the second call: its output is lost (the call stays, unpaired), nothing else
    out = check_trip(monkeypatch, SWEAgentCollector, SAMPLE, 9)
    assert [c.call_id for c in kinds(out, ToolCall) if c.status == UNPAIRED][0].startswith("toolu_0102")


def test_deep_nesting_is_one_problem(tmp_path):
    check_deep_document(tmp_path, SWEAgentCollector, "deep.traj")


def test_empty_file_and_binary_junk(tmp_path):
    check_empty(tmp_path, SWEAgentCollector)
    junk = check_junk(tmp_path, SWEAgentCollector, b"\x89PNG\r\n\x1a\n\x00\xff\xfe" + bytes(range(256)),
                      reason="not a JSON document")
    assert len(junk) == 1  # one problem for the whole document


def test_lone_surrogates_in_output(tmp_path):
    path = tmp_path / "s.traj"
    raw = json.dumps({"history": text_history(("cat f", "PLACEHOLDER"))})
    path.write_text(raw.replace("PLACEHOLDER", "emoji \\ud83d cut"))
    calls, skipped, _ = read(path)
    assert skipped == [] and calls[0].output == "emoji \ud83d cut"


# ------------------------------------------------------------------ detection

def test_detect_sample():
    assert detect(SAMPLE)[0] is SWEAgentCollector


@each_path(CORPUS_FILES)
def test_detect_picks_swe_agent_for_corpus_files(path):
    assert detect(corpus_file(path))[0] is SWEAgentCollector


@pytest.mark.parametrize("doc, expected", [
    ({"history": [{"role": "user", "content": "x", "agent": "main"}]}, True),
    ({"trajectory": [{"action": "ls", "observation": "a"}], "info": {}}, True),
    ({"attempts": [{"history": [{"role": "system", "content": "s", "message_type": "system_prompt"}]}]}, True),
    ({"instance_id": "i", "history": [{"id": 1, "source": "agent", "action": "run"}]}, False),  # OpenHands
    ({"history": [{"role": "model", "parts": []}]}, False),  # Gemini /chat save
    ({"messages": [{"role": "user", "content": "x"}], "trajectory_format": "mini-swe-agent-1"}, False),
    ([{"role": "user", "content": "x"}], False),
])
def test_sniff_doc(doc, expected):
    assert SWEAgentCollector.sniff_doc(doc) is expected
