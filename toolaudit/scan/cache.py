"""The scan cache: each file's measured numbers, kept so that a re-scan reads only the files that changed.

A file's entry is keyed by what the measurement depends on (toolaudit's code, the tokenizer, its
calibration, a forced format) and checked against the file's stamp: path, size, mtime_ns, inode and a
digest of its first and last EDGE bytes. A file whose size, mtime, inode and change time (ctime, which no
program can set back) are unchanged is not opened; one whose ctime moved is checked on its edges. A file
whose stamp changed is read whole again (or read on, when it only grew); a file gone from a scanned folder
drops out. A whole scan's summary is kept too (scan.summary_cache), and each file's fold for the plans
scanned (scan.parts). Entries hold numbers, names, timestamps and digests only (Measurement rows
without previews, skipped lines, usage, menus): never output or argument text, so `--top`,
`--show-content` and `--records`, which show text, read their files.

The store is one SQLite file in WAL mode under the user cache folder (TOOLAUDIT_CACHE_DIR overrides it).
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

from ..files import CACHE_ENV as ENV, cache_dir  # noqa: F401  (ENV: the variable, as callers name it here)
from ..model import FileResult, Measurement, MenuMeasurement, Skipped, Usage
from .measure import known_key

NAME = "scan.sqlite"
APP = "toolaudit-scan-cache"
LAYOUT = 3  # bump when the tables or the entry encoding change
EDGE = 4096
RACY_NS = 2_000_000_000  # a change this recent may share its timestamp with a later one (FAT: 2 s ticks)
UNRECOGNISED = "no collector recognises this file"  # pipeline.scan_file's error: a fact about the file, kept
_BATCH = 200  # entries written per transaction
_WAIT_S = 30.0  # how long a writer waits for another process's lock before it skips its writes


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of toolaudit's installed modules (names, sizes, mtimes): a changed collector or measure
    invalidates every entry, even when the version number did not change (a development checkout)."""
    from .. import __file__ as init, __version__

    found: list[tuple[str, int, int]] = []

    def walk(folder: str, prefix: str) -> None:  # os.scandir: pathlib's rglob cost every start 10 ms, this 1
        with os.scandir(folder) as listing:
            for entry in listing:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        walk(entry.path, f"{prefix}{entry.name}/")
                elif entry.name.endswith(".py"):
                    st = entry.stat()
                    found.append((prefix + entry.name, st.st_size, st.st_mtime_ns))

    walk(os.path.dirname(init), "")
    h = sha256(__version__.encode())
    for name, size, mtime in sorted(found):
        h.update(f"{name}\0{size}\0{mtime}\n".encode())
    return h.hexdigest()[:16]


def options_key(tokenizer: str, engine: str, calibration: str | None, forced: str | None) -> str:
    """The key of every option that changes a per-call number, with the code's digest.

    The engine is in it: engines agree on every count but the letters Unicode 17 added (docs/scan.md),
    so `auto` and `toktok` keep entries apart.
    """
    calibrated = sha256(Path(calibration).read_bytes()).hexdigest()[:16] if calibration else ""
    return f"{LAYOUT}|{code_digest()}|{tokenizer}|{engine}|{calibrated}|{forced or ''}"


def _code_prefix(key: str) -> str:
    """The part of an options key that names the layout and the code (options_key)."""
    return "|".join(key.split("|")[:2]) + "|"


@dataclass(frozen=True)
class KeyParts:
    """An options key read back (options_key): what `cache info` shows of it."""

    code: str
    tokenizer: str
    engine: str
    calibration: str
    forced: str


def key_parts(key: str) -> KeyParts:
    """The parts of an options key; missing ones (a key of an older layout) are empty."""
    parts = (key.split("|") + [""] * 6)[1:6]
    return KeyParts(*parts)


@dataclass(frozen=True)
class Stamp:
    """What identifies one version of a file's bytes."""

    size: int
    mtime_ns: int
    inode: int
    edges: bytes
    ctime_ns: int = 0  # the inode's change time: no program can set it back, and every write moves it

    def same_bytes(self, other: "Stamp") -> bool:
        """The same version of the file's bytes as `other`, whatever its change time (a chmod moves it)."""
        return (self.size, self.mtime_ns, self.inode, self.edges) == (other.size, other.mtime_ns, other.inode,
                                                                      other.edges)


def _peek(path: Path, size: int | None = None) -> tuple[os.stat_result, bytes] | None:
    """The file's stat and the digest of its first EDGE bytes and of the EDGE bytes before `size` (its
    size now when None), or None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        end = st.st_size if size is None else min(size, st.st_size)
        head = os.pread(fd, min(EDGE, end), 0)
        tail = os.pread(fd, EDGE, end - EDGE) if end > EDGE else b""
    except OSError:
        return None
    finally:
        os.close(fd)
    return st, sha256(head + b"\0" + tail).digest()[:16]


def appended(path: Path, before: Stamp) -> bool:
    """True when `path` is the file stamped `before` with lines added at its end: the same inode, larger,
    and the same first and (then) last EDGE bytes where they were."""
    peeked = _peek(path, before.size)
    if peeked is None:
        return False
    st, edges = peeked
    return st.st_ino == before.inode and st.st_size > before.size and edges == before.edges


def covered(path: Path, asked: tuple | None = None) -> bytes | None:
    """A digest of the other files `path` stands for in a walk (Collector.stands_for: an OpenHands
    conversation's first event file for its folder), or None for a file that stands for itself. Its stamp
    then covers them all, and a stat of it alone never says it is unchanged. `asked`: the collectors'
    `stands_for` functions (_covering), when the caller asks for many files."""
    for stands_for in _covering() if asked is None else asked:
        digest = stands_for(path)
        if digest is not None:
            return digest
    return None


def _covering() -> tuple:
    from ..collectors.discover import walkers

    return tuple(cls.stands_for for cls in walkers())


def stamp_of(path: Path, others: bytes | None | bool = True) -> Stamp | None:
    """The file's stamp now, or None when it cannot be read (then it is scanned, not cached); `others`: its
    `covered` digest when the caller has it (True: work it out). A file changed within RACY_NS of now keeps
    no change time: a write in the same clock tick, after it is read, would not move it (git's "racily
    clean" entries), so the next scan checks its edges rather than trusting a stat."""
    peeked = _peek(path)
    if peeked is None:
        return None
    st, edges = peeked
    others = covered(path) if others is True else others
    if others is not None:  # the other files are in its stamp (their names, sizes and mtimes)
        edges = sha256(edges + others).digest()[:16]
    racy = time.time_ns() - max(st.st_ctime_ns, st.st_mtime_ns) < RACY_NS
    return Stamp(st.st_size, st.st_mtime_ns, st.st_ino, edges, 0 if racy else st.st_ctime_ns)


def encode(result: FileResult) -> bytes:
    """A file's result as cache bytes: rows of field values (previews and heads are never in it)."""
    return orjson.dumps({
        "c": result.collector, "e": result.error, "r": result.checkpoint,
        "m": [row_fields(m, Measurement) for m in result.measurements],
        "s": [row_fields(s, Skipped) for s in result.skipped],
        "u": [row_fields(u, Usage) for u in result.usage],
        "n": [row_fields(n, MenuMeasurement) for n in result.menus],
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
    return FileResult(source, doc["c"], rows, tuple(Skipped(*row) for row in doc["s"]), doc["e"],
                      tuple(Usage(*row) for row in doc["u"]), menus, checkpoint=doc.get("r"))


def cacheable(result: FileResult) -> bool:
    """True for what depends on the file's bytes alone: not a read error that may pass."""
    return result.error is None or result.error == UNRECOGNISED


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
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return self._connect()
        except sqlite3.DatabaseError as exc:
            self._discard(f"unreadable ({exc})")
        except OSError as exc:
            self._note(f"scan cache off: cannot use {self.path.parent}: {exc.strerror or exc}")
            return None
        try:
            return self._connect()
        except (sqlite3.DatabaseError, OSError) as exc:
            self._note(f"scan cache off: {self.path}: {exc}")
            return None

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=_WAIT_S, isolation_level=None, check_same_thread=False)
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
                       "mtime_ns INTEGER, inode INTEGER, edges BLOB, ctime_ns INTEGER, entry BLOB, PRIMARY KEY (key, path))")
            # whole scans' summaries (scan.summary_cache), by the digest of their files' stamps and plan
            db.execute("CREATE TABLE IF NOT EXISTS summaries (digest TEXT PRIMARY KEY, key TEXT NOT NULL, "
                       "made INTEGER, entry BLOB)")
            # each file's fold for one plan (scan.parts), by the digest of its stamp
            db.execute("CREATE TABLE IF NOT EXISTS parts (key TEXT NOT NULL, plan TEXT NOT NULL, path TEXT NOT NULL, "
                       "stamp BLOB, entry BLOB, PRIMARY KEY (key, plan, path))")
            # entries measured by other code can never serve again: they go, so upgrades do not pile up
            # (as a range outside this code's keys, not NOT LIKE: the tables' keys lead their primary keys, so
            # SQLite walks only what goes instead of every row: 10k files cost each start 10 ms)
            low = _code_prefix(self.key)
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

    def _discard(self, why: str) -> None:
        self._note(f"scan cache {self.path} {why}: discarded, starting a new one")
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(f"{self.path}{suffix}")
            except FileNotFoundError:
                pass

    def stamps(self, files: list | None = None, roots: Iterable = ()) -> dict[str, Stamp]:
        """The paths this key holds, with the stamp each was measured at: all of them, or only `files` and
        those under the folders among `roots` (a one-session scan does not load a 10k-file corpus's stamps).
        As at the first call: one scan's."""
        if self._known is None:
            self._known = self._stamps(files, roots)
        return self._known

    def _stamps(self, files: list | None = None, roots: Iterable = ()) -> dict[str, Stamp]:
        found = self._select("SELECT path, size, mtime_ns, inode, edges, ctime_ns FROM files WHERE key = ?", (),
                             files, roots)
        return {path: Stamp(*stamp) for path, *stamp in found}

    def _select(self, sql: str, args: tuple, files: list | None, roots: Iterable) -> list[tuple]:
        """The rows of `sql` (`WHERE key = ?` and `args`, a table keyed by (key, …, path) or (key, path)): all,
        or those of `files` and of the paths under the folders among `roots`."""
        if self._db is None:
            return []
        try:
            if files is None:
                return self._db.execute(sql, (self.key, *args)).fetchall()
            found = []
            folders = _folders(roots)
            for folder in folders:  # a range of the primary key: the paths that start with `folder`
                found += self._db.execute(f"{sql} AND path >= ? AND path < ?", (
                    self.key, *args, folder, folder[:-1] + chr(ord(folder[-1]) + 1))).fetchall()
            alone = [str(p) for p in files if not str(p).startswith(tuple(folders))]
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
        return self._entry("SELECT entry FROM files WHERE key = ? AND path = ?", (self.key, source),
                           lambda data: decode(source, data), f"the entry of {source} is damaged ({{}}): read again",
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
        self._pending.append((self.key, source, stamp.size, stamp.mtime_ns, stamp.inode, stamp.edges, stamp.ctime_ns,
                              entry))
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
        """The files' parts for `plan` (scan.parts): path -> (stamp digest, entry); all, or those of `files`
        and under the folders among `roots` (as `stamps`)."""
        found = self._select("SELECT path, stamp, entry FROM parts WHERE key = ? AND plan = ?", (plan,), files, roots)
        return {path: (stamp, entry) for path, stamp, entry in found}

    def put_part(self, plan: str, source: str, stamp: bytes, entry: bytes) -> None:
        """Keep one file's part for `plan` (written with the entries)."""
        self._pending_parts.append((self.key, plan, source, stamp, entry))

    def forget(self, sources: Iterable[str]) -> None:
        """Drop the entries of `sources` (files that are gone or damaged), and their parts."""
        gone = [(self.key, s) for s in sources]
        self._write("DELETE FROM files WHERE key = ? AND path = ?", gone)
        self._write("DELETE FROM parts WHERE key = ? AND path = ?", gone)

    def flush(self) -> None:
        """Write the pending entries in one transaction."""
        pending, self._pending = self._pending, []
        self._write("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)", pending)
        parts, self._pending_parts = self._pending_parts, []
        self._write("INSERT OR REPLACE INTO parts VALUES (?, ?, ?, ?, ?)", parts)

    def _write(self, sql: str, rows: list[tuple]) -> None:
        if self._db is None or not rows:
            return
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(sql, rows)
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as exc:  # locked for _WAIT_S by another scan: skip, never fail
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


def stamped(known: dict[str, Stamp], files: list, growing: bool) -> list[tuple[Stamp | None, bool, bool]]:
    """(stamp, unchanged, only grown) of each of `files` against the stamps `known` (ScanCache.stamps);
    a file is only grown when `growing` (its reader can read on)."""
    stamps, asked = [], _covering()
    for path in files:
        before = known.get(str(path))
        others = covered(path, asked) if isinstance(path, Path) else None
        if before is not None and isinstance(path, Path) and others is None:
            try:
                st = os.stat(path)
            except OSError:
                st = None
            # nothing has written to it since it was stamped: its bytes are the ones measured (git's rule for
            # its index), so the edges are not read again: one stat, where reading them cost 10k files 0.15 s
            if st is not None and (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns) == (
                    before.size, before.mtime_ns, before.inode, before.ctime_ns):
                stamps.append((before, True, False))
                continue
        stamp = stamp_of(path, others) if isinstance(path, Path) else None
        hit = stamp is not None and before is not None and stamp.same_bytes(before)
        stamps.append((stamp, hit, not hit and growing and before is not None and stamp is not None
                       and appended(path, before)))
    return stamps


def through_cache(cache: ScanCache, files: list, scan: Callable[[list], Iterator[FileResult]],
                  roots: Iterable[Path] = (), grown: Callable[[Path, dict, tuple | None], FileResult] | None = None,
                  stamps: list | None = None, parts=None) -> Iterator[FileResult]:
    """Each of `files`' results in order: from `cache` where the file's stamp is unchanged, else from
    `scan(the files that changed)`, kept for next time. Entries of files gone from `roots` are dropped.

    A file that only grew (appended) is read again by `grown(path, known, resume)` in this process: from
    its checkpoint when its collector left one (resume_from), else whole, with `known` the token counts of
    its cached rows, so only the new outputs are counted. `stamps`: `stamped(...)` of `files`, when the
    caller worked them out already. A file that could not be kept clears `cache.complete`. With `parts`
    (scan.parts.Kept) each kept file comes as its Part: kept from an earlier scan, or made now."""
    from .parts import Part

    known = cache.stamps(files, roots)
    stamps = stamped(known, files, grown is not None) if stamps is None else stamps
    misses = [path for path, (_, hit, longer) in zip(files, stamps) if not hit and not longer]
    fresh = scan(misses)
    for path, (stamp, hit, longer) in zip(files, stamps):
        if hit and parts is not None:
            doc = parts.kept(path, stamp)
            if doc is not None:
                yield Part(str(path), doc, lambda path=path: cache.load(str(path)) or next(scan([path])))
                continue
        result = cache.load(str(path)) if hit or longer else None
        if hit and result is not None:
            for source in {r.source for r in result.measurements} - {str(path)}:
                cache.read_from.setdefault(source, set()).add(path)  # a row named after its folder
            yield result if parts is None else Part(str(path), parts.made(path, stamp, result), lambda r=result: r)
            continue
        if longer:
            result = grown(path, _counts(result), None if result is None else resume_from(result))
        else:  # changed or new (from `fresh`, in order), or an entry found damaged on loading
            result = next(fresh) if not hit else next(scan([path]))
        if stamp is not None and cacheable(result):
            if cache.put(str(path), stamp, result) and parts is not None:
                yield Part(str(path), parts.made(path, stamp, result), lambda r=result: r)
                continue
        else:
            cache.complete = False
        yield result
    cache.forget(_gone(known, files, roots))
    cache.flush()


def _counts(cached: FileResult | None) -> dict:
    """The token counts of a cached result's outputs, by what identifies each output (measure.known_key)."""
    if cached is None:
        return {}
    return {known_key(r.session, r.call_id, r.line, r.chars, r.bytes, r.model): r.tokens
            for r in cached.measurements if r.status != "unpaired"}


def resume_from(cached: FileResult) -> tuple | None:
    """(collector, checkpoint, rows and skipped lines up to it) of a cached result that has a checkpoint:
    what pipeline.scan_file reads on from. The rows of the lines after it (and the calls then waiting for
    a result) are read again; usage comes whole from the checkpoint's state."""
    if cached.checkpoint is None or cached.collector is None:
        return None
    line = cached.checkpoint[1]
    return (cached.collector, tuple(cached.checkpoint),
            tuple(r for r in cached.measurements if r.line <= line and r.status != "unpaired"),
            tuple(s for s in cached.skipped if s.line <= line))


def _folders(roots: Iterable) -> list[str]:
    """The scanned folders among `roots`, each ending in a separator (the prefix of the paths under it)."""
    return [str(r).rstrip(os.sep) + os.sep for r in roots if isinstance(r, Path) and r.is_dir()]


def _gone(known: dict[str, Stamp], files: list, roots: Iterable[Path]) -> list[str]:
    """Cached paths under a scanned folder that the scan no longer found."""
    seen = {str(p) for p in files}
    folders = _folders(roots)
    return [p for p in known if p not in seen and any(p.startswith(f) for f in folders)]


@dataclass(frozen=True)
class CacheInfo:
    """What `toolaudit cache info` shows: where the cache is, its size, and its entries per options key."""

    path: str
    exists: bool
    bytes: int
    files: int
    keys: tuple[tuple[str, int], ...]  # (options key, files) for each key held
    current: str  # the key of a default scan with this toolaudit
    summaries: int = 0  # whole scans' summaries kept (scan.summary_cache)
    parts: int = 0  # files' folds kept, one per file and grouping (scan.parts)


def info(folder: Path | None = None) -> CacheInfo:
    """The cache's location, size and entries (read only: a damaged cache is reported, not repaired)."""
    from ..tokenizers import DEFAULT_ENGINE, DEFAULT_TOKENIZER

    path = (folder or cache_dir()) / NAME
    current = options_key(DEFAULT_TOKENIZER, DEFAULT_ENGINE, None, None)
    if not path.exists():
        return CacheInfo(str(path), False, 0, 0, (), current)
    size = sum(os.path.getsize(f"{path}{s}") for s in ("", "-wal") if os.path.exists(f"{path}{s}"))
    keys, kept = (), (0, 0)
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=_WAIT_S)
        try:
            keys = tuple(db.execute("SELECT key, COUNT(*) FROM files GROUP BY key ORDER BY key").fetchall())
            kept = tuple(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in ("summaries", "parts"))
        finally:
            db.close()
    except sqlite3.DatabaseError:
        pass
    return CacheInfo(str(path), True, size, sum(n for _, n in keys), keys, current, *kept)


def clear(folder: Path | None = None) -> int:
    """Remove the cache's files; returns the bytes freed."""
    path = (folder or cache_dir()) / NAME
    freed = 0
    for suffix in ("", "-wal", "-shm"):
        try:
            freed += os.path.getsize(f"{path}{suffix}")
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass
    return freed
