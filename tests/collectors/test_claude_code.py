"""Claude Code collector: the sample, every corpus file, hand counts, broken input."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from toolaudit.collectors.claude_code import ClaudeCodeCollector
from toolaudit.collectors.discover import detect
import shutil

from toolaudit.model import ORPHAN, PAIRED, SCAN_SCOPE, UNPAIRED, SessionEnd, SessionInfo, ToolCall, Usage

from conftest import SAMPLES
from helpers import (check_deep_line, check_empty, check_odd_values, check_trip, jsonl, kinds, split, totals, writer)
from test_claude_code_usage import independent_usage

SAMPLE = SAMPLES / "claude-code" / "-home-dev-shop"
MAIN = SAMPLE / "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11.jsonl"
write = writer("s.jsonl")


def records(path: Path):
    return split(ClaudeCodeCollector().collect(path))


def test_sample_main_session_counts_what_the_model_saw():
    calls, skipped, ends = records(MAIN)
    assert skipped == []
    counts, _ = totals(calls)
    # the subagent's Grep nested in progress lines is read too (a scan of the folder drops the copy:
    # test_a_scan_counts_progress_copies_once), attributed to the subagent
    assert counts == {"Grep": 2, "Read": 3, "Glob": 1, "Task": 1, "Edit": 1, "Bash": 2,
                      "WebFetch": 1, "mcp__browser__screenshot": 1}
    assert [(c.call_id, c.agent) for c in calls if c.agent != "main"] == [("toolu_01SubGrep", "b41c9d2")]
    by_id = {c.call_id: c for c in calls}
    # tool_result.content, never toolUseResult (which holds the whole original file)
    assert by_id["toolu_01EditFix"].output.startswith("The file /home/dev/shop/src/shop/checkout.py has been updated")
    assert "side copy" not in "".join(c.output for c in calls)
    # text parts joined with "\n"; the image is counted, not turned into text
    assert by_id["toolu_01TaskCallers"].output.count("\n") == 4
    shot = by_id["toolu_01Shot"]
    assert (shot.images, shot.image_bytes) == (1, 6144)
    assert shot.output == "Screenshot of http://localhost:8000/checkout (1280x800)"
    assert by_id["toolu_01BashTests"].is_error is True
    # request positions: one request (msg_01A) came before the grep result
    assert by_id["toolu_01GrepCoupon"].request_index == 1
    # the parallel Read and Glob of msg_01C are both carried first by request 3
    assert by_id["toolu_01ReadGift"].request_index == by_id["toolu_01GlobTests"].request_index == 3
    # after the compact boundary: a new segment
    assert by_id["toolu_01BashRerun"].segment == 1 and by_id["toolu_01ReadApiTest"].segment == 0
    # <synthetic> lines are not requests: 11 real message ids, 7 before the boundary; the subagent's
    # context, as far as the progress lines show it, made one request
    assert ends == [SessionEnd(str(MAIN), "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11", (7, 11)),
                    SessionEnd(str(MAIN), "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11", (1,), agent="b41c9d2")]


def test_sample_subagent_file_is_attributed_to_its_agent():
    calls, skipped, ends = records(SAMPLE / "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11" / "subagents" / "agent-b41c9d2.jsonl")
    assert skipped == []
    assert [(c.tool, c.agent, c.session) for c in calls] == [
        ("Grep", "b41c9d2", "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11"),
        ("Read", "b41c9d2", "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11"),
    ]
    assert all(c.id_scope == SCAN_SCOPE for c in calls)


CORPUS_FILES = [
    "claude-code-log/edge_cases.jsonl",
    "claude-code-log/representative_messages.jsonl",
    "entire-checkpoints/10-a740e118e0-0.jsonl",
    "entire-checkpoints/a6-e4c2a0fbd1-0.jsonl",
    "session-share/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl",
    "session-share/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl",
    "session-share/read-tool-samples.jsonl",
    "spotter/short.jsonl",
    "spotter/subagent.jsonl",
    "spotter/tool_heavy.jsonl",
]


def test_every_corpus_file_is_detected_and_read(corpus):
    files = sorted((corpus / "claude-code").rglob("*.jsonl"))
    assert len(files) == 18
    for path in files:
        cls, _ = detect(path)
        assert cls is ClaudeCodeCollector, path
        calls, skipped, _ = records(path)
        rel = str(path.relative_to(corpus / "claude-code"))
        if rel == "claude-code-log/edge_cases.jsonl":
            # the log viewer's hand-written broken lines: a message that is a string, bare values
            assert [(s.line, s.reason) for s in skipped] == [
                (11, "user line without a message object"),
                (13, "expected a JSON object, got str"),
                (15, "expected a JSON object, got int"),
                (16, "expected a JSON object, got list"),
            ]
        else:
            assert skipped == [], (rel, skipped)


# Counted by hand: a separate json.loads pass over top-level user/assistant lines,
# pairing tool_result.tool_use_id with tool_use.id, len() of the joined text parts.
HAND = {
    "spotter/tool_heavy.jsonl": (
        {"Bash": 2, "Glob": 1, "WebSearch": 1, "Read": 1, "WebFetch": 1},
        {"Bash": 297, "Glob": 45, "WebSearch": 3061, "Read": 2984, "WebFetch": 1146},
    ),
    "session-share/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl": (
        {"Task": 5, "TaskOutput": 1, "Bash": 1},
        {"Task": 2135, "TaskOutput": 63, "Bash": 119},
    ),
    "entire-checkpoints/a6-e4c2a0fbd1-0.jsonl": (
        {"Read": 3, "Edit": 3, "Bash": 4},
        {"Read": 44782, "Edit": 3130, "Bash": 2609},
    ),
    "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl": (
        {"Read": 7, "Glob": 1, "Bash": 11},
        {"Read": 17575, "Glob": 75, "Bash": 4639},
    ),
}


@pytest.mark.parametrize("rel", sorted(HAND))
def test_hand_counts(corpus, rel):
    calls, _, _ = records(corpus / "claude-code" / rel)
    assert totals(calls) == HAND[rel]


def test_progress_calls_are_read_whether_or_not_a_subagent_file_exists(corpus):
    # 10-a740…: no subagent file in the corpus: the 18 nested calls of agent a102bdd count
    calls, _, _ = records(corpus / "claude-code" / "entire-checkpoints" / "10-a740e118e0-0.jsonl")
    main = Counter(c.tool for c in calls if c.agent == "main")
    nested = Counter(c.tool for c in calls if c.agent == "a102bdd")
    assert main == {"Skill": 1, "Task": 1, "Bash": 1, "Read": 1}
    assert nested == {"Read": 8, "Bash": 8, "Glob": 1, "Write": 1}
    assert sum(len(c.output) for c in calls if c.agent == "a102bdd" and c.tool == "Read") == 102022
    # 4b2030ed…: its subagent file exists beside it; the progress lines' copy is read all the same (a scan
    # of the session file alone counts it) and carries the same call ids, so a scan of both keeps one
    session = corpus / "claude-code" / "session-share" / "4b2030ed-5563-49ea-b703-6a002f2d3cc8"
    calls, _, _ = records(session.with_suffix(".jsonl"))
    assert [(c.tool, c.agent) for c in calls] == [("WebSearch", "a2018e5"), ("Task", "main")]
    own, _, _ = records(session / "subagents" / "agent-a2018e5.jsonl")
    assert {c.call_id for c in calls if c.agent == "a2018e5"} <= {c.call_id for c in own}
    assert all(c.id_scope == SCAN_SCOPE for c in calls)


def test_compaction_starts_a_new_segment(corpus):
    calls, _, ends = records(corpus / "claude-code" / "entire-checkpoints" / "a6-e4c2a0fbd1-0.jsonl")
    assert len(ends) == 1 and len(ends[0].requests) == 2
    assert {c.segment for c in calls} <= {0, 1}


def test_synthetic_fixture_has_unpaired_calls(corpus):
    calls, _, _ = records(corpus / "claude-code" / "claude-code-log" / "edge_cases.jsonl")
    assert sorted((c.tool, c.status) for c in calls) == [
        ("FailingTool", PAIRED), ("MultiEdit", UNPAIRED), ("TodoWrite", UNPAIRED)]


HEAD = '{"type":"user","sessionId":"s1","uuid":"u1","message":{"role":"user","content":"hi"}}\n'
CALL = ('{"type":"assistant","sessionId":"s1","uuid":"u2","message":{"id":"m1","model":"claude-x",'
        '"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}\n')


def test_broken_lines_become_skipped_records(tmp_path):
    text = HEAD + CALL + "{not json\n" + '["a list"]\n' + '{"type":"user","message":7}\n' + \
        '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok \\ud83d"}]}}\n' + \
        '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"X"}]}}\n' + '{"type":"user","mess'
    calls, skipped, _ = records(write(tmp_path, text))
    assert [c.tool for c in calls] == ["Bash"]
    assert calls[0].output == "ok \ud83d"  # kept as read; measurement sanitizes it
    assert [(s.line, s.benign) for s in skipped] == [(3, False), (4, False), (5, False), (7, False), (8, True)]
    assert skipped[-1].reason.startswith("truncated last line")


def test_orphan_result_and_binary_junk(tmp_path):
    text = HEAD.encode() + b'\xff\xfe\x00garbage\n' + \
        b'{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"zz","content":"caf\xe9"}]}}\n'
    calls, skipped, _ = records(write(tmp_path, text))
    assert [(c.tool, c.status, c.output) for c in calls] == [("unknown", ORPHAN, "caf\ufffd")]
    assert [s.line for s in skipped] == [2]


def test_empty_file_yields_nothing(tmp_path):
    check_empty(tmp_path, ClaudeCodeCollector, expect=())


def test_usage_equals_an_independent_sum_by_message_id(corpus, tmp_path):
    for path in sorted((corpus / "claude-code").rglob("*.jsonl")):
        usage = [r for r in ClaudeCodeCollector().collect(path) if isinstance(r, Usage)]
        # the hand count reads progress copies only when no subagent file is beside the file, and the
        # collector reads them always: counted by hand on a lone copy, as a scan of the file alone reads it
        alone = tmp_path / path.name
        shutil.copyfile(path, alone)
        ours = {"input_tokens": sum(u.input_uncached for u in usage),
                "cache_creation_input_tokens": sum(u.cache_write for u in usage),
                "cache_read_input_tokens": sum(u.cache_read for u in usage),
                "output_tokens": sum(u.output for u in usage)}
        assert ours == independent_usage(alone), path
        assert len({u.request_id for u in usage}) == len(usage)


# ------------------------------------------------------------------ progress copies in a scan


def _scan_totals(scan_json, *paths):
    doc = scan_json(*paths)
    return doc["totals"], doc["usage"], {r["tool"]: r["calls"] for r in doc["tools"]}


def test_a_scan_counts_progress_copies_once(scan_json, tmp_path):
    # the folder: the subagent's file and the progress copies in its parent; each call and request once
    folder, usage, tools = _scan_totals(scan_json, SAMPLE)
    assert (folder["calls"], folder["files"], folder["duplicates_dropped"], tools["Grep"]) == (15, 3, 3, 2)
    # the same totals as a folder whose parent holds no progress copies (before they were read, the
    # scan dropped 2 duplicates: resumed copies; now the progress copy of the subagent's Grep too)
    bare = tmp_path / "shop"
    shutil.copytree(SAMPLE, bare)
    lines = (bare / MAIN.name).read_text().splitlines(keepends=True)
    (bare / MAIN.name).write_text("".join(x for x in lines if '"type": "progress"' not in x))
    without, usage_without, tools_without = _scan_totals(scan_json, bare)
    assert without["duplicates_dropped"] == 2 and tools_without == tools
    keep = ("calls", "tokens", "chars", "bytes", "sessions", "carried_tokens", "residency_known_calls", "images")
    assert {k: folder[k] for k in keep} == {k: without[k] for k in keep}
    assert usage == usage_without
    # the session file alone: the subagent's Grep (the one call its progress lines copy) counts now,
    # with its request and usage; before, it was left out because the subagent's file existed
    alone, usage_alone, tools_alone = _scan_totals(scan_json, MAIN)
    assert (alone["calls"], alone["duplicates_dropped"], tools_alone["Grep"]) == (12, 0, 2)
    lone_main, usage_main, _ = _scan_totals(scan_json, bare / MAIN.name)
    assert lone_main["calls"] == 11 and usage_alone["requests"] == usage_main["requests"] + 1 == 12


# ------------------------------------------------------------------ odd values: one line lost, never the file

def test_odd_value_types_lose_one_line_not_the_file(tmp_path):
    result = '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"%s","content":%s}]}}'
    text = jsonl(
        HEAD.rstrip("\n"), CALL.rstrip("\n"), result % ("t1", '"ok"'),
        {"type": {}, "sessionId": "s1", "uuid": "u3", "message": {"content": []}},  # 4: a type that is an object
        {"type": ["assistant"], "message": {"content": []}},  # 5: a list
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "tool_use", "id": {}, "name": "X"}]}},
        {"type": "assistant", "message": {"id": "m3", "model": ["x"], "usage": {"input_tokens": "3"},
                                          "content": [{"type": "tool_use", "id": "t2", "name": 5, "input": {}}]}},
        result % ("t2", '[{"type": "image", "source": [1]}, {"type": [], "text": "shot"}]'),
        {"type": "progress", "parentToolUseID": {}, "data": {
            "type": "agent_progress", "agentId": ["a"],
            "message": {"type": "assistant", "message": {"id": "m9", "content": [
                {"type": "tool_use", "id": "t3", "name": "Read", "input": {}}]}}}},
        {"type": "progress", "data": {"type": "agent_progress", "agentId": ["a"], "message": {
            "type": "user", "timestamp": [], "message": {"role": [], "content": [
                {"type": "tool_result", "tool_use_id": "t3", "content": "read", "is_error": "yes"}]}}}},
        {"type": "system", "subtype": {}},
    )
    out = check_odd_values(ClaudeCodeCollector().collect(write(tmp_path, text)), ["t1", "t2", "t3"], [
        (4, "line whose type is not a string: dict"), (5, "line whose type is not a string: list"),
        (6, "tool_use block without an id")])
    t2, t3 = kinds(out, ToolCall)[1:]
    assert (t2.tool, t2.model, t2.images, t2.image_bytes, t2.output) == ("unknown", None, 1, 0, "shot")
    assert (t3.agent, t3.ts, t3.is_error) == ("subagent", None, False)
    assert [u.request_id for u in kinds(out, Usage)] == ["m3"]


def test_a_reader_that_trips_on_one_line_loses_that_line(monkeypatch):
    # line 10 answers toolu_01ReadGift: its result is lost (the call stays, unpaired), nothing else
    out = check_trip(monkeypatch, ClaudeCodeCollector, MAIN, 10)
    assert [c.call_id for c in kinds(out, ToolCall) if c.status == UNPAIRED] == ["toolu_01ReadGift"]


def test_deep_nesting_loses_one_line(tmp_path):
    # /tmp/review/deep.jsonl: a toolUseResult nested 5,000 deep once lost every call of the file
    result = '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}\n'
    check_deep_line(tmp_path, ClaudeCodeCollector, HEAD + CALL, result)
    check_deep_line(tmp_path, ClaudeCodeCollector, HEAD + CALL + result)


# ------------------------------------------------------------------ SessionInfo: where the session worked (replay)

def test_each_call_keeps_the_folder_its_line_logged(tmp_path):
    """Claude Code logs the shell's folder on every line: a Bash `cd` moves where later calls resolve paths."""
    def use(i: int, cwd: str) -> dict:
        return {"type": "assistant", "sessionId": "s-9", "cwd": cwd, "uuid": f"a{i}", "message": {
            "id": f"m{i}", "role": "assistant", "content": [
                {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": "x.go"}}]}}

    def result(i: int, cwd: str) -> dict:
        return {"type": "user", "sessionId": "s-9", "cwd": cwd, "uuid": f"u{i}", "message": {
            "role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}]}}
    path = write(tmp_path, jsonl(use(1, "/home/u/proj"), result(1, "/home/u/proj"),
                                 use(2, "/home/u/proj/sub"), result(2, "/home/u/other")))
    calls = kinds(ClaudeCodeCollector().collect(path), ToolCall)
    assert [c.cwd for c in calls] == ["/home/u/proj", "/home/u/proj/sub"]  # the call's line, not the result's


def test_the_first_recorded_cwd_is_the_sessions_folder(tmp_path):
    lines = [{"type": "user", "sessionId": "s-9", "cwd": "/home/u/proj", "uuid": "u1", "message": {"content": "hi"}},
             {"type": "user", "sessionId": "s-9", "cwd": "/home/u/proj/sub", "uuid": "u2", "message": {"content": "x"}}]
    path = write(tmp_path, jsonl(*lines))
    assert kinds(ClaudeCodeCollector().collect(path), SessionInfo) == [SessionInfo(str(path), "s-9", "/home/u/proj")]
    no_cwd = write(tmp_path, jsonl({**lines[0], "cwd": 3}), name="n.jsonl")
    assert kinds(ClaudeCodeCollector().collect(no_cwd), SessionInfo) == []


def test_sample_session_and_subagent_file_record_their_cwd():
    assert kinds(ClaudeCodeCollector().collect(MAIN), SessionInfo) == [
        SessionInfo(str(MAIN), "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11", "/home/dev/shop", version="2.1.38",
                    branch="main")]
    sub = SAMPLE / "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11" / "subagents" / "agent-b41c9d2.jsonl"
    assert kinds(ClaudeCodeCollector().collect(sub), SessionInfo) == [
        SessionInfo(str(sub), "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11", "/home/dev/shop", agent="b41c9d2",
                    version="2.1.38", branch="main")]
