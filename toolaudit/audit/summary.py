"""Aggregate measured calls into a ScanResult: per-group rows, totals, top calls.

Percentiles use the nearest-rank method (audit.stats): the p-th percentile of n sorted values is
the value at rank ceil(p/100 × n). Rows count calls that returned an output (paired
calls and orphan results); calls whose result never came are counted apart.
The menu adds up the tool definitions that requests carried, where transcripts record them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable

import pandas as pd

from ..model import (
    ORPHAN, UNPAIRED, FileResult, GroupRow, Measurement, MenuMeasurement, ScanMeta, ScanResult, Skipped, Usage,
)
from .billing import bill
from .stats import nearest_rank

BY_COLUMNS = {
    "tool": "tool",
    "session": "session",
    "file": "source",
    "collector": "collector",
    "agent": "agent",
    "model": "model",
}
SKIPPED_SHOWN = 20


def _when(ts: str | None) -> datetime | None:
    """An ISO-8601 timestamp as an aware datetime (UTC when it names no zone), or None."""
    if not ts:
        return None
    try:
        when = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


class Collected:
    """Everything gathered from the FileResults, deduplicated by call id across the scan.

    With `since`/`until`, only calls and requests timestamped inside the window are
    kept; those without a timestamp are dropped and counted in `undated`. Tool menus carry
    no timestamps: a window leaves them out.
    """

    def __init__(self, results: Iterable[FileResult] = (), since: datetime | None = None,
                 until: datetime | None = None):
        self.since, self.until = since, until
        self.undated = 0
        self.usage: list[Usage] = []
        self._requests: set[tuple] = set()
        self.rows: list[Measurement] = []
        self.skipped: list[Skipped] = []
        self.skipped_count = 0
        self.unrecognised: list[str] = []
        self.errors: list[str] = []
        self.files = 0
        self.duplicates = 0
        self.collectors: dict[str, int] = {}
        self._unpaired: dict[tuple, Measurement] = {}
        self._seen: set[tuple] = set()
        self.menus: dict[tuple, MenuMeasurement] = {}
        for result in results:
            self.add(result)

    def add(self, result: FileResult) -> None:
        """Fold one file in; a call id seen before (resumed session, subagent copy) is dropped.

        A copy that has its result beats one that lost it (a resumed file may copy a
        call without the result that the original holds), whichever file comes first.
        """
        if result.error is not None:
            target = self.unrecognised if result.collector is None and "recognises" in result.error else self.errors
            target.append(f"{result.source}: {result.error}")
            return
        self.files += 1
        self.collectors[result.collector] = self.collectors.get(result.collector, 0) + 1
        seen = self._seen
        for u in result.usage:
            key = (result.collector, u.request_id) if u.global_id else (result.collector, u.source, u.request_id)
            if key not in self._requests and self._inside(u.ts):
                self._requests.add(key)
                self.usage.append(u)
        for row in result.measurements:
            if not self._inside(row.ts):
                continue
            key = row.dedupe_key
            if key is None:
                self.rows.append(row)
            elif key in seen or (row.status == UNPAIRED and key in self._unpaired):
                self.duplicates += 1
            elif row.status == UNPAIRED:
                self._unpaired[key] = row
            else:
                seen.add(key)
                if self._unpaired.pop(key, None) is not None:
                    self.duplicates += 1
                self.rows.append(row)
        if self.since is None and self.until is None:
            for menu in result.menus:
                self._add_menu(menu)
        for skip in result.skipped:
            self.skipped_count += 1
            if len(self.skipped) < SKIPPED_SHOWN:
                self.skipped.append(skip)

    def _add_menu(self, menu: MenuMeasurement) -> None:
        """A session's menu once: a copy in another file (same session, same definitions) keeps the
        larger request count. Session ids count across files only where they are unique there."""
        key = (_where(menu), menu.session, menu.agent, menu.key)
        kept = self.menus.get(key)
        if kept is None or menu.requests > kept.requests:
            self.menus[key] = menu

    def _inside(self, ts: str | None) -> bool:
        if self.since is None and self.until is None:
            return True
        when = _when(ts)
        if when is None:
            self.undated += 1
            return False
        return (self.since is None or when >= self.since) and (self.until is None or when < self.until)

    def all_rows(self) -> list[Measurement]:
        """Every kept call: those with outputs, then calls whose result never came."""
        return self.rows + list(self._unpaired.values())


def frame(rows: list[Measurement]) -> pd.DataFrame:
    """One row per call, the columns of Measurement (what `--records` writes)."""
    columns = list(Measurement.__dataclass_fields__)
    return pd.DataFrame([[getattr(r, c) for c in columns] for r in rows], columns=columns)


def _group_row(key: str, df: pd.DataFrame, total_tokens: int) -> GroupRow:
    tokens = df["tokens"].to_numpy()
    return GroupRow(
        key=key,
        calls=len(df),
        tokens=int(tokens.sum()),
        share=(float(tokens.sum()) / total_tokens) if total_tokens else 0.0,
        tokens_mean=float(tokens.mean()) if len(tokens) else 0.0,
        tokens_p50=int(nearest_rank(tokens, 50)),
        tokens_p95=int(nearest_rank(tokens, 95)),
        tokens_max=int(tokens.max()) if len(tokens) else 0,
        chars=int(df["chars"].sum()),
        bytes=int(df["bytes"].sum()),
        error_calls=int(df["is_error"].sum()),
        agent_truncated_calls=int(df["agent_truncated"].sum()),
    )


def summarize(collected: Collected, meta: ScanMeta, by: str = "tool", top: int = 0, *,
              cost: bool = False, model: str | None = None) -> ScanResult:
    """Rows per `by` group sorted by tokens, a totals row, the `top` largest calls, and the bill.

    `cost` prices usage and tool outputs; `model` stands in where a transcript names none.
    """
    df = frame(collected.all_rows())
    outputs = df[df["status"] != UNPAIRED] if len(df) else df
    total_tokens = int(outputs["tokens"].sum()) if len(outputs) else 0
    rows = _grouped(outputs, by, total_tokens)
    tools = rows if by == "tool" else _grouped(outputs, "tool", total_tokens)
    known = outputs[outputs["residency"].notna()] if len(outputs) else outputs
    totals = _group_row("TOTAL", outputs if len(outputs) else _empty(), total_tokens)
    biggest = sorted(
        (r for r in collected.rows if r.status != UNPAIRED), key=lambda r: (-r.tokens, r.source, r.line)
    )[:top]
    return ScanResult(
        meta=meta,
        totals=totals,
        rows=tuple(rows),
        tools=tuple(tools),
        files=collected.files,
        sessions=int(df["session"].nunique()) if len(df) else 0,
        duplicates_dropped=collected.duplicates,
        unpaired_calls=int((df["status"] == UNPAIRED).sum()) if len(df) else 0,
        orphan_results=int((df["status"] == ORPHAN).sum()) if len(df) else 0,
        images=int(df["images"].sum()) if len(df) else 0,
        image_bytes=int(df["image_bytes"].sum()) if len(df) else 0,
        skipped_count=collected.skipped_count,
        skipped=tuple(collected.skipped),
        unrecognised=tuple(collected.unrecognised),
        errors=tuple(collected.errors),
        collectors=dict(sorted(collected.collectors.items())),
        top=tuple(biggest),
        carried_tokens=int((known["tokens"] * known["residency"].astype("int64")).sum()) if len(known) else 0,
        residency_known_calls=len(known),
        bill=bill(collected.usage, [r for r in collected.rows if r.status != UNPAIRED], by=by, priced=cost,
                  model=model) if (collected.usage or cost) else None,
        undated=collected.undated,
        menu=menu_summary(list(collected.menus.values()), top),
        days=per_day(outputs),
        **run_stats(df, collected.usage),
    )


def run_stats(df: pd.DataFrame, usage: list[Usage]) -> dict:
    """runs, and the median and p90 of tool-output tokens per run, runs found by compare's rule.

    The median is compare's (the mean of the two middle values for an even n); p90 is nearest-rank.
    """
    from .compare import CALL_COLUMNS, Grouping, Side, per_run, usage_frame

    if not len(df) and not usage:
        return {}
    runs, _ = per_run(Side("", "", df[list(CALL_COLUMNS)], usage_frame(usage)), Grouping("0", level=0))
    tokens = runs["tokens"]
    return {"runs": len(tokens), "tokens_per_run_median": float(tokens.median()) if len(tokens) else 0.0,
            "tokens_per_run_p90": int(nearest_rank(tokens.to_numpy(), 90))}


@dataclass(frozen=True)
class DayRow:
    """One tool's outputs on one UTC day: calls and tokens (calls without a timestamp are left out)."""

    day: str  # YYYY-MM-DD in UTC, so a report reads the same in every time zone
    tool: str
    calls: int
    tokens: int


def per_day(outputs: pd.DataFrame) -> tuple[DayRow, ...]:
    """Calls and tokens per UTC day and tool, by day, then largest first; timestamps read as `_when` reads them."""
    if not len(outputs):
        return ()
    when = pd.to_datetime(outputs["ts"], utc=True, format="ISO8601", errors="coerce")
    dated = outputs[when.notna()].assign(day=when[when.notna()].dt.strftime("%Y-%m-%d"))
    sums = dated.groupby(["day", "tool"])["tokens"].agg(["size", "sum"])
    rows = [DayRow(str(day), str(tool), int(n), int(t)) for (day, tool), (n, t) in sums.iterrows()]
    return tuple(sorted(rows, key=lambda r: (r.day, -r.tokens, r.tool)))


@dataclass(frozen=True)
class Definition:
    """One tool's definition over the scan: its tokens, the requests that carried it, their product.

    A tool whose definition changed between menus has `versions` > 1: `tokens` is the version most
    requests carried, and `carried_tokens` adds each version's tokens × its requests.
    """

    tool: str
    tokens: int
    requests: int
    carried_tokens: int
    versions: int = 1


@dataclass(frozen=True)
class Menu:
    """The tool definitions model requests carried: each definition, and the menu in all."""

    definitions: tuple[Definition, ...]
    menus: int  # distinct menus
    sessions: int  # sessions that sent one
    requests: int  # requests that carried a menu
    carried_tokens: int  # definition tokens × the requests that carried them
    top: int = 0  # how many definitions the text reports list (scan --top)

    @property
    def tokens_per_request(self) -> int:
        """The menu's tokens on one request (their mean, when menus differ)."""
        return round(self.carried_tokens / self.requests) if self.requests else 0


def _where(menu: MenuMeasurement) -> str:
    """Where a menu's session id is unique: its file, or (global ids) its format."""
    return menu.collector if menu.global_id else menu.source


def menu_summary(menus: list[MenuMeasurement], top: int = 0) -> Menu | None:
    """The definitions of every kept menu added up per tool name, largest cost first; None without menus."""
    if not menus:
        return None
    per: dict[str, dict[str, list[int]]] = {}
    for menu in menus:
        for name, key, tokens in menu.tools:
            per.setdefault(name, {}).setdefault(key, [tokens, 0])[1] += menu.requests
    definitions = []
    for name, versions in per.items():
        tokens = max(versions.values(), key=lambda v: (v[1], v[0]))[0]
        definitions.append(Definition(name, tokens, sum(r for _, r in versions.values()),
                                      sum(t * r for t, r in versions.values()), len(versions)))
    definitions.sort(key=lambda d: (-d.carried_tokens, d.tool))
    return Menu(tuple(definitions), menus=len({m.key for m in menus}),
                sessions=len({(_where(m), m.session, m.agent) for m in menus}),
                requests=sum(m.requests for m in menus),
                carried_tokens=sum(d.carried_tokens for d in definitions), top=top)


def _grouped(outputs: pd.DataFrame, by: str, total_tokens: int) -> list[GroupRow]:
    """One GroupRow per value of the `by` column, largest token count first."""
    if not len(outputs):
        return []
    keys = outputs[BY_COLUMNS[by]].fillna("(unknown)").astype(str)
    rows = [_group_row(str(key), group, total_tokens) for key, group in outputs.groupby(keys, sort=False)]
    return sorted(rows, key=lambda r: (-r.tokens, r.key))


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="int64") for c in ("tokens", "chars", "bytes", "is_error", "agent_truncated")})
