"""The scan cache's options key: what a file's measured numbers depend on (toolaudit's code, the tokenizer,
its engine, its calibration, a forced format), and reading a key back for `cache info`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from hashlib import sha256
from pathlib import Path

LAYOUT = 8  # bump when the tables or the entry encoding change (7: Usage.turn_start, context_window; 8: Codex
# request ids name the rollout a fork copied them from)


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



def code_prefix(key: str) -> str:
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
