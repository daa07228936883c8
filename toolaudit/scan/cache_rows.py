"""The scan cache's entries: a file's result as rows of field values, and back (never output or argument text)."""

from __future__ import annotations

import orjson

from ..model import FileResult, Measurement, MenuMeasurement, Skipped, Usage

UNRECOGNISED = "no collector recognises this file"  # pipeline.scan_file's error: a fact about the file, kept


def encode(result: FileResult) -> bytes:
    """A file's result as cache bytes: rows of field values (previews and heads are never in it)."""
    return orjson.dumps({
        "c": result.collector, "e": result.error, "r": result.checkpoint,
        "m": [row_fields(m, Measurement) for m in result.measurements],
        "s": [row_fields(s, Skipped) for s in result.skipped],
        "u": [row_fields(u, Usage) for u in result.usage],
        "n": [row_fields(n, MenuMeasurement) for n in result.menus],
        "p": [list(pair) for pair in result.sessions],
    })


def row_fields(item, cls) -> list:
    """A row's field values in its class's field order (how the cache and scan.parts store rows)."""
    return [getattr(item, name) for name in cls.__dataclass_fields__]


def measurement(row: list) -> Measurement:
    """A Measurement of its cached fields."""
    return Measurement(*row[:-1], tool_refs=tuple(row[-1]))


def menu(row: list) -> MenuMeasurement:
    """A MenuMeasurement of its cached fields."""
    return MenuMeasurement(*row[:6], tuple(tuple(t) for t in row[6]), *row[7:])


def decode(source: str, data: bytes) -> FileResult:
    """The FileResult of cache bytes (ValueError/TypeError when they are not what encode wrote)."""
    doc = orjson.loads(data)
    rows = tuple(measurement(row) for row in doc["m"])
    if any(not isinstance(row.tokens, int) for row in rows):
        raise ValueError("a row without a count")
    menus = tuple(menu(row) for row in doc["n"])
    sessions = tuple((session, project) for session, project in doc["p"])
    if any(not isinstance(value, str) for pair in sessions for value in pair):
        raise ValueError("a session's project that is not a name")
    return FileResult(source, doc["c"], rows, tuple(Skipped(*row) for row in doc["s"]), doc["e"],
                      tuple(Usage(*row) for row in doc["u"]), menus, checkpoint=doc.get("r"), sessions=sessions)


def cacheable(result: FileResult) -> bool:
    """True for what depends on the file's bytes alone: not a read error that may pass."""
    return result.error is None or result.error == UNRECOGNISED
