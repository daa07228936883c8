"""Detection on every corpus file: the right collector, and no other collector's sniff claims it."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS, SAMPLES
from helpers import (DEEP, ODD, SHAPE, check_fuzzed, check_record_types, corpus_file, corpus_files, each_path,
                     write)
from toolaudit.collectors import base, collectors
from toolaudit.collectors.base import TooDeep, guarded, load_document, loads, read_document, read_lines
from toolaudit.collectors.discover import detect
from toolaudit.model import Skipped

# corpus folder -> the collector that reads it: each folder is named after its format
EXPECTED = {folder: folder for folder in (
    "claude-code", "codex", "openai-chat", "gemini-cli", "swe-agent", "mini-swe-agent",
    "openhands", "openai-responses", "hermes", "atif",
)}
# the Agent Sessions app's made-up "drift" lines: not a Codex format (see test_codex.py)
NOT_A_FORMAT = {"stage0-codex-schema_drift.jsonl"}
FILES = [p for p in corpus_files("") if p.name != "SOURCES.md"]


def _claims(path):
    """Every collector whose own sniff says yes to the file (order does not matter here)."""
    with open(path, "rb") as fh:
        try:
            first = loads(fh.readline())
        except ValueError:
            first = None
    try:
        doc = load_document(path)
    except ValueError:
        doc = None
    return {key for key, cls in collectors.all().items()
            if (cls.jsonl and isinstance(first, dict) and cls.sniff_line(first))
            or (cls.document and doc is not None and cls.sniff_doc(doc))}


@each_path(FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_detection(path):
    path = corpus_file(path)
    folder = path.relative_to(CORPUS).parts[0]
    expected = None if path.name in NOT_A_FORMAT else EXPECTED.get(folder)
    cls, _ = detect(path)
    assert (cls.key if cls else None) == expected
    assert _claims(path) <= ({expected} if expected else set())


# ------------------------------------------------------------------ odd values never cost a file (formats.md §0)

SAMPLE_FILES = sorted(p for p in SAMPLES.rglob("*") if p.is_file())


def _name(path):
    return str(path.relative_to(SAMPLES.parent) if SAMPLES in path.parents else path.relative_to(CORPUS.parent))


@pytest.mark.parametrize("path", SAMPLE_FILES + FILES, ids=_name)
def test_fuzzed_files_are_read_line_by_line(tmp_path, path):
    # /tmp/review/fuzz.py, bounded and seeded: 20 copies, each with odd values in one line or in the document
    check_fuzzed(tmp_path, path, seed=0, rounds=20)


@pytest.mark.parametrize("key", sorted(collectors.all()))
def test_every_collector_forced_on_every_file_never_raises(key):
    # `--from <key>` on the wrong format: problems, never an exception (nor a badly typed record)
    cls = collectors.get(key)
    for path in SAMPLE_FILES + FILES:
        check_record_types(cls().collect(path, detect(path, key)[1]))


ODD_FIRSTS = [
    {"type": [1]}, {"type": {}}, {"role": []}, {"role": {}, "content": "x"}, {"messages": [{"role": []}]},
    {"messages": [{"role": [], "content": "x"}], "model": "m"}, {"messages": [{"content": [{"type": []}]}]},
    {"conversations": [{"from": []}]}, {"sessionId": [], "projectHash": {}}, {"history": [{"action": {}}]},
    {"history": [{"role": [], "agent": "x"}]}, {"trajectory": [{"action": []}], "info": {}},
    {"steps": [], "agent": {}, "schema_version": []}, {"output": [{"type": []}], "input": [{"type": {}}]},
    {"responses_create_params": {}, "response": {}}, {"resourceSpans": {}},
    {"messages": [{"role": {}, "tool_calls": []}], "session_id": "s", "model": "m"},
    {"request": {"url": [], "body": {"messages": [{"role": {}}]}}},
]


@pytest.mark.parametrize("first", ODD_FIRSTS + ODD)
def test_sniffers_never_raise_on_odd_values(tmp_path, first):
    # a list where a string belongs once made a sniffer hash it: detection lost the file
    for doc in (first, [first], [first, first], {"history": [first]}, {"messages": [first]}, {"attempts": [first]}):
        for cls in collectors.all().values():
            if cls.jsonl and isinstance(doc, dict):
                assert cls.sniff_line(doc) in (True, False)
            if cls.document:
                cls.sniff_doc(doc)  # truthy or not: no exception
    detect(write(tmp_path, json.dumps(first) + "\n" + json.dumps(first) + "\n"))
    detect(write(tmp_path, json.dumps([first, first]), "doc.json"))


def test_deep_nesting_is_a_value_error_never_recursion(tmp_path):
    # orjson stops at 1024 levels, the standard library at the recursion limit: both are one problem
    with pytest.raises(TooDeep):
        loads(DEEP)
    with pytest.raises(ValueError):
        loads(DEEP.encode())
    path = write(tmp_path, '{"a": 1}\n' + DEEP + '\n{"b": 2}\n' + DEEP)
    assert [(n, o.reason if isinstance(o, Skipped) else o) for n, o in read_lines(path)] == [
        (1, {"a": 1}), (2, "invalid JSON: nested too deeply to parse (RecursionError)"), (3, {"b": 2}),
        (4, "invalid JSON: nested too deeply to parse (RecursionError)")]  # not a benign cut last line
    doc = write(tmp_path, DEEP, "deep.json")
    with pytest.raises(ValueError):
        load_document(doc)
    assert read_document(doc, None).reason == "not a JSON document: nested too deeply to parse (RecursionError)"
    assert detect(doc) == (None, None)


def test_guarded_turns_an_exception_into_one_skipped(monkeypatch):
    def reader():
        yield "first"
        {}[[]]  # unhashable: what a hash check on a list value does
        yield "never"

    out = list(guarded(reader(), "f.jsonl", 7))
    assert out[0] == "first" and out[1:] == [Skipped("f.jsonl", 7, f"{SHAPE}TypeError: unhashable type: 'list'")]
    assert [r.reason for r in guarded((x for x in [1] if {}[x]), "f", 1)] == [f"{SHAPE}KeyError: 1"]

    def empty_message():
        raise ValueError()
        yield

    assert [r.reason for r in guarded(empty_message(), "f", 1)] == [f"{SHAPE}ValueError: ValueError"]
    monkeypatch.setattr(base, "DEBUG", True)  # --debug: odd data raises where it trips
    with pytest.raises(TypeError):
        list(guarded(reader(), "f.jsonl", 7))
