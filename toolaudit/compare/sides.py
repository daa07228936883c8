"""compare's two sides: the runs of a condition, scanned from transcripts (through the scan) or read from the
per-call records `scan --records` wrote."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePath

import pandas as pd

from ..errors import ToolauditError, UsageError
from ..model import UNPAIRED, Usage

CALL_COLUMNS = ("source", "session", "tool", "tokens", "bytes", "status")
COST_COLUMNS = ("source", "session", "usd", "priced_calls", "unpriced_calls")
RECORD_SUFFIXES = (".csv", ".parquet", ".json")
ACCEPTED = ("compare takes folders of transcripts (or one transcript file each), or the per-call records "
            "`scan --records` writes (.csv, .parquet, or a .json list of them)")
_RESULT_HEAD = re.compile(rb'"tool"\s*:\s*"toolaudit"')


@dataclass
class Side:
    """One condition's measured calls and usage, and the folder their paths are relative to."""

    label: str
    root: str
    calls: pd.DataFrame  # CALL_COLUMNS, one row per call (deduplicated)
    usage: pd.DataFrame  # source, session, input_total: one row per model request
    records: bool = False  # read from a `scan --records` file: tokens as that scan counted them
    files: int = 0
    skipped: int = 0
    costs: pd.DataFrame | None = None  # COST_COLUMNS: tool-output dollars per (source, session); None: records
    unknown_models: tuple[str, ...] = ()  # the models of calls without a price

    def rel(self, source: str) -> PurePath:
        """A file's path below the root (the path itself when it is not below it)."""
        try:
            return PurePath(os.path.relpath(source, self.root)) if self.root else PurePath(source)
        except ValueError:  # another drive on Windows
            return PurePath(source)

    def sources(self) -> list[str]:
        """Every file the side's calls and requests came from."""
        return sorted(set(self.calls["source"]) | set(self.usage["source"]))


def side_from_scan(path: Path, collected, model: str | None = None) -> Side:
    """A side scanned from transcripts: an scan.summary.Collected of the files under `path` (`model` prices the
    calls whose transcript names none)."""
    rows = collected.all_rows()
    calls = (pd.DataFrame([[getattr(r, c) for c in CALL_COLUMNS] for r in rows], columns=list(CALL_COLUMNS))
             if rows else _empty_calls())
    costs, unknown = output_costs(rows, model)
    return Side(str(path), str(path if path.is_dir() else path.parent), calls, usage_frame(collected.usage),
                files=collected.files, skipped=collected.skipped_count, costs=costs, unknown_models=unknown)


def output_costs(rows, model: str | None = None) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """What each (source, session)'s tool outputs cost, estimated as scan prices them (usd NaN where none had a
    price; `model` for a call that names none), and the models without a price."""
    from ..scan.billing import add_output, price_outputs

    sums: dict[tuple, list[int]] = {}
    for r in rows:
        if r.status != UNPAIRED:
            add_output(sums, (r.model, (r.source, r.session)), r.tokens, r.residency)
    unknown: set[str] = set()
    priced = price_outputs(sums, model, unknown)
    table = [(source, session, float(c.first + c.resent) if c.priced_calls else float("nan"), c.priced_calls,
              c.unpriced_calls) for (source, session), c in priced.items()]
    return pd.DataFrame(table, columns=list(COST_COLUMNS)), tuple(sorted(unknown))


def usage_frame(usage: list[Usage]) -> pd.DataFrame:
    """source, session, input_total per request."""
    return pd.DataFrame([(u.source, u.session, u.input_total) for u in usage],
                        columns=["source", "session", "input_total"])


def records_side(path: Path) -> Side | None:
    """A side read from per-call records (`scan --records` .csv/.parquet, or a .json list); None for other files.

    Records carry no usage, so billed input is unknown for that side; paths are relative
    to the deepest folder all their sources share.
    """
    suffix = path.suffix.lower()
    if not path.is_file() or suffix not in RECORD_SUFFIXES:
        return None
    if suffix == ".json":
        command = toolaudit_report(path)
        if command is not None:
            what = "totals, not runs" if command != "compare" else "medians, not the calls of its runs"
            raise UsageError(f"{path} is a `toolaudit {command}` JSON report: it holds {what}; {ACCEPTED}",
                             slug="report-not-runs")
        df = _json_records(path)
        if df is None:
            return None  # a transcript that happens to be .json
    elif suffix == ".csv":
        df = pd.read_csv(path, dtype={"source": str, "session": str, "tool": str, "status": str})
    else:
        try:
            df = pd.read_parquet(path)
        except ImportError:
            raise ToolauditError("reading Parquet needs pyarrow: pip install 'agent-toolaudit[parquet]'",
                                 slug="parquet-extra") from None
    missing = [c for c in CALL_COLUMNS[:5] if c not in df.columns]
    if missing:
        raise UsageError(f"{path}: not a records file (`scan --records`): no column {', '.join(missing)}; "
                         f"{ACCEPTED}", slug="bad-records")
    if "status" not in df.columns:
        df["status"] = "paired"
    calls = df[list(CALL_COLUMNS)].astype({"source": str, "session": str, "tool": str, "status": str})
    dirs = {os.path.dirname(s) for s in calls["source"]}
    try:
        root = os.path.commonpath(sorted(dirs)) if dirs else ""
    except ValueError:  # absolute and relative paths mixed
        root = ""
    return Side(str(path), root, calls, usage_frame([]), records=True, files=len(set(calls["source"])))


def toolaudit_report(path: Path) -> str | None:
    """The command whose `-f json` report `path` is (`scan`, `compare`...), else None.

    Only a document whose start names toolaudit as its tool is parsed: a transcript
    given as a side is not read twice.
    """
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if not head.lstrip().startswith(b"{") or not _RESULT_HEAD.search(head):
        return None
    try:
        doc = json.loads(path.read_bytes())
    except ValueError:
        return None
    meta = doc.get("meta") if isinstance(doc, dict) else None
    if isinstance(meta, dict) and meta.get("tool") == "toolaudit":
        return str(meta.get("command") or "scan")
    return None


def _json_records(path: Path) -> pd.DataFrame | None:
    with open(path, "rb") as fh:
        head = fh.read(64).lstrip()
    if not head.startswith(b"["):
        return None
    try:
        data = json.loads(path.read_bytes())
    except ValueError:
        return None
    if data and isinstance(data[0], dict) and set(CALL_COLUMNS[:5]) <= data[0].keys():
        return pd.DataFrame(data)
    return None


def _empty_calls() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="int64" if c in ("tokens", "bytes") else object) for c in CALL_COLUMNS})


