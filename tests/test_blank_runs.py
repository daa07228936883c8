"""Blank lines cost nothing, and a compressed file is read up to a stated bound (reading.MAX_DECOMPRESSED_BYTES).

A 1 MB gzip of 1 GiB of newlines took 109 s to scan, a readline per newline: a run of blank lines is now passed over
a buffer at a time (reading.skip_blank), still counted so every `file:line` stays right. These tests use 64 MiB of
newlines and count the reads made, never the time taken.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import zstandard

from conftest import SAMPLES
from toolaudit.collectors import discover, reading
from toolaudit.collectors.reading import open_source, raw_lines, read_lines, skip_blank

SESSION = SAMPLES / "claude-code" / "-home-dev-kanban" / "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5.jsonl"
BLANK = 64 << 20  # newlines: 64 Mi blank lines
PACK = {".gz": lambda data: gzip.compress(data, compresslevel=1),
        ".zst": lambda data: zstandard.ZstdCompressor(level=1).compress(data)}


class _Counting:
    """A file object that counts its readline calls (everything else passed through)."""

    def __init__(self, fh, counts: list[int]):
        self._fh, self._counts = fh, counts

    def readline(self, *args):
        self._counts[0] += 1
        return self._fh.readline(*args)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


@pytest.fixture
def readlines(monkeypatch) -> list[int]:
    """How many readline calls the reading layer and detection make on the files they open."""
    counts = [0]
    opened = lambda path: _Counting(open_source(path), counts)  # noqa: E731
    monkeypatch.setattr(reading, "open_source", opened)
    monkeypatch.setattr(discover, "open_source", opened)
    return counts


def _write(path: Path, data: bytes) -> Path:
    suffix = "".join(path.suffixes[-1:])
    path.write_bytes(PACK[suffix](data) if suffix in PACK else data)
    return path


def _scan(run, *args) -> tuple[int, dict, str]:
    result = run("scan", *args, "-f", "json", "-j", "1", "-q", "--no-cache")
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}, result.stderr


@pytest.mark.parametrize("suffix", [".gz", ".zst", ""])
def test_a_run_of_blank_lines_is_passed_over_without_a_read_per_line(run, tmp_path, readlines, suffix):
    session = SESSION.read_bytes()
    lines = session.count(b"\n")
    # the session, 64 Mi blank lines (some with spaces), then a broken line: reported at its own line number
    data = session + b"\n" * (BLANK // 2) + b"  \r\n" * 4 + b"\n" * (BLANK // 2) + b"{broken\n"
    path = _write(tmp_path / f"s.jsonl{suffix}", data)
    code, doc, _ = _scan(run, path)
    assert code == 0
    assert doc["totals"]["calls"] == 7 and doc["errors"] == []
    broken = lines + BLANK + 4 + 1
    assert doc["skipped"]["count"] == 1 and doc["skipped"]["first"][0].startswith(f"{path}:{broken}: invalid JSON")
    assert readlines[0] < 1000  # the 64 Mi blank lines took a few reads, not one each


def test_a_blank_file_is_empty_and_read_at_once(run, tmp_path, readlines):
    path = _write(tmp_path / "blank.jsonl.gz", b"\n" * BLANK)
    code, doc, _ = _scan(run, path)
    assert code == 0 and doc["errors"] == [] and doc["skipped"]["first"] == [f"{path}:0: empty file"]
    assert readlines[0] < 100


def test_resuming_after_blank_lines_keeps_offsets_and_line_numbers(tmp_path):
    path = tmp_path / "grow.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"\n" * 100_000 + b'{"a": 2}\n' + b"\n" * 5)
    at = [0, 0, True]
    assert [(n, o) for n, o in read_lines(path, at=at)] == [(1, {"a": 1}), (100_002, {"a": 2})]
    assert at == [path.stat().st_size, 100_007, True]
    with open(path, "ab") as fh:
        fh.write(b'{"a": 3}\n')
    assert list(read_lines(path, start=(at[0], at[1]))) == [(100_008, {"a": 3})]


def test_skip_blank_stops_at_the_start_of_a_line_with_content(tmp_path):
    path = _write(tmp_path / "x.jsonl.gz", b"\n\n \n  {\"a\": 1}\n\n")
    with open_source(path) as fh:
        assert skip_blank(fh) == (4, 3)  # three whole blank lines; the content line's own spaces stay
        assert fh.readline() == b'  {"a": 1}\n'
    assert list(raw_lines(path)) == [b'  {"a": 1}\n']


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_past_the_decompressed_bound_a_file_is_read_no_further_and_said(run, tmp_path, monkeypatch, suffix):
    monkeypatch.setattr(reading, "MAX_DECOMPRESSED_BYTES", 16 << 20)
    # content first: its calls count, and the rest is one skipped line that names the bound
    path = _write(tmp_path / f"s.jsonl{suffix}", SESSION.read_bytes() + b"\n" * BLANK + SESSION.read_bytes())
    code, doc, _ = _scan(run, path)
    assert code == 0 and doc["totals"]["calls"] == 7 and doc["errors"] == []
    reason = doc["skipped"]["first"][-1].split(": ", 1)[1]
    assert reason == "cannot decompress: over 16,777,216 bytes decompressed (TOOLAUDIT_MAX_DECOMPRESSED_BYTES): " \
                     "read no further"
    # nothing but blank lines up to the bound: one warning line, not a crash, and the scan goes on
    blank = _write(tmp_path / f"blank.jsonl{suffix}", b"\n" * BLANK)
    result = run("scan", blank, SESSION, "-j", "1", "--no-cache")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: {blank}: cannot read: over 16,777,216 bytes decompressed "
                        "(TOOLAUDIT_MAX_DECOMPRESSED_BYTES): read no further"]
    assert "Traceback" not in result.output
    code, doc, _ = _scan(run, blank, SESSION)
    assert doc["totals"]["calls"] == 7 and len(doc["errors"]) == 1


def test_the_bound_is_documented():
    formats = (Path(__file__).parent.parent / "docs" / "security.md").read_text()
    assert "TOOLAUDIT_MAX_DECOMPRESSED_BYTES" in formats and f"{reading.MAX_DECOMPRESSED_BYTES >> 30} GiB" in formats
