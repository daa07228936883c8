"""`--records PATH`: one row per call, as CSV or Parquet, written as files are folded in.

Rows are written in groups of ROWS_PER_GROUP as the scan keeps them (recording), so no
corpus needs all its rows in memory at once. Targets:
- `calls.csv` / `calls.parquet`: one file, written beside its name and renamed when whole (files.atomic_path);
- a path without a suffix, local or in object storage (`s3://bucket/out/`): a Parquet dataset
  folder, one `part-NNNNN.parquet` per group and `_SUCCESS` when the scan ends well;
- `s3://bucket/calls.parquet`: one object, uploaded and made visible only when whole.
Parquet columns are typed (timestamps as UTC timestamps, counts as int64, flags as bool), and
the schema's metadata holds `toolaudit`: {version, tokenizer, tokenizer_label,
engine, schema_version}.
"""

from __future__ import annotations

import csv
import io
import json
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .. import __version__
from .periods import when_of
from ..storage import RemotePath, filesystem
from ..errors import ToolauditError, UsageError
from ..model import SCHEMA_VERSION, Measurement
from ..files import atomic_path, atomic_write

COLUMNS = tuple(Measurement.__dataclass_fields__)
ROWS_PER_GROUP = 65_536  # one Parquet row group (or dataset part): ~10-20 MB of rows in memory at most
PART = "part-{:05d}.parquet"
SUCCESS = "_SUCCESS"  # written last into a dataset folder (readers skip names starting with `_`)
# Parquet types of the columns that are not strings
_TYPES = {"line": "int64", "ts": "timestamp", "is_error": "bool", "agent_truncated": "bool", "chars": "int64",
          "bytes": "int64", "lines": "int64", "tokens": "int64", "images": "int64", "image_bytes": "int64",
          "call_index": "int64", "request_index": "int64", "segment": "int64", "residency": "int64"}


@dataclass(frozen=True)
class RecordsMeta:
    """Who measured the rows: stored in every Parquet file's metadata."""

    tokenizer: str
    engine: str
    tokenizer_label: str = ""
    version: str = __version__
    schema_version: int = SCHEMA_VERSION


def cell(row: Measurement, name: str) -> Any:
    """One column's value of a row: a tuple of names (tool_refs) as one comma-joined string, None when empty."""
    value = getattr(row, name)
    if isinstance(value, tuple):
        return ",".join(value) or None
    return value


def arrow_schema(meta: RecordsMeta):
    """The typed Parquet schema of the rows, with `meta` under the `toolaudit` metadata key."""
    import pyarrow as pa

    kinds = {"int64": pa.int64(), "bool": pa.bool_(), "timestamp": pa.timestamp("us", tz="UTC")}
    fields = [pa.field(name, kinds[_TYPES[name]] if name in _TYPES else pa.string()) for name in COLUMNS]
    return pa.schema(fields, metadata={"toolaudit": json.dumps(meta.__dict__, sort_keys=True)})


def arrow_table(rows: list[Measurement], schema):
    """`rows` as a pyarrow Table of `schema` (timestamps parsed as the summaries read them: periods.when_of)."""
    import pyarrow as pa

    columns = {name: [cell(r, name) for r in rows] for name in COLUMNS}
    columns["ts"] = [when_of(ts) for ts in columns["ts"]]
    return pa.Table.from_pydict(columns, schema=schema)


def _need_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ToolauditError("writing Parquet needs pyarrow: pip install 'agent-toolaudit[parquet]' (or use a .csv path)",
                             slug="parquet-extra") from None


class _Csv:
    """One CSV file, a header then the rows as they come (None as an empty field)."""

    def __init__(self, fh):
        self._out = csv.writer(fh, lineterminator="\n")
        self._out.writerow(COLUMNS)

    def write(self, rows: list[Measurement]) -> None:
        self._out.writerows(["" if v is None else v for v in (cell(r, c) for c in COLUMNS)] for r in rows)

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


class _ParquetFile:
    """One Parquet file, a row group per ROWS_PER_GROUP rows."""

    def __init__(self, fh, meta: RecordsMeta):
        import pyarrow.parquet as pq

        self._schema = arrow_schema(meta)
        self._writer = pq.ParquetWriter(fh, self._schema)
        self._held: list[Measurement] = []

    def write(self, rows: list[Measurement]) -> None:
        self._held.extend(rows)
        while len(self._held) >= ROWS_PER_GROUP:
            self._flush(self._held[:ROWS_PER_GROUP])
            del self._held[:ROWS_PER_GROUP]

    def _flush(self, rows: list[Measurement]) -> None:
        self._writer.write_table(arrow_table(rows, self._schema))

    def close(self) -> None:
        if self._held:
            self._flush(self._held)
            self._held = []
        self._writer.close()

    def abort(self) -> None:
        """Let go of the file without its rows: the temp file is removed by whoever made it."""
        self._held = []
        try:
            self._writer.close()  # else its finalizer writes a footer into a closed file
        except Exception:  # noqa: BLE001 -- the write that failed may fail again here
            pass


class _Dataset(_ParquetFile):
    """A folder of Parquet parts (local or object storage), one whole part per group; `_SUCCESS` last."""

    def __init__(self, folder: Path | RemotePath, meta: RecordsMeta):
        self._schema = arrow_schema(meta)
        self._folder, self._held, self.parts = folder, [], []
        if isinstance(folder, Path):
            folder.mkdir(parents=True, exist_ok=True)
        if folder.exists() and any(p.name.startswith("part-") for p in folder.iterdir()):
            raise UsageError(f"--records {folder} already holds part-*.parquet files: name an empty folder",
                             slug="records-exists")

    def _flush(self, rows: list[Measurement]) -> None:
        import pyarrow.parquet as pq

        buffer = io.BytesIO()
        pq.write_table(arrow_table(rows, self._schema), buffer)
        part = self._folder / PART.format(len(self.parts))
        _put(part, buffer.getvalue())
        self.parts.append(part)

    def close(self) -> None:
        if self._held:
            self._flush(self._held)
            self._held = []
        _put(self._folder / SUCCESS, b"")

    def abort(self) -> None:
        """Remove the parts written so far (best effort): a failed scan leaves no half dataset."""
        for part in self.parts:
            try:
                _remove(part)
            except (OSError, ToolauditError):
                pass


def _put(target: Path | RemotePath, data: bytes) -> None:
    if isinstance(target, Path):
        atomic_write(target, data)
        return
    fs, path = filesystem(target.url)
    with fs.open(path, "wb") as fh:
        fh.write(data)


def _remove(target: Path | RemotePath) -> None:
    if isinstance(target, Path):
        target.unlink()
    else:
        fs, path = filesystem(target.url)
        fs.rm(path)


@contextmanager
def _remote_file(target: RemotePath) -> Iterator[Any]:
    """An object opened for writing that becomes visible only when the block ends well."""
    fs, path = filesystem(target.url)
    fh = fs.open(path, "wb", autocommit=False)
    try:
        yield fh
    except BaseException:
        fh.discard()
        raise
    fh.close()
    fh.commit()


@contextmanager
def records_writer(target: Path | RemotePath, meta: RecordsMeta) -> Iterator[Any]:
    """A writer (`write(rows)`) into `target`, finished when the block ends well, undone when it fails."""
    suffix = target.suffix.lower()
    if suffix not in ("", ".csv", ".parquet"):
        raise UsageError(f"--records takes a .csv or .parquet path, or a folder for a Parquet dataset, "
                         f"not {target.name!r}")
    if suffix != ".csv":
        _need_pyarrow()
    with ExitStack() as stack:
        if suffix == "":
            fh = None
        elif isinstance(target, Path):
            temp = stack.enter_context(atomic_path(target))
            fh = stack.enter_context(open(temp, "w" if suffix == ".csv" else "wb",
                                          **({"encoding": "utf-8", "newline": ""} if suffix == ".csv" else {})))
        else:
            raw = stack.enter_context(_remote_file(target))
            fh = io.TextIOWrapper(raw, encoding="utf-8", newline="", write_through=True) if suffix == ".csv" else raw
        writer = _Dataset(target, meta) if fh is None else _Csv(fh) if suffix == ".csv" else _ParquetFile(fh, meta)
        try:
            yield writer
        except BaseException:
            writer.abort()
            raise
        writer.close()
        if fh is not None:
            fh.flush()


class RecordsSink:
    """A summary sink (scan.summary.Collected) whose kept rows are also written as each file is folded in."""

    def __init__(self, collected, writer):
        self.collected, self.writer = collected, writer

    def add(self, result) -> None:
        """Fold one file in, then write the rows it added (a call seen before is not among them)."""
        added = self.collected.add(result)
        if added:
            self.writer.write(added)

    def finish(self) -> None:
        """Write the calls whose result never came: kept to the end, as a later file may hold their result."""
        self.writer.write(self.collected.unpaired())

    def __getattr__(self, name: str):
        return getattr(self.collected, name)  # errors, unrecognised, ...: what gather reads and extends


@contextmanager
def recording(target: Path | RemotePath | None, collected, meta: RecordsMeta) -> Iterator[Any]:
    """The sink to scan into: `collected` itself without `target`, else one that writes the rows to `target`."""
    if target is None:
        yield collected
        return
    with records_writer(target, meta) as writer:
        sink = RecordsSink(collected, writer)
        yield sink
        sink.finish()
