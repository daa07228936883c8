"""The scan cache: each file's measured numbers, kept so that a re-scan reads only the files that changed.

A file's entry is keyed by what the measurement depends on (toolaudit's code, the tokenizer, its
calibration, a forced format) and checked against the file's stamp: path, size, mtime_ns, inode and a
digest of its first and last EDGE bytes, and its change time (ctime, which no program can set back). A file
whose size, mtime, inode and ctime are unchanged is not opened (one changed in the RACY_NS before it was
stamped is checked on its edges too); a file whose ctime moved is read again, even when its size, mtime and
edges are as they were (an edit in the middle with the mtime put back; a chmod costs one read). A file
whose stamp changed is read whole again (or read on, when it only grew); a file gone from a scanned folder
drops out. A whole scan's summary is kept too (scan.summary_cache), and each file's fold for the plans
scanned (scan.parts). Entries hold numbers, names, timestamps and digests only (Measurement rows
without previews, skipped lines, usage, menus): never output or argument text, so `--top`,
`--show-content` and `--records`, which show text, read their files.

The store is one SQLite file in WAL mode under the user cache folder (TOOLAUDIT_CACHE_DIR overrides it):
scan.cache_store. What a key holds: scan.cache_keys; how an entry is written: scan.cache_rows; `cache info` and
`cache clear`: scan.cache_info. Their public
names are importable from here too.
"""

from __future__ import annotations

import os
import time
from hashlib import sha256
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..files import CACHE_ENV as ENV, cache_dir  # noqa: F401  (ENV: the variable, as callers name it here)
from ..model import FileResult
from .cache_keys import LAYOUT, KeyParts, code_digest, key_parts, options_key  # noqa: F401  (their names here)
from .cache_rows import UNRECOGNISED, cacheable, decode, encode, measurement, menu, row_fields  # noqa: F401
from .cache_info import CacheInfo, clear, info  # noqa: F401
from .cache_store import NAME, ScanCache, Stamp, folders, opened, path_key  # noqa: F401
from .measure import known_key

EDGE = 4096
RACY_NS = 2_000_000_000  # a change this recent may share its timestamp with a later one (FAT: 2 s ticks)


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
    `covered` digest when the caller has it (True: work it out). A file changed within RACY_NS of now is racy: a write
    in the same clock tick, after it is read, would not move its times (git's "racily clean" entries), so the
    next scan checks its edges too rather than trusting a stat."""
    peeked = _peek(path)
    if peeked is None:
        return None
    st, edges = peeked
    others = covered(path) if others is True else others
    if others is not None:  # the other files are in its stamp (their names, sizes and mtimes)
        edges = sha256(edges + others).digest()[:16]
    racy = time.time_ns() - max(st.st_ctime_ns, st.st_mtime_ns) < RACY_NS
    return Stamp(st.st_size, st.st_mtime_ns, st.st_ino, edges, st.st_ctime_ns, racy)

def stamped(known: dict[str, Stamp], files: list, growing: bool) -> list[tuple[Stamp | None, bool, bool]]:
    """(stamp, unchanged, only grown) of each of `files` against the stamps `known` (ScanCache.stamps);
    a file is only grown when `growing` (its reader can read on)."""
    stamps, asked = [], _covering()
    for path in files:
        before = known.get(path_key(path))
        others = covered(path, asked) if isinstance(path, Path) else None
        if before is not None and isinstance(path, Path) and others is None:
            try:
                st = os.stat(path)
            except OSError:
                st = None
            # nothing has written to it since it was stamped: its bytes are the ones measured (git's rule for
            # its index), so the edges are not read again: one stat, where reading them cost 10k files 0.15 s
            if st is not None and before.vouched(st):
                stamps.append((before, True, False))
                continue
        stamp = stamp_of(path, others) if isinstance(path, Path) else None
        hit = stamp is not None and before is not None and stamp.same_bytes(before)
        stamps.append((stamp, hit, not hit and growing and before is not None and stamp is not None
                       and stamp.size > before.size and appended(path, before)))
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
    cache.forget_keys(_gone(known, files, roots))
    cache.flush()


def _counts(cached: FileResult | None) -> dict:
    """The token counts of a cached result's outputs, by what identifies each output (measure.known_key)."""
    if cached is None:
        return {}
    return {known_key(r.session, r.call_id, r.line, r.chars, r.bytes, r.model): r.tokens
            for r in cached.measurements if r.status != "unpaired"}


def resume_from(cached: FileResult) -> tuple | None:
    """(collector, checkpoint, rows and skipped lines up to it, its sessions' projects) of a cached result that
    has a checkpoint: what pipeline.scan_file reads on from. The rows of the lines after it (and the calls then
    waiting for a result) are read again; usage comes whole from the checkpoint's state."""
    if cached.checkpoint is None or cached.collector is None:
        return None
    line = cached.checkpoint[1]
    return (cached.collector, tuple(cached.checkpoint),
            tuple(r for r in cached.measurements if r.line <= line and r.status != "unpaired"),
            tuple(s for s in cached.skipped if s.line <= line), cached.sessions)


def _gone(known: dict[str, Stamp], files: list, roots: Iterable[Path]) -> list[str]:
    """The keys of cached paths under a scanned folder that the scan no longer found."""
    seen = {path_key(p) for p in files}
    under = tuple(folders(roots))
    return [k for k in known if k not in seen and k.startswith(under)]
