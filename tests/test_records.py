"""scan --records: typed Parquet with toolaudit's metadata, written as files finish, whole or not at all."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

pq = pytest.importorskip("pyarrow.parquet", reason="the parquet extra (pyarrow) is not installed")

from conftest import CORPUS, SAMPLES  # noqa: E402

from toolaudit import __version__  # noqa: E402
from toolaudit.model import SCHEMA_VERSION  # noqa: E402
from toolaudit.scan import records  # noqa: E402


def _ok(result):
    assert result.exit_code == 0, result.output
    return result


def _kept_rows(folder: Path) -> list:
    """The rows a scan keeps, computed through the pipeline directly (not through --records)."""
    from toolaudit.scan.summary import Collected
    from toolaudit.collectors.discover import iter_files
    from toolaudit.pipeline import FileOptions, run

    return run(list(iter_files([folder])), FileOptions(previews=True), Collected()).all_rows()


@pytest.fixture
def inputs(tmp_path) -> Path:
    """The sample logs, plus the real Claude Code corpus (subagents, resumed sessions) when it is there."""
    root = tmp_path / "in"
    shutil.copytree(SAMPLES, root / "samples")
    if (CORPUS / "claude-code").is_dir():
        shutil.copytree(CORPUS / "claude-code", root / "claude-code")
    return root


def test_parquet_columns_are_typed_and_the_file_says_who_measured(run, inputs, tmp_path):
    target = tmp_path / "calls.parquet"
    _ok(run("scan", inputs, "-q", "-j", "1", "-o", tmp_path / "r.txt", "--records", target))
    schema = pq.read_schema(target)
    kinds = {name: str(schema.field(name).type) for name in schema.names}
    assert kinds["ts"] == "timestamp[us, tz=UTC]"
    assert {kinds[c] for c in ("line", "tokens", "chars", "bytes", "request_index", "residency")} == {"int64"}
    assert kinds["is_error"] == kinds["agent_truncated"] == "bool" and kinds["tool"] == "string"
    about = json.loads(schema.metadata[b"toolaudit"])
    assert about == {"version": __version__, "tokenizer": "o200k_base", "tokenizer_label": "o200k_base",
                     "engine": "auto", "schema_version": SCHEMA_VERSION}
    table = pq.read_table(target)
    kept = _kept_rows(inputs)
    assert table.num_rows == len(kept) > 100
    for column in ("source", "line", "tool", "call_id", "tokens", "residency", "request_index", "status"):
        assert table.column(column).to_pylist() == [getattr(r, column) for r in kept], column
    stamped = [(r.ts, t) for r, t in zip(kept, table.column("ts").to_pylist()) if r.ts]
    assert stamped and all(t is not None and t.tzinfo is not None for _, t in stamped)
    first, when = stamped[0]
    assert when.isoformat().startswith(first[:19])  # the same instant, as a timestamp


def test_rows_are_written_as_files_finish(run, inputs, tmp_path, monkeypatch):
    monkeypatch.setattr(records, "ROWS_PER_GROUP", 16)
    folded, at_flush = [], []
    add, flush = records.RecordsSink.add, records._ParquetFile._flush

    def counting_add(self, result):
        add(self, result)
        folded.append(result.source)

    def spying_flush(self, rows):
        at_flush.append(len(folded))
        flush(self, rows)

    monkeypatch.setattr(records.RecordsSink, "add", counting_add)
    monkeypatch.setattr(records._ParquetFile, "_flush", spying_flush)
    target = tmp_path / "calls.parquet"
    _ok(run("scan", inputs, "-q", "-j", "1", "-o", tmp_path / "r.txt", "--records", target))
    meta = pq.ParquetFile(target).metadata
    assert meta.num_row_groups == len(at_flush) >= 4
    assert all(meta.row_group(i).num_rows <= 16 for i in range(meta.num_row_groups))
    assert at_flush[0] < len(folded)  # the first group went out while files were still to be read
    assert sum(meta.row_group(i).num_rows for i in range(meta.num_row_groups)) == len(_kept_rows(inputs))


def test_csv_holds_the_same_rows(run, inputs, tmp_path):
    _ok(run("scan", inputs, "-q", "-j", "1", "-o", tmp_path / "r.txt", "--records", tmp_path / "calls.csv"))
    _ok(run("scan", inputs, "-q", "-j", "1", "-o", tmp_path / "r.txt", "--records", tmp_path / "calls.parquet"))
    csv = pd.read_csv(tmp_path / "calls.csv", dtype={"call_id": str, "session": str})
    parquet = pd.read_parquet(tmp_path / "calls.parquet")
    assert list(csv.columns) == list(parquet.columns) == list(records.COLUMNS)
    for column in ("source", "line", "tool", "tokens", "bytes", "status", "call_id"):
        assert csv[column].tolist() == parquet[column].tolist(), column
    # integers stay integers in CSV too (no `3.0` where a request index is known)
    raw = (tmp_path / "calls.csv").read_text().splitlines()
    index = raw[0].split(",").index("request_index")
    assert not any(line.split(",")[index].endswith(".0") for line in raw[1:] if line.count(",") == len(records.COLUMNS) - 1)


def test_a_folder_gets_a_dataset_pandas_reads(run, inputs, tmp_path, monkeypatch):
    monkeypatch.setattr(records, "ROWS_PER_GROUP", 40)
    folder = tmp_path / "out"
    _ok(run("scan", inputs, "-q", "-j", "1", "-o", tmp_path / "r.txt", "--records", f"{folder}/"))
    names = sorted(p.name for p in folder.iterdir())
    assert names[0] == "_SUCCESS" and len(names) >= 3 and names[1] == "part-00000.parquet"
    assert not [n for n in names if n.startswith(".")]  # no temp file left
    data = pd.read_parquet(folder)
    assert len(data) == len(_kept_rows(inputs))
    again = run("scan", inputs, "-q", "-j", "1", "-o", tmp_path / "r.txt", "--records", folder)
    assert again.exit_code == 2 and "already holds part-*.parquet files" in again.stderr


def test_a_failed_scan_leaves_the_old_file_and_no_parts(run, tmp_path, monkeypatch):
    monkeypatch.setattr(records, "ROWS_PER_GROUP", 4)  # groups and parts are written before the failure
    written = []
    put = records._put
    monkeypatch.setattr(records, "_put", lambda target, data: (written.append(target.name), put(target, data)))
    logs = tmp_path / "logs"
    shutil.copytree(SAMPLES / "claude-code", logs)
    (logs / "zz-broken.jsonl").write_text('{"type": "user"\n{not json\n')  # --strict stops here, at the end
    target = tmp_path / "calls.parquet"
    target.write_text("old")
    failed = run("scan", logs, "-q", "-j", "1", "--strict", "--records", target)
    assert failed.exit_code == 1 and "--strict" in failed.stderr
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["calls.parquet", "logs"]
    folder = tmp_path / "dataset"
    failed = run("scan", logs, "-q", "-j", "1", "--strict", "--records", f"{folder}/")
    assert failed.exit_code == 1 and written and "_SUCCESS" not in written
    assert not [p for p in folder.iterdir() if p.name.startswith("part-") or p.name == "_SUCCESS"]
