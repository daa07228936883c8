"""Find transcript files (paths, agents' default locations) and detect their format."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import UsageError
from ..model import Skipped
from . import base
from .base import COMPRESSED, Collector, collectors, load_document, loads, open_source
from .reading import TooMuchDecompressed, skip_blank
from ..storage import RemotePath

# Directory walks look at these, compressed or not; a file named explicitly is always tried.
SUFFIXES = tuple(kind + packed for kind in (".jsonl", ".json", ".traj") for packed in ("", *COMPRESSED))
# The first parseable record is looked for in this window: NeMo and OpenHands lines pass 8 MiB,
# and a cut or broken first line must not cost the file.
_SNIFF_LINES = 64
_SNIFF_BYTES = 256 * 1024 * 1024


def default_locations() -> list[Path]:
    """The agents' default transcript folders, whether or not they exist."""
    home = Path.home()
    places = [home / ".claude" / "projects"]
    if os.environ.get("CLAUDE_CONFIG_DIR"):
        places.append(Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects")
    codex_home = os.environ.get("CODEX_HOME")
    places.append(Path(codex_home) / "sessions" if codex_home else home / ".codex" / "sessions")
    places.append(home / ".gemini" / "tmp")
    places.append(home / ".openhands" / "conversations")  # OpenHands CLI (V1)
    return places


def iter_files(paths: list[Path | RemotePath], problems: list[str] | None = None) -> Iterator[Path | RemotePath]:
    """Every file under `paths`, sorted, recursing into directories; a missing path is a usage error.

    A directory that cannot be read is reported into `problems` and passed over. Object-storage
    URLs (RemotePath) are listed once, recursively, and ordered as local folders are.
    """
    def unreadable(exc: OSError) -> None:
        if problems is not None:
            problems.append(f"{exc.filename}: cannot read: {exc.strerror or exc}")

    for path in paths:
        if not path.exists():
            raise UsageError(f"no such file or directory: {path}", slug="missing-path")
    for path in paths:
        remote = isinstance(path, RemotePath)
        if path.is_dir():
            if remote:
                found = [file for file in path.walk_files() if file.name.endswith(SUFFIXES)]
            else:
                found, regular = [], set()
                for folder, entries in _walk(path, unreadable):
                    for entry in entries:
                        if entry.name.endswith(SUFFIXES):
                            found.append(folder / entry.name)
                            if _regular(entry):
                                regular.add(entry.path)
            # a subagent's own file before its parent's, so its records win over the copies
            # the parent carries in progress lines (the scan keeps the first copy of a call)
            order = _Order()
            for file in sorted(_walked(found), key=order):
                # a FIFO or socket named *.jsonl would block the read (the walk's entry says which is which)
                if remote or str(file) in regular or file.is_file():
                    yield file
                elif problems is not None:
                    problems.append(f"{file}: not a regular file, passed over")
        elif path.is_file():
            yield path
        elif problems is not None:
            problems.append(f"{path}: not a regular file, passed over")


def _walked(found: list[Path]) -> list[Path]:
    """The files of a folder walk that are read as files of their own (Collector.walked)."""
    for cls in walkers() if found else ():
        found = cls.walked(found)
    return found


@cache
def walkers() -> tuple[type[Collector], ...]:
    """The collectors whose `walked` may change a walk (and whose `stands_for` may name a file's others): the
    built-ins of WALKERS, imported alone, and any plugin's (whose code is only known once loaded: then every
    collector is loaded, in registry order). Worked out once: the scan cache asks it of every file."""
    from . import WALKERS
    from ..registry import entry_points_of

    if entry_points_of(collectors.group):
        return tuple(cls for cls in collectors.all().values()
                     if cls.walked.__func__ is not Collector.walked.__func__
                     or cls.stands_for.__func__ is not Collector.stands_for.__func__)
    return tuple(collectors.builtin(name.replace("_", "-")) for name in WALKERS)


def _walk(top: Path, onerror: Callable[[OSError], None]) -> Iterator[tuple[Path, list]]:
    """(folder, its file entries) for `top` and every folder below it, in name order, as os.walk walks (links
    to folders are not followed): the entries say which are regular files without a stat each."""
    try:
        with os.scandir(top) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        onerror(exc)
        return
    folders, files = [], []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        (folders if is_dir else files).append(entry)
    yield top, files
    for entry in folders:
        if not entry.is_symlink():
            yield from _walk(top / entry.name, onerror)


def _regular(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


class _Order:
    """Path order, except that `agent-*` files come first among their siblings (a folder's parts worked out
    once for all its files)."""

    def __init__(self) -> None:
        self._folders: dict[Path, tuple] = {}

    def __call__(self, path: Path) -> tuple:
        parent = path.parent
        head = self._folders.get(parent)
        if head is None:
            head = self._folders[parent] = tuple((1, part) for part in parent.parts)
        return head + ((0 if path.name.startswith("agent-") else 1, path.name),)



class EmptyFile(Collector):
    """What detection gives an empty (or blank) file: one benign "empty file" skip, never an
    unrecognised file. Not registered: nobody asks for it with `--from`."""

    key = "empty"
    description = "an empty file"

    def collect(self, path: Path, doc: Any = None) -> Iterator[Skipped]:
        """The one benign skip."""
        yield Skipped(str(path), 0, "empty file", benign=True)


@dataclass(frozen=True)
class _Sniff:
    """What the first lines of a file say (see _sniff)."""

    start: bytes = b""  # the first non-blank line's first bytes, stripped
    record: Any = None  # the first record that parses, within the window
    first: bool = False  # ... and it is the first non-blank line
    more: bool = False  # non-blank content follows that record
    owner: type[Collector] | None = None  # the JSONL collector that claimed a record of the window

    @property
    def lines(self) -> bool:
        """A record parsed, and not inside a pretty-printed document (whose inner lines may parse alone)."""
        return self.record is not None and not _bare_brace(self.start)


def _bare_brace(start: bytes) -> bool:
    """The first line opens a pretty-printed document: its inner lines are not records."""
    return start.rstrip() in (b"{", b"[")


def _line_owner(record: Any) -> type[Collector] | None:
    """The first JSONL collector (registry order) whose sniff claims `record`, or None."""
    if not isinstance(record, dict):
        return None
    for cls in collectors.all().values():
        if cls.jsonl and _claims(cls.sniff_line, record):
            return cls
    return None


def _typed(record: Any) -> bool:
    """A typed line (`{"type": "...", ...}`): of a line-typed format, perhaps of a type added since."""
    return isinstance(record, dict) and isinstance(record.get("type"), str)


def _sniff(path: Path, claim: Callable[[Any], type[Collector] | None] | None = None) -> _Sniff:
    """The first parseable record among the first `_SNIFF_LINES` non-blank lines, reading at most
    `_SNIFF_BYTES`, line by line: a long line is read once, the rest of the file never.

    With `claim`, a file is known by what it holds: typed records nobody claims (a line type no
    collector knows, such as the metadata lines new agent versions put first) are read past, within
    the same window, until one is claimed; an untyped record nobody claims ends the look.
    """
    budget, start, seen, found = _SNIFF_BYTES, b"", 0, None
    with open_source(path) as fh:
        try:
            while seen < _SNIFF_LINES and budget > 0:
                raw = fh.readline(budget)
                if not raw:
                    break
                budget -= len(raw)
                if seen == 0 and raw.startswith(base.BOM):
                    raw = raw[len(base.BOM):]
                if not raw.strip():
                    skip_blank(fh)  # the blank run after it at once; not counted in the window: it parses nothing
                    continue
                seen += 1
                start = start or raw.lstrip()[:16]
                if found is not None:
                    found = replace(found, more=True)
                if not raw.endswith(b"\n") and budget <= 0:
                    break  # longer than the window: not read to its end
                try:
                    record = loads(raw)
                except Exception:  # noqa: BLE001 -- a cut or broken line: look at the next one
                    continue
                if found is None:
                    found = _Sniff(start, record, seen == 1)
                    if claim is None or _bare_brace(start):
                        try:
                            more = bool(fh.read(4096).strip())
                        except base.DECOMPRESS_ERRORS:
                            more = True  # something follows, if only a broken stream
                        return replace(found, more=more)
                owner = claim(record)
                if owner is not None:
                    return replace(found, more=True, owner=owner)
                if not _typed(record):
                    break  # an untyped record nobody claims: the first one decides, as ever
        except base.DECOMPRESS_ERRORS as exc:
            if not start:  # not one line could be decompressed: the file is unreadable, not empty
                bound = isinstance(exc, TooMuchDecompressed)  # blank up to the bound: no bad data
                raise OSError(str(exc) if bound else f"bad compressed data: {exc}") from exc
    return found or _Sniff(start)


def _document(path: Path, sniff: _Sniff) -> Any:
    """The file as one JSON document, or None when it is not one."""
    if sniff.record is not None and sniff.first and not sniff.more:
        return sniff.record
    if sniff.start[:1] not in (b"{", b"[") or (sniff.record is not None and sniff.first):
        return None  # a parsed first line with more after it: lines, not a document
    try:
        return load_document(path)
    except ValueError:
        return None


def _claims(sniff: Callable[[Any], bool], value: Any) -> bool:
    """What a sniffer says; one that trips on an odd value (a list where a string belongs) says no."""
    try:
        return bool(sniff(value))
    except Exception:  # noqa: BLE001 -- odd data: not this format
        if base.DEBUG:
            raise
        return False


def detect(path: Path, forced: str | None = None) -> tuple[type[Collector] | None, Any]:
    """The collector for `path` and, when it is read as one document, the parsed document.

    Judges JSONL formats from the keys of the first record a collector claims, within the sniffing
    window (a cut or broken line, or a line type nobody knows, costs that line only), whole-file JSON from the document's top-level shape
    (formats.md §0). An empty or blank file is `EmptyFile`'s; (None, None) when nothing fits.
    A collector may read both shapes (a JSON list of runs, or one run per line).
    """
    if forced is None:
        for cls in collectors.all().values():
            if cls.owns_path(path):
                return cls, None  # a piece of a layout the collector reads whole
    sniff = _sniff(path, None if forced else _line_owner)
    if forced:
        cls = collectors.get(forced)
        jsonl = cls.jsonl and sniff.lines and (sniff.more or not cls.document)
        return cls, (None if jsonl else _document(path, sniff))
    if not sniff.start:
        return EmptyFile, None
    if sniff.owner is not None:
        return sniff.owner, None
    doc = _document(path, sniff)
    if doc is None:
        return None, None
    for cls in collectors.all().values():
        if cls.document and _claims(cls.sniff_doc, doc):
            return cls, doc
    return None, None
