"""mini-swe-agent collector: the sample, every corpus file, hand counts, the pitfalls, broken input, detection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.collectors.discover import detect
from toolaudit.collectors.mini_swe_agent import MiniSWEAgentCollector
from toolaudit.model import PAIRED, UNPAIRED, ModelText, SessionEnd, ToolCall, Usage

from conftest import SAMPLES
from helpers import (check_deep_document, check_empty, check_junk, check_odd_values, check_trip,
                     check_truncated_document, corpus_file, corpus_files, detected, each_path, kinds, per_tool,
                     records_of, split, writer)

SAMPLE = SAMPLES / "mini-swe-agent" / "acme__tinycsv-57.traj.json"
CORPUS_FILES = corpus_files("mini-swe-agent", "**/*.json")
DJANGO = "gemini-3-pro-swebench/django__django-11099.traj.json"
BARE = "mini-swe-agent-tests/github_issue.traj.json"
traj = writer("run.traj.json", json.dumps)


def records(path: Path, doc=None):
    return split(MiniSWEAgentCollector().collect(path, doc), usage=True, rest=ModelText)


def read(path: Path):
    return records(path, detected(path, MiniSWEAgentCollector, document=True))


def v1(*messages: dict) -> dict:
    return {"info": {"exit_status": "Submitted", "submission": "", "model_stats": {"api_calls": 1},
                     "mini_version": "1.15.0", "config": {"model": {"model_name": "openrouter/x"}}},
            "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "task"}, *messages],
            "trajectory_format": "mini-swe-agent-1", "instance_id": "x__y-1"}


def said(text: str, command: str | None = None) -> dict:
    block = f"\n\n```bash\n{command}\n```" if command is not None else ""
    return {"role": "assistant", "content": f"THOUGHT: {text}{block}"}


def obs(output: str, code: int = 0) -> dict:
    return {"role": "user", "content": f"<returncode>{code}</returncode>\n<output>\n{output}</output>"}


# ------------------------------------------------------------------ sample

def test_sample_v2_tool_calls():
    calls, skipped, ends, usage = read(SAMPLE)
    assert skipped == []
    # jq: role=tool content lengths (the submit call has no tool message: it ended the run)
    assert per_tool(calls) == {"bash": (8, 158 + 352 + 367 + 745 + 10612 + 63 + 425)}
    assert [c.status for c in calls] == [PAIRED] * 7 + [UNPAIRED]
    assert [c.is_error for c in calls] == [False, False, False, True, False, False, False, False]
    assert calls[4].output.startswith("<returncode>0</returncode>\n<warning>")  # the template, as the model got it
    assert calls[1].args == '{"command": "cat tests/test_writer.py"}'
    # seven assistant messages and one rejected response (the format error) are requests
    assert [c.request_index for c in calls] == [1, 1, 2, 4, 5, 6, 7, None]
    assert ends == [SessionEnd(str(SAMPLE), "acme__tinycsv-57", (8,))]
    # jq over extra.response.usage: prompt 40497, cached 30208, completion 1188, reasoning 640
    assert len(usage) == 8 and len({u.request_id for u in usage}) == 8
    assert (sum(u.input_total for u in usage), sum(u.cache_read for u in usage)) == (40497, 30208)
    assert (sum(u.output for u in usage), sum(u.reasoning for u in usage)) == (1188, 640)
    assert usage[2].request_index == 2 and usage[2].request_id == "chatcmpl-CU7m03kQ2xVb9TnR4sLw0eYhJ3fGp"


def test_config_templates_and_exit_message_are_not_output():
    calls, _, _, _ = read(SAMPLE)
    doc = json.loads(SAMPLE.read_text())
    template = doc["info"]["config"]["model"]["observation_template"]
    assert not any(template in c.output for c in calls)
    assert sum("<warning>" in c.output for c in calls) == 1  # the one real truncated output
    assert not any(doc["info"]["submission"] in c.output for c in calls[:6])


# ------------------------------------------------------------------ the real corpus

@each_path(CORPUS_FILES)
def test_corpus_file_reads_cleanly(path):
    path = corpus_file(path)
    calls, skipped, ends, _ = read(path)
    assert [s for s in skipped if not s.benign] == []
    assert len(ends) == 1 and calls
    assert calls[-1].status == UNPAIRED and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in calls[-1].args


def test_django_hand_counts(corpus):
    path = corpus / "mini-swe-agent" / DJANGO
    calls, _, ends, usage = read(path)
    # jq: 20 role=user messages starting with <returncode>, 38033 chars, one non-zero code;
    # 21 assistant messages; the last one's submit is answered by the exit message only
    assert per_tool(calls) == {"bash": (21, 38033)}
    assert sum(c.is_error for c in calls) == 1 and [c.status for c in calls].count(UNPAIRED) == 1
    assert ends[0].requests == (21,)
    # the three <warning> outputs are real truncations; the template in info.config is not counted
    assert sum("<warning>" in c.output for c in calls) == 3
    # jq over extra.response.usage: prompt 132644, cached 94594, completion 3226, reasoning 275
    assert (sum(u.input_total for u in usage), sum(u.cache_read for u in usage)) == (132644, 94594)
    assert (sum(u.output for u in usage), sum(u.reasoning for u in usage)) == (3226, 275)
    assert {u.model for u in usage} == {"google/gemini-3-pro-preview"} and usage[0].request_id.startswith("gen-")


def test_bare_list_hand_counts(corpus):
    calls, _, ends, usage = read(corpus / "mini-swe-agent" / BARE)
    # jq: 9 role=user messages starting with <returncode>, 1912 chars; ```mswea_bash_command blocks
    assert per_tool(calls) == {"bash": (10, 1912)}
    assert [c.is_error for c in calls].count(True) == 2
    assert (ends[0].session, ends[0].requests, usage) == ("github_issue", (10,), [])


# ------------------------------------------------------------------ formats and rules

def test_v1_text_mode_format_errors_and_exit(tmp_path):
    path = traj(tmp_path, v1(
        said("look", "ls"), obs("a.py\n"),
        said("two at once", "ls") | {"content": "```bash\nls\n```\n```bash\npwd\n```"},
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."},
        said("no block"),
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 0 actions."},
        said("fail", "false"), obs("", 1),
        said("done", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"),
        {"role": "user", "content": "diff --git a/x"},  # v1's exit message: the submission, never sent
    ))
    calls, skipped, ends, _ = read(path)
    assert skipped == []
    assert [(c.args, c.output, c.is_error, c.status, c.request_index) for c in calls] == [
        ("ls", "<returncode>0</returncode>\n<output>\na.py\n</output>", False, PAIRED, 1),
        ("false", "<returncode>1</returncode>\n<output>\n</output>", True, PAIRED, 4),
        ("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff", "", False, UNPAIRED, None)]
    assert ends == [SessionEnd(str(path), "x__y-1", (5,))]
    assert calls[0].model == "openrouter/x"


def test_v2_text_mode_reads_extra_actions(tmp_path):
    path = traj(tmp_path, {"info": {"mini_version": "2.1.0"}, "trajectory_format": "mini-swe-agent-1.1", "messages": [
        {"role": "system", "content": "s"}, {"role": "user", "content": "t"},
        {"role": "assistant", "content": "run it", "extra": {"actions": [{"command": "make test"}], "cost": 0.1}},
        {"role": "user", "content": "Observation: ok", "extra": {"raw_output": "ok", "returncode": 2}},
        {"role": "exit", "content": "", "extra": {"exit_status": "LimitsExceeded"}}]})
    calls, _, ends, _ = read(path)
    assert [(c.args, c.output, c.is_error) for c in calls] == [("make test", "Observation: ok", True)]
    assert (ends[0].session, ends[0].requests) == ("run", (1,))


def test_v2_responses_api_mode(tmp_path):
    path = traj(tmp_path, {"info": {"mini_version": "2.2.0"}, "trajectory_format": "mini-swe-agent-1.1", "messages": [
        {"role": "user", "content": "t"},
        {"object": "response", "id": "resp_1", "model": "gpt-5", "usage": {"input_tokens": 900, "output_tokens": 40,
         "input_tokens_details": {"cached_tokens": 800}, "output_tokens_details": {"reasoning_tokens": 32}},
         "output": [{"type": "reasoning", "summary": []},
                    {"type": "message", "content": [{"type": "output_text", "text": "Listing."}]},
                    {"type": "function_call", "call_id": "fc_1", "name": "bash", "arguments": "{\"command\":\"ls\"}"}],
         "extra": {"actions": [{"command": "ls", "tool_call_id": "fc_1"}]}},
        {"type": "function_call_output", "call_id": "fc_1",
         "output": "<returncode>0</returncode>\n<output>\na\n</output>",
         "extra": {"returncode": 0}}]})
    calls, skipped, ends, usage = read(path)
    assert skipped == []
    assert [(c.call_id, c.args, c.output, c.request_index) for c in calls] == [
        ("fc_1", '{"command":"ls"}', "<returncode>0</returncode>\n<output>\na\n</output>", 1)]
    assert [(u.request_id, u.input_uncached, u.cache_read, u.output, u.reasoning) for u in usage] == [
        ("resp_1", 100, 800, 40, 32)]
    assert ends[0].requests == (1,)


# ------------------------------------------------------------------ broken input

def test_truncated_document(tmp_path):
    check_truncated_document(tmp_path, MiniSWEAgentCollector, SAMPLE, 3000)


def test_wrong_types_become_skipped(tmp_path):
    path = traj(tmp_path, v1("junk", {"role": "assistant", "content": 7, "tool_calls": "x", "extra": []},
                             {"role": "assistant", "content": None, "tool_calls": [5], "extra": {"response": "r"}},
                             {"role": "tool", "tool_call_id": None, "content": {"a": 1}}))
    calls, skipped, ends, usage = records(path)
    assert [(s.line, s.reason) for s in skipped] == [
        (3, "expected a message object, got str"), (4, "tool_calls is not a list"), (5, "tool call without a function")]
    assert [(c.status, c.output) for c in calls] == [("orphan", '{"a":1}')]
    assert usage == [] and ends[0].requests == (2,)
    for doc, reason in [({"messages": "x", "trajectory_format": "mini-swe-agent-1"},
                         "expected a messages list, got str"),
                        (5, "expected a messages list, got int")]:
        _, skipped, _, _ = records(traj(tmp_path, doc))
        assert [s.reason for s in skipped] == [reason]


def test_odd_value_types_lose_one_message_not_the_file(tmp_path):
    # a role that is a list or an object was hashed (by a sniffer, then the reader): the file was lost
    calls = [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]
    doc = v1({"role": "assistant", "content": "", "tool_calls": calls},
             {"role": "tool", "tool_call_id": "c1", "content": "ok", "extra": {"returncode": "1"}},
             {"role": [], "content": "x"}, {"role": {}, "content": "y"},
             {"role": "assistant", "content": ["z"], "tool_calls": [{"id": {}, "function": {"name": 5, "arguments": 1}}],
              "extra": {"response": {"id": {}, "model": [], "usage": {"prompt_tokens": 9, "completion_tokens": "2"}}}},
             {"role": "tool", "tool_call_id": [], "content": "<returncode>2</returncode>"})
    out = check_odd_values(MiniSWEAgentCollector().collect(traj(tmp_path, doc)), ["c1", "#1"], [
        (5, "message whose role is not a string: list"), (6, "message whose role is not a string: dict")])
    assert [(c.tool, c.is_error, c.model) for c in kinds(out, ToolCall)] == [
        ("bash", False, "openrouter/x"), ("unknown", True, "openrouter/x")]
    [usage] = kinds(out, Usage)
    assert (usage.input_uncached, usage.output, usage.global_id) == (9, 0, False)
    assert usage.request_id.endswith("run.traj.json#7")  # no response id: one made from the file, unique in it only
    # the earliest bare list: detection leaves it (a role is not a string), `--from mini-swe-agent` reads it
    bare = [{"role": "system", "content": "s"}, {"role": "assistant", "content": "```bash\nls\n```"},
            {"role": ["user"], "content": "<returncode>0</returncode>"}, {"role": "user", "content": "<returncode>0</returncode>"}]
    path = traj(tmp_path, bare, "bare.traj.json")
    assert detect(path) == (None, None)
    check_odd_values(records_of(MiniSWEAgentCollector, path, forced=True), ["#1"], [
        (3, "message whose role is not a string: list")])


def test_usage_is_deduplicated_within_the_file_only():
    # response ids look global (chatcmpl-...) but a cache or a mock model hands them to several runs
    usage = records(SAMPLE)[3]
    assert usage and all(u.request_id.startswith("chatcmpl-") and not u.global_id for u in usage)


def test_a_reader_that_trips_on_one_message_loses_that_message(monkeypatch):
    # message 7 answers call_03: its output is lost (the call stays, unpaired), nothing else
    out = check_trip(monkeypatch, MiniSWEAgentCollector, SAMPLE, 7)
    assert [c.call_id for c in kinds(out, ToolCall) if c.status == UNPAIRED] == [
        "call_03Zr8Kq3VmT1xWb6NyDc", "call_08Zr8Kq3VmT1xWb6NyDc"]


def test_deep_nesting_is_one_problem(tmp_path):
    check_deep_document(tmp_path, MiniSWEAgentCollector, "deep.traj.json")


def test_empty_file_and_binary_junk(tmp_path):
    check_empty(tmp_path, MiniSWEAgentCollector)
    junk = check_junk(tmp_path, MiniSWEAgentCollector, b"\x00\xff[{\xfe" + bytes(range(256)),
                      reason="not a JSON document")
    assert len(junk) == 1  # one problem for the whole document


def test_lone_surrogates_in_output(tmp_path):
    path = tmp_path / "s.traj.json"
    path.write_text(json.dumps(v1(said("x", "cat f"), obs("PLACEHOLDER"))).replace("PLACEHOLDER", "emoji \\ud83d cut"))
    calls, skipped, _, _ = read(path)
    assert skipped == [] and "emoji \ud83d cut" in calls[0].output


# ------------------------------------------------------------------ detection

def test_detect_sample():
    assert detect(SAMPLE)[0] is MiniSWEAgentCollector


@each_path(CORPUS_FILES)
def test_detect_picks_mini_for_corpus_files(path):
    assert detect(corpus_file(path))[0] is MiniSWEAgentCollector


@pytest.mark.parametrize("doc, expected", [
    ({"messages": [], "trajectory_format": "mini-swe-agent-1.1"}, True),
    ({"messages": [], "info": {"mini_version": "1.0.0"}}, True),
    ([{"role": "user", "content": "t"}, {"role": "assistant", "content": "```mswea_bash_command\nls\n```"}], True),
    ([{"role": "user", "content": "<returncode>0</returncode>\n<output>\n</output>"}], True),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], False),  # plain chat
    ([{"role": "assistant", "content": "```bash\nls\n```", "tool_calls": []}, {"role": "tool", "content": "x"}], False),
    ({"messages": [{"role": "user", "content": "x"}]}, False),  # a chat log
    ({"history": [], "info": {"model_stats": {}}}, False),  # SWE-agent
])
def test_sniff_doc(doc, expected):
    assert MiniSWEAgentCollector.sniff_doc(doc) is expected
