"""What the collector tests share: reading a file as a scan does, sorting the records, tallies,
test files, the corpus, and the broken-input checks every format must pass.

Imported as `from helpers import ...` (pytest puts this folder on sys.path).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable

import pytest

from conftest import CORPUS
from toolaudit.collectors.base import Collector
from toolaudit.collectors.discover import detect
from toolaudit.model import SessionEnd, Skipped, ToolCall, Usage

# binary junk: NUL, invalid UTF-8, a PNG header, brackets that open nothing
JUNK = b"\x00\xff\xfe\x89PNG\r\n\x1a\n\xc3\x28[[[\n"
# a PNG's first bytes, then every byte value: lines of binary
PNG_JUNK = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\xfd\n" + bytes(range(256)) + b"\n"


# ------------------------------------------------------------------ reading and sorting records

def kinds(out: Iterable, kind: type | tuple[type, ...]) -> list:
    """The records of one type (or of any of several)."""
    return [r for r in out if isinstance(r, kind)]


def split(out: Iterable, usage: bool = False, rest: type | tuple[type, ...] | None = None) -> tuple[list, ...]:
    """(calls, skipped, ends), then usage when `usage`. With `rest`, every other record must be
    one of those types: nothing the collector yields goes unnoticed."""
    out = list(out)
    parts = (kinds(out, ToolCall), kinds(out, Skipped), kinds(out, SessionEnd))
    if usage:
        parts += (kinds(out, Usage),)
    if rest is not None:
        assert sum(len(p) for p in parts) + len(kinds(out, rest)) == len(out)
    return parts


def detected(path: Path, cls: type[Collector], forced: bool = False, document: bool = False) -> Any:
    """detect() as a scan calls it (forced: as `--from <cls.key>`), which must pick `cls`;
    returns the parsed document, or None for a JSONL file (with `document`, there must be one)."""
    found, doc = detect(path, cls.key if forced else None)
    assert found is cls, path
    assert doc is not None or not document, path
    return doc


def records_of(cls: type[Collector], path: Path, forced: bool = False) -> list:
    """Every record of `path` as a scan gets them: detection first (see `detected`)."""
    return list(cls().collect(path, detected(path, cls, forced)))


# ------------------------------------------------------------------ tallies

def per_tool(calls: Iterable[ToolCall]) -> dict[str, tuple[int, int]]:
    """tool -> (records, output chars)."""
    out: dict[str, tuple[int, int]] = {}
    for c in calls:
        n, chars = out.get(c.tool, (0, 0))
        out[c.tool] = (n + 1, chars + len(c.output))
    return out


def totals(calls: Iterable[ToolCall]) -> tuple[dict[str, int], dict[str, int]]:
    """The same tally as two dicts: ({tool: records}, {tool: output chars})."""
    tally = per_tool(calls)
    return {t: n for t, (n, _) in tally.items()}, {t: chars for t, (_, chars) in tally.items()}


# ------------------------------------------------------------------ test files

def jsonl(*items: Any) -> str:
    """One line per item: strings as written (broken lines on purpose), anything else as JSON."""
    return "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in items)


def writer(default_name: str, dump: Callable[[Any], str] | None = None) -> Callable[..., Path]:
    """A `write(tmp_path, content, name=default_name) -> Path` for one format's test files.

    Bytes are written as they are; anything else goes through `dump` first (when given) and is
    written as UTF-8, lone surrogates kept (surrogatepass), so broken text can be written on purpose.
    The name matters where a session is named after the file.
    """
    def write(tmp_path: Path, content: Any, name: str = default_name) -> Path:
        if not isinstance(content, bytes):
            text = dump(content) if dump is not None else content
            content = text.encode("utf-8", "surrogatepass")
        path = tmp_path / name
        path.write_bytes(content)
        return path

    return write


def lines_writer(default_name: str) -> Callable[..., Path]:
    """writer() for a list of items, one line each (see jsonl)."""
    return writer(default_name, lambda items: jsonl(*items))


write = writer("log.jsonl")


# ------------------------------------------------------------------ the real corpus (../shared/corpus)

def corpus_path(rel: str = "") -> Path:
    """CORPUS / rel, or a skip that says why: conftest's `corpus` fixture, callable anywhere."""
    if not CORPUS.is_dir():
        pytest.skip(f"real corpus not found at {CORPUS} (../shared/corpus beside the repo)")
    return CORPUS / rel


def corpus_files(folder: str, pattern: str = "**/*") -> list[Path]:
    """The files under CORPUS/folder that match `pattern`, sorted; none without the corpus."""
    root = CORPUS / folder
    return sorted(p for p in root.glob(pattern) if p.is_file()) if root.is_dir() else []


def each_path(files: list[Path], ids: Callable[[Path], str] = lambda p: p.name):
    """Parametrize a test's `path` over `files`; without them, one `no-corpus` case (see corpus_file)."""
    return pytest.mark.parametrize("path", files or [None], ids=lambda p: ids(p) if p else "no-corpus")


def corpus_file(path: Path | None) -> Path:
    """A parametrized corpus file, or a skip for the `no-corpus` case."""
    if path is None:
        pytest.skip(f"real corpus not found at {CORPUS} (../shared/corpus beside the repo)")
    return path


# ------------------------------------------------------------------ broken input

def live_copy(tmp_path: Path, sample: Path, last: bytes | int) -> Path:
    """A JSONL sample still being written: its last line replaced by `last`, or cut to its first `last` bytes."""
    raw = sample.read_bytes()
    kept = raw.rstrip(b"\n")
    tail = kept.rsplit(b"\n", 1)[1]
    path = tmp_path / "live.jsonl"
    path.write_bytes(raw[: kept.rfind(b"\n") + 1] + (tail[:last] if isinstance(last, int) else last))
    return path


def check_truncated_line(tmp_path: Path, cls: type[Collector], record: Any, cut: int) -> list:
    """A file still being written: `record` on a line, then again cut after `cut` chars. The whole
    line's one call is read; the cut line is one benign problem. Returns the records."""
    text = json.dumps(record)
    out = records_of(cls, write(tmp_path, text + "\n" + text[:cut]))
    assert len(kinds(out, ToolCall)) == 1 and [(s.line, s.benign) for s in kinds(out, Skipped)] == [(2, True)]
    return out


def check_truncated_document(tmp_path: Path, cls: type[Collector], sample: Path, size: int) -> None:
    """A JSON document cut after `size` chars: detection claims it for no one; read as `--from`,
    it is one problem, not one per line."""
    path = tmp_path / ("cut" + "".join(sample.suffixes))
    path.write_text(sample.read_text()[:size])
    assert detect(path) == (None, None)
    out = list(cls().collect(path))  # forced
    assert len(out) == 1 and out[0].reason.startswith("not a JSON document") and not out[0].benign


def check_empty(tmp_path: Path, cls: type[Collector],
                expect: Iterable[tuple[str, bool]] = (("empty file", True),)) -> None:
    """An empty file (a session just created): detection claims it for no one; read as `--from`,
    its records are `expect`, (reason, benign) each."""
    path = write(tmp_path, b"", "empty.jsonl")
    assert detect(path) == (None, None)
    assert [(s.reason, s.benign) for s in records_of(cls, path, forced=True)] == list(expect)


def check_junk(tmp_path: Path, cls: type[Collector], data: bytes = JUNK, reason: str = "invalid JSON") -> list:
    """Binary junk: detection claims it for no one; read as `--from`, no call and nothing but
    problems (and the session's end), each one saying `reason`, none benign. Returns the records."""
    path = write(tmp_path, data, "junk.json")
    assert detect(path) == (None, None)
    out = records_of(cls, path, forced=True)
    skipped = kinds(out, Skipped)
    assert skipped and len(skipped) + len(kinds(out, SessionEnd)) == len(out)
    assert all(reason in s.reason and not s.benign for s in skipped)
    return out


def lone_surrogate_calls(tmp_path: Path, cls: type[Collector], text: str) -> list[ToolCall]:
    """`text` holds lone-surrogate escapes (json.dumps writes them for "\\ud83d"): read without a
    problem. Returns the calls, whose outputs keep the surrogate as read."""
    out = records_of(cls, write(tmp_path, text, "lone.json"))
    assert kinds(out, Skipped) == []
    return kinds(out, ToolCall)

