"""The scan cache's store: one SQLite file of entries per options key, opened, read, written, shown and cleared.

SQLite's own journal keeps it whole through a kill, so it is not written through files.atomic_path;
two processes scanning at once wait on its lock, and a write that cannot get the lock is skipped
(the cache is an accelerator: a scan never fails because of it). A file that is not a toolaudit cache,
or is damaged, is discarded with a note and never trusted.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from hashlib import sha256
from pathlib import Path
from typing import Callable, Iterable, Iterator

import orjson

from ..files import cache_dir, private_file, private_folder
from ..model import FileResult
from .cache_keys import LAYOUT, code_prefix, options_key
from .cache_rows import decode, encode

NAME = "scan.sqlite"
APP = "toolaudit-scan-cache"
_BATCH = 200  # entries written per transaction
WAIT_S = 30.0  # how long a writer waits for another process's lock before it skips its writes


@dataclass(frozen=True)
class Stamp:
    """What identifies one version of a file's bytes."""

    size: int
    mtime_ns: int
    inode: int
    edges: bytes
    ctime_ns: int = 0  # the inode's change time: no program can set it back, and every write moves it
    racy: bool = False  # changed within RACY_NS of the stamp: a write in the same clock tick would not move it

    def same_bytes(self, other: "Stamp") -> bool:
        """The same version of the file's bytes as `other`: its change time too, since a write that puts the
        mtime back (touch -r, rsync -t) keeps the size, the mtime and often the edges, never the ctime."""
        return (self.size, self.mtime_ns, self.inode, self.edges, self.ctime_ns) == (
            other.size, other.mtime_ns, other.inode, other.edges, other.ctime_ns)

    def vouched(self, st: os.stat_result) -> bool:
        """True when a stat alone says the file is this version: all of its times unchanged, and the stamp not
        racy (git's rule for its index)."""
        return not self.racy and (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns) == (
            self.size, self.mtime_ns, self.inode, self.ctime_ns)


def refused(path: Path) -> str | None:
    """Why the cache at `path` is not used, or None: its folder and files must be the user's own, and no one
    else may write them (a planted cache would say what it likes about any file). The folder is made 0700 and
    the files 0600 on the way (files.private_folder)."""
    why = private_folder(path.parent)
    for suffix in ("", "-wal", "-shm"):
        why = why or private_file(Path(f"{path}{suffix}"))
    return why


def path_key(path) -> str:
    """How the cache names a file: each part of its path replaced by a digest of it, the separators kept. A
    secret in a file or folder name is never stored, and the keys of the files under a folder still start with
    the folder's key (a scan loads the stamps under its folders by a range of keys)."""
    return _key_of(str(path))


@lru_cache(maxsize=1 << 16)
def _key_of(text: str) -> str:  # a scan asks it of each file several times (stamps, entries, parts, gone)
    folder, sep, name = text.rpartition(os.sep)
    return (_folder_key(folder) + sep if sep else "") + _part(name)


@lru_cache(maxsize=4096)
def _folder_key(folder: str) -> str:  # a folder's files share it: worked out once per folder
    parent, sep, name = folder.rpartition(os.sep)
    return (_folder_key(parent) + sep if sep else "") + _part(name) if folder else ""


def _part(name: str) -> str:
    return sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16] if name else ""


def _shown(source: str) -> str:
    """A file's name as a note shows it: a secret in it masked (secrets.redact.name)."""
    from ..secrets.redact import name

    return name(source, path=True)


def folders(roots: Iterable) -> list[str]:
    """The keys of the scanned folders among `roots`, each ending in a separator (the prefix of the keys of
    the paths under it)."""
    return [path_key(str(r).rstrip(os.sep)) + os.sep for r in roots if isinstance(r, Path) and r.is_dir()]


class ScanCache:
    """One open cache for one options key (see the module's docstring)."""

    def __init__(self, key: str, folder: Path | None = None, note: Callable[[str], None] | None = None):
        self.key = key
        self.path = (folder or cache_dir()) / NAME
        self._note = note or (lambda line: None)
        self._pending: list[tuple] = []
        self._pending_parts: list[tuple] = []
        # the files behind served rows whose source is not their file (OpenHands' conversation folders)
        self.read_from: dict[str, set] = {}
        self.complete = True  # every file read through it was kept (a summary of the scan may be kept too)
        self._known: dict[str, Stamp] | None = None
        self._db = self._open()

    def _open(self) -> sqlite3.Connection | None:
        why = refused(self.path)
        if why is not None:  # another user's, or one others can write (it could be planted): never read
            self._note(f"scan cache off: {why}")
            return None
        try:
            return self._connect()
        except sqlite3.OperationalError as exc:  # read-only, locked, cannot be opened: off, and kept as it is
            self._note(f"scan cache off: {self.path}: {exc}")
            return None
        except sqlite3.DatabaseError as exc:
            if not self._discard(f"unreadable ({exc})"):
                return None
        except OSError as exc:
            self._note(f"scan cache off: cannot use {self.path}: {exc.strerror or exc}")
            return None
        try:
            return self._connect()
        except (sqlite3.DatabaseError, OSError) as exc:
            self._note(f"scan cache off: {self.path}: {exc}")
            return None

    def _connect(self) -> sqlite3.Connection:
        try:  # made 0600 before SQLite opens it (its -wal and -shm files take the same mode)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass
        db = sqlite3.connect(self.path, timeout=WAIT_S, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("BEGIN IMMEDIATE")
            db.execute("CREATE TABLE IF NOT EXISTS about (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            found = dict(db.execute("SELECT name, value FROM about").fetchall())
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not found and tables - {"about", "files", "summaries", "parts"}:  # another program's: not adopted
                found = {"app": "another program's"}
            if not found:
                db.executemany("INSERT INTO about VALUES (?, ?)", [("app", APP), ("layout", str(LAYOUT))])
            elif found.get("app") != APP or found.get("layout") != str(LAYOUT):
                db.execute("ROLLBACK")
                db.close()
                raise sqlite3.DatabaseError(f"not a toolaudit scan cache of layout {LAYOUT}")
            db.execute("CREATE TABLE IF NOT EXISTS files (key TEXT NOT NULL, path TEXT NOT NULL, size INTEGER, "
                       "mtime_ns INTEGER, inode INTEGER, edges BLOB, ctime_ns INTEGER, racy INTEGER, entry BLOB, "
                       "PRIMARY KEY (key, path))")
            # whole scans' summaries (scan.summary_cache), by the digest of their files' stamps and plan
            db.execute("CREATE TABLE IF NOT EXISTS summaries (digest TEXT PRIMARY KEY, key TEXT NOT NULL, "
                       "made INTEGER, entry BLOB)")
            # each file's fold for one plan (scan.parts), by the digest of its stamp
            db.execute("CREATE TABLE IF NOT EXISTS parts (key TEXT NOT NULL, plan TEXT NOT NULL, path TEXT NOT NULL, "
                       "stamp BLOB, entry BLOB, PRIMARY KEY (key, plan, path))")
            # entries measured by other code can never serve again: they go, so upgrades do not pile up
            # (as a range outside this code's keys, not NOT LIKE: the tables' keys lead their primary keys, so
            # SQLite walks only what goes instead of every row: 10k files cost each start 10 ms)
            low = code_prefix(self.key)
            high = low[:-1] + chr(ord(low[-1]) + 1)
            for table in ("files", "summaries", "parts"):
                db.execute(f"DELETE FROM {table} WHERE key < ? OR key >= ?", (low, high))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            db.close()
            raise
        return db

    def _discard(self, why: str) -> bool:
        """Remove a damaged or foreign cache file; False (the cache off, with a note) when it cannot be."""
        try:
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(f"{self.path}{suffix}")
                except FileNotFoundError:
                    pass
        except OSError as exc:
            self._note(f"scan cache off: {self.path} {why} and cannot be removed: {exc.strerror or exc}")
            return False
        self._note(f"scan cache {self.path} {why}: discarded, starting a new one")
        return True

    def stamps(self, files: list | None = None, roots: Iterable = ()) -> dict[str, Stamp]:
        """The paths this key holds (by path_key), with the stamp each was measured at: all of them, or only `files` and
        those under the folders among `roots` (a one-session scan does not load a 10k-file corpus's stamps).
        As at the first call: one scan's."""
        if self._known is None:
            self._known = self._stamps(files, roots)
        return self._known

    def _stamps(self, files: list | None = None, roots: Iterable = ()) -> dict[str, Stamp]:
        found = self._select("SELECT path, size, mtime_ns, inode, edges, ctime_ns, racy FROM files WHERE key = ?",
                             (), files, roots)
        return {path: Stamp(*stamp[:-1], bool(stamp[-1])) for path, *stamp in found}

    def _select(self, sql: str, args: tuple, files: list | None, roots: Iterable) -> list[tuple]:
        """The rows of `sql` (`WHERE key = ?` and `args`, a table keyed by (key, …, path) or (key, path)): all,
        or those of `files` and of the paths under the folders among `roots`."""
        if self._db is None:
            return []
        try:
            if files is None:
                return self._db.execute(sql, (self.key, *args)).fetchall()
            found = []
            found_in = folders(roots)
            for folder in found_in:  # a range of the primary key: the paths that start with `folder`
                found += self._db.execute(f"{sql} AND path >= ? AND path < ?", (
                    self.key, *args, folder, folder[:-1] + chr(ord(folder[-1]) + 1))).fetchall()
            keys = [path_key(p) for p in files]
            alone = [k for k in keys if not k.startswith(tuple(found_in))]
            for at in range(0, len(alone), 500):
                some = alone[at:at + 500]
                found += self._db.execute(f"{sql} AND path IN ({','.join('?' * len(some))})",
                                          (self.key, *args, *some)).fetchall()
            return found
        except sqlite3.DatabaseError as exc:
            self._off(exc)
            return []

    def load(self, source: str) -> FileResult | None:
        """The cached result of `source`, or None (a damaged entry is dropped with a note)."""
        return self._entry("SELECT entry FROM files WHERE key = ? AND path = ?", (self.key, path_key(source)),
                           lambda data: decode(source, data),
                           f"the entry of {_shown(source)} is damaged ({{}}): read again",
                           lambda: self.forget([source]))

    def _entry(self, sql: str, args: tuple, decoded: Callable, damaged: str, drop: Callable[[], None]):
        """`decoded(entry)` of the row `sql` selects, or None; a damaged entry is noted and dropped."""
        try:
            row = self._db.execute(sql, args).fetchone()
        except (sqlite3.DatabaseError, AttributeError) as exc:
            self._off(exc)
            return None
        if row is None:
            return None
        try:
            return decoded(row[0])
        except (ValueError, TypeError, KeyError, IndexError, orjson.JSONDecodeError) as exc:
            self._note(f"scan cache: {damaged.format(type(exc).__name__)}")
            drop()
            return None

    def put(self, source: str, stamp: Stamp, result: FileResult) -> bool:
        """Keep `result` for `source` at `stamp` (written in batches; see flush); False when it is not kept: a
        file whose name or numbers cannot be stored as UTF-8 (a name that is not)."""
        try:
            source.encode("utf-8")
            entry = encode(result)
        except (UnicodeEncodeError, orjson.JSONEncodeError, TypeError):
            self.complete = False
            return False
        self._pending.append((self.key, path_key(source), stamp.size, stamp.mtime_ns, stamp.inode, stamp.edges, stamp.ctime_ns,
                              int(stamp.racy), entry))
        if len(self._pending) >= _BATCH:
            self.flush()
        return True

    def summary(self, digest: str):
        """The ScanResult kept under `digest` (scan.summary_cache), or None (a damaged one is dropped)."""
        from .summary_cache import result_of

        return self._entry("SELECT entry FROM summaries WHERE digest = ? AND key = ?", (digest, self.key), result_of,
                           "a kept summary is damaged ({}): the files are folded again",
                           lambda: self._write("DELETE FROM summaries WHERE digest = ?", [(digest,)]))

    def keep_summary(self, digest: str, result) -> None:
        """Keep a scan's summary under `digest`, and only the newest KEPT_PER_OPTIONS of this options key."""
        from .summary_cache import KEPT_PER_OPTIONS, data_of

        try:
            entry = data_of(result)
        except (TypeError, orjson.JSONEncodeError):
            return
        self.flush()
        self._write("INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?)", [(digest, self.key, time.time_ns(), entry)])
        self._write("DELETE FROM summaries WHERE key = ? AND digest NOT IN (SELECT digest FROM summaries WHERE key = ? "
                    "ORDER BY made DESC LIMIT ?)", [(self.key, self.key, KEPT_PER_OPTIONS)])

    def parts(self, plan: str, files: list | None = None, roots: Iterable = ()) -> dict[str, tuple[bytes, bytes]]:
        """The files' parts for `plan` (scan.parts): path_key -> (stamp digest, entry); all, or those of `files`
        and under the folders among `roots` (as `stamps`)."""
        found = self._select("SELECT path, stamp, entry FROM parts WHERE key = ? AND plan = ?", (plan,), files, roots)
        return {path: (stamp, entry) for path, stamp, entry in found}

    def put_part(self, plan: str, source: str, stamp: bytes, entry: bytes) -> None:
        """Keep one file's part for `plan` (written with the entries)."""
        self._pending_parts.append((self.key, plan, path_key(source), stamp, entry))

    def forget(self, sources: Iterable[str]) -> None:
        """Drop the entries of `sources` (files that are gone or damaged), and their parts."""
        self.forget_keys([path_key(s) for s in sources])

    def forget_keys(self, keys: Iterable[str]) -> None:
        """Drop the entries and parts kept under these path keys (stamps' keys of files gone)."""
        gone = [(self.key, k) for k in keys]
        self._write("DELETE FROM files WHERE key = ? AND path = ?", gone)
        self._write("DELETE FROM parts WHERE key = ? AND path = ?", gone)

    def flush(self) -> None:
        """Write the pending entries in one transaction."""
        pending, self._pending = self._pending, []
        self._write("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", pending)
        parts, self._pending_parts = self._pending_parts, []
        self._write("INSERT OR REPLACE INTO parts VALUES (?, ?, ?, ?, ?)", parts)

    def _write(self, sql: str, rows: list[tuple]) -> None:
        if self._db is None or not rows:
            return
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(sql, rows)
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as exc:  # locked for WAIT_S by another scan: skip, never fail
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._note(f"scan cache: {len(rows)} entries not written ({exc})")
        except sqlite3.DatabaseError as exc:
            self._off(exc)

    def _off(self, exc: Exception) -> None:
        self._note(f"scan cache off for this run: {self.path}: {exc}")
        if self._db is not None:
            self._db.close()
        self._db = None

    def close(self) -> None:
        """Write what is pending and let go of the store."""
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None


@contextmanager
def opened(read, note: Callable[[str], None] | None = None, wanted: bool = True) -> Iterator[ScanCache | None]:
    """The cache for the options of `read` (an InputOptions), written and closed when the block ends; None
    when `read.cache` is off or the caller does not want it."""
    if not (wanted and read.cache):
        yield None
        return
    cache = ScanCache(options_key(read.tokenizer, read.engine, read.calibration, read.source_format), note=note)
    try:
        yield cache
    finally:
        cache.close()
