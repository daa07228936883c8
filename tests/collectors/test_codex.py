"""Codex rollout collector: the samples, every corpus file, hand counts, broken input, detection."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from toolaudit.scan.markers import truncated_by
from toolaudit.collectors.codex import CodexCollector
from toolaudit.collectors.discover import detect
from toolaudit.model import (ORPHAN, PAIRED, UNPAIRED, ModelText, OutputCap, SessionEnd, SessionInfo, Skipped,
                            ToolCall, Usage)

from conftest import SAMPLES
from helpers import (PNG_JUNK, check_deep_line, check_empty, check_junk, check_odd_values, check_trip, corpus_file,
                     corpus_files, each_path, jsonl, kinds, lines_writer, live_copy, per_tool, split)

OLD = SAMPLES / "codex" / "rollout-2025-10-21T14-02-11-019a06f2-3c41-7d2e-9b8a-4f1e6c2d7a90.jsonl"
NEW = SAMPLES / "codex" / "rollout-2026-01-14T09-47-03-019bbd3e-71a8-7c05-8e2f-d46a1b93c7f2.jsonl"
CORPUS_FILES = corpus_files("codex", "**/*.jsonl")
# a third-party app's invented "drift" lines (no session header, calls without ids):
# not a Codex format, so detection leaves it to others; forced reading must still cope
DRIFT = "stage0-codex-schema_drift.jsonl"
VIEW = "codex-session-view/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
PUSH = "localpush/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"
OUTPUT_ITEMS = {"function_call_output", "custom_tool_call_output", "tool_search_output"}
write = lines_writer("rollout.jsonl")


def records(path: Path):
    return split(CodexCollector().collect(path), rest=(ModelText, Usage, OutputCap, SessionInfo))


def env(kind: str, payload, ts: str = "2026-01-02T03:04:05.000Z") -> dict:
    return {"timestamp": ts, "type": kind, "payload": payload}


META = env("session_meta", {"id": "sess-1", "cwd": "/w", "originator": "codex_cli_rs",
                            "cli_version": "0.94.0", "source": "cli"})


# ------------------------------------------------------------------ samples

def test_old_sample_measures_json_string_outputs_as_stored():
    calls, skipped, ends = records(OLD)
    assert skipped == []
    # counted separately with jq over the response_item outputs
    assert per_tool(calls) == {"shell": (5, 8228), "apply_patch": (1, 129)}
    assert {c.status for c in calls} == {PAIRED}
    first = calls[0]
    assert first.output.startswith('{"output":"Makefile\\nREADME.md')  # not unwrapped
    assert first.args == '{"command":["bash","-lc","ls"],"workdir":"/home/dev/src/invoicer"}'
    csv = calls[2]
    assert csv.output.startswith('{"output":"Total output lines: 300\\n\\n')
    assert "[... omitted 44 of 300 lines ...]" in csv.output and truncated_by(csv.output) == "codex"
    assert (first.session, first.model, first.agent, first.ts) == (
        "019a06f2-3c41-7d2e-9b8a-4f1e6c2d7a90", "gpt-5-codex", "main", "2025-10-21T14:02:35.933Z")
    # one call per request; the token_count of a request precedes its items in 0.5x
    assert [c.request_index for c in calls] == [1, 2, 3, 4, 5, 6]
    assert [c.call_index for c in calls] == [0, 1, 2, 3, 4, 5]
    assert ends == [SessionEnd(str(OLD), "019a06f2-3c41-7d2e-9b8a-4f1e6c2d7a90", (7,))]


def test_new_sample_exec_patch_compaction_and_unanswered_call():
    calls, skipped, ends = records(NEW)
    assert skipped == []
    assert per_tool(calls) == {"exec_command": (5, 1606), "apply_patch": (1, 102), "write_stdin": (1, 174)}
    statuses = Counter(c.status for c in calls)
    assert statuses == {PAIRED: 6, UNPAIRED: 1}
    last = next(c for c in calls if c.status == UNPAIRED)
    assert (last.call_id, last.line, last.output, last.request_index) == (
        "call_Ld2Pz6Xf0Bq4Jt8Cv1Sg5Yh3", 69, "", None)
    patch = next(c for c in calls if c.tool == "apply_patch")
    assert patch.args.startswith("*** Begin Patch\n*** Update File: src/invoicer/cli.py")
    assert patch.output.endswith("M src/invoicer/cli.py\n")
    # parallel calls share their request; the compaction request (6) ends segment 0
    paired = [c for c in calls if c.status == PAIRED]
    assert [(c.request_index, c.segment) for c in paired] == [(1, 0), (1, 0), (2, 0), (3, 0), (4, 0), (7, 1)]
    assert ends == [SessionEnd(str(NEW), "019bbd3e-71a8-7c05-8e2f-d46a1b93c7f2", (6, 8))]
    # the hosted web search has no output: neither a call nor an unpaired one
    assert "web_search" not in {c.tool for c in calls}


# ------------------------------------------------------------------ the real corpus

# the drift fixture is not a Codex format: see test_drift_fixture_is_not_claimed
@each_path([p for p in CORPUS_FILES if p.name != DRIFT])
def test_corpus_file_reads_cleanly_and_counts_each_output_once(path):
    path = corpus_file(path)
    calls, skipped, ends = records(path)
    assert [s for s in skipped if not s.benign] == []
    assert len(ends) == 1
    # event_msg mirrors (exec_command_end, mcp_tool_call_end...) never add a record
    outputs = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            obj = json.loads(line) if line.strip() else {}
            payload = obj.get("payload")
            if obj.get("type") == "response_item" and isinstance(payload, dict):
                outputs += payload.get("type") in OUTPUT_ITEMS
    assert sum(c.status != UNPAIRED for c in calls) == outputs


@each_path(CORPUS_FILES)
def test_detect_picks_codex_for_corpus_files(path):
    path = corpus_file(path)
    cls, doc = detect(path)
    if path.name == DRIFT:
        assert cls is None or cls.key != "codex"
    else:
        assert cls is CodexCollector and doc is None


def test_codex_session_view_hand_counts(corpus):
    path = corpus / "codex" / VIEW
    calls, _, ends = records(path)
    # jq: function_call names joined to function_call_output lengths by call_id
    assert per_tool(calls) == {"shell": (35, 79902), "update_plan": (2, 24)}
    assert sum(len(c.output) for c in calls) == 79926
    assert {c.status for c in calls} == {PAIRED}
    # 0.58 shell outputs are JSON strings; three carry Codex's 128+128-line cut
    assert all(c.output.startswith('{"output":') for c in calls if c.tool == "shell")
    assert sum(truncated_by(c.output) == "codex" for c in calls) == 3
    # 38 distinct total_token_usage values; the last request's items were cut from the file
    assert [c.request_index for c in calls] == list(range(1, 38))
    assert ends == [SessionEnd(str(path), "019a93b9-f380-7600-98ff-940e6b99603c", (38,))]
    assert {c.model for c in calls} == {"gpt-5.1-codex"}


def test_localpush_hand_counts(corpus):
    path = corpus / "codex" / PUSH
    calls, _, ends = records(path)
    # outputs are redacted to "[REDACTED_OUTPUT len=N sha=...]": we measure what is stored
    assert per_tool(calls) == {"exec_command": (116, 4455), "write_stdin": (2, 78)}
    assert {c.status for c in calls} == {PAIRED}
    assert ends == [SessionEnd(str(path), "019c8a4d-8f45-7010-8b5d-7fad920aa6f9", (28,))]
    # the first response made two parallel exec_command calls, the second four
    assert [c.request_index for c in calls[:6]] == [1, 1, 2, 2, 2, 2]

    push = corpus / "codex" / "localpush"
    short = push / "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
    calls, _, ends = records(short)
    assert [(c.tool, c.status) for c in calls] == [("exec_command", UNPAIRED)]
    assert ends[0].requests == (1,)

    small = push / "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
    calls, _, _ = records(small)
    assert per_tool(calls) == {
        "mcp__cloud-associates__search_workflows": (1, 39),
        "mcp__cloud-associates__execute_workflow": (3, 116),
        "[REDACTED_NAME len=43 sha=c186413b]": (1, 40),
    }


def test_schema_coverage_fixture(corpus):
    path = corpus / "codex" / "agent-sessions" / "stage0-codex-small.jsonl"
    calls, skipped, ends = records(path)
    assert skipped == []
    by_id = {c.call_id: c for c in calls}
    # custom_tool_call answered after a compaction event, list output
    assert (by_id["call-1"].tool, by_id["call-1"].output) == ("shell", "a.txt\nb.txt\n")
    # a single part object as output
    assert by_id["call-2"].output == "a.txt\n"
    # tool_search answers with tool definitions, measured as JSON
    assert by_id["call-3"].tool == "tool_search" and by_id["call-3"].output.startswith('[{"type":"function_group"')
    assert "call-4" not in by_id and "call-5" not in by_id  # web search, MCP mirror event
    # the first session_meta names the session, later ones (resume/fork/subagent) do not
    assert {c.session for c in calls} == {"019fc8be-3658-7ca3-9e29-000000000000"}
    assert {c.agent for c in calls} == {"main"}
    assert len(ends[0].requests) == 7  # six `compacted` lines


def test_session_without_tools(corpus):
    path = corpus / "codex" / "claude-code-transcripts" / "sample_codex_session.jsonl"
    calls, skipped, ends = records(path)
    assert (calls, skipped) == ([], [])
    assert ends == [SessionEnd(str(path), "019b64e5-57fa-7463-b644-fba7e456f905", (0,))]


def test_drift_fixture_is_not_claimed(corpus):
    path = corpus / "codex" / "agent-sessions" / DRIFT
    cls, _ = detect(path)
    assert cls is None or cls.key != "codex"
    # forced: the call without a call_id is reported, the rest passed over
    calls, skipped, _ = records(path)
    assert calls == []
    assert [(s.line, s.reason, s.benign) for s in skipped] == [(2, "function_call without a call_id", False)]


# ------------------------------------------------------------------ formats and rules

def test_legacy_format(tmp_path):
    path = write(tmp_path, [
        {"id": "legacy-1", "timestamp": "2025-07-01T10:00:00.000Z", "instructions": None, "git": {"branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]},
        {"record_type": "state"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "x"},
        {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": "call_1"},
        {"type": "function_call_output", "call_id": "call_1",
         "output": '{"output":"a\\nb\\n","metadata":{"exit_code":0}}'},
        {"type": "local_shell_call", "id": "ls_2", "call_id": "call_2", "status": "completed",
         "action": {"type": "exec", "command": ["cat", "a"]}},
        {"type": "function_call_output", "call_id": "call_2", "output": "hello"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
        {"record_type": "state"},
    ])
    assert detect(path)[0] is CodexCollector
    calls, skipped, ends = records(path)
    assert skipped == []
    assert [(c.tool, c.output, c.request_index, c.session, c.ts) for c in calls] == [
        ("shell", '{"output":"a\\nb\\n","metadata":{"exit_code":0}}', 1, "legacy-1", None),
        ("local_shell", "hello", 2, "legacy-1", None),
    ]
    assert calls[1].args == '{"type":"exec","command":["cat","a"]}'
    # no token_count: one request per run of model items
    assert ends == [SessionEnd(str(path), "legacy-1", (3,))]


def test_compaction_history_is_not_new_output(tmp_path):
    old = {"type": "function_call_output", "call_id": "c1", "output": "x" * 50}
    path = write(tmp_path, [
        META,
        env("response_item", {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}),
        env("response_item", old),
        env("compacted", {"message": "summary", "replacement_history": [
            {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}, old]}),
        env("event_msg", {"type": "context_compacted"}),
        env("response_item", {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c2"}),
        env("response_item", {"type": "function_call_output", "call_id": "c2", "output": "y"}),
    ])
    calls, skipped, ends = records(path)
    assert [(c.call_id, c.segment, c.request_index) for c in calls] == [("c1", 0, 1), ("c2", 1, 2)]
    assert ends[0].requests == (1, 2)


def test_requests_take_the_larger_of_usage_and_item_runs(tmp_path):
    def usage(total):
        return env("event_msg", {"type": "token_count", "info": {"total_token_usage": {"total_tokens": total}}})

    def call(i):
        return env("response_item", {"type": "function_call", "name": "t", "arguments": "", "call_id": f"c{i}"})

    def out(i):
        return env("response_item", {"type": "function_call_output", "call_id": f"c{i}", "output": ""})
    path = write(tmp_path, [
        META,
        env("event_msg", {"type": "token_count", "info": None}),
        usage(0),  # an all-zero total is no request
        call(1), usage(100), usage(100), out(1),  # a duplicated event is one request
        usage(250),  # a request whose items were lost: only its usage tells
        env("turn_context", {"model": "gpt-5.2"}),
        call(2), usage(400), out(2),
    ])
    calls, _, ends = records(path)
    assert [c.request_index for c in calls] == [1, 3]
    assert calls[1].model == "gpt-5.2" and calls[0].model is None
    assert ends[0].requests == (3,)
    # without usage, runs of model items count (see also test_legacy_format)
    bare = write(tmp_path, [META, call(1), call(2), out(1), out(2), call(3), out(3)], "bare.jsonl")
    assert [c.request_index for c in records(bare)[0]] == [1, 1, 2]


def test_subagent_and_resumed_sessions(tmp_path):
    sub = env("session_meta", {"id": "child", "source": {"subagent": {"thread_spawn": {
        "parent_thread_id": "parent", "depth": 1, "agent_nickname": "scout", "agent_role": None}}}})
    path = write(tmp_path, [
        sub,
        env("response_item", {"type": "function_call", "name": "t", "arguments": "", "call_id": "c1"}),
        META,  # a later session_meta (resume, fork) keeps the first session
        env("response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"}),
    ])
    calls, _, ends = records(path)
    assert [(c.session, c.agent) for c in calls] == [("child", "scout")]
    assert ends == [SessionEnd(str(path), "child", (1,), agent="scout")]
    review = write(tmp_path, [env("session_meta", {"id": "r", "source": {"subagent": "review"}})], "review.jsonl")
    assert records(review)[2][0].agent == "review"


def test_images_and_list_outputs(tmp_path):
    png = "data:image/png;base64," + "A" * 400
    path = write(tmp_path, [
        META,
        env("response_item", {"type": "function_call", "name": "view_image", "arguments": "{}", "call_id": "c1"}),
        env("response_item", {"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_text", "text": "first"}, {"type": "input_image", "image_url": png},
            {"type": "input_text", "text": "second"}]}),
    ])
    (call,), _, _ = records(path)
    assert (call.output, call.images, call.image_bytes) == ("first\nsecond", 1, 300)


# ------------------------------------------------------------------ broken input

def test_truncated_last_line_is_benign(tmp_path):
    calls, skipped, ends = records(live_copy(tmp_path, OLD, 80))  # the last line cut after 80 bytes
    assert [(s.line, s.benign) for s in skipped] == [(52, True)]
    assert len(calls) == 6 and len(ends) == 1


def test_wrong_types_become_skipped(tmp_path):
    path = write(tmp_path, [
        META,
        "[1, 2]",
        "{not json",
        env("response_item", "a string payload"),
        env("event_msg", ["a", "list"]),
        env("response_item", {"type": "function_call", "name": "shell", "arguments": "{}"}),
        env("response_item", {"type": "function_call_output", "call_id": 7, "output": "x"}),
        env("event_msg", {"type": "token_count", "info": "bad"}),
        env("event_msg", {"type": "token_count", "info": {"total_token_usage": [1, 2]}}),
        env("turn_context", {"model": 5}),
        env("session_meta", {"id": 9, "source": {"subagent": []}}),
        env("world_state", "not an object either"),
        {"type": "response_item",
         "payload": {"type": "function_call", "name": None, "arguments": None, "call_id": "c1"}},
        {"timestamp": 12, "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": "c1", "output": 42}},
        env("response_item", {"type": "function_call_output", "call_id": "c9", "output": {"unexpected": True}}),
        env("compacted", None),
    ])
    calls, skipped, ends = records(path)
    assert [(s.line, s.reason) for s in skipped] == [
        (2, "expected a JSON object, got list"),
        (3, skipped[1].reason),
        (4, "response_item line whose payload is not an object"),
        (5, "event_msg line whose payload is not an object"),
        (6, "function_call without a call_id"),
        (7, "function_call_output without a call_id"),
        (16, "compacted line whose payload is not an object"),
    ]
    assert skipped[1].reason.startswith("invalid JSON")
    assert [(c.tool, c.status, c.output, c.ts) for c in calls] == [
        ("unknown", PAIRED, "42", None),
        ("unknown", ORPHAN, '{"unexpected":true}', "2026-01-02T03:04:05.000Z"),
    ]
    # the unreadable call still marks a model response: two runs of model items
    assert ends == [SessionEnd(str(path), "sess-1", (2,))]


@pytest.mark.parametrize("odd", [["response_item"], {}, 7])
def test_a_line_type_of_another_type_loses_that_line_only(tmp_path, odd):
    # /tmp/review/typ/rollout.jsonl: `"type": [...]` on one line (unhashable) once lost all of the file's calls
    lines = NEW.read_text().splitlines(keepends=True)
    line = json.loads(lines[5])
    lines[5] = json.dumps({**line, "type": odd}) + "\n"
    path = tmp_path / NEW.name
    path.write_text("".join(lines))
    clean = [(c.call_id, c.output, c.status) for c in records(NEW)[0]]
    calls, skipped, _ = records(path)
    assert [(c.call_id, c.output, c.status) for c in calls] == clean and len(calls) == 7
    assert [(s.line, s.reason) for s in skipped] == [(6, f"line whose type is not a string: {type(odd).__name__}")]


def test_odd_value_types_lose_one_line_not_the_file(tmp_path):
    path = write(tmp_path, [
        META,
        env("response_item", {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}),
        env("response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"}),
        {"timestamp": "2026-01-02T03:04:05.000Z", "type": {}, "payload": {"type": "function_call"}},
        env("response_item", {"type": ["function_call"], "call_id": "c2", "name": "shell"}),
        env("response_item", {"type": "function_call", "name": 5, "arguments": {"a": [1]}, "call_id": "c3"}),
        env("response_item", {"type": "function_call", "name": "shell", "call_id": {}}),
        env("event_msg", {"type": "token_count", "info": {"total_token_usage": {"total_tokens": 5},
                                                          "last_token_usage": {"input_tokens": 5,
                                                                               "reasoning_output_tokens": [1]}}}),
        env("turn_context", {"model": {}}),
        env("session_meta", {"id": [], "source": {"subagent": {"thread_spawn": {"agent_nickname": 5}}}}),
        env("response_item", {"type": "message", "role": [], "content": {"type": []}}),
        env("response_item", {"type": "function_call_output", "call_id": "c3",
                              "output": ["x", {"type": "input_image", "image_url": 7}]}),
    ])
    out = check_odd_values(CodexCollector().collect(path), ["c1", "c3"], [
        (4, "line whose type is not a string: dict"), (5, "item whose type is not a string: list"),
        (7, "function_call without a call_id")])
    c3 = kinds(out, ToolCall)[1]
    assert (c3.tool, c3.args, c3.output, c3.images, c3.model) == ("unknown", '{"a":[1]}', "x", 1, None)
    assert [(u.input_uncached, u.reasoning) for u in kinds(out, Usage)] == [(5, 0)]


def test_a_reader_that_trips_on_one_line_loses_that_line(monkeypatch):
    # line 26 answers the apply_patch call: its output is lost (the call stays, unpaired), nothing else
    out = check_trip(monkeypatch, CodexCollector, NEW, 26)
    assert [c.call_id for c in kinds(out, ToolCall) if c.status == UNPAIRED] == [
        "call_Ny6Rb2Ld9Fh4Tc7Ka0Me3Ws5", "call_Ld2Pz6Xf0Bq4Jt8Cv1Sg5Yh3"]


def test_deep_nesting_loses_one_line(tmp_path):
    call = env("response_item", {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"})
    output = env("response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"})
    check_deep_line(tmp_path, CodexCollector, jsonl(META, call), jsonl(output))
    check_deep_line(tmp_path, CodexCollector, jsonl(META, call, output))


def test_empty_file(tmp_path):
    check_empty(tmp_path, CodexCollector, expect=())


def test_binary_junk(tmp_path):
    out = check_junk(tmp_path, CodexCollector, PNG_JUNK)
    assert out and all(isinstance(r, Skipped) for r in out)


def test_lone_surrogates_in_output(tmp_path):
    line = json.dumps(env("response_item", {"type": "function_call_output", "call_id": "c1", "output": "PLACEHOLDER"}))
    path = write(tmp_path, [
        META,
        env("response_item", {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}),
        line.replace("PLACEHOLDER", "emoji \\ud83d cut"),
    ])
    calls, skipped, _ = records(path)
    assert skipped == []
    assert calls[0].output == "emoji \ud83d cut" and calls[0].status == PAIRED


# ------------------------------------------------------------------ detection

@pytest.mark.parametrize("sample", [OLD, NEW], ids=["old", "new"])
def test_detect_samples(sample):
    assert detect(sample) == (CodexCollector, None)


@pytest.mark.parametrize("first, expected", [
    (META, True),
    ({"timestamp": "t", "type": "response_item", "payload": {"type": "message"}}, True),
    ({"id": "x", "timestamp": "t", "instructions": None}, True),
    ({"record_type": "state"}, True),
    ({"type": "user", "sessionId": "s", "uuid": "u", "message": {}}, False),  # Claude Code
    ({"type": "summary", "summary": "s", "leafUuid": "u"}, False),
    ({"sessionId": "s", "projectHash": "h", "startTime": "t", "kind": "main"}, False),  # Gemini JSONL
    ({"id": "m1", "type": "gemini", "content": "hi", "timestamp": "t"}, False),
    ({"tool": "Read", "output": "text"}, False),  # toolaudit-jsonl
    ({"type": "session_meta", "payload": "not an object"}, False),
    ({"created_at": "t", "role": "user", "message": "hi", "model": "m"}, False),
])
def test_sniff_line(first, expected):
    assert CodexCollector.sniff_line(first) is expected


def test_model_text_is_the_assistants_words(corpus):
    out = list(CodexCollector().collect(corpus / "codex" / "codex-session-view" /
                                        "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"))
    said = [r for r in out if isinstance(r, ModelText)]
    assert said and all(r.text and r.session == "019a93b9-f380-7600-98ff-940e6b99603c" for r in said)


# ------------------------------------------------------------------ errors: non-zero exit codes

def _exec_session(outputs: list[tuple[str, str]]) -> list[dict]:
    """A session whose calls (tool, output) each get their own request."""
    lines = [META]
    for i, (tool, output) in enumerate(outputs):
        lines.append(env("response_item", {"type": "function_call", "name": tool, "arguments": "{}",
                                           "call_id": f"c{i}"}))
        lines.append(env("response_item", {"type": "function_call_output", "call_id": f"c{i}", "output": output}))
    return lines


def test_a_non_zero_exit_code_is_an_error_in_every_output_shape(tmp_path):
    wrapped = '{{"output":"{}","metadata":{{"exit_code":{},"duration_seconds":0.1}}}}'
    path = write(tmp_path, _exec_session([
        ("shell", wrapped.format("ok\\n", 0)),
        ("shell", wrapped.format("ls: cannot access 'x': No such file or directory\\n", 2)),
        # the output text itself may quote a metadata-like string: only the wrapper's counts
        ("shell", wrapped.format('{\\"metadata\\":{\\"exit_code\\":1}}', 0)),
        ("shell_command", "Exit code: 0\nWall time: 0.2 seconds\nOutput:\nfine\n"),
        ("shell_command", "Exit code: 127\nWall time: 0 seconds\nOutput:\nbash: nope: command not found\n"),
        ("exec_command", "Chunk ID: 3f2a\nWall time: 1.0021 seconds\nProcess exited with code 0\nOutput:\nok"),
        ("exec_command", "Chunk ID: 3f2b\nWall time: 0.5000 seconds\nProcess exited with code 1\n"
                         "Original token count: 4\nOutput:\nFAILED"),
        ("exec_command", "Wall time: 10.0000 seconds\nProcess running with session ID 7\nOutput:\n"),
        # a mention of an exit code inside the output is not Codex's header
        ("exec_command", "Wall time: 0.1000 seconds\nProcess exited with code 0\nOutput:\nExit code: 3\n"),
        ("update_plan", "Plan updated"),
    ]))
    calls, skipped, _ = records(path)
    assert skipped == []
    assert [c.is_error for c in calls] == [False, True, False, False, True, False, True, False, False, False]


def test_corpus_exit_codes_are_errors(corpus):
    calls, _, _ = records(corpus / "codex" / VIEW)
    # jq: 3 of the 35 shell outputs carry a non-zero metadata.exit_code (2, 2, 1)
    assert sum(c.is_error for c in calls) == 3
    assert all(c.tool == "shell" for c in calls if c.is_error)


# ------------------------------------------------------------------ the session's own cap

def test_recorded_truncation_policy_is_yielded_once_per_change(tmp_path):
    def turn(policy, model="gpt-5.1-codex-max"):
        payload = {"cwd": "/w", "model": model}
        if policy is not None:
            payload["truncation_policy"] = policy
        return env("turn_context", payload)

    path = write(tmp_path, [
        META, turn({"mode": "tokens", "limit": 10000}), turn({"mode": "tokens", "limit": 10000}),
        turn({"mode": "bytes", "limit": 10000}, "gpt-5.2"), turn(None),
        # unknown modes and odd limits are not a cap
        turn({"mode": "lines", "limit": 5}), turn({"mode": "bytes", "limit": True}), turn({"mode": "bytes"}),
        turn("tokens"),
    ])
    caps = [r for r in CodexCollector().collect(path) if isinstance(r, OutputCap)]
    assert [(c.line, c.session, c.unit, c.limit) for c in caps] == [
        (2, "sess-1", "tokens", 10000), (4, "sess-1", "bytes", 10000)]


def test_corpus_truncation_policies(corpus):
    def caps(rel):
        return [(c.unit, c.limit) for c in CodexCollector().collect(corpus / "codex" / rel)
                if isinstance(c, OutputCap)]

    # 0.104 records Tokens(10_000) on every turn_context: one record; 0.58 records none
    assert caps(PUSH) == [("tokens", 10000)]
    assert caps(VIEW) == []
    # the schema fixture's "[trimmed for fixture]" mode is no cap
    assert caps("agent-sessions/stage0-codex-small.jsonl") == []


# ------------------------------------------------------------------ SessionInfo: where the session worked (replay)

def test_session_meta_gives_the_cwd_and_commit_once(tmp_path):
    first = env("session_meta", {"id": "s-1", "cwd": "/home/u/proj", "git": {"commit_hash": "ab12cd34", "branch": "x"}})
    resumed = env("session_meta", {"id": "s-0", "cwd": "/elsewhere", "git": {"commit_hash": "ffff0000"}})
    infos = kinds(CodexCollector().collect(write(tmp_path, [first, resumed])), SessionInfo)
    assert infos == [SessionInfo(str(tmp_path / "rollout.jsonl"), "s-1", "/home/u/proj", "ab12cd34", branch="x")]


def test_session_info_without_git_and_without_anything(tmp_path):
    no_git = env("session_meta", {"id": "s-1", "cwd": "/w", "git": None})
    assert kinds(CodexCollector().collect(write(tmp_path, [no_git])), SessionInfo) == [
        SessionInfo(str(tmp_path / "rollout.jsonl"), "s-1", "/w", None)]
    odd = env("session_meta", {"id": "s-2", "cwd": ["/w"], "git": {"commit_hash": 7}})
    assert kinds(CodexCollector().collect(write(tmp_path, [odd])), SessionInfo) == []


def test_samples_and_corpus_record_their_commit(corpus):
    assert kinds(CodexCollector().collect(OLD), SessionInfo) == [SessionInfo(
        str(OLD), "019a06f2-3c41-7d2e-9b8a-4f1e6c2d7a90", "/home/dev/src/invoicer",
        "5be07c3e41d2a9f0c8b16e7d2a94c05f3e8b71d6", version="0.50.0", branch="main")]
    path = corpus / "codex" / VIEW
    assert kinds(CodexCollector().collect(path), SessionInfo) == [SessionInfo(
        str(path), "019a93b9-f380-7600-98ff-940e6b99603c", "/home/user/projects/temp/chatbot-ui",
        "0f022a043b3f8ca67224e1c56d5b85e28a81b910", version="0.58.0", branch="main")]


def test_a_forked_rollout_bills_its_parents_requests_once(tmp_path):
    """A fork (`forked_from_id`) starts with its parent's whole rollout, the parent's session_meta included
    (entireio/git-sync's review subagents: up to 165 of a fork's requests were its parent's): scanned with
    the parent, those requests count once; the fork's own, and a sibling fork's, count apart."""
    from toolaudit.scan.job import ScanOptions, collect

    def meta(sid, parent=None):
        return env("session_meta", {"id": sid, "cwd": "/w", "cli_version": "0.118.0", "source": "cli",
                                    **({"forked_from_id": parent} if parent else {})})

    totals = [(100, 10), (300, 20)]
    # cumulative totals as Codex writes them: each request adds its own to the parent's
    parent = [meta("p")] + [env("event_msg", {"type": "token_count", "info": {
        "last_token_usage": {"input_tokens": i, "cached_input_tokens": 0, "output_tokens": o},
        "total_token_usage": {"input_tokens": sum(t[0] for t in totals[:n + 1]), "cached_input_tokens": 0,
                              "output_tokens": sum(t[1] for t in totals[:n + 1])}}}) for n, (i, o) in enumerate(totals)]

    def own(inp, out):  # a fork's own request, its totals continuing the parent's
        return env("event_msg", {"type": "token_count", "info": {
            "last_token_usage": {"input_tokens": inp, "cached_input_tokens": 0, "output_tokens": out},
            "total_token_usage": {"input_tokens": 400 + inp, "cached_input_tokens": 0, "output_tokens": 30 + out}}})

    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "parent.jsonl").write_text("".join(json.dumps(x) + "\n" for x in parent))
    (folder / "fork-a.jsonl").write_text("".join(json.dumps(x) + "\n" for x in [meta("a", "p"), *parent, own(500, 5)]))
    (folder / "fork-b.jsonl").write_text("".join(json.dumps(x) + "\n" for x in [meta("b", "p"), *parent, own(600, 6)]))
    got, _ = collect([folder], ScanOptions.of(calls=True, cache=False))
    assert len(got.usage) == 4  # the parent's two, once; each fork's own
    assert sum(u.input_uncached for u in got.usage) == 100 + 300 + 500 + 600
    alone, _ = collect([folder / "fork-a.jsonl"], ScanOptions.of(calls=True, cache=False))
    assert len(alone.usage) == 3  # alone, the fork is the only copy of its parent's requests
    assert {u.session for u in alone.usage} == {"a"}
