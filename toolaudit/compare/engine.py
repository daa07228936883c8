"""Compare two conditions run on the same tasks: numbers per run, then medians per task, tool, overall.

A run is one session of one transcript: (place, session), where a file's place is its
path below its side's root without its extensions (`t/run1/x.traj.json` -> `t/run1/x`).
Several formats name the session after the task instance (mini-swe-agent, SWE-agent,
OpenHands: the instance id) or after the file name, so the same session id in `run1/`
and `run2/` (`run1/traj.json`, `run2/traj.json`) is two runs, and so are two differently
named files beside each other; the instances of one OpenHands `output.jsonl` are runs too.
A subagent's file joins its parent's run when its session is the parent's and it is kept
in a folder beside the parent's transcript named after that file or the session
(`<s>.jsonl` with `<s>/subagents/agent-1.jsonl`, Claude Code; `chats/<session id>/<id>.jsonl`,
Gemini CLI), or is an `agent-<id>` file beside `<session>.jsonl` (older Claude Code).
`x.json` and `x.jsonl` side by side with one session are one run.

Runs are formed before tasks and independently of them, so `--group-by` never splits or
merges a run: it names each run's task from its main file, the parent's transcript (of
`x.json` and `x.jsonl`, the first by path).

A run's numbers: calls that returned an output, their tokens and UTF-8 bytes, and the
input tokens its model requests were billed for (Usage.input_total summed; unknown when
the transcript has no usage). A run with no tool call still counts, with zeros, when
its usage shows it happened.

Runs are few and skewed, so medians headline, with min, max and n. The median is the
middle value, or the mean of the two middle values for an even n (not scan's
nearest-rank p50: with two or four runs that would always pick the lower one).
Overall = the median over every run of a side; `by_task` = the median of the per-task
medians over the tasks both sides ran, which weighs each task once whatever its run count.
Per tool = over the runs that called the tool, so n says how many of them did.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

import pandas as pd

from ..results import Exportable, rows_frame
from ..errors import ToolauditError, UsageError
from ..model import UNPAIRED, ScanMeta
from ..scan.runs import main_files
from .sides import Side

METRICS = ("tokens", "bytes", "calls", "billed_input")
USD = "tool_output_usd"  # a run's tool outputs in dollars, estimated as scan prices them (runs[] only)
TOOL_METRICS = ("tokens", "bytes", "calls")
ALL = "(all)"
UNMATCHED = "(unmatched)"
RUN_KEYS = ["task", "run", "file"]  # a run's index: its task, its session, its main file below the root


@dataclass(frozen=True)
class Grouping:
    """How a run's main file (its path below its side's root) names its task: a level (0: one task) or a regex."""

    text: str
    level: int | None = None
    pattern: re.Pattern | None = None

    def task(self, rel: PurePath) -> str:
        """The task a file at `rel` belongs to."""
        if self.pattern is not None:
            found = self.pattern.search(rel.as_posix())
            name = (found.group(1) if self.pattern.groups else found.group(0)) if found else None
            return name or UNMATCHED
        if not self.level:
            return ALL
        # a file above LEVEL is named by its own name: it is a task of its own
        return rel.parts[min(self.level, len(rel.parts)) - 1]


def parse_group_by(text: str | None) -> Grouping | None:
    """`--group-by`: an integer LEVEL >= 0 or `re:REGEX`; None (not given) is decided by `default_grouping`."""
    if text is None:
        return None
    if text.startswith("re:"):
        try:
            pattern = re.compile(text[3:])
        except re.error as exc:
            raise UsageError(f"--group-by {text!r}: bad regular expression: {exc}", slug="bad-group-by") from None
        return Grouping(text, pattern=pattern)
    if text.isdigit():
        return Grouping(text, level=int(text))
    raise UsageError(f"--group-by takes a directory level (0, 1, 2...) or re:REGEX, not {text!r}",
                     slug="bad-group-by")


def default_grouping(rel_paths) -> Grouping:
    """Level 1 when some run's main file sits in a subdirectory of its root (root/<task>/...), else one task.

    Subagent files do not count: a folder of Claude Code sessions, some with `<s>/subagents/`, is one task.
    """
    return Grouping("1", level=1) if any(len(p.parts) > 1 for p in rel_paths) else Grouping("0", level=0)


@dataclass(frozen=True)
class Stat:
    """Median, min and max of a metric over n values (runs, or task medians)."""

    median: float
    min: float
    max: float
    n: int


def stat(values: pd.Series) -> Stat | None:
    """The Stat of the known values; None when none is known."""
    known = values.dropna()
    if not len(known):
        return None
    return Stat(float(known.median()), float(known.min()), float(known.max()), len(known))


@dataclass(frozen=True)
class Delta:
    """One metric, A against B: change = B − A of the medians, pct = change / A × 100."""

    metric: str
    a: Stat | None
    b: Stat | None

    @property
    def change(self) -> float | None:
        """B's median minus A's; None unless both sides have values."""
        return None if self.a is None or self.b is None else self.b.median - self.a.median

    @property
    def pct(self) -> float | None:
        """The change in % of A's median; None when A's median is 0 or a side has no values."""
        change = self.change
        return None if change is None or not self.a.median else change / self.a.median * 100


@dataclass(frozen=True)
class Row:
    """A task, a tool or the overall line: one Delta per metric."""

    key: str
    deltas: tuple[Delta, ...]

    def metric(self, name: str) -> Delta:
        """The Delta of one metric."""
        return next(d for d in self.deltas if d.metric == name)


@dataclass(frozen=True)
class SideSummary:
    """What one side held: its path, runs, tasks, runs with usage, files, skipped lines."""

    label: str
    records: bool
    runs: int
    tasks: int
    usage_runs: int
    files: int
    skipped: int


@dataclass(frozen=True)
class CompareCost:
    """Each side's tool outputs in dollars, estimated as scan prices them: in total, and the median per run
    (over the runs with a priced call); `why_not` says why a side has none."""

    prices: str
    a_usd: float | None
    b_usd: float | None
    per_run: Delta  # metric USD
    a_unpriced_calls: int
    b_unpriced_calls: int
    unknown_models: tuple[str, ...]
    why_not: str | None = None


@dataclass(frozen=True)
class CompareResult(Exportable):
    """The whole answer of `compare`: overall, per task and per tool medians, and every run's numbers.
    `.to_pandas()`: every run's numbers; `"tools"` and `"tasks"`: their rows."""

    frames = {"runs": lambda r: r.runs.copy(), "tools": lambda r: rows_frame(r.tools),
              "tasks": lambda r: rows_frame(r.tasks)}

    meta: ScanMeta
    group_by: str
    a: SideSummary
    b: SideSummary
    overall: Row
    by_task: Row
    tasks: tuple[Row, ...]
    tools: tuple[Row, ...]
    runs: pd.DataFrame  # side, task, run (its session), file (its main file), METRICS, tool_output_usd
    cost: CompareCost | None = None
    kind: str = "compare"


def run_files(side: Side) -> pd.DataFrame:
    """Which run each (source, session) of the side counts under: columns source, session, run, file.

    The run is (place, session) (module docstring), whatever the grouping; `run` shows the
    session and `file` the run's main file below the root, which, with the session, tells
    runs apart and names the run's task.
    """
    pairs = set(zip(side.calls["source"], side.calls["session"])) | set(zip(side.usage["source"], side.usage["session"]))
    rows = [(source, session, session, main) for (source, session), main in main_files(pairs, side.rel).items()]
    return pd.DataFrame(rows, columns=["source", "session", "run", "file"], dtype=object)


def per_run(side: Side, grouping: Grouping, files: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per run (index task, run, file; METRICS columns) and one per run and tool (TOOL_METRICS).

    `files` is the side's `run_files` when already known.
    """
    files = run_files(side) if files is None else files
    files = files.assign(task=[grouping.task(PurePath(f)) for f in files["file"]])
    calls = side.calls.merge(files, on=["source", "session"], how="left")
    usage = side.usage.merge(files, on=["source", "session"], how="left")
    keys = RUN_KEYS
    # a run exists if it made a call (even one whose result never came) or a billed request
    index = pd.MultiIndex.from_frame(pd.concat([calls[keys], usage[keys]]).drop_duplicates().sort_values(keys))
    outputs = calls[calls["status"] != UNPAIRED]
    agg = {"tokens": ("tokens", "sum"), "bytes": ("bytes", "sum"), "calls": ("tool", "size")}
    runs = outputs.groupby(keys).agg(**agg).reindex(index, fill_value=0).astype("int64")
    runs["billed_input"] = usage.groupby(keys)["input_total"].sum().reindex(index).astype("float64")
    if side.costs is not None:  # NaN: no call of the run had a price (min_count: not a false $0)
        costs = side.costs.merge(files, on=["source", "session"], how="left")
        runs[USD] = costs.groupby(keys)["usd"].sum(min_count=1).reindex(index).astype("float64")
    else:
        runs[USD] = float("nan")
    tools = outputs.groupby(keys + ["tool"]).agg(**agg).astype("int64")
    return runs, tools


def _row(key: str, a: pd.DataFrame, b: pd.DataFrame, metrics=METRICS) -> Row:
    return Row(key, tuple(Delta(m, stat(a[m]), stat(b[m])) for m in metrics))


def _tool_rows(tools_a: pd.DataFrame, tools_b: pd.DataFrame) -> list[Row]:
    """Per tool, over the runs that called it (n = those runs), largest token total first.

    Runs without the tool are left out rather than counted as zeros: most tools are
    called in only some runs, and a median over zeros would hide what a call costs.
    """
    totals = pd.concat([tools_a["tokens"], tools_b["tokens"]]).groupby(level="tool").sum()
    names = sorted(totals.index, key=lambda n: (-int(totals[n]), n))
    return [_row(n, _tool_runs(tools_a, n), _tool_runs(tools_b, n), TOOL_METRICS) for n in names]


def _tool_runs(tools: pd.DataFrame, name: str) -> pd.DataFrame:
    """One tool's numbers in each run that called it."""
    if name in tools.index.get_level_values("tool"):
        return tools.xs(name, level="tool")
    return pd.DataFrame({m: pd.Series(dtype="int64") for m in TOOL_METRICS})


def _by_task(tasks: list[Row]) -> Row:
    """The median of per-task medians, over the tasks whose metric both sides know."""
    deltas = []
    for m in METRICS:
        both = [t.metric(m) for t in tasks if t.metric(m).a is not None and t.metric(m).b is not None]
        deltas.append(Delta(m, stat(pd.Series([d.a.median for d in both], dtype="float64")),
                            stat(pd.Series([d.b.median for d in both], dtype="float64"))))
    return Row("(median of tasks)", tuple(deltas))


def compare(a: Side, b: Side, grouping: Grouping | None, meta: ScanMeta) -> CompareResult:
    """Medians of A and B per task, per tool and overall; `grouping` None = `default_grouping`."""
    files_a, files_b = run_files(a), run_files(b)
    if grouping is None:
        grouping = default_grouping([PurePath(f) for files in (files_a, files_b) for f in files["file"]])
    runs_a, tools_a = per_run(a, grouping, files_a)
    runs_b, tools_b = per_run(b, grouping, files_b)
    for side, runs in ((a, runs_a), (b, runs_b)):
        if not len(runs):
            raise ToolauditError(f"no runs in {side.label}: no session with a tool call or a billed request",
                                 slug="no-runs")
    names = sorted(set(runs_a.index.get_level_values("task")) | set(runs_b.index.get_level_values("task")))
    tasks = [_row(t, _task(runs_a, t), _task(runs_b, t)) for t in names]
    table = pd.concat([runs_a.assign(side="a"), runs_b.assign(side="b")]).reset_index()
    return CompareResult(
        meta=meta, group_by=grouping.text, a=_summary(a, runs_a), b=_summary(b, runs_b),
        overall=_row("(all runs)", runs_a, runs_b), by_task=_by_task(tasks), tasks=tuple(tasks),
        tools=tuple(_tool_rows(tools_a, tools_b)),
        runs=table[["side", *RUN_KEYS, *METRICS, USD]], cost=_cost(a, b, runs_a, runs_b),
    )


def _cost(a: Side, b: Side, runs_a: pd.DataFrame, runs_b: pd.DataFrame) -> CompareCost:
    """Each side's tool-output dollars (billing.price_outputs, per call's model), or why a side has none."""
    from ..scan.billing import prices_version

    def total(side: Side) -> float | None:
        known = side.costs["usd"].dropna() if side.costs is not None else pd.Series(dtype="float64")
        return float(known.sum()) if len(known) else None

    def unpriced(side: Side) -> int:
        return int(side.costs["unpriced_calls"].sum()) if side.costs is not None else 0

    why = None
    for tag, side in (("A", a), ("B", b)):
        if side.records:
            why = f"{tag} is a records file (`scan --records`): it names no model to price"
        elif total(side) is None and why is None:
            named = [m for m in side.unknown_models if not m.startswith("(")]
            why = (f"{tag}'s calls have no price: {', '.join(named)} (not in the offline price table)" if named
                   else f"{tag}'s transcripts name no model to price them with (--model NAME prices them)" if side.unknown_models
                   else f"{tag} has no tool output to price")
    unknown = tuple(sorted(set(a.unknown_models) | set(b.unknown_models)))
    return CompareCost(prices_version(), total(a), total(b), Delta(USD, stat(runs_a[USD]), stat(runs_b[USD])),
                       unpriced(a), unpriced(b), unknown, why)


def _task(runs: pd.DataFrame, task: str) -> pd.DataFrame:
    return runs.xs(task, level="task") if task in runs.index.get_level_values("task") else runs.iloc[:0]


def _summary(side: Side, runs: pd.DataFrame) -> SideSummary:
    return SideSummary(side.label, side.records, len(runs), runs.index.get_level_values("task").nunique(),
                       int(runs["billed_input"].notna().sum()), side.files, side.skipped)
