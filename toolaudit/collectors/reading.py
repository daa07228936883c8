"""Reading a transcript file: its compression, its lines (streamed) or its one document, parsed leniently."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import threading
import zlib
from pathlib import Path
from typing import Any, BinaryIO, Iterator

import orjson
import zstandard

from ..model import Skipped

# Whole-file JSON formats are parsed in one go; bigger documents are refused, not risked.
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024
# One line is read whole to be parsed: past this (TOOLAUDIT_MAX_LINE_BYTES) it is passed over, read in pieces and
# never kept, and reported; a 68 KB .zst holding one 2 GiB line must not take 6 GB of memory.
MAX_LINE_BYTES = int(os.environ.get("TOOLAUDIT_MAX_LINE_BYTES") or 256 * 1024 * 1024)
# A compressed file is decompressed up to this many bytes (TOOLAUDIT_MAX_DECOMPRESSED_BYTES), then read no further
# and reported: a 1 MB .zst can hold 32 GiB (a minute of decompression) and real transcripts are far smaller.
MAX_DECOMPRESSED_BYTES = int(os.environ.get("TOOLAUDIT_MAX_DECOMPRESSED_BYTES") or 4 << 30)
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark some writers put first: not part of the first record


# How many lenient parses this process has made: orjson refuses lone surrogates, so only the
# standard library's parse (loads' fallback) can let one into a text. Only ever grows (the lock:
# two threads' `+= 1` could otherwise move it back to a value a reader took before).
LENIENT = [0]
LENIENT_LOCK = threading.Lock()


class TooDeep(ValueError):
    """JSON nested deeper than the parsers go (orjson stops at 1024 levels, the standard
    library at the interpreter's recursion limit): valid, perhaps, but not readable here."""


def loads(raw: bytes | str) -> Any:
    """Parse JSON with orjson, falling back to the standard library; any failure is a ValueError.

    orjson rejects lone-surrogate escapes such as "\\ud83d" that real transcripts
    contain; the standard library accepts them (Collector.records cleans them).
    Nesting too deep for either parser raises TooDeep, never RecursionError.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", "replace")  # invalid UTF-8: decoded with replacement
        with LENIENT_LOCK:
            LENIENT[0] += 1
        try:
            return json.loads(raw)
        except RecursionError:
            raise TooDeep("nested too deeply to parse (RecursionError)") from None


# Compressed transcripts are read as they are stored, told apart by their first bytes.
GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
COMPRESSED = (".gz", ".zst")


def open_source(path: Path) -> BinaryIO:
    """Open a transcript for reading bytes, a gzip or zstandard one decompressed as it is read.

    Every collector opens files through here, so `x.jsonl.gz` reads as `x.jsonl` everywhere.
    A compressed stream that ends early raises `EOFError` where it ends (see DECOMPRESS_ERRORS).
    `path` may be an object-storage RemotePath (toolaudit.storage), opened once and peeked.
    """
    return _decompressed(path.open("rb") if not isinstance(path, Path) else open(path, "rb"))


def _decompressed(fh: BinaryIO) -> BinaryIO:
    """`fh` (seekable, at its start), decompressed as open_source does by its first bytes; closing the
    result closes `fh`."""
    magic = fh.read(4)
    fh.seek(0)
    if magic.startswith(GZIP_MAGIC):
        reader: Any = gzip.GzipFile(fileobj=fh, mode="rb")
        reader.myfileobj = fh  # closed with it, as gzip.open(name) closes the file it opened
    elif magic == ZSTD_MAGIC:
        reader = _Zstd(fh)
    else:
        return fh
    # read through a 1 MiB buffer: GzipFile's own readline and 8 KiB peek cost a Python call per line and
    # per 8 KiB (a run of blank lines is passed over a buffer at a time: skip_blank)
    return io.BufferedReader(_Bounded(reader, MAX_DECOMPRESSED_BYTES), buffer_size=1 << 20)  # type: ignore


class TooMuchDecompressed(ValueError):
    """A compressed file whose content runs past MAX_DECOMPRESSED_BYTES: read no further."""


class _Bounded(io.RawIOBase):
    """A decompressed stream that raises TooMuchDecompressed once more than `limit` bytes came out of it."""

    def __init__(self, inner: Any, limit: int):
        self._inner, self._limit, self._out = inner, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if isinstance(self._inner, gzip.GzipFile):  # read1: what one read gives; its readinto waits for a whole
            data = self._inner.read1(len(buffer))  # buffer, and a stream cut short would lose what came before
            n = len(data)
            buffer[:n] = data
        else:
            n = self._inner.readinto(buffer)
        self._out += n or 0
        if self._out > self._limit:
            raise TooMuchDecompressed(f"over {self._limit:,} bytes decompressed (TOOLAUDIT_MAX_DECOMPRESSED_BYTES): "
                                      "read no further")
        return n

    def seekable(self) -> bool:
        return self._inner.seekable()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._inner.seek(offset, whence)

    def tell(self) -> int:
        return self._inner.tell()

    def close(self) -> None:
        self._inner.close()
        super().close()


# Compressed bytes handed to zstandard at a time: a byte can stand for up to ~32,768 (RLE blocks), so a 64 KiB
# feed could make 2 GiB at once; 512 bytes make at most 16 MiB, and cost nothing measurable on real files.
_ZSTD_FEED = 512


class _Zstd(io.RawIOBase):
    """A zstandard file decompressed frame after frame; a cut last frame is an EOFError, not silence
    (zstandard's own stream reader returns what it has and says nothing)."""

    def __init__(self, fh: BinaryIO):
        self._fh, self._new = fh, zstandard.ZstdDecompressor().decompressobj
        self._frame: Any = None
        self._fed = False  # the current frame has had input
        self._out, self._at = b"", 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while self._at >= len(self._out):
            rest = b""
            if self._frame is None or self._frame.eof:
                rest = self._frame.unused_data if self._frame is not None else b""
                self._frame, self._fed = self._new(), False
            chunk = rest or self._fh.read(_ZSTD_FEED)
            if not chunk:
                if self._fed:
                    raise EOFError("zstandard file ended before the end of its frame")
                return 0
            self._fed = True
            self._out, self._at = self._frame.decompress(chunk), 0
        n = min(len(buffer), len(self._out) - self._at)
        buffer[:n] = self._out[self._at:self._at + n]
        self._at += n
        return n

    def close(self) -> None:
        self._fh.close()
        super().close()


# what a compressed file that ends early, or is no valid stream, raises while it is read
DECOMPRESS_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error, zstandard.ZstdError, TooMuchDecompressed)


def plain_name(path: Path) -> str:
    """The file's name without a compression suffix: `a.jsonl.gz` -> `a.jsonl` (sessions named
    after their file keep their name when it is compressed)."""
    name = path.name
    for suffix in COMPRESSED:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[:-len(suffix)]
    return name


def file_stem(path: Path) -> str:
    """`path.stem` of the uncompressed name: `a.jsonl.gz` -> `a`."""
    return Path(plain_name(path)).stem


def read_lines(path: Path, start: tuple[int, int] = (0, 0), at: list | None = None) -> Iterator[tuple[int, Any]]:
    """Stream a JSONL file: (line number, parsed object or Skipped). Blank lines are passed over.

    Invalid UTF-8 is decoded with replacement. A last line without its newline that
    does not parse is a session still being written: reported, marked benign. Whatever
    else keeps a line from parsing (nesting too deep, ...) skips that line only. A
    compressed file that ends early (or is no valid stream) is one problem where it breaks.

    `start` = (byte offset, lines before it) resumes a file read before (a checkpoint); `at`, when
    given, holds [the offset after the last whole line read, its number, whether the last line read was
    whole] as the lines go by: a place to resume from, when the last line read was whole.
    """
    offset, number = start
    limit = MAX_LINE_BYTES
    with open_source(path) as fh:
        if offset:
            fh.seek(offset)
        readline = fh.readline  # with a size: a line is never read past the limit (bounded_lines, inlined)
        while True:
            try:
                raw = readline(limit + 1)
                if len(raw) > limit and not (raw.endswith(b"\n") and len(raw) == limit + 1):
                    raw = _pass_over(readline, len(raw))
            except DECOMPRESS_ERRORS as exc:
                yield number + 1, Skipped(str(path), number + 1, f"cannot decompress: {_short(exc)}")
                return
            if not raw:
                return
            number += 1
            cut = False  # a last line still being written
            if at is not None:
                offset += raw if isinstance(raw, int) else len(raw)
                cut = not isinstance(raw, int) and not raw.endswith(b"\n")
                at[:] = [at[0], at[1], False] if cut else [offset, number, True]
            if isinstance(raw, int):
                yield number, Skipped(str(path), number, f"line of {raw:,} bytes, over the {limit:,} bytes a line "
                                                         "may have (TOOLAUDIT_MAX_LINE_BYTES): passed over")
                continue
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM):]
            if raw.isspace():  # not strip(): that copies every line to look at its first byte
                if cut:  # blank: it changes nothing either
                    at[2] = True
                    continue
                try:  # the blank lines that follow, passed over at once (still counted, for file:line)
                    size, lines = skip_blank(fh)
                except DECOMPRESS_ERRORS as exc:
                    yield number + 1, Skipped(str(path), number + 1, f"cannot decompress: {_short(exc)}")
                    return
                number += lines
                if at is not None and lines:
                    offset += size
                    at[:] = [offset, number, True]
                continue
            parsed = _parse_line(path, number, raw)
            if cut and isinstance(parsed, Skipped):  # a cut line that does not parse changes nothing: the
                at[2] = True  # next read may start before it
            yield number, parsed


def bounded_lines(fh: BinaryIO, limit: int | None = None) -> Iterator[bytes | int]:
    """`fh`'s lines, each at most `limit` bytes (MAX_LINE_BYTES); a longer one is read on in 1 MiB pieces
    that are dropped at once, and yields its length instead (memory stays bounded whatever the line)."""
    limit = MAX_LINE_BYTES if limit is None else limit
    readline = fh.readline
    while True:
        raw = readline(limit + 1)
        if not raw:
            return
        if len(raw) <= limit or raw.endswith(b"\n") and len(raw) == limit + 1:
            yield raw
            continue
        yield _pass_over(readline, len(raw))


def _pass_over(readline, size: int) -> int:
    """Read the rest of a line that is too long in 1 MiB pieces, keeping none; its whole length."""
    while True:
        piece = readline(1 << 20)
        size += len(piece)
        if not piece or piece.endswith(b"\n"):
            return size


# the first byte that bytes.isspace() does not call blank (bytes.lstrip(chars) is a slow loop by comparison)
_NOT_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")
_PEEK = 1 << 20


def skip_blank(fh: BinaryIO) -> tuple[int, int]:
    """Pass over the blank lines at `fh`'s position a buffer at a time, with no readline and no JSON per line:
    (bytes, newlines) passed. It stops after the last newline before other bytes, so the next readline reads a
    whole line. A gzip of 1 GiB of newlines took 109 s line by line; a run of blank lines now costs what its
    decompression costs. A file object that cannot peek (some object-storage files) is read on line by line."""
    peek = getattr(fh, "peek", None)
    if peek is None:
        return 0, 0
    size = lines = 0
    while True:
        chunk = peek(_PEEK)
        other = None if chunk.isspace() else _NOT_BLANK.search(chunk)
        end = chunk.rfind(b"\n", 0, len(chunk) if other is None else other.start()) + 1  # the blank run's lines
        if end == 0:
            return size, lines
        lines += chunk.count(b"\n", 0, end)
        size += len(fh.read(end))  # already buffered: no decompression, a copy of at most _PEEK bytes
        if other is not None or not chunk:
            return size, lines


def raw_lines(path: Path) -> Iterator[bytes]:
    """The file's non-blank lines as bytes, unparsed (a quick first pass: a run of blank lines is passed over
    at once, see skip_blank); a compressed stream that breaks ends them there, quietly: read_lines reports it."""
    with open_source(path) as fh:
        try:
            for raw in bounded_lines(fh):
                if isinstance(raw, int):
                    yield b"\n"  # a line too long to read: a blank one here
                elif raw.isspace():
                    skip_blank(fh)
                else:
                    yield raw
        except DECOMPRESS_ERRORS:
            return


def pretty_document(path: Path, doc: Any = None) -> Any:
    """`doc`, else the file's document when its first non-blank line opens a pretty-printed one
    (a Skipped when that document cannot be read), else None: the file is read as lines.

    For formats read as JSONL only when forced: a broken document is one problem, not one per line.
    """
    if doc is not None:
        return doc
    for raw in raw_lines(path):
        if raw.strip():
            return read_document(path, None) if raw.strip() in (b"{", b"[") else None
    return None


def _parse_line(path: Path, number: int, raw: bytes) -> Any:
    """One JSONL line parsed, or the Skipped that says why not (see read_lines)."""
    try:
        return loads(raw)
    except TooDeep as exc:
        return Skipped(str(path), number, f"invalid JSON: {_short(exc)}")
    except ValueError as exc:
        if not raw.endswith(b"\n"):
            return Skipped(str(path), number, "truncated last line (file still being written?)", benign=True)
        return Skipped(str(path), number, f"invalid JSON: {_short(exc)}")
    except Exception as exc:  # noqa: BLE001 -- one line the parsers choke on, not the file
        return Skipped(str(path), number, f"invalid JSON: {type(exc).__name__}: {_short(exc)}")


def read_bytes(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The whole (decompressed) file; ValueError when it is over `limit` bytes or cannot be decompressed."""
    try:
        with open_source(path) as fh:
            raw = fh.read(limit + 1)
    except DECOMPRESS_ERRORS as exc:
        raise ValueError(f"cannot decompress: {_short(exc)}") from None
    if len(raw) > limit:
        raise ValueError(f"over the {limit} bytes limit for one JSON document")
    return raw[len(BOM):] if raw.startswith(BOM) else raw


def load_document(path: Path) -> Any:
    """Parse a whole-file JSON document (orjson, standard-library fallback)."""
    return loads(read_bytes(path))


def read_document(path: Path, doc: Any) -> Any:
    """`doc`, else the file parsed as one JSON document, else a Skipped that says why not."""
    if doc is not None:
        return doc
    try:
        raw = read_bytes(path)
        if not raw or raw.isspace():
            return Skipped(str(path), 0, "empty file", benign=True)
        return loads(raw)
    except ValueError as exc:
        return Skipped(str(path), 1, f"not a JSON document: {_short(exc)}")


def _short(exc: BaseException) -> str:
    lines = str(exc).splitlines()
    return lines[0][:120] if lines else type(exc).__name__


# Set by the scan's --debug: odd data raises where it trips a reader, instead of being skipped.
