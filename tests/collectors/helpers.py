"""What the collector tests share: reading a file as a scan does, sorting the records, tallies,
test files, the corpus, and the broken-input checks every format must pass.

Imported as `from helpers import ...` (pytest puts this folder on sys.path).
"""

from __future__ import annotations

import json
import random
import types
import typing
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pytest

from conftest import CORPUS
from toolaudit.collectors.base import Collector
from toolaudit.collectors.discover import EmptyFile, detect
from toolaudit.model import UNPAIRED, ModelText, OutputCap, SessionEnd, SessionInfo, Skipped, ToolCall, ToolMenu, Usage

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
    """An empty file (a session just created): detection gives it to no format (EmptyFile: one benign
    skip); read as `--from`, its records are `expect`, (reason, benign) each."""
    path = write(tmp_path, b"", "empty.jsonl")
    assert detect(path) == (EmptyFile, None)
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



# ------------------------------------------------------------------ odd values: one line lost, never the file

def _fits(value: Any, hint: Any) -> bool:
    """isinstance against a resolved annotation: unions, `tuple[int, ...]`, and no bool for int."""
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return any(_fits(value, a) for a in args)
    if hint is type(None):
        return value is None
    if typing.get_origin(hint) is tuple and args[-1] is not Ellipsis:  # tuple[str, int]: fixed length
        return isinstance(value, tuple) and len(value) == len(args) and all(map(_fits, value, args))
    if typing.get_origin(hint) is tuple:
        return isinstance(value, tuple) and all(_fits(v, args[0]) for v in value)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def check_record_types(out: Iterable) -> list:
    """Every record is one of the model's and each field holds its declared type (a list where a
    string belongs would break measurement, outside any collector's guard). Returns the records."""
    out = list(out)
    for record in out:
        assert type(record) in _HINTS, record
        for name, hint in _HINTS[type(record)].items():
            assert _fits(getattr(record, name), hint), (type(record).__name__, name, getattr(record, name))
    return out


_HINTS = {cls: typing.get_type_hints(cls) for cls in (ToolCall, Skipped, SessionEnd, ModelText, Usage, OutputCap,
                                                          ToolMenu, SessionInfo)}
SHAPE = "unexpected shape: "


def check_odd_values(out: Iterable, calls: list[str], skipped: list[tuple[int, str]]) -> list:
    """A file with odd values on some lines: the good lines' calls are all there (`calls`: their ids,
    in order), each odd line is one Skipped, (line, start of its reason) as `skipped` lists, none
    benign, and every record is well typed. Returns the records."""
    out = check_record_types(out)
    got = [c.call_id for c in kinds(out, ToolCall)]
    assert got == calls, got
    problems = kinds(out, Skipped)
    starts = [r for _, r in skipped] + [""] * len(problems)
    got = [(s.line, s.reason[:len(r)] if s.reason.startswith(r) else s.reason) for s, r in zip(problems, starts)]
    assert got == skipped, got
    assert not any(s.benign for s in problems), problems
    return out


def check_trip(monkeypatch, cls: type[Collector], path: Path, line: int, target: tuple[Any, str] | None = None,
               at: int = 3, generator: bool = False, exc: Exception | None = None) -> list:
    """A reader that trips once on line (or item) `line` of `path`, as a collector bug on odd data would.

    `target` (owner, attribute) is the function made to raise `exc` (default TypeError, unhashable
    list) the first time its positional argument `at` is `line`: by default Pairing.result(self,
    call_id, content, line), so a result written on that line raises; `generator` when it is a
    generator function. That is one Skipped for the line, `unexpected shape: TypeError: ...`; every
    result read without the trip is read with it, but those of that line the trip cost (their calls
    left unpaired). Under --debug (base.DEBUG) the trip is raised instead. Returns the records.
    """
    from toolaudit.collectors import base

    owner, name = target or (base.Pairing, "result")
    exc = exc or TypeError("unhashable type: 'list'")
    clean = records_of(cls, path)
    real = getattr(owner, name)
    tripped: list[bool] = []

    def trips(args: tuple) -> bool:
        if args[at] == line and not tripped:
            tripped.append(True)
            return True
        return False

    if generator:
        def tripping(*args, **kw):
            if trips(args):
                raise exc
            yield from real(*args, **kw)
    else:
        def tripping(*args, **kw):
            if trips(args):
                raise exc
            return real(*args, **kw)
    monkeypatch.setattr(owner, name, tripping)
    out = check_record_types(records_of(cls, path))
    problems = [s for s in kinds(out, Skipped) if s.reason.startswith(SHAPE)]
    assert [(s.line, s.reason) for s in problems] == [(line, f"{SHAPE}{type(exc).__name__}: {exc}")], problems
    assert [s for s in kinds(out, Skipped) if s not in problems] == kinds(clean, Skipped), kinds(out, Skipped)
    answered = [(c.call_id, c.output) for c in kinds(out, ToolCall) if c.status != UNPAIRED]
    before = {(c.call_id, c.output): c.line for c in kinds(clean, ToolCall) if c.status != UNPAIRED}
    assert all(a in before for a in answered), answered
    lost = {a: at_line for a, at_line in before.items() if a not in answered}
    assert lost and set(lost.values()) == {line}, lost  # the trip cost something, and only on its line
    tripped.clear()
    monkeypatch.setattr(base, "DEBUG", True)  # --debug: the trip is raised, not skipped
    with pytest.raises(type(exc)):
        list(cls().collect(path, detected(path, cls)))
    return out


DEEP = "[" * 5000 + "]" * 5000  # valid JSON nested deeper than any parser here goes (RecursionError)


def check_deep_line(tmp_path: Path, cls: type[Collector], before: str, after: str = "") -> list:
    """JSONL text `before`, a line nested 5,000 deep, then `after`: the deep line is one Skipped
    (invalid JSON, not benign, even as the last line), every other line reads as without it."""
    clean = records_of(cls, write(tmp_path, before + after, "clean.jsonl"), forced=True)
    deep = f'{{"type": "user", "toolUseResult": {DEEP}}}'
    number = before.count("\n") + 1
    for ending in ("\n", ""):
        out = check_record_types(records_of(cls, write(tmp_path, before + deep + ending + after, "deep.jsonl"),
                                            forced=True))
        problems = [s for s in kinds(out, Skipped) if s not in kinds(clean, Skipped)]
        assert [(s.line, s.reason, s.benign) for s in problems] == [
            (number, "invalid JSON: nested too deeply to parse (RecursionError)", False)], problems
        got = [(c.call_id, c.output) for c in kinds(out, ToolCall)]
        assert got == [(c.call_id, c.output) for c in kinds(clean, ToolCall)], got
        if after:
            break  # a deep line without its newline is only the last one
    return out


def check_deep_document(tmp_path: Path, cls: type[Collector], name: str = "deep.json", reason: str = "") -> None:
    """A JSON document nested 5,000 deep: detection claims it for no one and read as `--from` it is
    one problem, never a RecursionError: `reason`, by default the line's (a collector that also reads
    JSONL reads a file that is no document line by line), else the document's."""
    path = write(tmp_path, f'{{"messages": {DEEP}}}', name)
    assert detect(path) == (None, None)
    out = check_record_types(records_of(cls, path, forced=True))
    reason = reason or ("invalid JSON" if cls.jsonl else "not a JSON document") + ": nested too deeply to parse"
    assert [(s.reason[:len(reason)], s.benign) for s in kinds(out, Skipped)] == [(reason, False)], out
    assert kinds(out, ToolCall) == []


# ------------------------------------------------------------------ fuzzing (/tmp/review/fuzz.py, bounded and seeded)

# odd values put where the format has others: wrong types, empty ones, a lone surrogate
ODD = [None, 0, -1, 1.5, True, "", "x", [], {}, [1], {"a": 1}, "\ud83d", [[]], [{}], {"type": []}, 1e300, 10**30]


def _paths(obj: Any, at: tuple = ()) -> Iterator[tuple]:
    yield at
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _paths(value, at + (key,))
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            yield from _paths(value, at + (index,))


def _odd(rng: random.Random, value: Any) -> Any:
    """An odd value, or `value` as another JSON type (wrapped, unwrapped, stringified)."""
    if rng.random() < 0.6:
        return json.loads(json.dumps(rng.choice(ODD)))
    if isinstance(value, list):
        return rng.choice([{"0": value}, value[0] if value else None, json.dumps(value)])
    if isinstance(value, dict):
        return rng.choice([[value], list(value.values()), list(value)])
    if isinstance(value, str):
        return rng.choice([[value], {"text": value}, len(value)])
    return rng.choice([[value], str(value)])


def _mutate(rng: random.Random, obj: Any) -> Any:
    """`obj` with one to four of its values (at any depth) replaced by odd ones."""
    for _ in range(rng.choice((1, 1, 2, 4))):
        places = list(_paths(obj))[1:]
        if not places:
            return obj
        place = rng.choice(places)
        parent = obj
        for key in place[:-1]:
            parent = parent[key]
        parent[place[-1]] = _odd(rng, parent[place[-1]])
    return obj


def fuzzed(path: Path, seed: int, rounds: int = 20) -> Iterator[str]:
    """`rounds` texts of `path`, each with odd values put in one line (JSONL) or in the document."""
    rng = random.Random(f"{seed}:{path.name}")
    raw = path.read_text(encoding="utf-8", errors="replace")
    try:
        json.loads(raw)
        lines = None  # one document
    except ValueError:
        lines = raw.splitlines()
    for _ in range(rounds):
        if lines is None:
            yield json.dumps(_mutate(rng, json.loads(raw)))
            continue
        number = rng.randrange(len(lines))
        try:
            obj = json.loads(lines[number])
        except ValueError:
            continue
        yield "\n".join(lines[:number] + [json.dumps(_mutate(rng, obj))] + lines[number + 1:]) + "\n"


def check_fuzzed(tmp_path: Path, path: Path, seed: int = 0, rounds: int = 20) -> None:
    """Odd values anywhere in `path` never cost the file: a scan reads every mutated copy without a
    file-level error, and the collector that claims it (or, forced, the original's) yields only
    well-typed records."""
    from toolaudit.pipeline import FileOptions, scan_file

    original, _ = detect(path)
    for number, text in enumerate(fuzzed(path, seed, rounds)):
        copy = tmp_path / path.name  # the name matters to some collectors (sessions, subagents)
        copy.write_text(text, encoding="utf-8", errors="surrogatepass")
        result = scan_file(copy, FileOptions())
        assert result.error is None or result.error == "no collector recognises this file", (number, result.error)
        for cls in {detect(copy)[0], original} - {None}:
            check_record_types(cls().collect(copy, detect(copy, cls.key)[1]))
