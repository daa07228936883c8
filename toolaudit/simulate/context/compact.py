"""Compaction: when a request's input would pass `at` tokens, everything before it but the fixed prefix
(system prompt, tool definitions, the agent's instructions) is replaced by what the agent writes after
compacting: a summary of `summary` tokens, the files it re-attaches and `extra` tokens more.

As Claude Code's auto-compact, Codex's `model_auto_compact_token_limit` and OpenHands' condensers do it.
What each agent writes, from its code and fitted on the compactions recorded in real sessions
(benchmarks/compaction_fit.py; docs/simulate.md has the table):

- Claude Code (cli.js 2.0.76-2.1.42): the summary, then the 5 most recently read files, each re-read whole
  and dropped when over 5,000 tokens, together at most 50,000 (`files`, `file_tokens`, `files_budget`),
  then the todo list, the plan file, invoked skills and the session-start hooks' context (`extra`);
- Codex: the summary and the user messages it keeps, in `summary` (its rollouts do not hold their sizes apart).
  What it counts against `at` is not the request's input alone: codex-rs adds its estimate of the reasoning
  items of the turns before the current one (the server drops them from the prompt, Codex still sends them),
  which `reasoning` adds as a percentage of their recorded reasoning tokens (the rollouts keep no encrypted
  reasoning to size it by: the share was fitted). The turns are where the user spoke, as the transcript records
  them (Usage.turn_start). Its limit is 90% of the model's window (`window`), the window the rollout names.

The summary is asked for by one more request, which reads the context so far from the cache and writes
`summary` output tokens. The fixed prefix is the context's first request (`fixed_prefix`; where that holds the
history of a session continued from an earlier transcript, the size of a fresh one: `continued`); what stays in the
cache after the compaction is what a request right after a compaction the session recorded read, else the
first request's read (`cached_prefix`). A compaction the session itself recorded (its input shrank) starts
the count again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .effect import Effect
from .timeline import Output, Timeline, carried, shrank, user_turns

SUMMARY = 3_000  # tokens of a summary when none is given (an agent's preset gives its fitted size)
FIXED_MAX = 45_000  # a first request larger than this is a resumed context's history, not a system prompt
READ_TOOLS = ("Read",)  # the tools whose outputs Claude Code re-attaches as files


def fixed_prefix(timeline: Timeline, continued: int = 0) -> int:
    """What a compaction keeps before the summary (system prompt, tools, the agent's instructions): the
    context's first request's input; one over FIXED_MAX continues a session, its history in it: `continued`
    then (a fresh context's size, fitted), else FIXED_MAX."""
    known = [u for u in timeline.requests if u is not None]
    return prefix_of(known[0].input_total if known else 0, continued)


def prefix_of(first: int, continued: int = 0) -> int:
    """The fixed prefix of a context whose first request's input was `first` (fixed_prefix)."""
    return first if first <= FIXED_MAX else continued or FIXED_MAX


def cached_prefix(timeline: Timeline, fixed: int) -> int:
    """The part of the fixed prefix still read from the cache after a compaction: what a request right after a
    compaction the session recorded read, where there is one; else the first request's read; else `fixed`."""
    known = [u for u in timeline.requests if u is not None]
    after = [b.cache_read for a, b in zip(known, known[1:]) if shrank(a.input_total, b.input_total) and b.cache_read > 0]
    if after:
        return min(min(after), fixed)
    return min(known[0].cache_read, fixed) if known and known[0].cache_read else fixed


@dataclass(frozen=True)
class Compact:
    """compact:at=T[,summary=S][,files=N,file_tokens=F,files_budget=B][,extra=E,continued=C][,reasoning=P,window=P]"""

    at: int = 160_000
    summary: int = SUMMARY
    files: int = 0  # recently read files re-attached after the summary (Claude Code: 5)
    file_tokens: int = 5_000  # a file larger than this is not re-attached
    files_budget: int = 50_000  # the re-attached files together, at most
    extra: int = 0  # what else the agent re-attaches (todos, plan, skills, hooks)
    reasoning: int = 0  # percent of the earlier turns' reasoning tokens (since the last compaction) counted too (Codex)
    continued: int = 0  # the fixed prefix of a context whose first request holds earlier history (0: FIXED_MAX)
    window: int = 0  # percent of the model's context window, where the recording names it, instead of `at` (Codex)
    name = "compact"

    def limit(self, window: int) -> int:
        """Where it compacts in a request of a model whose window (`window` tokens, 0: not named) is known."""
        return window * self.window // 100 if self.window and window else self.at

    def reattached(self, reads: list[int]) -> int:
        """Tokens of the files re-attached, from the reads since the last compaction (oldest first): the
        newest `files`, each at most `file_tokens` (a larger one is left out), within `files_budget`."""
        total = 0
        for tokens in reversed(reads[max(0, len(reads) - self.files):] if self.files else []):
            if tokens <= self.file_tokens and total + tokens <= self.files_budget:
                total += tokens
        return total

    def rebuilt(self, fixed: int, reads: list[int]) -> int:
        """What the context holds right after a compaction: the fixed prefix, the summary, the re-attached files
        and the rest the agent adds."""
        return fixed + self.summary + self.reattached(reads) + self.extra

    def apply(self, timeline: Timeline, base: list[int], positions: list[int], count: Callable[[str], int]) -> Effect:
        """Request by request: compact before any request whose input (and, with `reasoning`, the earlier turns'
        reasoning since the last compaction) would pass `at`."""
        outputs, n = timeline.outputs, len(base)
        fixed = fixed_prefix(timeline, self.continued)
        cached = cached_prefix(timeline, fixed)
        totals, cut_at, summaries = [0] * n, [None] * n, []
        removed: list[int | None] = [None] * len(outputs)
        gone, last, since = 0, None, 0  # tokens taken off since the last recorded compaction; the last request
        starts = user_turns(timeline)
        done, turn = 0, 0  # reasoning tokens since the last compaction: of the turns before this one, of this one
        for r, total in enumerate(base):
            usage = timeline.requests[r]
            if starts[r]:
                done, turn = done + turn, 0
            if not total:
                continue
            if last is not None and shrank(base[last], total):
                gone, since, done, turn = 0, r, 0, 0  # the session compacted here itself
            after = total - gone
            counted = after + done * self.reasoning // 100
            at = self.limit(usage.context_window) if usage is not None else self.at
            if last is not None and counted >= at and not _recorded_next(base, r):
                region = totals[last]  # the context so far, as the request before carried it
                kept = min(fixed, region)
                kept = min(region, self.rebuilt(kept, _reads(outputs, since, r)))
                freed = region - kept
                if freed > 0:
                    gone += freed
                    after -= freed
                    cut_at[r] = min(cached, region)
                    summaries.append((r, region, self.summary))
                    since, done, turn = r, 0, 0
                    for i, o in enumerate(outputs):
                        if o.first < r < o.end and removed[i] is None:
                            removed[i] = r
            totals[r] = max(0, after)
            turn += usage.reasoning if usage is not None else 0
            last = r
        tools = carried(timeline, [o.tokens for o in outputs])
        tools = [t - g for t, g in zip(tools, carried(timeline, [o.tokens for o in outputs], removed))]
        return Effect(tuple(totals), tuple(cut_at), tuple(removed), tuple([0] * n), tuple(tools),
                      summaries=tuple(summaries), tail_removed=tuple(timeline.arriving()))

    def stays(self, request: int, end: int) -> int:
        """How many requests an output fetched again at `request` would be carried: to the end of its stay."""
        return max(1, end - request - 1)

    def describe(self) -> str:
        """One line for the report."""
        files = (f", the last {self.files} files read re-attached (each up to {self.file_tokens:,}, together "
                 f"{self.files_budget:,})" if self.files else "")
        extra = f", {self.extra:,} tokens more" if self.extra else ""
        counted = f" (with {self.reasoning}% of the earlier turns' reasoning)" if self.reasoning else ""
        at = f"{self.window}% of the model's window where the session names it, else {self.at:,}" if self.window \
            else f"{self.at:,}"
        return (f"compact: past {at} input tokens{counted}, the context before it replaced by a "
                f"{self.summary:,}-token summary{files}{extra}")


def _recorded_next(base: list[int], r: int) -> bool:
    """Whether the session compacted itself right after request `r`: the same compaction, already in its numbers
    (the agent counted a little less than the request's input and let it through)."""
    later = next((b for b in base[r + 1:] if b), None)
    return later is not None and shrank(base[r], later)


def _reads(outputs: tuple[Output, ...], since: int, before: int) -> list[int]:
    """Tokens of the file reads first carried from request `since` to before request `before`, oldest first."""
    return [o.tokens for o in outputs if o.tool in READ_TOOLS and since <= o.first < before]
