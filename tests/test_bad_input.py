"""Odd text never ends a run: lone surrogates in names and ids, through every command and output format."""

from __future__ import annotations

import dataclasses
import json

import pytest

from conftest import SAMPLES
from toolaudit.collectors import base
from toolaudit.model import SessionEnd, ToolCall, ToolMenu

KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban" / "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5.jsonl"
LONE = "\\ud800"  # a lone surrogate as JSON writes it; orjson refuses it, the standard library reads it
FORMATS = ("table", "json", "csv", "markdown")


@pytest.fixture
def odd(tmp_path):
    """A folder of two transcripts with lone surrogates in tool names, session ids, model names and call ids."""
    folder = tmp_path / "odd"
    folder.mkdir()
    lines = [
        {"session": f"s{LONE}1", "call_id": f"c{LONE}1", "tool": f"Gr{LONE}ep", "model": f"m{LONE}",
         "agent": f"a{LONE}", "args": {"pattern": f"x{LONE}"}, "output": f"hit{LONE}", "request": 0},
        {"session": f"s{LONE}1", "call_id": "c2", "tool": "Read", "output": "plain", "request": 1},
    ]
    (folder / "calls.jsonl").write_text("".join(json.dumps(line).replace("\\\\", "\\") + "\n" for line in lines))
    text = KANBAN.read_text()
    text = text.replace('"name": "Read"', f'"name": "Re{LONE}ad"').replace('"claude-opus-4-5"', f'"claude{LONE}"')
    text = text.replace('"toolu_03Grep"', f'"toolu_{LONE}Grep"').replace(KANBAN.stem, f"{KANBAN.stem[:8]}{LONE}")
    (folder / KANBAN.name).write_text(text)
    return folder


def _ok(result):
    assert result.exit_code == 0, result.output
    result.stdout.encode("utf-8")  # printable: no surrogate reached the output
    return result


@pytest.mark.parametrize("fmt", FORMATS)
def test_scan_reads_odd_names_in_every_format(run, odd, fmt):
    out = _ok(run("scan", odd, "-f", fmt, "-j", "1", "-q", "--by", "session", "--top", "3")).stdout
    if fmt == "json":
        doc = json.loads(out)
        assert doc["totals"]["calls"] == 9 and doc["skipped"]["count"] == 0
        tools = {t["tool"] for t in doc["tools"]}
        assert {"Gr\ufffdep", "Re\ufffdad", "Read"} <= tools


def test_scan_records_and_by_model(run, odd, tmp_path):
    for fmt in ("csv", "parquet"):
        _ok(run("scan", odd, "-q", "-j", "1", "--by", "model", "--records", tmp_path / f"calls.{fmt}"))
    assert "claude\ufffd" in (tmp_path / "calls.csv").read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", FORMATS)
def test_simulate_compare_and_ci_on_odd_names(run, odd, tmp_path, fmt):
    _ok(run("simulate", odd, "--max-chars", "20", "-f", fmt, "-j", "1", "-q", "--explain", "2"))
    _ok(run("compare", odd, odd, "-f", fmt, "-q"))
    baseline = tmp_path / "baseline.json"
    _ok(run("scan", odd, "-f", "json", "-o", baseline, "-j", "1", "-q"))
    _ok(run("ci", odd, "--baseline", baseline, "-f", fmt, "-j", "1", "-q"))


@pytest.mark.parametrize("fmt", FORMATS)
def test_replay_on_odd_names(run, odd, tmp_path, fmt):
    (tmp_path / "work").mkdir()
    _ok(run("replay", odd, "--workspace", tmp_path / "work", "--tool", "Gr*=builtin:grep", "-f", fmt, "-q"))


def test_clean_replaces_lone_surrogates_in_every_text_field_and_tuple():
    call = ToolCall(source="f", line=1, collector="x", session="s\ud800", tool="T\udfff", output="o\ud83d",
                    call_id="c\ud800", model="m\ud800", agent="a\ud800", args="{\"\ud800\": 1}")
    done = base.clean(call)
    assert (done.session, done.tool, done.output, done.call_id, done.model, done.agent, done.args) == (
        "s\ufffd", "T\ufffd", "o\ufffd", "c\ufffd", "m\ufffd", "a\ufffd", '{"\ufffd": 1}')
    assert base.clean(done) is done  # clean text: the record itself, not a copy
    end = base.clean(SessionEnd("f", "s", (1, 2), carried=(("c\ud800", 3),)))
    assert end.carried == (("c\ufffd", 3),) and end.requests == (1, 2)
    menu = base.clean(ToolMenu("f", "s", (("t\ud800", '{"name": "t\ud800"}'),), 2))
    assert menu.tools == (("t\ufffd", '{"name": "t\ufffd"}'),)
    assert base.clean(ToolCall("f", 1, "x", "s", "t", "a pair \ud83d\ude00 joined")).output == "a pair \U0001F600 joined"


@pytest.fixture
def fresh_lenient(monkeypatch):
    """A process where no lenient parse has happened yet (earlier tests moved the count for good)."""
    monkeypatch.setattr(base.reading, "LENIENT", [0])


def _texts(records):
    values = (getattr(r, f.name) for r in records for f in dataclasses.fields(r))
    return [v for v in values if isinstance(v, str)]


def test_records_are_cleaned_once_the_lenient_parser_ran(fresh_lenient, tmp_path):
    path = tmp_path / "calls.jsonl"
    plain = json.dumps({"session": "s", "call_id": "c1", "tool": "Read", "output": "ok"})
    path.write_text(plain + "\n" + json.dumps({"session": "s", "call_id": "c2", "tool": "T", "output": "x"})
                    .replace('"T"', f'"T{LONE}"') + "\n")
    records = list(base.collectors.get("toolaudit-jsonl")().records(path))
    assert base.reading.LENIENT == [1]
    assert "T\ufffd" in _texts(records)
    for text in _texts(records):
        text.encode("utf-8")


def test_a_lenient_parse_in_one_file_does_not_clean_the_next(fresh_lenient, tmp_path, monkeypatch):
    bad, good = tmp_path / "bad.jsonl", tmp_path / "good.jsonl"
    bad.write_text(json.dumps({"session": "s", "call_id": "c1", "tool": "T", "output": "x"})
                   .replace('"T"', f'"T{LONE}"') + "\n")
    good.write_text(json.dumps({"session": "s", "call_id": "c2", "tool": "Read", "output": "ok"}) + "\n")
    cls = base.collectors.get("toolaudit-jsonl")
    assert "T\ufffd" in _texts(list(cls().records(bad)))
    cleaned = []
    monkeypatch.setattr(base, "clean", lambda record: cleaned.append(record) or record)
    assert list(cls().records(good)) and cleaned == []  # orjson read all of it: nothing to clean
    assert list(cls().records(good, doc={"any": "document"})) and cleaned  # parsed before: may be lenient


def test_a_file_name_that_is_not_utf8_is_cleaned(fresh_lenient, tmp_path):
    path = tmp_path / "s\udcff.jsonl"  # os.fsdecode of the byte 0xff: a lone surrogate in the name
    try:
        path.write_text(json.dumps({"session": "s", "call_id": "c1", "tool": "Read", "output": "ok"}) + "\n")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    records = list(base.collectors.get("toolaudit-jsonl")().records(path))
    assert records
    for text in _texts(records):
        text.encode("utf-8")  # raises on a lone surrogate
    assert any("\ufffd" in t for t in _texts(records))


def test_hermes_texts_parsed_by_the_standard_library_are_cleaned(fresh_lenient, tmp_path):
    call = '<tool_call>{"name": "gr' + LONE + 'ep", "arguments": {}}</tool_call>'
    turns = [{"from": "human", "value": "find"}, {"from": "gpt", "value": call},
             {"from": "tool", "value": "<tool_response>hits</tool_response>"}]
    path = tmp_path / "trajectory.jsonl"
    path.write_text(json.dumps({"conversations": turns}) + "\n")
    records = list(base.collectors.get("hermes")().records(path))
    assert base.reading.LENIENT == [0]  # orjson read every line: only hermes' own parse let the surrogate in
    assert "gr\ufffdep" in _texts(records)
