"""What `toolaudit cache info` and `cache clear` do: the scan cache's place, size and entries, read only (a
planted or damaged cache is reported, never opened or repaired), and its removal."""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..files import cache_dir, untrusted
from .cache_keys import options_key
from .cache_store import NAME, WAIT_S


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
    refused: str = ""  # why scans do not use it (another user's, writable by others, not a file), or ""


def info(folder: Path | None = None) -> CacheInfo:
    """The cache's location, size and entries (read only: a damaged cache is reported, not repaired)."""
    from ..tokenizers import DEFAULT_ENGINE, DEFAULT_TOKENIZER

    path = (folder or cache_dir()) / NAME
    current = options_key(DEFAULT_TOKENIZER, DEFAULT_ENGINE, None, None)
    if not path.exists():
        return CacheInfo(str(path), False, 0, 0, (), current)
    why = _untrusted_now(path)
    if why is not None:  # never opened: a planted file is not read, not even to be counted
        return CacheInfo(str(path), True, 0, 0, (), current, refused=why)
    size = sum(os.path.getsize(f"{path}{s}") for s in ("", "-wal") if os.path.exists(f"{path}{s}"))
    keys, kept = (), (0, 0)
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=WAIT_S)
        try:
            keys = tuple(db.execute("SELECT key, COUNT(*) FROM files GROUP BY key ORDER BY key").fetchall())
            kept = tuple(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in ("summaries", "parts"))
        finally:
            db.close()
    except sqlite3.DatabaseError:
        pass
    return CacheInfo(str(path), True, size, sum(n for _, n in keys), keys, current, *kept)


def _untrusted_now(path: Path) -> str | None:
    """As `refused`, without making or narrowing anything (cache info only reads)."""
    for at, follow in ((path.parent, True), (path, False), (Path(f"{path}-wal"), False), (Path(f"{path}-shm"), False)):
        try:
            st = os.stat(at, follow_symlinks=follow)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return f"cannot use {at}: {exc.strerror or exc}"
        if not (stat.S_ISDIR if at == path.parent else stat.S_ISREG)(st.st_mode):
            return f"{at} is not a {'folder' if at == path.parent else 'file'}"
        why = untrusted(at, st)
        if why is not None:
            return why
    return None


def clear(folder: Path | None = None, note: Callable[[str], None] | None = None) -> int:
    """Remove the cache's files; returns the bytes freed. One that cannot be removed (a folder where the file
    should be, a read-only folder) is left with a `note`: clearing an accelerator never fails."""
    path = (folder or cache_dir()) / NAME
    freed = 0
    for suffix in ("", "-wal", "-shm"):
        at = f"{path}{suffix}"
        try:
            size = os.lstat(at).st_size
            os.unlink(at)
            freed += size
        except FileNotFoundError:
            pass
        except OSError as exc:
            (note or (lambda line: None))(f"cannot remove {at}: {exc.strerror or exc}")
    return freed
