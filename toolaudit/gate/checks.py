"""The CI gate: checks like `tokens.total:+5%` compared between a baseline and now.

A check is `[TOOL:]METRIC:±LIMIT[%]`:
- TOOL absent: the totals; `*`: every tool present in both; a name or glob: those tools.
- METRIC: a field of the result's `totals`/`tools[]` (`calls`, `tokens.p95` = `tokens_p95`,
  `later_used`…); `tokens.total` is `tokens` in a scan and `tokens_after` in a simulation,
  `errors` is `error_calls`, `agent_truncated` is `agent_truncated_calls`.
- `+N` fails when the metric grew by more than N; `+N%` by more than N percent of the
  baseline; `-N`/`-N%` when it fell by more. `+0` fails on any growth. From a baseline of 0,
  any growth is an infinite percentage.

A per-tool check on a tool with fewer than `min_calls` calls on either side says "too few
calls" instead of judging; a metric the baseline lacks (an older toolaudit wrote it) is
said, not failed. The gate as a whole fails as "nothing measured" when the run measured no
call while the baseline had some, or lost more than `max_vanished` percent of them.
"""

from __future__ import annotations

import fnmatch
import math
import re
from dataclasses import dataclass
from typing import Any

from ..results import Exportable, rows_frame
from ..errors import UsageError
from ..registry import did_you_mean
from .cost import GateCost

# Aggregates that hold on re-runs of the same tasks: a per-tool p95 over a few calls flaps, and a
# total follows how many transcripts there are; the median tokens per run follows neither.
DEFAULT_CHECKS = {
    "scan": ("tokens.total:+20%", "tokens_per_run.median:+20%"),
    "simulate": ("tokens.total:+5%", "later_used:+0"),
    # a replay has no model in the loop: the same calls give the same outputs, so any growth is real
    "replay": ("tokens.total:+0", "*:tokens.total:+0", "drifted:+0"),
}
# below this many calls a per-tool check is reported, not judged; a replay is deterministic, so
# one call that grew is a real change
DEFAULT_MIN_CALLS = {"scan": 5, "simulate": 5, "replay": 0}
DEFAULT_MAX_VANISHED = 50.0  # percent of the baseline's calls
TOO_FEW = "too few calls"
NOT_IN_BASELINE = "not in baseline"
VANISHED = "vanished"  # the check of a tool the baseline had and the run has not (fails unless allowed)
UNJUDGED = "judged nothing"  # the check of a check that judged no scope (fails unless allowed)
ALIASES = {
    "tokens.total": ("tokens", "tokens_after"),
    "errors": ("error_calls",),
    "agent_truncated": ("agent_truncated_calls",),
    "saved": ("tokens_saved",),
}
_CHECK = re.compile(r"^(?:(?P<tool>[^:]+):)?(?P<metric>[A-Za-z_][\w.]*):(?P<sign>[+-])(?P<limit>\d+(?:\.\d+)?)(?P<pct>%)?$")


@dataclass(frozen=True)
class Check:
    """One parsed check."""

    text: str
    metric: str
    limit: float
    percent: bool
    direction: int  # +1: fail on growth beyond the limit; -1: on a fall beyond it
    tool: str | None = None

    @classmethod
    def parse(cls, text: str) -> Check:
        """A Check from `[TOOL:]METRIC:±LIMIT[%]`, or a UsageError that shows the form."""
        found = _CHECK.match(text.strip())
        if not found:
            raise UsageError(f"cannot read the check {text!r}: the form is [TOOL:]METRIC:+LIMIT[%], "
                             "e.g. tokens.total:+5% or Grep:tokens.mean:+500", slug="bad-check")
        return cls(text.strip(), found["metric"], float(found["limit"]), bool(found["pct"]),
                   1 if found["sign"] == "+" else -1, found["tool"])

    def field(self, row: dict[str, Any]) -> str | None:
        """The name this check's metric has in a result row, or None."""
        for name in ALIASES.get(self.metric, ()) + (self.metric.replace(".", "_"), self.metric):
            if name in row:
                return name
        return None


@dataclass(frozen=True)
class Outcome:
    """One check on one scope (the totals or a tool): the numbers and the verdict."""

    check: str
    scope: str  # "total" or the tool
    metric: str
    baseline: float
    current: float
    limit: str
    passed: bool
    vanished: bool = False  # the check names a tool the baseline had and the run no longer has
    skipped: str = ""  # why it was not judged: TOO_FEW or NOT_IN_BASELINE
    calls: tuple[int, int] = (0, 0)  # the scope's calls, baseline and now (per-tool checks)
    min_calls: int = 0

    @property
    def change(self) -> float:
        return self.current - self.baseline

    @property
    def change_pct(self) -> float | None:
        if self.baseline == 0:
            return None if self.current == 0 else math.copysign(math.inf, self.change)
        return 100.0 * self.change / self.baseline

    @property
    def status(self) -> str:
        """pass, fail, vanished, too few calls or not in baseline."""
        return self.skipped or ("vanished" if self.vanished else "pass" if self.passed else "fail")

    def message(self) -> str:
        """`Grep: tokens.mean 812 → 1,420 (+608, +74.9%) over the limit +500`."""
        if self.skipped == TOO_FEW:
            return (f"{self.scope}: too few calls to judge {self.metric} "
                    f"({self.calls[0]:,} → {self.calls[1]:,} calls, fewer than {self.min_calls})")
        if self.skipped == NOT_IN_BASELINE:
            return (f"{self.scope}: the baseline has no {self.metric} (an older toolaudit wrote it); "
                    "--update-baseline adds it")
        if self.check == VANISHED:
            return (f"{self.scope}: vanished ({int(self.baseline):,} calls in the baseline, none now): a renamed or "
                    "removed tool; --allow-vanished NAME (or all) accepts it")
        if self.check == UNJUDGED:
            return (f"{self.scope}: judged nothing (every scope too few calls or not in the baseline); "
                    "--allow-unjudged accepts that")
        if self.vanished:
            return f"{self.scope}: vanished (its {self.metric} was {_fmt(self.baseline)}); the check {self.check} cannot hold"
        pct = self.change_pct
        rel = "" if pct is None else (", ∞%" if math.isinf(pct) else f", {pct:+.1f}%")
        verdict = "within" if self.passed else "over"
        sign = "+" if self.change >= 0 else "-"
        return (f"{self.scope}: {self.metric} {_fmt(self.baseline)} → {_fmt(self.current)} "
                f"({sign}{_fmt(abs(self.change))}{rel}) {verdict} the limit {self.limit}")


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}".rstrip("0").rstrip(".")


def _passes(check: Check, base: float, now: float) -> bool:
    grew = (now - base) * check.direction
    if grew <= 0:
        return True
    if not check.percent:
        return grew <= check.limit
    if base == 0:
        return False
    return 100.0 * grew / abs(base) <= check.limit


def number(row: dict, name: str, where: str) -> float:
    """A metric's value in a result row as a float (absent: 0), or a UsageError naming the field."""
    value = row.get(name) or 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{where}.{name} is not a number ({value!r})", slug="baseline")
    return float(value)


def evaluate(check: Check, baseline: dict, current: dict, min_calls: int = 0) -> list[Outcome]:
    """The outcomes of one check on two result documents (scan or simulate JSON).

    Per-tool scopes with fewer than `min_calls` calls on either side are reported, not judged.
    """
    limit = check.text.rsplit(":", 1)[1]
    base_tools = {t["tool"]: t for t in baseline.get("tools", [])}
    if check.tool is None:
        pairs = [("total", baseline.get("totals", {}), current.get("totals", {}))]
    else:
        now_tools = {t["tool"]: t for t in current.get("tools", [])}
        names = [n for n in base_tools if n in now_tools and fnmatch.fnmatchcase(n, check.tool)]
        pairs = [(n, base_tools[n], now_tools[n]) for n in names]
        gone = [n for n in base_tools if n not in now_tools and fnmatch.fnmatchcase(n, check.tool)]
        if check.tool != "*" and not names and not gone:
            known = sorted(set(base_tools) | set(now_tools))
            raise UsageError(f"check {check.text!r}: no tool {check.tool!r} in the baseline or now"
                             f"{did_you_mean(check.tool, known)}", slug="bad-check")
    out = []
    if check.tool not in (None, "*"):
        for name in gone:  # a tool the check watches disappeared: say so rather than pass quietly
            base = base_tools[name]
            calls = (int(number(base, "calls", f"baseline tools[{name}]")), 0)
            few = TOO_FEW if calls[0] < min_calls else ""  # a tool called twice may simply not recur
            out.append(Outcome(check.text, name, check.metric, number(base, check.field(base) or check.metric,
                                                                       f"baseline tools[{name}]"), 0.0,
                               limit, bool(few), vanished=True, skipped=few, calls=calls, min_calls=min_calls))
    for scope, base, now in pairs:
        where = "totals" if check.tool is None else f"tools[{scope}]"
        name = check.field(base) or check.field(now)
        if name is None:
            known = sorted(set(base) | set(ALIASES))
            raise UsageError(f"check {check.text!r}: no metric {check.metric!r} in this result"
                             f"{did_you_mean(check.metric, known)}", slug="bad-check")
        b, c = number(base, name, f"baseline {where}"), number(now, name, where)
        calls = (int(number(base, "calls", f"baseline {where}")), int(number(now, "calls", where)))
        skipped = (NOT_IN_BASELINE if name not in base
                   else TOO_FEW if check.tool is not None and min(calls) < min_calls else "")
        out.append(Outcome(check.text, scope, check.metric, b, c, limit, bool(skipped) or _passes(check, b, c),
                           skipped=skipped, calls=calls, min_calls=min_calls))
    return out


def nothing_measured(baseline: dict, current: dict, max_vanished: float) -> str | None:
    """Why the run cannot be judged: no file or no call while the baseline had calls, or most calls gone."""
    had = int(number(baseline.get("totals", {}), "calls", "baseline totals"))
    now = int(number(current.get("totals", {}), "calls", "totals"))
    files = current.get("totals", {}).get("files", current.get("files"))
    if not had:
        return None
    if files == 0:
        return f"nothing measured: 0 files read, the baseline had {had:,} calls"
    if now == 0:
        return f"nothing measured: 0 calls now, the baseline had {had:,}"
    gone = 100.0 * (had - now) / had
    if gone > max_vanished:
        return (f"nothing measured: {gone:.0f}% of the baseline's {had:,} calls vanished ({now:,} now; "
                f"--max-vanished {_fmt(max_vanished)}%)")
    return None


def incomparable(baseline: dict, current: dict) -> str | None:
    """What makes the two results not comparable (schema, command, tokenizer, policy), or None."""
    for label, get in (
        ("schema_version", lambda d: d.get("schema_version")),
        ("command", lambda d: d.get("meta", {}).get("command")),
        ("tokenizer", lambda d: d.get("meta", {}).get("tokenizer")),
        # the same name can count differently: claude's factor (default or calibrated)
        ("tokenizer factor", lambda d: d.get("meta", {}).get("tokenizer_label") or d.get("meta", {}).get("tokenizer")),
        ("engine", lambda d: d.get("meta", {}).get("engine")),
        ("policy", lambda d: d.get("meta", {}).get("policy_spec")),
    ):
        if get(baseline) != get(current):
            return f"{label} differs: baseline {get(baseline)!r}, now {get(current)!r}"
    return None


@dataclass(frozen=True)
class GateResult(Exportable):
    """The verdict of `toolaudit ci`: outcomes, per-tool changes, new and vanished tools.
    `.to_pandas()`: one row per check."""

    frames = {"checks": lambda r: rows_frame(r.outcomes)}

    baseline_path: str
    baseline: dict
    current: dict
    outcomes: tuple[Outcome, ...]
    new_tools: tuple[str, ...]
    vanished_tools: tuple[str, ...]
    not_comparable: str | None = None
    nothing_measured: str | None = None
    cost: GateCost | None = None  # the tool outputs' dollars, now and in the baseline (gate.cost)
    kind: str = "ci"

    @property
    def blocked(self) -> str | None:
        """Why no check can be trusted (not comparable, nothing measured): exit 1, not 3."""
        return self.not_comparable or self.nothing_measured

    @property
    def passed(self) -> bool:
        return self.blocked is None and all(o.passed for o in self.outcomes)

    @property
    def verdict(self) -> str:
        if self.not_comparable is not None:
            return "not comparable"
        if self.nothing_measured is not None:
            return "nothing measured"
        return "pass" if self.passed else "fail"


@dataclass(frozen=True)
class Allowances:
    """What the gate accepts that it fails by default: vanished tools (names, or "all"), checks that judged nothing."""

    vanished: tuple[str, ...] = ()
    unjudged: bool = False

    def vanish_ok(self, tool: str) -> bool:
        """Whether the tool may vanish."""
        return "all" in self.vanished or any(fnmatch.fnmatchcase(tool, name) for name in self.vanished)


def _vanished(baseline: dict, current: dict, allow: Allowances) -> list[Outcome]:
    """A failing outcome per baseline tool gone from the run (a rename included), unless allowed."""
    now = {t["tool"] for t in current.get("tools", [])}
    out = []
    for row in baseline.get("tools", []):
        if row["tool"] not in now:
            calls = int(number(row, "calls", f"baseline tools[{row['tool']}]"))
            out.append(Outcome(VANISHED, row["tool"], "calls", calls, 0.0, "allowed" if allow.vanish_ok(row["tool"])
                               else "none", allow.vanish_ok(row["tool"]), vanished=True, calls=(calls, 0)))
    return out


def _unjudged(check: Check, outcomes: list[Outcome], allow: Allowances) -> list[Outcome]:
    """A failing outcome for a check that judged no scope (all too few calls, or none to judge)."""
    if any(not o.skipped for o in outcomes):
        return []
    return [Outcome(UNJUDGED, check.text, check.metric, 0.0, 0.0, "--allow-unjudged", allow.unjudged)]


def gate(baseline_path: str, baseline: dict, current: dict, checks: list[Check], *,
         min_calls: int | None = None, max_vanished: float = DEFAULT_MAX_VANISHED,
         allow: Allowances = Allowances()) -> GateResult:
    """Compare `current` with `baseline` under `checks` (a pure function: no I/O).

    `min_calls` None: the default for the baseline's command (DEFAULT_MIN_CALLS). A baseline tool gone from
    the run fails (a rename hides growth), and so does a check that judged nothing, unless `allow` says.
    """
    if min_calls is None:
        min_calls = DEFAULT_MIN_CALLS.get(baseline.get("meta", {}).get("command"), DEFAULT_MIN_CALLS["scan"])
    reason = incomparable(baseline, current)
    base_tools = [t["tool"] for t in baseline.get("tools", [])]
    now_tools = [t["tool"] for t in current.get("tools", [])]
    outcomes: list[Outcome] = []
    empty = None
    if reason is None:
        empty = nothing_measured(baseline, current, max_vanished)
        for check in checks:
            found = evaluate(check, baseline, current, min_calls)
            outcomes.extend(found)
            outcomes.extend(_unjudged(check, found, allow))
        watched = {o.scope for o in outcomes if o.vanished}  # a named check already says it vanished
        if empty is None:  # nothing measured says it whole: not one failure per tool on top
            outcomes.extend(o for o in _vanished(baseline, current, allow) if o.scope not in watched)
    return GateResult(
        baseline_path, baseline, current, tuple(outcomes),
        new_tools=tuple(t for t in now_tools if t not in base_tools),
        vanished_tools=tuple(t for t in base_tools if t not in now_tools),
        not_comparable=reason, nothing_measured=empty,
    )
