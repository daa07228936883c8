"""Fit Claude tokens per o200k token from the usage Claude Code transcripts record.

In one model context (the main agent, or one subagent), request k+1 sent everything
request k sent, plus request k's output, plus what came back (tool results). So
`input_total(k+1) - input_total(k) - output(k)` is the exact Claude size of the
tool results, and dividing by their o200k size gives one observation of the factor.
All of it comes from ClaudeCodeCollector's records: Usage, ToolCall and, asked for, ContextEvent
(what else entered each context); calibrate reads no file itself.

A turn (k, k+1) qualifies only when nothing else entered the context between them:
- same segment (no compact_boundary, no compact summary) and the same model;
- only tool_result blocks arrived: no user text, image, meta or attachment line, no
  other assistant message (synthetic ones included);
- request k wrote no thinking (the API may keep or drop it, and its size is unknown);
- no image in the results, and at least MIN_O200K o200k tokens of results;
- the context grew (a shrinking input is a cache or harness anomaly).

Claude Code often records `output_tokens` at the first streamed block (1 to 10) instead
of the final count. When the recorded value is below the o200k size of what request k
visibly wrote (text and tool_use name + input JSON), that output is instead counted in
o200k tokens beside the results and scaled by the same factor: f = delta / (results + output).

Per (model, subagents or not): n, the median factor f, p25 and p75 by nearest rank,
and MAPE: each turn predicted by the median of the others (leave-one-out), error in
percent of its true size; None below two turns. `mape_o200k` is the same error for
plain o200k counts (f = 1), the baseline the factor improves on.
"""

from __future__ import annotations

from bisect import bisect_left
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..scan.stats import nearest_rank
from ..collectors.claude_code import ClaudeCodeCollector
from ..results import Exportable, rows_frame
from ..model import MAIN_AGENT, ContextEvent, ToolCall, Usage
from ..tokenizers import Tokenizer, sanitize

MIN_O200K = 500
BASE_ENCODING = "o200k_base"
SUBAGENTS = " (subagents)"


@dataclass(frozen=True, slots=True)
class Turn:
    """One qualifying pair of requests: the Claude and o200k sizes of what was added."""

    source: str
    agent: str
    model: str
    request_index: int  # k: the results were first carried by request k+1
    line: int
    claude: int
    o200k: int

    @property
    def factor(self) -> float:
        """Claude tokens per o200k token in this turn."""
        return self.claude / self.o200k

    @property
    def key(self) -> str:
        """The row this turn belongs to: the model, subagent contexts apart."""
        return self.model + ("" if self.agent == MAIN_AGENT else SUBAGENTS)


@dataclass(frozen=True, slots=True)
class Fit:
    """The factor fitted over a set of turns."""

    key: str
    n: int
    f: float
    p25: float
    p75: float
    mape: float | None  # percent, leave-one-out; None below two turns
    mape_o200k: float  # percent error of plain o200k counts on the same turns

    def as_dict(self) -> dict[str, Any]:
        """The fit as stored in a calibration file."""
        return {"f": round(self.f, 4), "p25": round(self.p25, 4), "p75": round(self.p75, 4), "n": self.n,
                "mape": None if self.mape is None else round(self.mape, 2), "mape_o200k": round(self.mape_o200k, 2)}


@dataclass(frozen=True)
class Calibration(Exportable):
    """Every fit (one per row), the pooled fit and why candidate turns were passed over.
    `.to_dict()` is the calibration file's document; `.to_pandas()`: one row per fit, `"turns"` per turn."""

    frames = {"fits": lambda c: rows_frame(c.fits), "turns": lambda c: rows_frame(c.turns)}

    fits: tuple[Fit, ...]
    pooled: Fit | None
    turns: tuple[Turn, ...]
    skipped: dict[str, int] = field(default_factory=dict)
    files: int = 0
    errors: tuple[str, ...] = ()  # files and folders that could not be read

    def to_dict(self) -> dict:
        """The document `calibrate --save` writes (and `-f json` prints)."""
        from datetime import datetime, timezone

        from .. import __version__
        from ..model import SCHEMA_VERSION

        return calibration_doc(self, __version__, datetime.now(timezone.utc).isoformat(timespec="seconds"),
                               SCHEMA_VERSION)


@dataclass
class _Request:
    """What one assistant message wrote, from its ContextEvent records."""

    message_id: str
    thinking: bool = False
    visible: int = 0  # o200k tokens of its text and tool_use blocks


@dataclass
class _Context:
    """The facts of one context, in line order: requests and disqualifying lines."""

    requests: dict[str, _Request] = field(default_factory=dict)
    events: list[tuple[int, str]] = field(default_factory=list)  # (line, message id or a reason)

    def add(self, event: ContextEvent, tokenizer: Tokenizer) -> None:
        """One line's event; a request's visible texts counted here (the collector knows no tokenizer)."""
        if event.kind != ContextEvent.REQUEST:
            self.events.append((event.line, event.kind))
            return
        request = self.requests.setdefault(event.message_id, _Request(event.message_id))
        self.events.append((event.line, event.message_id))
        request.thinking = request.thinking or event.thinking
        request.visible += sum(tokenizer.count(sanitize(text)) for text in event.visible)


def _between(ctx: _Context, start: int, end: int, message_id: str) -> str | None:
    """Why the lines of request k (from `start`, before `end`) disqualify the turn, or None."""
    # events are in line order: bisect, so long sessions stay linear
    first = bisect_left(ctx.events, (start, ""))
    for number, what in ctx.events[first:bisect_left(ctx.events, (end, ""), first)]:
        if what != message_id:
            return "other message" if what in ctx.requests else what
    return "thinking" if ctx.requests[message_id].thinking else None


def turns_from_file(path: Path, tokenizer: Tokenizer) -> tuple[list[Turn], Counter]:
    """The qualifying turns of one Claude Code file and, per reason, the candidates passed over."""
    usage: dict[tuple[str, int], Usage] = {}
    results: dict[tuple[str, int], list[int]] = {}  # (agent, request) -> [o200k, images]
    contexts: dict[str, _Context] = {}  # per context (named as the collector names it), its lines' facts
    for record in ClaudeCodeCollector(context_events=True).records(path):
        if isinstance(record, ContextEvent):
            contexts.setdefault(record.agent, _Context()).add(record, tokenizer)
        elif isinstance(record, Usage) and record.request_index is not None:
            usage[(record.agent, record.request_index)] = record
        elif isinstance(record, ToolCall) and record.request_index is not None:
            added = results.setdefault((record.agent, record.request_index), [0, 0])
            added[0] += tokenizer.count(sanitize(record.output))
            added[1] += record.images
    turns, skipped = [], Counter()
    for (agent, k), first in sorted(usage.items()):
        second = usage.get((agent, k + 1))
        if second is None:
            continue
        reason, turn = _turn(path, agent, k, first, second, results.get((agent, k + 1), [0, 0]), contexts)
        if turn is not None:
            turns.append(turn)
        else:
            skipped[reason] += 1
    return turns, skipped


def _turn(path: Path, agent: str, k: int, first: Usage, second: Usage, added: list[int],
          contexts: dict[str, _Context]) -> tuple[str, Turn | None]:
    """The turn between requests k and k+1, or the reason it does not qualify."""
    ctx = contexts.get(agent)
    if ctx is None or first.request_id not in ctx.requests:
        return "no raw lines", None  # no ContextEvent for its request (the reason's name is kept: saved files count it)
    if first.model != second.model or first.model is None:
        return "model switch", None
    reason = _between(ctx, first.line, second.line, first.request_id)
    if reason:
        return reason, None
    o200k, images = added
    if images:
        return "image", None
    if o200k < MIN_O200K:
        return f"under {MIN_O200K} o200k tokens", None
    delta = second.input_total - first.input_total
    visible = ctx.requests[first.request_id].visible
    # a recorded output below what was visibly written is the streaming start value
    claude, base = (delta - first.output, o200k) if first.output >= visible else (delta, o200k + visible)
    if claude <= 0:
        return "context shrank", None
    return "", Turn(str(path), agent, first.model, k, second.line, claude, base)


def fit(key: str, turns: list[Turn]) -> Fit:
    """Median factor, nearest-rank p25/p75 and the leave-one-out MAPE of `turns` (at least one)."""
    factors = sorted(t.factor for t in turns)
    mape = None
    if len(turns) > 1:
        errors = []
        for i, turn in enumerate(turns):
            others = statistics.median(t.factor for j, t in enumerate(turns) if j != i)
            errors.append(abs(others * turn.o200k - turn.claude) / turn.claude)
        mape = 100 * statistics.fmean(errors)
    plain = 100 * statistics.fmean(abs(t.o200k - t.claude) / t.claude for t in turns)
    return Fit(key, len(turns), statistics.median(factors), nearest_rank(factors, 25),
               nearest_rank(factors, 75), mape, plain)


def calibrate(files: Iterable[Path], tokenizer: Tokenizer) -> Calibration:
    """Fit every model (subagent contexts apart) over the turns of Claude Code `files`."""
    turns: list[Turn] = []
    skipped: Counter = Counter()
    count = 0
    for path in files:
        found, passed = turns_from_file(path, tokenizer)
        turns += found
        skipped += passed
        count += 1
    groups: dict[str, list[Turn]] = {}
    for turn in turns:
        groups.setdefault(turn.key, []).append(turn)
    fits = tuple(fit(key, group) for key, group in sorted(groups.items()))
    pooled = fit("all", turns) if turns else None
    return Calibration(fits, pooled, tuple(turns), dict(skipped.most_common()), count)


def calibration_doc(cal: Calibration, version: str, created: str, schema_version: int) -> dict[str, Any]:
    """The JSON a calibration file holds (and `calibrate -f json` prints)."""
    return {
        "schema_version": schema_version,
        "kind": "toolaudit-calibration",
        "created": created,
        "version": version,
        "base_encoding": BASE_ENCODING,
        "min_o200k": MIN_O200K,
        "files": cal.files,
        "models": {f.key: f.as_dict() for f in cal.fits},
        "pooled": cal.pooled.as_dict() if cal.pooled else None,
        "skipped": cal.skipped,
    }

