"""A scan's summary, kept beside the per-file entries: a scan whose files are all unchanged since a scan
with the same options and the same plan is answered from it, without decoding or folding a row.

Why: folding every cached row again is most of an unchanged re-scan (at 2 GB, 0.3 s of decoding and
0.3 s of folding), and an unchanged corpus is the everyday case of a scan run twice. The summary's key
is a digest of the options key (code, tokenizer, engine, calibration, format), the plan (grouping,
families, time zone, pricing), and every input file's path and stamp in scan order, so any change to
any file, or a file more or less, misses it and the scan merges each file's part (scan.parts) instead.

Only scans that show no text are kept (no --top, --records or --show-content) and only whole ones: no
--since/--until window (its `7d` moves with the clock), no --strict, no --cost (the price table prices at
the time of asking), no file that could not be read or stamped, no folder that could not be listed. A summary holds what the ScanResult holds without its meta: numbers, tool and group names,
skipped lines' reasons: never output or argument text. It is stored as tagged JSON and rebuilt only
into the result classes named below: data, never a program (no pickle).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields, is_dataclass
from decimal import Decimal
from functools import cache
from hashlib import sha256
from typing import Any

from ..model import GroupRow, Measurement, ScanResult, Skipped
from .billing import Bill, Billing, ToolCost
from .menu import Definition, Menu, ToolReferences

KEPT_PER_OPTIONS = 16  # summaries kept per options key: the plans a user runs (--by tool, session, day …)
_CLASSES = {cls.__name__: cls for cls in (GroupRow, Skipped, Measurement, Bill, Billing, ToolCost, Menu,
                                           Definition, ToolReferences)}


@cache
def _classes() -> dict[str, type]:
    from .summary import DayRow  # summary imports this module's users: late, to keep imports one-way

    return {**_CLASSES, "DayRow": DayRow}


def pack(value: Any) -> Any:
    """`value` as JSON data, its types tagged: tuples, sets, Decimals, non-string dict keys, result classes."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Decimal):
        return {"$d": str(value)}
    if isinstance(value, tuple):
        return {"$t": [pack(v) for v in value]}
    if isinstance(value, list):
        return [pack(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return {"$s": [pack(v) for v in sorted(value, key=repr)]}
    if isinstance(value, dict):
        return {"$m": [[pack(k), pack(v)] for k, v in value.items()]}
    if is_dataclass(value) and type(value).__name__ in _classes():
        return {"$c": type(value).__name__, "f": [pack(getattr(value, f.name)) for f in fields(value)]}
    raise TypeError(f"a summary cannot hold a {type(value).__name__}")


def unpack(doc: Any, classes: dict[str, type] | None = None) -> Any:
    """What `pack` packed (ValueError/TypeError/KeyError on anything it did not write)."""
    classes = classes or _classes()
    if doc is None or isinstance(doc, (str, bool, int, float)):
        return doc
    if isinstance(doc, list):
        return [unpack(v, classes) for v in doc]
    if not isinstance(doc, dict) or len(doc) not in (1, 2):
        raise ValueError("not a packed value")
    if "$d" in doc:
        return Decimal(doc["$d"])
    if "$t" in doc:
        return tuple(unpack(v, classes) for v in doc["$t"])
    if "$s" in doc:
        return {unpack(v, classes) for v in doc["$s"]}
    if "$m" in doc:
        return {unpack(k, classes): unpack(v, classes) for k, v in doc["$m"]}
    cls = classes[doc["$c"]]  # KeyError: a class this module never writes
    return cls(*(unpack(v, classes) for v in doc["f"]))


def result_of(data: bytes) -> ScanResult:
    """The ScanResult (meta None) of stored summary bytes."""
    import orjson

    doc = orjson.loads(data)
    names = [f.name for f in fields(ScanResult)]
    if sorted(doc) != sorted(n for n in names if n not in ("meta", "calls")):
        raise ValueError("a summary of other fields")
    return ScanResult(meta=None, **{name: unpack(value) for name, value in doc.items()})


def data_of(result: ScanResult) -> bytes:
    """A ScanResult's summary bytes (its meta and calls left out)."""
    import orjson

    return orjson.dumps({f.name: pack(getattr(result, f.name)) for f in fields(result)
                         if f.name not in ("meta", "calls")})


@dataclass
class Keeper:
    """The kept summary of one plan: `key` is set by `check` when every file is stamped (pipeline.run)."""

    plan_key: str
    key: str | None = None

    def check(self, cache, files: list, stamps: list) -> ScanResult | None:
        """The summary kept for exactly these files at these stamps, or None (then `key` is what the
        summary of this scan will be kept under, when every file has a stamp)."""
        if any(stamp is None for stamp, _, _ in stamps):
            return None
        digest = sha256(f"{cache.key}\0{self.plan_key}\0".encode())
        for path, (stamp, _, _) in zip(files, stamps):
            digest.update(f"{path}\0{stamp.size}\0{stamp.mtime_ns}\0{stamp.inode}\0".encode("utf-8", "surrogatepass"))
            digest.update(stamp.edges or b"")
        self.key = digest.hexdigest()
        if not all(hit for _, hit, _ in stamps):
            return None
        return cache.summary(self.key)


def plan_key(plan) -> str:
    """What the summary depends on besides the files and the options key: the plan (its grouping, families,
    zone, top), and for periods in this machine's zone (no --tz) that zone's rules."""
    zone = local_zone() if plan.grouping.tz is None and plan.grouping.chronological else ""
    return f"{plan!r}\0{zone}"


def local_zone() -> str:
    """This machine's time zone as its rules: TZ and a digest of the zone file it names (or of /etc/localtime).
    Its names and offsets are not enough: Athens and Cairo share both and change clocks on other dates."""
    import os
    from zoneinfo import TZPATH

    name = os.environ.get("TZ", "")
    files = [os.path.join(root, name.lstrip(":")) for root in TZPATH] if name else []
    for candidate in [*files, name.lstrip(":") if name.startswith(":/") else "", "/etc/localtime"]:
        try:
            with open(candidate, "rb") as handle:
                return f"{name}\0{sha256(handle.read()).hexdigest()}"
        except OSError:
            continue
    return f"{name}\0{time.tzname}{time.timezone}{time.altzone}"
