"""The scan cache trusts only a folder and files of the user's own that no one else can write (issue 29, item 6):
a planted or shared cache is refused with one line and the scan runs uncached; `ci` reads no cache unless
asked; a cache that cannot be written only warns. Each test failed before its fix."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from toolaudit.model import Measurement
from toolaudit.scan import cache as scan_cache

from conftest import ROOT, SAMPLES

KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban"
BASELINE = ROOT / "toolaudit-baseline.json"
OTHER_UID = 65534  # nobody
is_root = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not is_root, reason="only root can give a file to another user (chown)")
posix_only = pytest.mark.skipif(not hasattr(os, "getuid"), reason="file owners and modes are POSIX's")


def _scan(cache: Path, *paths, extra=(), prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    env = {**os.environ, scan_cache.ENV: str(cache)}
    command = [*prefix, sys.executable, "-m", "toolaudit", *map(str, extra or ("scan", *paths, "-f", "json", "-j", "1"))]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def _poison(cache: Path, times: int) -> None:
    """Every kept count multiplied by `times`, and every kept summary and fold dropped (so the rows serve)."""
    db_path = cache / scan_cache.NAME
    with sqlite3.connect(db_path) as db:
        rows = db.execute("SELECT key, path, entry FROM files").fetchall()
        for key, path, entry in rows:
            doc = orjson.loads(entry)
            for row in doc["m"]:
                row[list(Measurement.__dataclass_fields__).index("tokens")] *= times
            db.execute("UPDATE files SET entry = ? WHERE key = ? AND path = ?", (orjson.dumps(doc), key, path))
        db.execute("DELETE FROM summaries")
        db.execute("DELETE FROM parts")
    db.close()


def _tokens(result: subprocess.CompletedProcess) -> int:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["totals"]["tokens"]


@posix_only
def test_the_cache_folder_is_the_users_alone(tmp_path):
    cache = tmp_path / "cache"
    assert _tokens(_scan(cache, KANBAN)) > 0
    assert oct(cache.stat().st_mode & 0o777) == oct(0o700)
    made = [p for p in cache.iterdir() if p.name.startswith(scan_cache.NAME)]
    assert made and all(oct(p.stat().st_mode & 0o777) == oct(0o600) for p in made)
    # an older cache, made with the umask's modes, is narrowed: other users read no paths or session ids
    os.chmod(cache, 0o755)
    for path in made:
        os.chmod(path, 0o644)
    assert _tokens(_scan(cache, KANBAN)) > 0
    assert oct(cache.stat().st_mode & 0o777) == oct(0o700)
    assert all(oct(p.stat().st_mode & 0o777) == oct(0o600) for p in made if p.exists())


def _weaken(cache: Path, how: str) -> None:
    db = cache / scan_cache.NAME
    if how == "folder writable by others":
        os.chmod(cache, 0o777)
    elif how == "folder writable by group":
        os.chmod(cache, 0o770)
    elif how == "file writable by others":
        os.chmod(db, 0o666)
    elif how == "file of another user":
        os.chown(db, OTHER_UID, OTHER_UID)
    elif how == "folder of another user":
        os.chown(cache, OTHER_UID, OTHER_UID)


@posix_only
@pytest.mark.parametrize("how", ["folder writable by others", "folder writable by group", "file writable by others",
                                 pytest.param("file of another user", marks=needs_root),
                                 pytest.param("folder of another user", marks=needs_root)])
def test_a_cache_someone_else_could_have_planted_is_refused(tmp_path, how):
    cache = tmp_path / "cache"
    honest = _tokens(_scan(cache, KANBAN))
    _poison(cache, 0)  # what a planted DB said: every count 0
    _weaken(cache, how)
    result = _scan(cache, KANBAN)
    assert _tokens(result) == honest
    warnings = [line for line in result.stderr.splitlines() if "scan cache off" in line]
    assert len(warnings) == 1 and str(cache) in warnings[0]
    assert "Traceback" not in result.stderr
    shown = _scan(cache, extra=("cache", "info"))
    assert shown.returncode == 0 and "not used by scans" in shown.stdout


def test_ci_measures_every_file_itself_unless_asked(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    session = next(KANBAN.glob("*.jsonl"))
    lines = session.read_bytes().splitlines(keepends=True)
    (folder / "s.jsonl").write_bytes(b"".join(lines[:len(lines) // 3]))
    baseline = tmp_path / "base.json"
    made = _scan(tmp_path / "unused", extra=("scan", folder, "-f", "json", "-o", baseline, "--no-cache"))
    assert made.returncode == 0, made.stderr
    (folder / "s.jsonl").write_bytes(b"".join(lines))  # the outputs grew: the gate must fail
    cache = tmp_path / "cache"
    _tokens(_scan(cache, folder))
    _poison(cache, 0)  # a cache of this user's own that says every output is empty
    gate = ("ci", folder, "--baseline", baseline, "-q", "-j", "1")
    result = _scan(cache, extra=gate)
    assert result.returncode == 3, result.stdout + result.stderr
    asked = _scan(cache, extra=(*gate, "--cache"))
    assert asked.returncode == 0  # asked to trust it, the gate sees what the cache says
    shown = _scan(cache, extra=("ci", "--help"))
    assert "--cache / --no-cache" in shown.stdout


def _binding() -> tuple[str, ...]:
    """A prefix that makes files' modes bind on the command it runs: as root, without the capabilities that
    override them (setpriv); nothing for another user."""
    if not is_root:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("as root, file modes bind only without CAP_DAC_OVERRIDE: needs setpriv (util-linux)")
    return (setpriv, "--bounding-set=-dac_override,-dac_read_search", "--")


@posix_only
@pytest.mark.parametrize("how", ["read-only file", "read-only folder", "a folder where the file should be"])
def test_a_cache_that_cannot_be_written_only_warns(tmp_path, how):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    db = cache / scan_cache.NAME
    if how == "a folder where the file should be":
        db.mkdir()
    prefix = _binding()
    honest = _tokens(_scan(cache, KANBAN, prefix=prefix))
    if how == "read-only file":
        for path in cache.iterdir():
            os.chmod(path, 0o400)
    elif how == "read-only folder":
        os.chmod(cache, 0o500)
    try:
        result = _scan(cache, KANBAN, prefix=prefix)
        assert _tokens(result) == honest and "Traceback" not in result.stderr
        assert len([line for line in result.stderr.splitlines() if "cache" in line]) == 1
        cleared = _scan(cache, extra=("cache", "clear"), prefix=prefix)
        assert cleared.returncode == 0, cleared.stderr
        assert "Traceback" not in cleared.stderr
        if how != "read-only file":
            assert "warning: cannot remove" in cleared.stderr
    finally:
        os.chmod(cache, 0o700)
