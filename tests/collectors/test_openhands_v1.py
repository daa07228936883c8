"""openhands-v1 collector: both layouts counted by an independent pass, pairing, errors, the exit-code
lines the SDK adds, usage, the menu, condensation, discovery of conversation folders, broken input."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from conftest import SAMPLES
from helpers import (check_empty, check_junk, check_record_types, check_truncated_document, jsonl, kinds, records_of,
                     totals)
from toolaudit.collectors import collectors, discover
from toolaudit.collectors.openhands_v1 import OpenHandsV1Collector
from toolaudit.model import PAIRED, UNPAIRED, SessionEnd, Skipped, ToolCall, ToolMenu, Usage
from toolaudit.pipeline import FileOptions, scan_file

HERE = SAMPLES / "openhands-v1"
CONVERSATION = HERE / "conversations" / "8c2f4e1a9b7d4c3e8f6a2b1c0d9e7f53"
EVENTS = CONVERSATION / "events"
LISTED = HERE / "3e9d1c7b5a2f4e6d8c0b9a7f6e5d4c3b.json"
FIRST = sorted(EVENTS.iterdir())[0]


def collect(path: Path) -> list:
    return check_record_types(records_of(OpenHandsV1Collector, path))


# ------------------------------------------------------------------ an independent pass over the JSON

def _seen(event: dict) -> str:
    """What the model got for one result, written from the SDK source (to_llm_message), not the collector."""
    if event["kind"] == "AgentErrorEvent":
        return event["error"]
    obs = event["observation"]
    texts = ["[An error occurred during execution.]\n"] if obs["is_error"] else []
    if obs["kind"] == "TerminalObservation":
        meta = obs["metadata"]
        text = meta["prefix"] + obs["content"][0]["text"] + meta["suffix"]
        text += f"\n[Current working directory: {meta['working_dir']}]"
        text += f"\n[Python interpreter: {meta['py_interpreter_path']}]"
        text += f"\n[Command finished with exit code {meta['exit_code']}]"
        texts.append(text)
    else:
        texts += [part["text"] for part in obs["content"]]
    return "\n".join(texts)


def _by_hand(events: list[dict]) -> dict:
    """tool -> (calls, chars, errors), pairing by tool_call_id by hand."""
    names = {e["tool_call_id"]: e["tool_name"] for e in events if e["kind"] == "ActionEvent"}
    out: dict[str, tuple[int, int, int]] = {}
    for event in events:
        if event["kind"] in ("ObservationEvent", "AgentErrorEvent"):
            tool = names[event["tool_call_id"]]
            failed = event["kind"] == "AgentErrorEvent" or event["observation"].get("exit_code", 0) != 0
            n, chars, errors = out.get(tool, (0, 0, 0))
            out[tool] = (n + 1, chars + len(_seen(event)), errors + failed)
    return out


def _tally(calls: list[ToolCall]) -> dict:
    out: dict[str, tuple[int, int, int]] = {}
    for c in calls:
        n, chars, errors = out.get(c.tool, (0, 0, 0))
        out[c.tool] = (n + 1, chars + len(c.output), errors + c.is_error)
    return out


def _folder_events() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(EVENTS.iterdir())]


# ------------------------------------------------------------------ the per-event layout

def test_conversation_folder_counts_by_hand():
    events = _folder_events()
    out = collect(FIRST)  # the first event file stands for its folder
    calls = kinds(out, ToolCall)
    assert kinds(out, Skipped) == []
    assert _tally(calls) == _by_hand(events) == {
        "terminal": (3, _tally(calls)["terminal"][1], 1), "file_editor": (2, _tally(calls)["file_editor"][1], 0),
        "grep": (1, 71, 1)}
    # one session named after the folder, every record names the folder
    assert {(c.session, c.source) for c in calls} == {(CONVERSATION.name, str(CONVERSATION))}
    assert all(c.status == PAIRED and c.model == "litellm_proxy/anthropic/claude-sonnet-4-5-20250929" for c in calls)
    # paired by tool_call_id: the parallel pair of one response answer out of nothing but ids
    ids = [e["tool_call_id"] for e in events if e["kind"] == "ActionEvent"]
    assert [c.call_id for c in calls] == ids
    # lines are 1-based event positions; six distinct llm_response_ids are six requests
    assert [c.line for c in calls] == [4, 6, 9, 10, 12, 14]
    assert [c.request_index for c in calls] == [1, 2, 3, 3, 4, 5]
    assert kinds(out, SessionEnd) == [SessionEnd(str(CONVERSATION), CONVERSATION.name, (6,))]
    # the arguments as the model wrote them
    assert calls[0].args == events[2]["tool_call"]["arguments"]


def test_terminal_output_carries_the_exit_code_lines_the_sdk_adds():
    calls = kinds(collect(FIRST), ToolCall)
    failing = calls[0]
    assert failing.is_error and failing.tool == "terminal"
    assert failing.output.endswith("1 failed, 1 passed in 0.04s\n[The command completed with exit code 1.]\n"
                                   "[Current working directory: /workspace/app]\n"
                                   "[Python interpreter: /workspace/app/.venv/bin/python]\n"
                                   "[Command finished with exit code 1]")
    stored = _folder_events()[3]["observation"]["content"][0]["text"]
    assert len(failing.output) > len(stored) and failing.output.startswith(stored)
    # a view is the content as stored; the scaffold's error is its own text
    assert calls[1].output == _folder_events()[5]["observation"]["content"][0]["text"]
    assert (calls[4].tool, calls[4].output, calls[4].is_error) == (
        "grep", "Tool 'grep' not found. Available: ['terminal', 'file_editor', 'finish']", True)
    assert not calls[5].is_error and calls[5].output.endswith("[Command finished with exit code 0]")


def test_usage_from_base_state_once_per_response():
    out = collect(FIRST)
    usage = kinds(out, Usage)
    state = json.loads((CONVERSATION / "base_state.json").read_text())
    recorded = state["stats"]["usage_to_metrics"]["agent"]["token_usages"]
    assert [u.request_id for u in usage] == [r["response_id"] for r in recorded]
    assert [u.request_index for u in usage] == [0, 1, 2, 3, 4, 5]  # the requests the events counted
    # prompt_tokens include cache reads and writes (litellm): the input total is the prompt
    assert [u.input_total for u in usage] == [r["prompt_tokens"] for r in recorded]
    assert [(u.cache_read, u.cache_write, u.output) for u in usage] == [
        (r["cache_read_tokens"], r["cache_write_tokens"], r["completion_tokens"]) for r in recorded]
    assert all(u.global_id and u.session == CONVERSATION.name for u in usage)


def test_one_menu_per_distinct_menu_counting_requests():
    menus = kinds(collect(FIRST), ToolMenu)
    assert len(menus) == 1
    menu = menus[0]
    assert [name for name, _ in menu.tools] == ["terminal", "file_editor", "finish"]
    assert menu.requests == 6 and menu.global_id
    stored = _folder_events()[0]["tools"][0]
    assert json.loads(menu.tools[0][1]) == {"name": "terminal", "description": stored["description"]}
    # the older OpenAI function shape keeps the parameter schema: it is part of the definition
    listed = kinds(collect(LISTED), ToolMenu)
    assert [(name, json.loads(d)) for name, d in listed[0].tools] == [
        (t["function"]["name"], t["function"]) for t in json.loads(LISTED.read_text())[0]["tools"]
        if t.pop("type")]
    assert listed[0].requests == 4 and not listed[0].global_id


def test_menu_changes_count_apart(tmp_path):
    events = json.loads(LISTED.read_text())
    second = dict(events[0], id="sys-2", tools=events[0]["tools"][:1])
    path = tmp_path / "menus.json"
    path.write_text(json.dumps(events[:4] + [second] + events[4:]))
    menus = kinds(collect(path), ToolMenu)
    assert [(len(m.tools), m.requests) for m in menus] == [(2, 1), (1, 3)]


# ------------------------------------------------------------------ the aggregated layouts

def test_event_list_counts_by_hand():
    events = json.loads(LISTED.read_text())
    out = collect(LISTED)
    calls = kinds(out, ToolCall)
    assert kinds(out, Skipped) == []
    assert _tally(calls) == _by_hand(events)
    assert totals(calls)[0] == {"terminal": 2, "file_editor": 1}
    assert [c.is_error for c in calls] == [False, True, False]  # `cat` exited 1
    assert {c.session for c in calls} == {LISTED.stem}
    assert kinds(out, SessionEnd) == [SessionEnd(str(LISTED), LISTED.stem, (4,))]
    assert kinds(out, Usage) == []  # the events carry none


@pytest.mark.parametrize("shape", ["jsonl", "items", "events"])
def test_other_aggregations_read_the_same(tmp_path, shape):
    events = json.loads(LISTED.read_text())
    path = tmp_path / f"{LISTED.stem}.{'jsonl' if shape == 'jsonl' else 'json'}"
    path.write_text(jsonl(*events) if shape == "jsonl" else json.dumps({shape: events, "next_page_id": None}))
    got = [(c.tool, c.call_id, c.output, c.is_error, c.request_index) for c in kinds(collect(path), ToolCall)]
    assert got == [(c.tool, c.call_id, c.output, c.is_error, c.request_index) for c in kinds(collect(LISTED), ToolCall)]


# ------------------------------------------------------------------ rendering rules from the SDK source

def _terminal_event(text: str, **obs) -> list[dict]:
    call = {"id": "e1", "kind": "ActionEvent", "source": "agent", "tool_name": "terminal", "tool_call_id": "c1",
            "tool_call": {"id": "c1", "name": "terminal", "arguments": "{}", "origin": "completion"},
            "llm_response_id": "r1"}
    observation = {"content": [{"type": "text", "text": text}], "is_error": False, "kind": "TerminalObservation"}
    observation.update(obs)
    return [call, {"id": "e2", "kind": "ObservationEvent", "source": "environment", "tool_name": "terminal",
                   "tool_call_id": "c1", "action_id": "e1", "observation": observation}]


def _one_call(tmp_path: Path, events: list[dict]) -> ToolCall:
    path = tmp_path / "one.json"
    path.write_text(json.dumps(events))
    return kinds(collect(path), ToolCall)[0]


def test_long_terminal_output_is_cut_as_maybe_truncate_cuts(tmp_path):
    body = "".join(f"line {i}\n" for i in range(6000))  # 52,890 chars
    meta = {"exit_code": 0, "working_dir": "/w", "prefix": "", "suffix": "\n[The command completed with exit code 0.]"}
    call = _one_call(tmp_path, _terminal_event(body, metadata=meta, full_output_save_dir="/home/d/obs"))
    full = body + meta["suffix"] + "\n[Current working directory: /w]\n[Command finished with exit code 0]"
    saved = f"/home/d/obs/terminal_output_{hashlib.sha256(full.encode()).hexdigest()[:8]}.txt"
    assert len(call.output) == 30000
    assert f"The complete output has been saved to {saved} - you can use" in call.output
    head = call.output.split("<response clipped>")[0]
    assert full.startswith(head) and call.output.endswith("[Command finished with exit code 0]")
    # no save folder: the plain notice
    plain = _one_call(tmp_path, _terminal_event(body, metadata=meta))
    assert len(plain.output) == 30000 and "has been shown to you.</NOTE>" in plain.output and "saved" not in plain.output


def test_error_header_soft_timeout_images_and_old_output(tmp_path):
    failed = _one_call(tmp_path, _terminal_event("boom", is_error=True, metadata={"exit_code": -1}))
    assert (failed.output, failed.is_error) == ("[An error occurred during execution.]\n\nboom", True)
    running = _one_call(tmp_path, _terminal_event("still going", metadata={"exit_code": -1}))
    assert (running.output, running.is_error) == ("still going", False)  # -1: soft timeout, no exit line
    events = _terminal_event("x")
    events[1]["observation"] = {"kind": "BrowserObservation", "is_error": False, "content": [
        {"type": "text", "text": "page"}, {"type": "image", "image_urls": ["data:image/png;base64,iVBORw0KGgo=", "data:image/png;base64,AAAA"]}]}
    events[1]["extended_content"] = [{"type": "text", "text": "rule"}]
    seen = _one_call(tmp_path, events)
    assert (seen.output, seen.images, seen.image_bytes) == ("page\nrule", 2, 8 + 3)  # base64: 12 chars, one pad = 8 bytes; 4 chars = 3
    events[1]["observation"] = {"kind": "ExecuteBashObservation", "output": "old", "error": True,
                                "metadata": {"exit_code": 2, "suffix": "!"}}
    events[1]["extended_content"] = []
    old = _one_call(tmp_path, events)
    assert (old.output, old.is_error) == (
        "[There was an error during command execution.]\nold!\n[Command finished with exit code 2]", True)
    events[1] = {"id": "e2", "kind": "UserRejectObservation", "source": "user", "tool_name": "terminal",
                 "tool_call_id": "c1", "action_id": "e1", "rejection_reason": "not now"}
    assert (_one_call(tmp_path, events).output, _one_call(tmp_path, events).is_error) == (
        "Action rejected: not now", True)


def test_condensation_ends_residency_of_what_it_forgets(tmp_path):
    events = json.loads(LISTED.read_text())
    forget = events[3]["id"]  # the `ls` output
    condensation = {"id": "cond-1", "kind": "Condensation", "source": "environment",
                    "forgotten_event_ids": [events[2]["id"], forget], "llm_response_id": "cond-resp"}
    path = tmp_path / "condensed.jsonl"
    path.write_text(jsonl(*events[:6], condensation, *events[6:]))
    out = collect(path)
    calls = kinds(out, ToolCall)
    assert [c.segment for c in calls] == [0, 1, 1]  # forgotten by condensation 0; the others to the end
    assert kinds(out, SessionEnd)[0].requests == (2, 4)  # 2 requests when it happened, 4 at the end
    from toolaudit.scan.measure import measure, with_residency
    from toolaudit.tokenizers import get_tokenizer
    rows = with_residency([measure(c, get_tokenizer("approx")) for c in calls], kinds(out, SessionEnd))
    assert [r.residency for r in rows] == [1, 2, 1]  # carried by request 1 only, then 2..3, then 3


# ------------------------------------------------------------------ discovery and the scan

def test_discovery_hands_one_file_per_conversation_and_no_state_files():
    files = list(discover.iter_files([HERE]))
    assert files == [LISTED, FIRST]  # not 15 event files, not base_state.json
    assert discover.detect(FIRST) == (OpenHandsV1Collector, None)
    assert discover.detect(LISTED)[0] is OpenHandsV1Collector
    # no other collector's sniff claims these files, whatever the order
    for path in [LISTED, *EVENTS.iterdir()]:
        first = json.loads(path.read_text())
        first = first[0] if isinstance(first, list) else first
        claims = {key for key, cls in collectors.all().items()
                  if (cls.jsonl and cls.sniff_line(first)) or (cls.document and cls.sniff_doc(json.loads(path.read_text())))}
        assert claims == {"openhands-v1"}, (path, claims)


def test_default_scan_includes_openhands_conversations(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert tmp_path / ".openhands" / "conversations" in discover.default_locations()


def test_scan_of_the_sample(scan_json):
    doc = scan_json(str(HERE))
    assert (doc["totals"]["files"], doc["totals"]["sessions"], doc["totals"]["error_calls"]) == (2, 2, 3)
    assert {t["tool"]: t["calls"] for t in doc["tools"]} == {"terminal": 5, "file_editor": 3, "grep": 1}
    assert doc["unrecognised"] == [] and doc["errors"] == [] and doc["skipped"]["count"] == 0


def test_default_scan_from_home(run, monkeypatch, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(CONVERSATION, home / ".openhands" / "conversations" / CONVERSATION.name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    result = run("scan", "-f", "json", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["totals"]["calls"] == 6


# ------------------------------------------------------------------ broken input: Skipped records, never a crash

@pytest.fixture
def copy(tmp_path) -> Path:
    """A writable copy of the sample conversation; returns its events folder."""
    target = tmp_path / "conversations" / CONVERSATION.name
    shutil.copytree(CONVERSATION, target)
    return target / "events"


def _files(events: Path) -> list[Path]:
    return sorted(events.iterdir())


def test_truncated_empty_and_junk_event_files_lose_that_event_only(copy):
    files = _files(copy)
    files[5].write_text(files[5].read_text()[:90])  # the view's observation, cut mid-write
    files[9].write_bytes(b"")  # the git head's observation, empty
    files[13].write_bytes(b"\x00\xff\xfe\x89PNG\r\n\x1a\n")  # the re-run's observation, junk
    out = collect(files[0])
    problems = [(Path(s.source).name, s.line, s.reason.split(":")[0], s.benign) for s in kinds(out, Skipped)]
    assert problems == [(files[5].name, 1, "not a JSON document", False), (files[9].name, 0, "empty file", True),
                        (files[13].name, 1, "not a JSON document", False)]
    calls = kinds(out, ToolCall)
    assert [(c.tool, c.status) for c in calls if c.status == UNPAIRED] == [
        ("file_editor", UNPAIRED), ("terminal", UNPAIRED), ("terminal", UNPAIRED)]
    assert len([c for c in calls if c.status == PAIRED]) == 3


def test_a_broken_state_file_is_one_problem_and_costs_the_usage_only(copy):
    state = copy.parent / "base_state.json"
    state.write_text(state.read_text()[:200])
    out = collect(_files(copy)[0])
    assert [(s.source, s.reason.split(":")[0]) for s in kinds(out, Skipped)] == [(str(state), "not a JSON document")]
    assert kinds(out, Usage) == [] and len(kinds(out, ToolCall)) == 6
    state.unlink()  # an events folder copied alone: no usage, no problem
    out = collect(_files(copy)[0])
    assert kinds(out, Skipped) == [] and kinds(out, Usage) == [] and len(kinds(out, ToolCall)) == 6


def test_a_broken_first_event_still_reads_the_folder(copy):
    files = _files(copy)
    files[0].write_text("{\"id\": \"0b6f")
    assert discover.detect(files[0])[0] is OpenHandsV1Collector
    out = collect(files[0])
    assert len(kinds(out, ToolCall)) == 6 and kinds(out, ToolMenu) == []
    assert [Path(s.source).name for s in kinds(out, Skipped)] == [files[0].name]


@pytest.mark.parametrize("index, change", [
    (2, {"tool_call": []}), (2, {"tool_name": 7, "tool_call": {"arguments": 3}}), (3, {"observation": "text"}),
    (3, {"observation": {"content": 5, "kind": "TerminalObservation", "metadata": []}}),
    (11, {"error": {"x": 1}}), (0, {"tools": {"a": 1}}), (0, {"tools": [1, None, {"title": []}]}),
    (14, {"llm_message": []}), (3, {"kind": ["ObservationEvent"]}), (3, {"id": {}}),
])
def test_wrong_types_never_crash(copy, index, change):
    path = _files(copy)[index]
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    out = collect(_files(copy)[0])
    assert len(kinds(out, ToolCall)) >= 5
    assert all(s.source == str(path) for s in kinds(out, Skipped))


def test_event_list_empty_junk_truncated(tmp_path):
    check_empty(tmp_path, OpenHandsV1Collector)
    check_junk(tmp_path, OpenHandsV1Collector)
    check_truncated_document(tmp_path, OpenHandsV1Collector, LISTED, 500)
    # a JSONL export cut mid-line: the last line is a benign problem
    events = json.loads(LISTED.read_text())
    path = tmp_path / "live.jsonl"
    path.write_text(jsonl(*events[:4]) + json.dumps(events[4])[:40])
    out = collect(path)
    assert [(s.line, s.benign) for s in kinds(out, Skipped)] == [(5, True)]
    assert [c.status for c in kinds(out, ToolCall)] == [PAIRED]  # the cut call never reached the model


def test_scan_never_fails_a_broken_conversation(copy):
    for path in _files(copy)[1:]:
        path.write_bytes(path.read_bytes()[:50])
    result = scan_file(_files(copy)[0], FileOptions())
    assert result.error is None and result.collector == "openhands-v1"
    assert len(result.skipped) == 14


@pytest.mark.parametrize("compress", ["gz", "zst"])
def test_an_archived_conversation_is_still_one_conversation(copy, compress):
    """Event files and base_state.json compressed one by one (`gzip -r`, `zstd --rm -r`): one conversation,
    the same calls, tokens and usage as the plain folder, and no state file read as a transcript."""
    import gzip

    import zstandard

    plain = scan_file(_files(copy)[0], FileOptions())
    for path in [*_files(copy), copy.parent / "base_state.json"]:
        data = path.read_bytes()
        packed = gzip.compress(data) if compress == "gz" else zstandard.ZstdCompressor().compress(data)
        path.with_name(f"{path.name}.{compress}").write_bytes(packed)
        path.unlink()
    files = list(discover.iter_files([copy.parent.parent]))
    assert [f.name for f in files] == [f"{_files(copy)[0].name}"]  # the first event stands for the folder
    archived = scan_file(files[0], FileOptions())
    assert archived.error is None and archived.skipped == ()
    assert [(m.tool, m.tokens, m.call_id) for m in archived.measurements] == \
        [(m.tool, m.tokens, m.call_id) for m in plain.measurements]
    assert archived.usage == plain.usage and len(plain.usage) > 0
