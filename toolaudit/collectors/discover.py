"""Find transcript files (paths, agents' default locations) and detect their format."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import UsageError
from . import base, openhands_v1
from .base import Collector, collectors, load_document, loads

# Directory walks look at these; a file named explicitly is always tried.
SUFFIXES = (".jsonl", ".json", ".traj")
_SNIFF_BYTES = 8 * 1024 * 1024


def default_locations() -> list[Path]:
    """The agents' default transcript folders, whether or not they exist."""
    home = Path.home()
    places = [home / ".claude" / "projects"]
    if os.environ.get("CLAUDE_CONFIG_DIR"):
        places.append(Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects")
    codex_home = os.environ.get("CODEX_HOME")
    places.append(Path(codex_home) / "sessions" if codex_home else home / ".codex" / "sessions")
    places.append(home / ".gemini" / "tmp")
    places.append(home / ".openhands" / "conversations")  # OpenHands CLI (V1)
    return places


def iter_files(paths: list[Path], problems: list[str] | None = None) -> Iterator[Path]:
    """Every file under `paths`, sorted, recursing into directories; a missing path is a usage error.

    A directory that cannot be read is reported into `problems` and passed over.
    """
    def unreadable(exc: OSError) -> None:
        if problems is not None:
            problems.append(f"{exc.filename}: cannot read: {exc.strerror or exc}")

    for path in paths:
        if not path.exists():
            raise UsageError(f"no such file or directory: {path}", slug="missing-path")
    for path in paths:
        if path.is_dir():
            found = []
            for root, dirs, files in os.walk(path, onerror=unreadable):
                dirs.sort()
                found.extend(Path(root) / name for name in files if name.endswith(SUFFIXES))
            # a subagent's own file before its parent's, so its records win over the copies
            # the parent carries in progress lines (the scan keeps the first copy of a call)
            for file in sorted(_one_per_conversation(found), key=_order):
                if file.is_file():  # a FIFO or socket named *.jsonl would block the read
                    yield file
                elif problems is not None:
                    problems.append(f"{file}: not a regular file, passed over")
        elif path.is_file():
            yield path
        elif problems is not None:
            problems.append(f"{path}: not a regular file, passed over")


def _one_per_conversation(found: list[Path]) -> list[Path]:
    """OpenHands V1 keeps a conversation as one file per event: its first event file stands for
    the folder (the collector reads the others), and the folder's state files are no transcripts."""
    firsts: dict[Path, Path] = {}
    rest = []
    for file in found:
        if openhands_v1.event_file(file):
            known = firsts.get(file.parent)
            firsts[file.parent] = file if known is None else min(known, file, key=openhands_v1.event_order)
        else:
            rest.append(file)
    state = {events.parent / name for events in firsts for name in openhands_v1.STATE_FILES}
    return [file for file in rest if file not in state] + list(firsts.values())


def _order(path: Path) -> tuple:
    """Path order, except that `agent-*` files come first among their siblings."""
    return tuple((1, part) for part in path.parent.parts) + ((0 if path.name.startswith("agent-") else 1, path.name),)


def _first_line(path: Path) -> tuple[bytes, bool]:
    """The first non-empty line, and whether more non-empty content follows it."""
    with open(path, "rb") as fh:
        for raw in fh:
            if raw.strip():
                rest = fh.read(4096)
                return raw[:_SNIFF_BYTES] if len(raw) > _SNIFF_BYTES else raw, bool(rest.strip())
    return b"", False


def _document(path: Path, first: bytes, obj: Any, more: bool) -> Any:
    """The file as one JSON document, or None when it is not one."""
    if obj is not None and not more:
        return obj
    if first.lstrip()[:1] not in (b"{", b"["):
        return None
    try:
        return load_document(path)
    except ValueError:
        return None


def _claims(sniff: Callable[[Any], bool], value: Any) -> bool:
    """What a sniffer says; one that trips on an odd value (a list where a string belongs) says no."""
    try:
        return bool(sniff(value))
    except Exception:  # noqa: BLE001 -- odd data: not this format
        if base.DEBUG:
            raise
        return False


def detect(path: Path, forced: str | None = None) -> tuple[type[Collector] | None, Any]:
    """The collector for `path` and, when it is read as one document, the parsed document.

    Judges JSONL formats from the first line's keys, whole-file JSON from the
    document's top-level shape (formats.md §0). Returns (None, None) when nothing fits.
    A collector may read both shapes (a JSON list of runs, or one run per line).
    """
    if forced is None and openhands_v1.event_file(path):
        return collectors.get(openhands_v1.KEY), None  # it stands for its conversation folder
    first, more = _first_line(path)
    try:
        obj = loads(first) if first else None
    except ValueError:
        obj = None
    if forced:
        cls = collectors.get(forced)
        jsonl = cls.jsonl and (obj is not None and (more or not cls.document))
        return cls, (None if jsonl else _document(path, first, obj, more))
    if not first:
        return None, None
    table = collectors.all().values()
    if isinstance(obj, dict):
        for cls in table:
            if cls.jsonl and _claims(cls.sniff_line, obj):
                return cls, None
    doc = _document(path, first, obj, more)
    if doc is None:
        return None, None
    for cls in table:
        if cls.document and _claims(cls.sniff_doc, doc):
            return cls, doc
    return None, None
