"""Aggregate measured calls into a ScanResult: per-group rows, totals, top calls.

Percentiles use the nearest-rank method (scan.stats): the p-th percentile of n sorted values is
the value at rank ceil(p/100 × n). Rows count calls that returned an output (paired
calls and orphan results); calls whose result never came are counted apart.
The menu (scan.menu) adds up the tool definitions that requests carried, where transcripts record them.
"""

from __future__ import annotations

import heapq
from itertools import repeat
from array import array
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone, tzinfo
from pathlib import PurePath
from statistics import median
from typing import Callable, Iterable

from ..model import (
    ORPHAN, UNPAIRED, FileResult, GroupRow, Measurement, MenuMeasurement, ScanMeta, ScanResult, Skipped, Usage,
)
from .billing import BillTally
from .dedupe import Dedupe, digest, request_key
from .families import DEFAULT as DEFAULT_FAMILIES, Families
from .measure import previewed
from .menu import Definition, Menu, ToolReferences, keep_menu, menu_summary, references  # noqa: F401
from .parts import Part, merge
from .periods import PERIODS, period_of, when_of as _when
from .runs import main_files
from .sessions import About
from .stats import nearest_rank, ranked

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

    Without `plan`, every kept call (`rows`) and request (`usage`) is kept, and any summary can be
    asked for. With `plan` (what the summary will be), each call and request is folded into a Tally
    as it comes and dropped: memory grows by a few bytes per call, not by its row.
    """

    def __init__(self, results: Iterable[FileResult] = (), since: datetime | None = None,
                 until: datetime | None = None, *, plan: "Plan | None" = None):
        self.since, self.until = since, until
        self.undated = 0
        self.outside = 0  # dated calls and requests --since/--until left out (a call's copies once)
        self._left_keys: set[bytes] = set()  # digests of the calls left out, so that copies count once
        self.newest: datetime | None = None  # the newest timestamp of them all (in the window or not)
        self.usage: list[Usage] = []
        self.requests_seen: set[bytes] = set()  # digests of the requests counted (dedupe.request_key)
        self.rows: list[Measurement] = []
        self.skipped: list[Skipped] = []
        self.skipped_count = 0
        self.unrecognised: list[str] = []
        self.errors: list[str] = []
        self.files = 0
        self.collectors: dict[str, int] = {}
        self.dedupe = Dedupe()
        self.menus: dict[tuple, MenuMeasurement] = {}
        self.projects: dict[str, str] = {}  # session -> its project (FileResult.sessions; the first file's wins)
        self.folded = Tally(plan) if plan is not None else None
        self.keeper = None  # a scan.summary_cache.Keeper, when this scan's summary may be kept (scan.job.collect)
        self.summary: ScanResult | None = None  # the whole result (meta None), when a kept summary answered
        for result in results:
            self.add(result)

    def add(self, result: FileResult) -> list[Measurement]:
        """Fold one file in and return the calls it added; a call id seen before (resumed session,
        subagent copy) is dropped, and a call whose result never came is held to the end (`unpaired`).

        A copy that has its result beats one that lost it (a resumed file may copy a
        call without the result that the original holds), whichever file comes first.
        """
        if isinstance(result, Part):  # one file's fold, kept or made by the scan cache (scan.parts)
            if merge(self, result.doc):
                return []
            result = result.result()  # it shares a call or request with an earlier file: its rows, one by one
        if result.error is not None:
            target = self.unrecognised if result.collector is None and "recognises" in result.error else self.errors
            target.append(f"{result.source}: {result.error}")
            return []
        self.files += 1
        self.collectors[result.collector] = self.collectors.get(result.collector, 0) + 1
        for session, project in result.sessions:
            self.projects.setdefault(session, project)
        folded = self.folded
        for u in result.usage:
            key = digest(request_key(u))
            if key in self.requests_seen:
                continue
            self.requests_seen.add(key)  # a copy of a request left out by the window is left out once
            if self._inside(u.ts):
                if folded is None:
                    self.usage.append(u)
                else:
                    folded.add_usage(u)
        added: list[tuple[Measurement, tuple | None]] = []  # each kept call, with its head (late previews)
        for row, head in zip(result.measurements, result.heads or repeat(None)):
            if not self._inside(row.ts, row.dedupe_key):
                continue
            key = row.dedupe_key
            if row.status == UNPAIRED and key is not None:
                self.dedupe.unanswered(key, row)  # held to the end: a later file may hold its result
            elif self.dedupe.answered(key):
                added.append((row, head))
        if folded is None:
            self.rows.extend(row if head is None else previewed(row, head) for row, head in added)
        else:
            for row, head in added:
                folded.add(row, head)
        if self.since is None and self.until is None:
            for menu in result.menus:
                keep_menu(self.menus, menu)
        for skip in result.skipped:
            self.skipped_count += 1
            if len(self.skipped) < SKIPPED_SHOWN:
                self.skipped.append(skip)
        return [row for row, _ in added]

    def restore(self, summary: ScanResult | None) -> bool:
        """Take a kept summary as this scan's whole answer (False for None): no file is read or folded."""
        if summary is None:
            return False
        self.summary = summary
        self.unrecognised, self.errors = list(summary.unrecognised), list(summary.errors)  # told as a read tells them
        self.skipped, self.skipped_count = list(summary.skipped), summary.skipped_count
        return True

    @property
    def duplicates(self) -> int:
        """Copies of a call dropped (scan.dedupe)."""
        return self.dedupe.duplicates

    def _inside(self, ts: str | None, key: tuple | None = None) -> bool:
        """Whether a call or request (`key`: a call's dedupe key) is in the --since/--until window; those left
        out are counted, a call's copies once."""
        if self.since is None and self.until is None:
            return True
        when = _when(ts)
        if when is not None and (self.newest is None or when > self.newest):
            self.newest = when
        if when is not None and (self.since is None or when >= self.since) and (self.until is None or when < self.until):
            return True
        hashed = None if key is None else digest(key)
        if hashed is None or hashed not in self._left_keys:
            if hashed is not None:
                self._left_keys.add(hashed)
            if when is None:
                self.undated += 1
            else:
                self.outside += 1
        return False

    def unpaired(self) -> list[Measurement]:
        """The calls whose result never came (no later file held it)."""
        return self.dedupe.held()

    def all_rows(self) -> list[Measurement]:
        """Every kept call: those with outputs, then calls whose result never came (only without `plan`)."""
        if self.folded is not None:
            raise ValueError("a Collected with a plan keeps no rows")
        return self.rows + self.unpaired()

    def result(self, meta: ScanMeta) -> ScanResult:
        """The summary of calls folded as they came, for the plan they were folded for."""
        if self.summary is not None:
            return replace(self.summary, meta=meta)
        if self.folded is None:
            raise ValueError("a Collected without a plan is summarized by summarize(collected, meta, by, top, ...)")
        return self.folded.result(self, meta)

    def tally(self, plan: "Plan") -> "Tally":
        """The calls and requests folded for `plan`: as they came (the same plan), or now from the kept rows."""
        if self.folded is not None:
            if self.folded.plan != plan:
                raise ValueError(f"collected for {self.folded.plan}, summarized for {plan}")
            return self.folded
        tally = Tally(plan)
        for row in self.rows:
            tally.add(row)
        for u in self.usage:
            tally.add_usage(u)
        return tally


def _group_row(key: str, cells: list["Cell"], total_tokens: int) -> GroupRow:
    tokens = array("q")
    for cell in cells:
        tokens.extend(cell.tokens)
    total = sum(tokens)
    ordered = sorted(tokens)
    return GroupRow(
        key=key,
        calls=len(tokens),
        tokens=total,
        share=(total / total_tokens) if total_tokens else 0.0,
        tokens_mean=(total / len(tokens)) if tokens else 0.0,
        tokens_p50=int(ranked(ordered, 50)),
        tokens_p95=int(ranked(ordered, 95)),
        tokens_max=ordered[-1] if ordered else 0,
        chars=sum(c.chars for c in cells),
        bytes=sum(c.bytes for c in cells),
        error_calls=sum(c.errors for c in cells),
        agent_truncated_calls=sum(c.truncated for c in cells),
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


@dataclass(frozen=True)
class Plan:
    """What a summary will be asked for (grouping, --top, pricing), so calls can be folded in as they come."""

    grouping: Grouping = field(default_factory=Grouping)
    top: int = 0
    cost: bool = False
    model: str | None = None


@dataclass
class Cell:
    """The outputs of one (group, tool): their tokens each (for exact percentiles), and sums."""

    tokens: array = field(default_factory=lambda: array("q"))
    chars: int = 0
    bytes: int = 0
    errors: int = 0
    truncated: int = 0


def _by_size(pair: tuple) -> tuple:
    """The order of --top: largest first, then by place (a `largest` entry: the row and its head)."""
    r = pair[0]
    return (-r.tokens, r.source, r.line)


class Tally:
    """What a summary needs of the calls, folded in one call at a time: 8 bytes per output (its tokens,
    in its group's array) and sums per group, day, run and context; the `top` largest rows.

    A call whose result never came is passed to `result` at the end, as a later file may hold it.
    """

    def __init__(self, plan: Plan):
        self.plan = plan
        self.group_of = plan.grouping.key_of()
        self.tool_of = Grouping("tool").key_of()
        self.cells: dict[tuple[str, str], Cell] = {}  # (group, tool) -> its outputs
        self.days: dict[tuple[str, str], list[int]] = {}  # (UTC day, tool) -> [calls, tokens]
        self.runs: dict[tuple, int] = {}  # (source, session) -> output tokens
        self.sessions: set[str] = set()
        self.calls = self.unpaired = self.orphans = self.images = self.image_bytes = 0
        self.carried = self.known = 0
        # at most 2 × top rows, each with its head (late previews): the top ones so far, then newer ones
        self.largest: list[tuple[Measurement, tuple | None]] = []
        self.requests = 0
        self.ref_calls = 0  # calls whose result loaded tool definitions (tool_reference blocks)
        self.refs: dict[str, int] = {}  # tool name -> times a result loaded its definition
        self.billing = BillTally(by=plan.grouping.by, priced=plan.cost, model=plan.model,
                                 period=_usage_period(plan.grouping))
        self.about = About() if plan.grouping.by == "session" else None  # each session's agent and start

    def add_usage(self, u: Usage) -> None:
        """One billed request."""
        self.requests += 1
        if self.about is not None:
            self.about.note(u.session, u.collector, u.ts)
        self.runs.setdefault((u.source, u.session), 0)
        self.billing.add_usage(u)

    def add(self, r: Measurement, head: tuple | None = None) -> None:
        """One kept call (`head`: what its previews read, when they are made late: FileResult.heads)."""
        self.calls += 1
        if self.about is not None:
            self.about.note(self.group_of(r), r.collector, r.ts)
        self.images += r.images
        self.image_bytes += r.image_bytes
        if r.session is not None:
            self.sessions.add(r.session)
        if r.status == UNPAIRED:
            self.unpaired += 1
            self.runs.setdefault((r.source, r.session), 0)
            return
        self.orphans += r.status == ORPHAN
        if r.tool_refs:
            self.ref_calls += 1
            for name in r.tool_refs:
                self.refs[name] = self.refs.get(name, 0) + 1
        self.runs[r.source, r.session] = self.runs.get((r.source, r.session), 0) + r.tokens
        key = (self.group_of(r), self.tool_of(r))
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = Cell()
        cell.tokens.append(r.tokens)
        cell.chars += r.chars
        cell.bytes += r.bytes
        cell.errors += r.is_error
        cell.truncated += r.agent_truncated
        day = period_of(r.ts, "day", timezone.utc)
        if day is not None:
            sums = self.days.setdefault((day, r.tool), [0, 0])
            sums[0] += 1
            sums[1] += r.tokens
        if r.residency is not None:
            self.carried += r.tokens * r.residency
            self.known += 1
        self.billing.add_call(r, key[0] if self.plan.grouping.by != "tool" else None)
        top = self.plan.top
        if top > 0:
            self.largest.append((r, head))
            if len(self.largest) > 2 * top:  # nsmallest is sorted()[:n]: stable, so ties keep arrival order
                self.largest = heapq.nsmallest(top, self.largest, key=_by_size)

    def _about(self, row: GroupRow, projects: dict[str, str]) -> GroupRow:
        """A session's row with its project, agent and start."""
        agent, start = self.about.of(row.key)
        return replace(row, project=projects.get(row.key), agent=agent, start=start)

    def _groups(self, name_of: int, total_tokens: int, chronological: bool,
                projects: dict[str, str] | None = None) -> list[GroupRow]:
        cells: dict[str, list[Cell]] = {}
        for key, cell in self.cells.items():
            cells.setdefault(key[name_of], []).append(cell)
        rows = [_group_row(key, group, total_tokens) for key, group in cells.items()]
        if name_of == 0 and self.about is not None:
            rows = [self._about(row, projects) for row in rows]
        if chronological:
            return sorted(rows, key=lambda r: (r.key == UNDATED, r.key))
        return sorted(rows, key=lambda r: (-r.tokens, r.key))

    def result(self, collected: Collected, meta: ScanMeta) -> ScanResult:
        """The ScanResult, with `collected`'s counts and the calls whose result never came."""
        plan, unpaired = self.plan, collected.unpaired()
        total_tokens = sum(sum(cell.tokens) for cell in self.cells.values())
        rows = self._groups(0, total_tokens, plan.grouping.chronological, collected.projects)
        tools = rows if plan.grouping.by == "tool" else self._groups(1, total_tokens, False)
        runs = dict(self.runs)
        for r in unpaired:
            runs.setdefault((r.source, r.session), 0)
        return ScanResult(
            meta=meta,
            totals=_group_row("TOTAL", list(self.cells.values()), total_tokens),
            rows=tuple(rows),
            tools=tuple(tools),
            files=collected.files,
            sessions=len(self.sessions | {r.session for r in unpaired if r.session is not None}),
            duplicates_dropped=collected.duplicates,
            unpaired_calls=self.unpaired + len(unpaired),
            orphan_results=self.orphans,
            images=self.images + sum(r.images for r in unpaired),
            image_bytes=self.image_bytes + sum(r.image_bytes for r in unpaired),
            skipped_count=collected.skipped_count,
            skipped=tuple(collected.skipped),
            unrecognised=tuple(collected.unrecognised),
            errors=tuple(collected.errors),
            collectors=dict(sorted(collected.collectors.items())),
            top=tuple(r if head is None else previewed(r, head)
                      for r, head in heapq.nsmallest(plan.top, self.largest, key=_by_size)),
            carried_tokens=self.carried,
            residency_known_calls=self.known,
            bill=self.billing.finish() if (self.requests or plan.cost) else None,
            undated=collected.undated,
            outside=collected.outside,
            newest=collected.newest.isoformat() if collected.newest is not None and collected.outside else None,
            menu=(menu := menu_summary(list(collected.menus.values()), plan.top)),
            tool_refs=references(self.ref_calls, self.refs, menu),
            notes=format_notes(collected.collectors),
            days=tuple(sorted((DayRow(day, str(tool), n, t) for (day, tool), (n, t) in self.days.items()),
                              key=lambda r: (r.day, -r.tokens, r.tool))),
            **(run_stats(runs) if self.calls or unpaired or self.requests else {}),
        )


def summarize(collected: Collected, meta: ScanMeta, by: str | Grouping = "tool", top: int = 0, *,
              cost: bool = False, model: str | None = None) -> ScanResult:
    """Rows per `by` group (sorted by tokens, periods by time), a totals row, the `top` largest calls, and the bill.

    `cost` prices usage and tool outputs; `model` stands in where a transcript names none.
    A Collected with a plan must have been given the same one (the same by, top, cost and model).
    """
    grouping = by if isinstance(by, Grouping) else Grouping(by)
    return collected.tally(Plan(grouping, top, cost, model)).result(collected, meta)


def _usage_period(grouping: Grouping) -> Callable[[Usage], str] | None:
    """Billed usage per period (--by day|week|month): a request's period, read as the calls' are."""
    if not grouping.chronological:
        return None
    return lambda u: period_of(u.ts, grouping.by, grouping.tz) or UNDATED


def run_stats(tokens_of: dict[tuple, int]) -> dict:
    """runs, and the median and p90 of tool-output tokens per run, from each (source, session)'s output
    tokens (0 for one with only calls whose result never came, or only billed requests).

    A run is (session, main file) (scan.runs), compare's rule. The median is compare's (the mean of
    the two middle values for an even n); p90 is nearest-rank.
    """
    main = main_files(tokens_of, PurePath)
    tokens: dict[tuple[str, str], int] = {}
    for (source, session), n in tokens_of.items():
        run = (session, main[source, session])
        tokens[run] = tokens.get(run, 0) + n
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


def format_notes(read: dict[str, int]) -> tuple[str, ...]:
    """`key: note` for each format read whose numbers need one (Collector.note)."""
    from ..collectors import collectors
    from ..errors import UsageError

    notes = []
    for key in sorted(read):
        try:  # only the formats read are imported (a plugin's key loads the plugins)
            note = collectors.builtin(key).note
        except UsageError:  # a collector no longer installed
            continue
        if note:
            notes.append(f"{key}: {note}")
    return tuple(notes)
