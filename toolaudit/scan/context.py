"""What fills one session's context now: its tool outputs since the last compaction, per tool, and what
re-sending them has cost so far. `toolaudit statusline`, `watch` and the MCP server read it.

Read through the scan cache, so a session read a moment ago is not read again unless it grew.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..model import MAIN_AGENT, UNPAIRED, Measurement, Usage
from .dedupe import Dedupe, request_key


class Rows:
    """A sink for gather that keeps the calls with an output (each once: scan.dedupe) and the requests (each
    once) of a few files: what statusline and watch need, without the summary's machinery."""

    def __init__(self) -> None:
        self.rows: list[Measurement] = []
        self.usage: list[Usage] = []
        self.skipped: list = []
        self.errors: list[str] = []
        self.unrecognised: list[str] = []
        self._dedupe = Dedupe()
        self._requests: set[tuple] = set()
        self.projects: dict[str, str] = {}  # session -> where it worked (FileResult.sessions)

    def add(self, result) -> None:
        """Fold one file's result in (pipeline.gather's sink protocol)."""
        if result.error is not None:
            unknown = result.collector is None and "recognises" in result.error
            (self.unrecognised if unknown else self.errors).append(f"{result.source}: {result.error}")
            return
        for session, project in result.sessions:
            self.projects.setdefault(session, project)
        for u in result.usage:
            key = request_key(u)
            if key not in self._requests:
                self._requests.add(key)
                self.usage.append(u)
        self.rows.extend(r for r in result.measurements if r.status != UNPAIRED and self._dedupe.answered(r.dedupe_key))
        self.skipped.extend(result.skipped)

    @property
    def skipped_count(self) -> int:
        """Lines passed over (every one is kept: a few files)."""
        return len(self.skipped)


@dataclass(frozen=True)
class ContextNow:
    """One session's main context, from its transcript."""

    source: str
    session: str
    calls: int  # tool outputs the main agent received in the session
    in_context: int  # tokens of the outputs received since the last compaction
    by_tool: tuple[tuple[str, int], ...]  # (tool, tokens in context), largest first
    context: int | None  # tokens in the last request (None: no usage recorded and none given)
    resent: int  # tokens re-sent so far: each output × the requests after its first that carried it again
    estimated: bool  # the counts are a tokenizer's estimate (claude), not the model's own
    tokenizer: str
    skipped: tuple[str, ...] = field(default=())  # `file:line: reason` of lines that could not be read

    @property
    def share(self) -> float | None:
        """The tool outputs' share of the current context (None when its size is unknown)."""
        if not self.context:
            return None
        return min(1.0, self.in_context / self.context)


def context_of(source: str, rows: list[Measurement], usage: list[Usage], context: int | None, tok,
         skipped: tuple[str, ...]) -> ContextNow:
    """The ContextNow of a session's main-agent rows and requests (scan.job.context_now reads them).
    `context`: the current context's size when known, else the last main-agent request's input."""
    segment = max((r.segment for r in rows), default=0)
    tools: dict[str, int] = {}
    for row in rows:
        if row.segment == segment:
            tools[row.tool] = tools.get(row.tool, 0) + row.tokens
    main = [u for u in usage if u.agent == MAIN_AGENT]
    if context is None and main:
        last = max(main, key=lambda u: (u.ts or "", u.line))
        context = last.input_uncached + last.cache_write + last.cache_read
    session = rows[-1].session if rows else (main[-1].session if main else "")
    return ContextNow(
        source=source, session=session, calls=len(rows), in_context=sum(tools.values()),
        by_tool=tuple(sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))), context=context,
        resent=sum(r.tokens * (r.residency - 1) for r in rows if r.residency), estimated=tok.estimated,
        tokenizer=tok.label, skipped=skipped,
    )
