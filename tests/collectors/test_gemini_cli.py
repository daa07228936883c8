"""Gemini CLI collector: the samples, every corpus file, hand counts, the pitfalls, broken input, detection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.collectors.discover import detect
from toolaudit.collectors.gemini_cli import GeminiCLICollector
from toolaudit.model import PAIRED, SCAN_SCOPE, UNPAIRED, ModelText, SessionEnd, SessionInfo, ToolCall, Usage

from conftest import SAMPLES
from helpers import (PNG_JUNK, check_deep_document, check_deep_line, check_empty, check_junk, check_odd_values,
                     check_trip, check_truncated_document, corpus_file, corpus_files, detected, each_path, jsonl, kinds,
                     lines_writer, live_copy, per_tool, split)

JSONL = SAMPLES / "gemini-cli" / "session-2026-05-12T09-14-3b9c2e71.jsonl"
LEGACY = SAMPLES / "gemini-cli" / "session-2026-01-20T16-02-8e41d0aa.json"
CORPUS_FILES = corpus_files("gemini-cli")
ENTIRE = "entire-checkpoints/12-cbfeaa512b-0.session.json"
FIXTURE = "agent-sessions/stage0-gemini-jsonl_v040.jsonl"
write = lines_writer("session.jsonl")


def records(path: Path, doc=None):
    return split(GeminiCLICollector().collect(path, doc), usage=True, rest=(ModelText, SessionInfo))


def read(path: Path):
    """Records as the scan gets them: detection first, then the document when there is one."""
    return records(path, detected(path, GeminiCLICollector))


META = {"sessionId": "s-1", "projectHash": "h" * 64, "startTime": "2026-05-01T10:00:00.000Z",
        "lastUpdated": "2026-05-01T10:00:00.000Z", "kind": "main"}


def user(msg_id: str, text: str = "go") -> dict:
    return {"id": msg_id, "timestamp": "2026-05-01T10:00:01.000Z", "type": "user", "content": [{"text": text}]}


def gemini(msg_id: str, *calls: dict, text: str = "", tokens: dict | None = None) -> dict:
    rec = {"id": msg_id, "timestamp": "2026-05-01T10:00:02.000Z", "type": "gemini", "content": text,
           "thoughts": [], "model": "gemini-2.5-pro", "tokens": tokens}
    if calls:
        rec["toolCalls"] = list(calls)
    return rec


def call(call_id: str, output, name: str = "run_shell_command", status: str = "success", display: str = "") -> dict:
    response = output if isinstance(output, dict) else {"output": output}
    return {"id": call_id, "name": name, "args": {"command": "ls"}, "status": status,
            "timestamp": "2026-05-01T10:00:03.000Z",
            "result": [{"functionResponse": {"id": call_id, "name": name, "response": response}}],
            "resultDisplay": display, "displayName": "Shell", "description": "ls", "renderOutputAsMarkdown": False}


# ------------------------------------------------------------------ samples

def test_jsonl_sample():
    calls, skipped, ends, usage = read(JSONL)
    assert skipped == []
    # jq -s: records with `id` grouped by id, the last of each kept, toolCalls[].result
    # [0].functionResponse.response.output lengths summed per name. Summing every record
    # instead would count the re-appended pytest call twice: 9 calls, 2962 chars.
    assert per_tool(calls) == {"read_file": (1, 861), "run_shell_command": (4, 1421), "replace": (1, 98),
                               "grep_search": (1, 363), "write_file": (1, 95)}
    assert {c.status for c in calls} == {PAIRED}
    by_tool = {c.call_id.split("-")[0]: c for c in calls}
    assert by_tool["read_file"].args == '{"file_path":"weatherbot/commands/forecast.py"}'
    # ten model requests (compression's summary and ack turns are not requests)
    assert [c.call_index for c in calls] == list(range(8))  # session order, even across the rewind
    assert [(c.call_id.split("-", 1)[0], c.request_index, c.segment) for c in calls] == [
        ("read_file", 1, 1), ("run_shell_command", 2, 1), ("replace", 3, 1), ("run_shell_command", 4, 1),
        ("grep_search", 6, 0), ("write_file", 8, 2), ("run_shell_command", 9, 2), ("run_shell_command", 9, 2)]
    # the rewind ended segment 0 after 7 requests, the checkpoint segment 1 after 8
    assert ends == [SessionEnd(str(JSONL), "3b9c2e71-5d0a-4f6e-9c1b-7a2e8d4f0c13", (7, 8, 10))]
    assert all(c.id_scope == SCAN_SCOPE and c.model == "gemini-2.5-pro" and c.agent == "main" for c in calls)
    assert len(usage) == 10 and len({u.request_id for u in usage}) == 10
    # jq: sum(input) 100943, sum(cached) 81638, sum(output) 581, sum(thoughts) 606
    assert sum(u.input_total for u in usage) == 100943
    assert (sum(u.cache_read for u in usage), sum(u.output for u in usage)) == (81638, 581 + 606)
    assert sum(u.reasoning for u in usage) == 606


def test_legacy_sample_errors_and_images():
    calls, skipped, ends, usage = read(LEGACY)
    assert skipped == []
    assert per_tool(calls) == {"list_directory": (1, 83), "read_file": (3, 231 + 69 + 36)}
    missing = calls[2]
    assert missing.is_error
    assert missing.output == '{"error":"File not found: /home/dev/kanban/static/img/logo-dark.svg"}'
    png = calls[3]
    assert (png.output, png.images, png.image_bytes) == ("Binary content provided (1 item(s)).", 1, 94)
    assert [c.request_index for c in calls] == [1, 2, 2, 3]
    assert ends == [SessionEnd(str(LEGACY), "8e41d0aa-27c5-4b9e-a3f0-6d1c9e2b7f58", (4,))]
    first = usage[0]
    assert (first.request_id, first.request_index, first.input_uncached, first.cache_read, first.output,
            first.reasoning) == ("1c7e0a4f-b953-4d28-a6e1-8f2d5b0c9e73", 0, 8912, 0, 21 + 88, 88)


# ------------------------------------------------------------------ the real corpus

@each_path(CORPUS_FILES)
def test_corpus_file_reads_cleanly(path):
    path = corpus_file(path)
    calls, skipped, ends, _ = read(path)
    assert [s for s in skipped if not s.benign] == []
    assert len(ends) == 1 and calls


def test_entire_checkpoint_hand_counts(corpus):
    path = corpus / "gemini-cli" / ENTIRE
    calls, _, ends, usage = read(path)
    # jq '[.messages[] | .toolCalls[]? | .result[0].functionResponse.response.output | length]'
    assert per_tool(calls) == {"read_file": (1, 17), "write_file": (1, 102)}
    assert [c.request_index for c in calls] == [2, 3]
    assert ends[0].requests == (4,)
    # jq over the four gemini messages' tokens: input 48965, cached 35330, output 70, thoughts 232
    assert (sum(u.input_total for u in usage), sum(u.cache_read for u in usage)) == (48965, 35330)
    assert sum(u.output for u in usage) == 70 + 232


def test_result_display_is_not_measured(corpus):
    calls, _, _, _ = read(corpus / "gemini-cli" / FIXTURE)
    (shell,) = calls
    # jq: result output is 58 chars; resultDisplay ("AgentSessions/\nREADME.md") 24
    assert shell.output == "Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345"
    assert len(shell.output) == 58


# ------------------------------------------------------------------ formats and rules

def test_last_record_per_id_wins(tmp_path):
    first = call("shell-1", "old")
    path = write(tmp_path, [
        META, user("u1"),
        gemini("g1", text="looking"),  # then re-appended with tokens, then with its calls
        gemini("g1", text="looking", tokens={"input": 100, "output": 5, "cached": 40, "thoughts": 3, "total": 108}),
        gemini("g1", first, text="looking", tokens={"input": 100, "output": 5, "cached": 40, "thoughts": 3}),
        gemini("g1", first, call("shell-2", "new"), text="looking", tokens={"input": 100, "output": 5, "cached": 40}),
        {"$set": {"lastUpdated": "2026-05-01T10:00:09.000Z"}},
    ])
    calls, skipped, ends, usage = records(path)
    assert skipped == []
    assert [(c.call_id, c.output, c.line, c.request_index) for c in calls] == [
        ("shell-1", "old", 6, 1), ("shell-2", "new", 6, 1)]
    assert [(u.request_id, u.input_uncached, u.cache_read, u.output) for u in usage] == [("g1", 60, 40, 5)]
    assert ends[0].requests == (1,)


def test_rewind_measures_what_the_model_saw_and_ends_a_segment(tmp_path):
    path = write(tmp_path, [
        META, user("u1"), gemini("g1", call("c1", "kept")), gemini("g2", text="ok"),
        user("u2"), gemini("g3", call("c2", "rewound")), gemini("g4", text="seen it"),
        {"$rewindTo": "u2"},
        user("u3"), gemini("g5", call("c3", "after")), gemini("g6", text="done"),
    ])
    calls, _, ends, _ = records(path)
    assert {c.call_id: (c.request_index, c.segment) for c in calls} == {"c1": (1, 1), "c2": (3, 0), "c3": (5, 1)}
    assert ends[0].requests == (4, 6)  # c2 was carried by g4 only; c1 stays through g6
    # reported in session order: the model's words after an output follow it (simulate's later_used)
    order = [r.call_id if isinstance(r, ToolCall) else r.text for r in GeminiCLICollector().collect(path)
             if isinstance(r, (ToolCall, ModelText))]
    assert order == ["c1", "ok", "c2", "seen it", "c3", "done"]
    # an unknown id clears the whole history, as Gemini CLI's loader does
    lost = write(tmp_path, [META, user("u1"), gemini("g1", call("c1", "x")), {"$rewindTo": "nope"}, gemini("g2")],
                 "lost.jsonl")
    calls, _, ends, _ = records(lost)
    assert [(c.call_id, c.segment) for c in calls] == [("c1", 0)] and ends[0].requests == (1, 2)


def test_checkpoint_keeps_relisted_messages_and_drops_the_rest(tmp_path):
    big = call("c2", "x" * 500)
    path = write(tmp_path, [
        META, user("u1"), gemini("g1", call("c1", "old")), user("u2"), gemini("g2", big),
        # compression: a summary and an ack written for history, then the checkpoint
        user("s1", "<state_snapshot>...</state_snapshot>"),
        {"id": "s2", "timestamp": "t", "type": "gemini", "content": [{"text": "Got it."}]},
        {"$set": {"messages": [user("s1"), {"id": "s2", "type": "gemini", "content": "Got it."}, user("u2"),
                               gemini("g2", big)], "lastUpdated": "t"}},
        gemini("g3", call("c3", "new")),
    ])
    calls, skipped, ends, _ = records(path)
    assert skipped == []
    assert {c.call_id: (c.request_index, c.segment, len(c.output)) for c in calls} == {
        "c1": (1, 0, 3), "c2": (2, 1, 500), "c3": (3, 1, 3)}
    assert ends[0].requests == (2, 3)
    # masking re-lists a message with a shorter result: the original is what was measured, and it left
    masked = write(tmp_path, [META, user("u1"), gemini("g1", big), gemini("g2"),
                              {"$set": {"messages": [user("u1"), gemini("g1", call("c2", "<masked>")), gemini("g2")]}},
                              gemini("g3")], "masked.jsonl")
    calls, _, ends, _ = records(masked)
    assert [(c.output, c.segment) for c in calls] == [("x" * 500, 0)] and ends[0].requests == (2, 3)


def test_subagent_file(tmp_path):
    folder = tmp_path / "chats" / "parent-session-id"
    folder.mkdir(parents=True)
    path = write(folder, [{**META, "sessionId": "child-id", "kind": "subagent", "directories": ["/w"]},
                          user("u1"), gemini("g1", call("c1", "ok"))], "child-id.jsonl")
    calls, _, ends, _ = records(path)
    assert [(c.session, c.agent) for c in calls] == [("parent-session-id", "child-id")]
    assert ends == [SessionEnd(str(path), "parent-session-id", (1,), agent="child-id")]
    # where it worked: its metadata's first directory (scan --by session and watch name the session by it)
    infos = kinds(GeminiCLICollector().collect(path), SessionInfo)
    assert infos == [SessionInfo(str(path), "parent-session-id", agent="child-id", project="/w")]


def test_error_status_and_missing_result(tmp_path):
    path = write(tmp_path, [
        META, user("u1"),
        gemini("g1", call("c1", {"error": "[Operation Cancelled] Reason: User cancelled"}, status="cancelled"),
               call("c2", "Output: boom\nExit Code: 1", status="error"),
               {"id": "c3", "name": "read_file", "args": {}, "status": "executing", "result": None}),
    ])
    calls, _, _, _ = records(path)
    assert [(c.call_id, c.is_error, c.status, c.request_index) for c in calls] == [
        ("c1", True, PAIRED, 1), ("c2", True, PAIRED, 1), ("c3", False, UNPAIRED, None)]
    assert calls[0].output == '{"error":"[Operation Cancelled] Reason: User cancelled"}'


@pytest.mark.parametrize("wrapped", [False, True], ids=["content-list", "history-object"])
def test_chat_save_checkpoint(tmp_path, wrapped):
    turns = [
        {"role": "user", "parts": [{"text": "What is in src?"}]},
        {"role": "model", "parts": [{"text": "Listing it."},
                                    {"functionCall": {"name": "list_directory", "args": {"path": "src"}}},
                                    {"functionCall": {"name": "read_file", "args": {"path": "a"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "read_file", "response": {"output": "A"}}},
                                   {"functionResponse": {"name": "list_directory", "response": {"output": "a\nb"}}},
                                   {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]},
        {"role": "model", "parts": [{"functionCall": {"id": "x1", "name": "glob", "args": {}}}]},
    ]
    path = tmp_path / "checkpoint-demo.json"
    path.write_text(json.dumps({"history": turns, "authType": "oauth-personal"} if wrapped else turns))
    calls, skipped, ends, _ = read(path)
    assert skipped == []
    # paired by name and order (no ids), the image goes with the response before it
    assert [(c.tool, c.output, c.images, c.status, c.request_index) for c in calls] == [
        ("read_file", "A", 0, PAIRED, 1), ("list_directory", "a\nb", 1, PAIRED, 1), ("glob", "", 0, UNPAIRED, None)]
    assert ends == [SessionEnd(str(path), "checkpoint-demo", (2,))]


def test_legacy_record_on_one_line(tmp_path):
    path = write(tmp_path, [{**META, "messages": [user("u1"), gemini("g1", call("c1", "one line"))]}])
    assert detect(path)[0] is GeminiCLICollector
    calls, _, ends, _ = read(path)
    assert [c.output for c in calls] == ["one line"] and ends[0].requests == (1,)


# ------------------------------------------------------------------ broken input

def test_truncated_last_line_is_benign(tmp_path):
    calls, skipped, ends, _ = records(live_copy(tmp_path, JSONL, b'{"id":"c2e6a0d4","type":"gem'))
    assert [(s.line, s.benign) for s in skipped] == [(37, True)]
    assert len(calls) == 8 and len(ends) == 1


def test_truncated_document(tmp_path):
    check_truncated_document(tmp_path, GeminiCLICollector, LEGACY, 2000)


def test_wrong_types_become_skipped(tmp_path):
    path = write(tmp_path, [
        META, "[1, 2]", "{not json", {"$rewindTo": 7}, {"$set": "x"}, {"$set": {"messages": ["nope"]}},
        {"something": "else"},
        {"id": "g1", "type": "gemini", "model": "m", "toolCalls": "not a list", "tokens": "lots"},
        {"id": "g2", "type": "gemini", "toolCalls": [5, {"name": 3, "result": {"functionResponse": {"response": [1]}}}],
         "thoughts": "x", "content": {"unexpected": True}},
    ])
    calls, skipped, ends, usage = records(path)
    assert [(s.line, s.reason) for s in skipped] == [
        (2, "expected a JSON object, got list"), (3, skipped[1].reason), (4, "$rewindTo without a message id"),
        (5, "$set without an object"), (6, "a message without an id"), (7, "not a Gemini CLI session record"),
        (8, "toolCalls is not a list"), (9, "a tool call that is not an object")]
    assert skipped[1].reason.startswith("invalid JSON")
    assert [(c.tool, c.call_id, c.output) for c in calls] == [("unknown", "g2#1", "[1]")]
    assert usage == [] and ends[0].requests == (2,)


def test_odd_value_types_lose_one_record_not_the_file(tmp_path):
    ok = {"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "ok"}}}
    path = write(tmp_path, [
        META,
        {"id": "g1", "type": "gemini", "model": "m", "toolCalls": [
            {"id": "c1", "name": "ls", "args": {}, "result": [ok], "status": "success"}]},
        {"id": {}, "type": "gemini", "toolCalls": [{"id": "c9", "name": "rm"}]},
        {"id": "g2", "type": ["gemini"], "toolCalls": [{"id": "c8", "name": "rm"}]},
        {"id": "g3", "type": "gemini", "model": [], "timestamp": {}, "tokens": {"input": "5", "output": 2},
         "thoughts": [{"description": []}], "content": [{"text": 5}], "toolCalls": [
             {"id": {}, "name": 5, "args": [], "status": [], "timestamp": 1,
              "result": {"functionResponse": {"name": [], "response": [], "parts": {"x": 1}}}}]},
        {"$rewindTo": []}, {"$set": {"messages": {}}},
    ])
    out = check_odd_values(GeminiCLICollector().collect(path), ["c1", "g3#0"], [
        (3, "not a Gemini CLI session record"), (4, "message whose type is not a string: list"),
        (6, "$rewindTo without a message id")])
    assert [(c.tool, c.output, c.status, c.ts, c.model) for c in kinds(out, ToolCall)] == [
        ("ls", "ok", PAIRED, None, "m"), ("unknown", "[]", PAIRED, None, None)]
    # message ids are uuids, unique across files: usage is deduplicated scan-wide
    assert [(u.request_id, u.output, u.global_id) for u in kinds(out, Usage)] == [("g3", 2, True)]


def test_a_reader_that_trips_on_one_record_loses_that_record(monkeypatch):
    # the record on line 9 (the run_shell_command result) is lost: the call stays as line 8 wrote it
    from toolaudit.collectors.gemini_cli import _Session

    check_trip(monkeypatch, GeminiCLICollector, JSONL, 9, target=(_Session, "parse"), at=2)


def test_a_reader_that_trips_on_one_message_of_a_document_loses_that_message(monkeypatch):
    from toolaudit.collectors.gemini_cli import _Session

    check_trip(monkeypatch, GeminiCLICollector, LEGACY, 3, target=(_Session, "parse"), at=2)


def test_deep_nesting_loses_one_line(tmp_path):
    record = {"id": "g1", "type": "gemini", "model": "m", "toolCalls": [
        {"id": "c1", "name": "ls", "result": [{"functionResponse": {"response": {"output": "ok"}}}]}]}
    check_deep_line(tmp_path, GeminiCLICollector, jsonl(META, record), jsonl({**record, "id": "g2"}))
    check_deep_document(tmp_path, GeminiCLICollector)


def test_empty_file(tmp_path):
    check_empty(tmp_path, GeminiCLICollector)


def test_binary_junk(tmp_path):
    check_junk(tmp_path, GeminiCLICollector, PNG_JUNK)  # problems and the session's end, never a call


def test_lone_surrogates_in_output(tmp_path):
    line = json.dumps(gemini("g1", call("c1", "PLACEHOLDER"))).replace("PLACEHOLDER", "emoji \\ud83d cut")
    path = write(tmp_path, [META, user("u1"), line])
    calls, skipped, _, _ = records(path)
    assert skipped == [] and calls[0].output == "emoji \ud83d cut"


# ------------------------------------------------------------------ detection

@pytest.mark.parametrize("sample", [JSONL, LEGACY], ids=["jsonl", "legacy"])
def test_detect_samples(sample):
    cls, doc = detect(sample)
    assert cls is GeminiCLICollector and (doc is None) == (sample.suffix == ".jsonl")


@each_path(CORPUS_FILES)
def test_detect_picks_gemini_for_corpus_files(path):
    assert detect(corpus_file(path))[0] is GeminiCLICollector


@pytest.mark.parametrize("first, expected", [
    (META, True),
    ({"sessionId": "s", "projectHash": "h"}, True),
    ({"sessionId": "s", "uuid": "u", "type": "user", "message": {}}, False),  # Claude Code
    ({"timestamp": "t", "type": "session_meta", "payload": {}}, False),  # Codex
    ({"session_id": "s", "messages": [], "model": "m", "platform": "cli"}, False),  # hermes
])
def test_sniff_line(first, expected):
    assert GeminiCLICollector.sniff_line(first) is expected


def test_sniff_doc_leaves_other_histories():
    swe = {"history": [{"role": "user", "content": "x", "agent": "main", "message_type": "observation"}], "info": {}}
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert not GeminiCLICollector.sniff_doc(swe) and not GeminiCLICollector.sniff_doc(chat)
    assert GeminiCLICollector.sniff_doc([{"role": "model", "parts": []}])
