"""No file destroyed: every write is whole or not at all, and no output may name an input."""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from conftest import SAMPLES
from test_calibrate import build as build_claude_turns

OLD = "the old content, which must survive\n"


class _FullDisk:
    """A file whose write stores half of what it is given, then fails as a full disk does."""

    def __init__(self, fh):
        self._fh = fh

    def write(self, data):
        self._fh.write(data[: max(1, len(data) // 2)])
        self._fh.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()
        return False

    def __iter__(self):
        return iter(self._fh)


@pytest.fixture
def full_disk(monkeypatch):
    """Make every write-mode open() under a folder fail half-way with ENOSPC; returns the arming function."""
    real_open = builtins.open

    def arm(folder: Path):
        folder = str(folder.resolve())

        def fake_open(file, mode="r", *args, **kwargs):
            fh = real_open(file, mode, *args, **kwargs)
            name = os.fspath(file) if not isinstance(file, int) else ""
            if any(c in mode for c in "wax+") and os.path.abspath(name).startswith(folder):
                return _FullDisk(fh)
            return fh

        monkeypatch.setattr(builtins, "open", fake_open)
        monkeypatch.setattr(io, "open", fake_open)  # pathlib writes through io.open

    return arm


def _left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def logs(tmp_path) -> Path:
    copy = tmp_path / "logs"
    shutil.copytree(SAMPLES / "claude-code", copy)
    return copy


def test_atomic_write_replaces_whole_and_keeps_the_mode(tmp_path):
    from toolaudit.files import atomic_write

    target = tmp_path / "out.json"
    target.write_text(OLD)
    os.chmod(target, 0o640)
    atomic_write(target, "new ✓\n")
    assert target.read_bytes() == "new ✓\n".encode()
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)
    atomic_write(target, b"\x00bytes")
    assert target.read_bytes() == b"\x00bytes" and _left(tmp_path) == ["out.json"]


def test_fsync_comes_before_the_rename(tmp_path, monkeypatch):
    from toolaudit import files

    order = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(files.os, "fsync", lambda fd: (order.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(files.os, "replace", lambda a, b: (order.append("replace"), real_replace(a, b))[1])
    files.atomic_write(tmp_path / "x.txt", "x")
    assert order == ["fsync", "replace"]


@pytest.mark.parametrize("fmt", ["json", "csv", "markdown", "table"])
def test_report_on_a_full_disk_leaves_the_old_file(run, logs, tmp_path, full_disk, fmt):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    report = out_dir / "report.txt"
    report.write_text(OLD)
    full_disk(out_dir)
    result = run("scan", logs, "-f", fmt, "-o", report, "-q", "-j", "1")
    assert result.exit_code == 1
    assert "cannot write" in result.stderr and "No space left on device" in result.stderr
    assert report.read_text() == OLD and _left(out_dir) == ["report.txt"]


@pytest.mark.parametrize("name", ["records.csv", "records.parquet"])
def test_records_on_a_full_disk_leave_the_old_file(run, logs, tmp_path, full_disk, monkeypatch, name):
    import pyarrow.parquet as pq

    out_dir = tmp_path / "out"
    out_dir.mkdir()
    records = out_dir / name
    records.write_text(OLD)
    full_disk(out_dir)

    def half_parquet(table, where, *args, **kwargs):  # pyarrow writes through its own files, not open()
        if hasattr(where, "write"):
            where.write(b"PAR1 half")
        else:
            Path(os.fspath(where)).write_bytes(b"PAR1 half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq, "write_table", half_parquet)
    result = run("scan", logs, "--records", records, "-q", "-j", "1")
    assert result.exit_code == 1 and "No space left on device" in result.stderr
    assert records.read_text() == OLD and _left(out_dir) == [name]


def test_update_baseline_on_a_full_disk_leaves_the_old_baseline(run, logs, tmp_path, full_disk):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    baseline = out_dir / "baseline.json"
    assert run("scan", logs, "-f", "json", "-o", baseline, "-q").exit_code == 0
    before = baseline.read_bytes()
    (logs / "-home-dev-shop").rename(tmp_path / "gone")  # the new measurement differs
    full_disk(out_dir)
    result = run("ci", logs, "--baseline", baseline, "--update-baseline", "-q", "-j", "1")
    assert result.exit_code == 1 and "No space left on device" in result.stderr
    assert baseline.read_bytes() == before and _left(out_dir) == ["baseline.json"]


def test_calibrate_save_on_a_full_disk_leaves_the_old_file(run, tmp_path, full_disk):
    folder = build_claude_turns(tmp_path / "claude")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    saved = out_dir / "fit.json"
    saved.write_text(OLD)
    full_disk(out_dir)
    result = run("calibrate", folder, "--save", saved, "-q")
    assert result.exit_code == 1 and "No space left on device" in result.stderr
    assert saved.read_text() == OLD and _left(out_dir) == ["fit.json"]


def _two_results():
    """Two scan results of different sizes, rendered by the real reporters."""
    import toolaudit

    return [toolaudit.scan([folder], top=top) for folder, top in ((SAMPLES / "claude-code", 30), (SAMPLES / "codex", 0))]


def test_concurrent_writers_leave_one_whole_report(tmp_path):
    from toolaudit.reports import render_report, reporters

    results = _two_results()
    texts = {reporters.get("json")().render(r) for r in results}
    assert len(texts) == 2
    target = tmp_path / "report.json"
    render_report(results[0], "json", str(target))
    seen: list[str] = []
    stop = threading.Event()

    def write(result):
        for _ in range(150):
            render_report(result, "json", str(target))

    def read():
        while not stop.is_set():
            seen.append(target.read_text(encoding="utf-8"))

    reader = threading.Thread(target=read)
    writers = [threading.Thread(target=write, args=(r,)) for r in results]
    reader.start()
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    stop.set()
    reader.join()
    seen.append(target.read_text(encoding="utf-8"))
    torn = [s for s in seen if s not in texts]
    assert not torn, f"{len(torn)} of {len(seen)} reads saw a partial or mixed file"
    assert _left(tmp_path) == ["report.json"]


@pytest.mark.parametrize("args", [
    ("scan", "{file}", "-o", "{file}"),
    ("scan", "{file}", "--records", "{file}"),
    ("scan", "{logs}", "-f", "json", "-o", "{file}"),
    ("scan", "{logs}", "-f", "json", "-o", "{logs}/new-report.json"),  # would be read as a transcript next time
    ("simulate", "{logs}", "--max-chars", "100", "-o", "{link}"),  # the same file through a symlink
    ("compare", "{logs}", "{file}", "-o", "{file}"),
    ("ci", "{logs}", "--baseline", "{base}", "-o", "{file}"),
    ("calibrate", "{logs}", "--save", "{file}"),
])
def test_an_output_naming_an_input_is_refused_before_reading(run, logs, tmp_path, monkeypatch, args):
    from toolaudit.collectors import discover

    file = next(logs.rglob("*.jsonl"))
    before = file.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(file)
    base = tmp_path / "base.json"
    base.write_text(json.dumps({"schema_version": 1, "meta": {"tool": "toolaudit", "command": "scan"},
                                "totals": {}, "tools": []}))

    def no_reading(*a, **k):
        raise AssertionError("an input was read before the output was checked")

    monkeypatch.setattr(discover, "iter_files", no_reading)
    words = [a.format(file=file, logs=logs, link=link, base=base) for a in args]
    result = run(*words)
    assert result.exit_code == 2, result.output
    assert "is one of the inputs" in result.stderr or "inside the input folder" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert file.read_bytes() == before


def test_an_output_beside_the_inputs_but_not_read_is_fine(run, logs, tmp_path):
    assert run("scan", logs, "-f", "json", "-o", logs / "report.md", "-q", "-j", "1").exit_code == 0
    assert run("scan", logs, "--records", logs / "calls.csv", "-q", "-j", "1").exit_code == 0
    assert json.loads(run("scan", logs, "-f", "json", "-q", "-j", "1").stdout)["totals"]["calls"] > 0
