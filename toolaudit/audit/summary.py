"""Aggregate measured calls into a ScanResult: per-group rows, totals, top calls.

Percentiles use the nearest-rank method (audit.stats): the p-th percentile of n sorted values is
the value at rank ceil(p/100 × n). Rows count calls that returned an output (paired
calls and orphan results); calls whose result never came are counted apart.
The menu adds up the tool definitions that requests carried, where transcripts record them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from pathlib import PurePath
from statistics import median
from typing import TYPE_CHECKING, Callable, Iterable

from ..model import (
    ORPHAN, UNPAIRED, FileResult, GroupRow, Measurement, MenuMeasurement, ScanMeta, ScanResult, Skipped, Usage,
)
from .billing import bill
from .families import DEFAULT as DEFAULT_FAMILIES, Families
from .periods import PERIODS, period_of, when_of as _when
from .runs import main_files
from .stats import nearest_rank

if TYPE_CHECKING:  # pandas is imported only where a frame is asked for (records, compare)
    import pandas as pd

BY_COLUMNS = {
    "tool": "tool",
    "session": "session",
    "file": "source",
    "collector": "collector",
    "agent": "agent",
    "model": "model",
}
SKIPPED_SHOWN = 20
UNDATED = "(no timestamp)"  # the period of calls without a timestamp (--by day|week|month)


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


def frame(rows: list[Measurement]) -> "pd.DataFrame":
    """One row per call, the columns of Measurement (what `--records` writes)."""
    import pandas as pd

    columns = list(Measurement.__dataclass_fields__)
    return pd.DataFrame([[getattr(r, c) for c in columns] for r in rows], columns=columns)


def _group_row(key: str, rows: list[Measurement], total_tokens: int) -> GroupRow:
    tokens = [r.tokens for r in rows]
    total = sum(tokens)
    return GroupRow(
        key=key,
        calls=len(rows),
        tokens=total,
        share=(total / total_tokens) if total_tokens else 0.0,
        tokens_mean=(total / len(tokens)) if tokens else 0.0,
        tokens_p50=int(nearest_rank(tokens, 50)),
        tokens_p95=int(nearest_rank(tokens, 95)),
        tokens_max=max(tokens, default=0),
        chars=sum(r.chars for r in rows),
        bytes=sum(r.bytes for r in rows),
        error_calls=sum(1 for r in rows if r.is_error),
        agent_truncated_calls=sum(1 for r in rows if r.agent_truncated),
    )


@dataclass(frozen=True)
class Grouping:
    """What `--by` groups calls by: a Measurement field, a tool family, or a calendar period in a zone."""

    by: str = "tool"
    families: Families = DEFAULT_FAMILIES
    tz: tzinfo | None = None  # periods: None is the machine's local zone

    @property
    def chronological(self) -> bool:
        """Periods are listed in time order; other groups largest first."""
        return self.by in PERIODS

    def key_of(self) -> Callable[[Measurement], str]:
        """The function that names a call's group."""
        if self.by == "family":
            return lambda r: self.families.of(r.tool)
        if self.by in PERIODS:
            return lambda r: period_of(r.ts, self.by, self.tz) or UNDATED
        column = BY_COLUMNS[self.by]
        return lambda r: "(unknown)" if getattr(r, column) is None else str(getattr(r, column))


def summarize(collected: Collected, meta: ScanMeta, by: str | Grouping = "tool", top: int = 0, *,
              cost: bool = False, model: str | None = None) -> ScanResult:
    """Rows per `by` group (sorted by tokens, periods by time), a totals row, the `top` largest calls, and the bill.

    `cost` prices usage and tool outputs; `model` stands in where a transcript names none.
    """
    grouping = by if isinstance(by, Grouping) else Grouping(by)
    every = collected.all_rows()
    outputs = [r for r in every if r.status != UNPAIRED]
    total_tokens = sum(r.tokens for r in outputs)
    rows = _grouped(outputs, grouping, total_tokens)
    tools = rows if grouping.by == "tool" else _grouped(outputs, Grouping("tool"), total_tokens)
    known = [r for r in outputs if r.residency is not None]
    totals = _group_row("TOTAL", outputs, total_tokens)
    biggest = sorted(
        (r for r in collected.rows if r.status != UNPAIRED), key=lambda r: (-r.tokens, r.source, r.line)
    )[:top]
    return ScanResult(
        meta=meta,
        totals=totals,
        rows=tuple(rows),
        tools=tuple(tools),
        files=collected.files,
        sessions=len({r.session for r in every if r.session is not None}),
        duplicates_dropped=collected.duplicates,
        unpaired_calls=len(every) - len(outputs),
        orphan_results=sum(1 for r in every if r.status == ORPHAN),
        images=sum(r.images for r in every),
        image_bytes=sum(r.image_bytes for r in every),
        skipped_count=collected.skipped_count,
        skipped=tuple(collected.skipped),
        unrecognised=tuple(collected.unrecognised),
        errors=tuple(collected.errors),
        collectors=dict(sorted(collected.collectors.items())),
        top=tuple(biggest),
        carried_tokens=sum(r.tokens * r.residency for r in known),
        residency_known_calls=len(known),
        bill=bill(collected.usage, [r for r in collected.rows if r.status != UNPAIRED], by=grouping.by, priced=cost,
                  model=model, period=_usage_period(grouping)) if (collected.usage or cost) else None,
        undated=collected.undated,
        menu=menu_summary(list(collected.menus.values()), top),
        days=per_day(outputs),
        **run_stats(every, collected.usage),
    )


def _usage_period(grouping: Grouping) -> Callable[[Usage], str] | None:
    """Billed usage per period (--by day|week|month): a request's period, read as the calls' are."""
    if not grouping.chronological:
        return None
    return lambda u: period_of(u.ts, grouping.by, grouping.tz) or UNDATED


def run_stats(rows: list[Measurement], usage: list[Usage]) -> dict:
    """runs, and the median and p90 of tool-output tokens per run, runs found by compare's rule.

    A run is (session, main file) (audit.runs); one that made only calls whose result never
    came, or only billed requests, counts with 0 tokens. The median is compare's (the mean of
    the two middle values for an even n); p90 is nearest-rank.
    """
    if not rows and not usage:
        return {}
    pairs = {(r.source, r.session) for r in rows} | {(u.source, u.session) for u in usage}
    main = main_files(pairs, PurePath)
    tokens: dict[tuple[str, str], int] = {(session, main[source, session]): 0 for source, session in pairs}
    for r in rows:
        if r.status != UNPAIRED:
            tokens[r.session, main[r.source, r.session]] += r.tokens
    per_run = list(tokens.values())
    return {"runs": len(per_run), "tokens_per_run_median": float(median(per_run)) if per_run else 0.0,
            "tokens_per_run_p90": int(nearest_rank(per_run, 90))}


@dataclass(frozen=True)
class DayRow:
    """One tool's outputs on one UTC day: calls and tokens (calls without a timestamp are left out)."""

    day: str  # YYYY-MM-DD in UTC, so a report reads the same in every time zone
    tool: str
    calls: int
    tokens: int


def per_day(outputs: list[Measurement]) -> tuple[DayRow, ...]:
    """Calls and tokens per UTC day and tool, by day, then largest first; timestamps read as `_when` reads them."""
    sums: dict[tuple[str, str], list[int]] = {}
    for r in outputs:
        day = period_of(r.ts, "day", timezone.utc)
        if day is not None:
            cell = sums.setdefault((day, r.tool), [0, 0])
            cell[0] += 1
            cell[1] += r.tokens
    rows = [DayRow(day, str(tool), n, t) for (day, tool), (n, t) in sums.items()]
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


def _grouped(outputs: list[Measurement], grouping: Grouping, total_tokens: int) -> list[GroupRow]:
    """One GroupRow per group, largest token count first (periods: in time order, undated last)."""
    groups: dict[str, list[Measurement]] = {}
    key_of = grouping.key_of()
    for r in outputs:
        groups.setdefault(key_of(r), []).append(r)
    rows = [_group_row(key, group, total_tokens) for key, group in groups.items()]
    if grouping.chronological:
        return sorted(rows, key=lambda r: (r.key == UNDATED, r.key))
    return sorted(rows, key=lambda r: (-r.tokens, r.key))
