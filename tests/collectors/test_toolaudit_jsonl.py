"""toolaudit-jsonl collector: the sample, field validation, broken input, detection."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conftest import SAMPLES
from helpers import (check_deep_line, check_empty, check_junk, check_odd_values, check_trip, jsonl, kinds,
                     lone_surrogate_calls, split, totals, writer)
from toolaudit.collectors import toolaudit_jsonl
from toolaudit.collectors.discover import detect
from toolaudit.collectors.toolaudit_jsonl import ToolauditJsonlCollector
from toolaudit.model import MAIN_AGENT, PAIRED, SessionEnd, Skipped, ToolCall

SAMPLE = SAMPLES / "toolaudit-jsonl" / "calls.jsonl"
write = writer("calls.jsonl")


def records(path: Path):
    return split(ToolauditJsonlCollector().collect(path))


def test_sample_counts_by_hand():
    calls, skipped, ends = records(SAMPLE)
    assert skipped == []
    # counted with jq: group_by(.tool) | length, and output lengths (list parts joined with "\n")
    counts, chars = totals(calls)
    assert counts == {"Bash": 5, "Grep": 3, "Read": 2, "Edit": 1, "Glob": 1}
    assert chars == {"Bash": 1559, "Grep": 711, "Read": 1143, "Edit": 329, "Glob": 45}
    assert Counter(c.session for c in calls) == {"fix-config-loader": 7, "add-retry": 5}
    assert [c.call_id for c in calls if c.is_error] == ["r04"]
    assert all(c.status == PAIRED and c.collector == "toolaudit-jsonl" for c in calls)
    assert ends == [SessionEnd(str(SAMPLE), "fix-config-loader", (8,)), SessionEnd(str(SAMPLE), "add-retry", (6,))]


def test_sample_fields_are_kept():
    calls, _, _ = records(SAMPLE)
    by_id = {c.call_id: c for c in calls}
    grep = by_id["c01"]
    assert grep.output == "src/app/loader.py:9:def load_config(path: Path) -> dict:"
    assert grep.args == '{"pattern":"def load_config","path":"src"}'  # objects: compact JSON
    assert (grep.request_index, grep.ts, grep.model, grep.line) == (1, "2026-03-02T10:14:03Z", "claude-sonnet-4-5", 1)
    read = by_id["r02"]
    assert read.args.startswith('{"file_path": "src/app/http_client.py"')  # strings: as written
    assert read.output.endswith("return response.json()\n(file has 17 lines)")  # parts joined with "\n"
    assert [c.call_index for c in calls if c.session == "add-retry"] == [0, 1, 2, 3, 4]
    assert "FAILED tests/test_loader.py::test_load_config_empty_file" in by_id["c04"].output


def test_defaults_and_optional_fields(tmp_path):
    path = write(tmp_path, "\n".join(json.dumps(x) for x in [
        {"tool": "Read", "output": "x"},
        {"tool": "Read", "output": [{"type": "text", "text": "a"}, "b",
                                     {"type": "image", "source": {"type": "base64", "data": "QUJD"}}]},
        {"tool": "Bash", "output": "", "agent": "explorer", "request": 0, "session": "s", "unknown": 1},
    ]) + "\n", "my-run.jsonl")
    calls, skipped, ends = records(path)
    assert skipped == []
    first, second, third = calls
    assert (first.session, first.agent, first.call_id, first.args, first.request_index) == ("my-run", MAIN_AGENT, "", "", None)
    assert (second.output, second.images, second.image_bytes) == ("a\nb", 1, 3)
    assert (third.agent, third.session, third.output) == ("explorer", "s", "")
    # no request index in my-run: nothing known; the explorer agent of s made 1 request
    assert ends == [SessionEnd(str(path), "my-run", ()), SessionEnd(str(path), "s", (1,), agent="explorer")]


@pytest.mark.parametrize("line, reason", [
    ({"output": "x"}, "`tool` is missing"),
    ({"tool": "", "output": "x"}, "`tool` is missing or not a non-empty string"),
    ({"tool": 3, "output": "x"}, "`tool` is missing"),
    ({"tool": "Read"}, "`output` is missing"),
    ({"tool": "Read", "output": None}, "`output` is not a string or a list of parts"),
    ({"tool": "Read", "output": 12}, "`output`"),
    ({"tool": "Read", "output": "x", "session": 5}, "`session` must be a string"),
    ({"tool": "Read", "output": "x", "args": [1, 2]}, "`args` must be a string or an object"),
    ({"tool": "Read", "output": "x", "is_error": "yes"}, "`is_error` must be a boolean"),
    ({"tool": "Read", "output": "x", "request": "3"}, "`request` must be an integer >= 0"),
    ({"tool": "Read", "output": "x", "request": -1}, "`request` must be an integer >= 0"),
    ({"tool": "Read", "output": "x", "request": True}, "`request` must be an integer >= 0"),
    ({"tool": "Read", "output": "x", "request": 1.5}, "`request` must be an integer >= 0"),
    ([1, 2], "expected a JSON object, got list"),
])
def test_wrong_types_are_skipped_with_a_reason(tmp_path, line, reason):
    good = {"tool": "Read", "output": "ok"}
    path = write(tmp_path, f"{json.dumps(good)}\n{json.dumps(line)}\n")
    calls, skipped, _ = records(path)
    assert len(calls) == 1
    assert len(skipped) == 1 and skipped[0].line == 2 and reason in skipped[0].reason
    assert not skipped[0].benign


def test_odd_value_types_lose_one_line_not_the_file(tmp_path):
    path = write(tmp_path, jsonl(
        {"tool": "Read", "output": "a", "call_id": "c1"},
        {"tool": {}, "output": "b", "call_id": "c2"},
        {"tool": "Grep", "output": "c", "call_id": {}},
        {"tool": "Grep", "output": [{"type": "image", "source": [1]}, {"type": [], "text": "d"}, 5], "call_id": "c4",
         "args": {"q": []}, "request": 2},
        {"tool": ["Bash"], "output": "e"},
    ))
    out = check_odd_values(ToolauditJsonlCollector().collect(path), ["c1", "c4"], [
        (2, "`tool` is missing or not a non-empty string"), (3, "`call_id` must be a string"),
        (5, "`tool` is missing or not a non-empty string")])
    c4 = kinds(out, ToolCall)[1]
    assert (c4.output, c4.images, c4.image_bytes, c4.args, c4.call_index) == ("d\n5", 1, 0, '{"q":[]}', 1)


def test_a_reader_that_trips_on_one_line_loses_that_line(monkeypatch):
    check_trip(monkeypatch, ToolauditJsonlCollector, SAMPLE, 5, target=(toolaudit_jsonl, "_call"), at=1,
               generator=True)


def test_deep_nesting_loses_one_line(tmp_path):
    check_deep_line(tmp_path, ToolauditJsonlCollector, jsonl({"tool": "Read", "output": "a", "call_id": "c1"}),
                    jsonl({"tool": "Read", "output": "b", "call_id": "c2"}))


def test_truncated_last_line_is_benign(tmp_path):
    path = write(tmp_path, '{"tool": "Read", "output": "ok"}\n{"tool": "Bash", "outp')
    calls, skipped, _ = records(path)
    assert [c.tool for c in calls] == ["Read"]
    assert [(s.line, s.benign) for s in skipped] == [(2, True)]


def test_empty_junk_and_surrogates_never_crash(tmp_path):
    check_empty(tmp_path, ToolauditJsonlCollector)

    junk = check_junk(tmp_path, ToolauditJsonlCollector, b"\x00\xff\xfe garbage \x89PNG\r\n\x1a\n\xc3\x28{{{\n")
    assert len(kinds(junk, Skipped)) == 3

    lone = '{"tool": "Read", "output": "emoji half \\ud83d here", "args": "\\udc00"}\n'
    calls = lone_surrogate_calls(tmp_path, ToolauditJsonlCollector, lone)
    assert calls[0].output == "emoji half \ud83d here"


def test_lone_surrogate_survives_the_whole_scan(tmp_path):
    from toolaudit.pipeline import FileOptions, scan_file

    path = write(tmp_path, '{"tool": "Read", "output": "a \\ud83d b"}\n')
    result = scan_file(path, FileOptions())
    assert result.error is None and result.collector == "toolaudit-jsonl"
    assert len(result.measurements) == 1 and result.measurements[0].chars >= 4


def test_detection(tmp_path):
    assert detect(SAMPLE)[0] is ToolauditJsonlCollector
    one = write(tmp_path, '{"tool": "Read", "output": "x"}\n', "one.jsonl")
    assert detect(one) == (ToolauditJsonlCollector, None)
    assert not ToolauditJsonlCollector.sniff_line({"role": "tool", "content": "x"})


def test_docstring_documents_every_field():
    doc = toolaudit_jsonl.__doc__
    for field in ("tool", "output", "session", "call_id", "args", "is_error", "ts", "model", "agent", "request"):
        assert f"| `{field}`" in doc


def test_a_calls_file_line_without_output_is_an_unpaired_call(tmp_path):
    """replay's calls file: `tool` and `args`, no `output`: a call whose result was never recorded."""
    path = write(tmp_path, jsonl(
        {"tool": "grep", "args": {"pattern": "RETRY_LIMIT"}, "session": "s1", "call_id": "c1"},
        {"tool": "Read", "output": "x"},
    ))
    calls, skipped, _ = records(path)
    assert not skipped
    assert [(c.tool, c.status, c.output) for c in calls] == [("grep", "unpaired", ""), ("Read", "paired", "x")]
    assert json.loads(calls[0].args) == {"pattern": "RETRY_LIMIT"}


# ------------------------------------------------------------------ the same call in two files counts once (issue 9)

def _copies(tmp_path: Path) -> Path:
    """Two files sharing session s1's call c1 (a copy), plus calls that only look alike."""
    folder = tmp_path / "runs"
    folder.mkdir()
    shared = {"session": "s1", "call_id": "c1", "tool": "Read", "output": "the same output, twice"}
    (folder / "a.jsonl").write_text(jsonl(shared, {"session": "s1", "call_id": "c2", "tool": "Grep", "output": "a"},
                                          {"tool": "Bash", "output": "no id"}, {"call_id": "c1", "tool": "Bash",
                                                                                 "output": "session a"}))
    (folder / "b.jsonl").write_text(jsonl(shared, {"session": "s2", "call_id": "c1", "tool": "Grep", "output": "b"},
                                          {"tool": "Bash", "output": "no id"}, {"call_id": "c1", "tool": "Bash",
                                                                                 "output": "session b"}))
    return folder


def test_the_same_session_and_call_id_in_two_files_counts_once(tmp_path, scan_json):
    # kept: s1/c1 once, s1/c2, s2/c1, two calls without an id, a/c1 and b/c1 (sessions named after their
    # files, not by the writer: the same name in two folders would be two runs, as compare counts them)
    doc = scan_json(_copies(tmp_path))
    assert (doc["totals"]["calls"], doc["totals"]["duplicates_dropped"]) == (7, 1)
    assert {t["tool"]: t["calls"] for t in doc["tools"]} == {"Read": 1, "Grep": 2, "Bash": 4}


def test_simulate_and_replay_drop_the_copy_too(tmp_path, run):
    folder = _copies(tmp_path)
    result = run("simulate", folder, "--max-chars", "10", "-f", "json", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["totals"]["calls"] == 7
    result = run("replay", folder, "--tool", "Read=builtin:read_file", "--workspace", tmp_path, "-f", "json", "-q")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert (doc["totals"]["calls"], doc["duplicates_dropped"]) == (7, 1)
