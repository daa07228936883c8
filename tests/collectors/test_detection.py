"""Detection on every corpus file: the right collector, and no other collector's sniff claims it."""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path

import pytest
import zstandard

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


@pytest.mark.slow  # every corpus file fuzzed: seconds (make test-all runs it)
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


# ------------------------------------------------------------------ sniffing a window, not one line (issue 9)

KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban" / "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5.jsonl"


def _scan(run, *args):
    """`scan ... -f json -j 1 -q`: (exit code, parsed JSON or None)."""
    result = run("scan", *args, "-f", "json", "-j", "1", "-q")
    return result.exit_code, (json.loads(result.stdout) if result.exit_code == 0 else None)


def test_a_first_line_longer_than_8_mib_is_still_sniffed(tmp_path):
    # NeMo and OpenHands lines pass 8 MiB: the old sniff cut the first line there and lost the file
    lines = KANBAN.read_text().splitlines()
    first = json.loads(lines[0])
    first["padding"] = "x" * (9 * 1024 * 1024)
    path = write(tmp_path, "\n".join([json.dumps(first)] + lines[1:]) + "\n", KANBAN.name)
    cls, doc = detect(path)
    assert (cls.key if cls else None, doc) == ("claude-code", None)


def test_a_truncated_first_line_costs_that_line_not_the_file(tmp_path, run):
    lines = KANBAN.read_text().splitlines()
    for bad in (lines[0][:200], "\x00\xff junk", "[1, 2"):
        path = write(tmp_path, "\n".join([bad] + lines[1:]) + "\n", KANBAN.name)
        cls, _ = detect(path)
        assert cls is not None and cls.key == "claude-code", bad
        code, doc = _scan(run, path)
        assert code == 0 and doc["unrecognised"] == [] and doc["totals"]["files"] == 1
        assert [s.split(": ", 1)[1][:12] for s in doc["skipped"]["first"]] == ["invalid JSON"]
        assert doc["totals"]["calls"] == 7  # the first line holds no call


def test_the_sniffing_window_is_bounded(tmp_path):
    # the first parseable record is looked for in the first lines only: junk for pages is no transcript
    good = KANBAN.read_text().splitlines()[0]
    near = write(tmp_path, "junk\n" * 10 + good + "\n", "near.jsonl")
    far = write(tmp_path, "junk\n" * 10_000 + good + "\n", "far.jsonl")
    assert detect(near)[0] is collectors.get("claude-code")
    assert detect(far) == (None, None)


def test_a_pretty_printed_document_is_still_a_document(tmp_path):
    # its inner lines parse on their own ({"a": 1} as a list's last item): the document decides, not they
    events = json.loads((SAMPLES / "openhands-v1" / "3e9d1c7b5a2f4e6d8c0b9a7f6e5d4c3b.json").read_text())
    path = write(tmp_path, json.dumps(events, indent=2), "events.json")
    cls, doc = detect(path)
    assert cls is collectors.get("openhands-v1") and doc == events
    assert detect(path, "openhands-v1") == (cls, events)  # forced, too: not read line by line


# ------------------------------------------------------------------ empty and unrecognised files (issue 9)

def test_an_empty_file_is_one_benign_skip_whatever_its_name(tmp_path, run):
    for name in ("empty.jsonl", "empty.json", "blank.jsonl", "empty.jsonl.gz"):
        folder = tmp_path / name.replace(".", "_")
        folder.mkdir()
        content = b"\n \n" if name.startswith("blank") else b""
        (folder / name).write_bytes(gzip.compress(content) if name.endswith(".gz") else content)
        for strict in ((), ("--strict",)):
            code, doc = _scan(run, folder, *strict)
            assert code == 0, (name, strict)
            assert doc["unrecognised"] == [] and doc["errors"] == [], name
            assert doc["skipped"] == {"count": 1, "first": [f"{folder / name}:0: empty file"]}, name


def test_an_unrecognised_file_is_an_error_under_strict(tmp_path, run):
    path = write(tmp_path, '{"hello": "world"}\n{"hello": 2}\n', "notes.jsonl")
    code, doc = _scan(run, tmp_path)
    assert code == 0 and doc["unrecognised"] == [f"{path}: no collector recognises this file"]
    result = run("scan", tmp_path, "--strict", "-q", "-j", "1")
    assert result.exit_code == 1
    assert "no collector recognises this file (--strict)" in result.output


# ------------------------------------------------------------------ compressed transcripts (issue 9)

def _compress(data: bytes, kind: str) -> bytes:
    return gzip.compress(data) if kind == ".gz" else zstandard.ZstdCompressor().compress(data)


def _without_paths(doc: dict) -> dict:
    """A scan's JSON without what names its files (the inputs, the skipped lines) or the time."""
    return {k: v for k, v in doc.items() if k not in ("meta", "skipped")}


@pytest.mark.parametrize("kind", [".gz", ".zst"])
def test_compressed_transcripts_are_read_like_plain_ones(tmp_path, run, kind):
    # every sample format, compressed file by file (an OpenHands conversation folder keeps its files)
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    for path in sorted(SAMPLES.rglob("*")):
        if not path.is_file() or "conversations" in path.parts:
            continue
        rel = path.relative_to(SAMPLES)
        for root, data, suffix in ((plain, path.read_bytes(), ""), (packed, _compress(path.read_bytes(), kind), kind)):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).with_name(rel.name + suffix).write_bytes(data)
    code, want = _scan(run, plain)
    assert code == 0 and want["totals"]["files"] > 15
    code, got = _scan(run, packed)
    assert code == 0 and got["unrecognised"] == [] and got["errors"] == []
    assert _without_paths(got) == _without_paths(want)
    assert got["meta"]["collectors"] == want["meta"]["collectors"]
    assert got["skipped"]["count"] == want["skipped"]["count"]


def _flushed(data: bytes, kind: str) -> bytes:
    """`data` compressed as a log writer does it: flushed after every line."""
    if kind == ".gz":
        out = io.BytesIO()
        with gzip.GzipFile(fileobj=out, mode="wb") as fh:
            for line in data.splitlines(keepends=True):
                fh.write(line)
                fh.flush()
        return out.getvalue()
    packer = zstandard.ZstdCompressor().compressobj()
    parts = [packer.compress(line) + packer.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
             for line in data.splitlines(keepends=True)]
    return b"".join(parts) + packer.flush()


@pytest.mark.parametrize("kind", [".gz", ".zst"])
def test_a_cut_compressed_file_is_a_problem_not_a_crash(tmp_path, run, kind):
    packed = _flushed(KANBAN.read_bytes(), kind)
    whole = tmp_path / f"whole.jsonl{kind}"
    whole.write_bytes(packed)
    code, doc = _scan(run, whole)
    assert code == 0 and doc["skipped"]["count"] == 0 and doc["totals"]["calls"] == 7
    cut = tmp_path / f"cut.jsonl{kind}"
    cut.write_bytes(packed[: len(packed) * 2 // 3])
    code, doc = _scan(run, cut)
    assert code == 0 and doc["errors"] == [] and 0 < doc["totals"]["calls"] < 7, kind
    assert [s.split(": ", 1)[1] for s in doc["skipped"]["first"]][-1].startswith("cannot decompress"), doc["skipped"]
    assert run("scan", cut, "--strict", "-q", "-j", "1").exit_code == 1
    junk = tmp_path / f"junk.jsonl{kind}"
    junk.write_bytes(packed[:4] + b"\x00" * 64)  # the magic bytes, then nothing of a stream
    code, doc = _scan(run, junk)
    assert code == 0 and [e.split(": ", 1)[1][:28] for e in doc["errors"]] == ["cannot read: bad compressed "]


def test_collectors_open_files_through_one_helper():
    # a collector that opened a file itself would read a compressed transcript as bytes of junk (reading.py holds
    # the one helper, with the builtin open; remote.RemotePath.open is what open_source calls for object storage)
    from toolaudit import collectors as package

    folder = Path(package.__file__).parent
    found = [f"{p.name}: {m.group(0)}" for p in sorted(folder.glob("*.py")) if p.name != "reading.py"
             for m in re.finditer(r"(?<![.\w])(?<!def )open\(|\.read_bytes\(|\.read_text\(", p.read_text())]
    assert found == []


# ------------------------------------------------------------------ a file is known by what it holds (issue 18 §0)

# Claude Code 2.1.8x and later begin a session file with metadata lines; these are their real shapes
# (session ids shortened): last-prompt, permission-mode and mode come first, ai-title and the rest anywhere
CURRENT_CLAUDE_HEADS = [
    {"type": "last-prompt", "lastPrompt": "fix the flaky test", "leafUuid": "3bae1650-0000", "sessionId": "23d38993"},
    {"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": "23d38993"},
    {"type": "mode", "mode": "default", "sessionId": "23d38993"},
    {"type": "ai-title", "aiTitle": "Fix the flaky test", "sessionId": "23d38993"},
    {"type": "agent-name", "agentName": "reviewer", "sessionId": "23d38993"},
]
# line types nobody knows yet, in the shapes new ones take (a session's line, a timed line, an envelope)
UNKNOWN_HEADS = [
    {"type": "a-type-of-2027", "sessionId": "0f1e2d3c", "value": {"nested": [1, 2]}},
    {"type": "another-new-kind", "timestamp": "2026-11-30T10:00:00.000Z"},
    {"type": "event_of_the_future", "payload": {"id": "x"}},
]
LINE_FILES = [p for p in FILES + SAMPLE_FILES if p.name not in NOT_A_FORMAT and ".jsonl" in p.name]


def _lines_layout(path):
    """The collector `path` is read with, when it is read line by line (None for documents and strays)."""
    cls, doc = detect(path)
    return cls if cls is not None and doc is None else None


def _variants(lines, key):
    """The file's lines with its first lines rotated, and with unknown (and, for Claude Code, current
    metadata) lines prepended."""
    for count in range(2, 6):  # the first line moved to the count-th place
        if count <= len(lines):
            yield f"rotated {count}", lines[1:count] + lines[:1] + lines[count:]
    unknown = [json.dumps(h) for h in UNKNOWN_HEADS]
    yield "unknown first", unknown + lines
    yield "unknown interleaved", [x for pair in zip(unknown, lines) for x in pair] + lines[len(unknown):]
    if key == "claude-code":
        current = [json.dumps(h) for h in CURRENT_CLAUDE_HEADS]
        yield "current metadata first", current[:3] + lines + current[3:]
        yield "current metadata and unknown first", current[:3] + unknown + lines


@pytest.mark.parametrize("path", LINE_FILES, ids=_name)
def test_detection_reads_past_lines_it_does_not_know(tmp_path, path):
    # Claude Code 2.1.10x-2.1.18x files that begin with permission-mode/mode/last-prompt lines gave 0 calls
    path = corpus_file(path) if CORPUS in path.parents else path
    cls = _lines_layout(path)
    if cls is None:
        pytest.skip("read as one document, not line by line")
    lines = [line for line in path.read_text(encoding="utf-8", errors="surrogatepass").splitlines() if line.strip()]
    for name, variant in _variants(lines, cls.key):
        copy = write(tmp_path, "\n".join(variant) + "\n", path.name.split(".jsonl")[0] + ".jsonl")
        found, doc = detect(copy)
        assert (found.key if found else None, doc) == (cls.key, None), name


def test_a_current_claude_code_file_counts_what_the_forced_read_counts(tmp_path, run):
    # the same calls with and without --from claude-code, whatever metadata lines come first
    lines = KANBAN.read_text().splitlines()
    heads = [json.dumps(h) for h in CURRENT_CLAUDE_HEADS[:3]]
    path = write(tmp_path, "\n".join(heads + lines) + "\n", KANBAN.name)
    code, auto = _scan(run, path)
    assert code == 0 and auto["unrecognised"] == []
    code, forced = _scan(run, path, "--from", "claude-code")
    assert code == 0 and auto["totals"]["calls"] == forced["totals"]["calls"] == 7


def test_a_metadata_only_claude_code_file_is_claude_codes(tmp_path):
    # an abandoned session (only its metadata lines): a Claude Code file with nothing in it, not a stray
    path = write(tmp_path, "\n".join(json.dumps(h) for h in CURRENT_CLAUDE_HEADS) + "\n", "ghost.jsonl")
    assert detect(path)[0] is collectors.get("claude-code")


def test_the_walkers_list_names_every_builtin_that_changes_a_walk_or_stands_for_other_files():
    # a folder walk imports only the collectors of WALKERS (a scan served from the cache imports no other)
    from toolaudit.collectors import BUILTIN, WALKERS, Collector, collectors

    overriding = {cls.__module__.rsplit(".", 1)[-1] for cls in collectors.all().values()
                  if cls.walked.__func__ is not Collector.walked.__func__
                  or cls.stands_for.__func__ is not Collector.stands_for.__func__}
    assert overriding == set(WALKERS) and set(WALKERS) <= set(BUILTIN)


def test_a_walk_served_from_the_cache_imports_no_format(tmp_path):
    import json
    import os
    import subprocess
    import sys

    folder = tmp_path / "runs"
    folder.mkdir()
    row = {"session": "s", "call_id": "c1", "tool": "Grep", "args": {}, "output": "x\n" * 3}
    for name in ("a.jsonl", "b.jsonl"):
        (folder / name).write_text(json.dumps(row) + "\n")
    probe = ("import sys, toolaudit; toolaudit.scan([sys.argv[1]], jobs=1); "
             "print(sorted(m.rsplit('.', 1)[-1] for m in sys.modules if m.startswith('toolaudit.collectors.')))")
    env = {**os.environ, "TOOLAUDIT_CACHE_DIR": str(tmp_path / "cache")}

    def loaded() -> list[str]:
        return json.loads(subprocess.run([sys.executable, "-c", probe, str(folder)], env=env, capture_output=True,
                                         text=True, timeout=120, check=True).stdout.replace("'", '"'))

    assert {"toolaudit_jsonl", "codex", "claude_code"} <= set(loaded())  # the first scan detects formats
    again = loaded()  # answered from the cache: only the walk's own collector
    assert "openhands_v1" in again and not {"toolaudit_jsonl", "codex", "claude_code"} & set(again)
