"""scan's entry point: the options of a scan, and the one function `toolaudit scan` and the API call."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Iterable

from ..model import ScanResult
from .context import ContextNow
from ..options import SILENT, Hooks, InputOptions, build, split_options
from ..storage import input_path
from .families import DEFAULT as DEFAULT_FAMILIES, Families

BY = ("tool", "session", "file", "collector", "agent", "model", "family", "day", "week", "month")


@dataclass(frozen=True)
class ScanOptions:
    """Everything a scan needs besides its paths (the flags of `toolaudit scan`)."""

    read: InputOptions = field(default_factory=InputOptions)
    by: str = "tool"  # tool, session, file, collector, agent, model, family, day, week, month
    families: Families = DEFAULT_FAMILIES  # what --by family groups by ([tool.toolaudit.families])
    top: int = 0  # the N largest calls (and tool definitions)
    show_content: bool = False  # --top rows carry a redacted preview of each output
    records: Any = None  # a path (or object-storage RemotePath) that gets one row per call
    cost: bool = False  # dollars from the offline price table
    model: str | None = None  # the model, where a transcript names none (pricing)
    since: datetime | None = None  # only calls and requests at or after
    until: datetime | None = None  # only calls and requests before
    tz: tzinfo | None = None  # of periods (--by day|week|month); None: this machine's zone
    calls: bool = False  # keep every call's row on the result (ScanResult.calls, .to_pandas("calls"))
    call_previews: bool = True  # ... each with its redacted argument preview (False: numbers only, from the cache)

    @classmethod
    def of(cls, **given: Any) -> "ScanOptions":
        """The options of API keywords: InputOptions' fields (tokenizer, jobs…) and scan's own, flat."""
        read, rest = split_options(InputOptions, given)
        if isinstance(rest.get("records"), str):  # a path or URL as text, as on the command line
            from ..storage import local_or_remote

            rest["records"] = local_or_remote(rest["records"])
        return build(cls, {**rest, "read": InputOptions(**read)}, "scan")


def scan(paths: Iterable[Path | str] = (), options: ScanOptions | None = None, *, hooks: Hooks = SILENT,
         **given: Any) -> ScanResult:
    """Measure every tool call under `paths` (files or folders; none: the agents' default folders).

    `options` (or keywords, e.g. `by="family", top=10, tokenizer="cl100k_base"`) say how; the result is
    what `toolaudit scan -f json` prints (`.to_json()`), per tool and per call (`.to_pandas()`).
    """
    from ..pipeline import meta_for
    from .summary import summarize

    options = options or ScanOptions.of(**given)
    paths = [input_path(p) for p in paths]
    collected, tok = collect(paths, options, hooks)
    meta = meta_for(options.read, paths, options.by, tok)
    if not options.calls:
        return collected.result(meta)
    result = summarize(collected, meta, _plan(options).grouping, options.top, cost=options.cost, model=options.model)
    return replace(result, calls=tuple(collected.all_rows()))


def collect(paths: list, options: ScanOptions, hooks: Hooks = SILENT):
    """Every file under `paths` measured and folded: (the Collected, the tokenizer). Rows are kept (and
    `Collected.usage`) when `options.calls` asks for them, else folded into the summary's plan as they come."""
    from ..pipeline import FileOptions, check_format, gather, tokenizer_of
    from .cache import opened
    from .records import RecordsMeta, recording
    from .summary import Collected

    read = options.read
    if options.by not in BY:
        from ..errors import UsageError

        raise UsageError(f"by={options.by!r}: one of {', '.join(BY)}", slug="by")
    check_format(read)
    tok = tokenizer_of(read)
    # --top alone: previews only for the rows shown, made here (redacting every call's was a third of the scan)
    files = FileOptions.of(read, show_content=options.show_content,
                           previews=bool(options.top) or options.records is not None
                           or (options.calls and options.call_previews),
                           late_previews=options.records is None and not options.calls)
    collected = Collected(since=options.since, until=options.until, plan=None if options.calls else _plan(options))
    about = RecordsMeta(read.tokenizer, read.engine if read.tokenizer != "approx" else "approx", tok.label)
    # the cache serves local work whose text, if any, is only the previews of --top (made late, from the few
    # files that hold the largest calls: _heads_of_largest)
    servable = not read.scheduler and not (files.previews and not files.late_previews)
    with opened(read, hooks.tell, servable) as cache:
        collected.keeper = _keeper(options) if cache is not None else None
        with recording(options.records, collected, about) as sink:
            gather(paths, read, files, sink, hooks=hooks, cache=cache)
        keeper = collected.keeper
        if keeper is not None and keeper.key is not None and collected.summary is None and cache.complete \
                and not collected.errors:
            collected.summary = collected.result(None)
            cache.keep_summary(keeper.key, collected.summary)
    if cache is not None and options.top:
        _heads_of_largest(collected, files, cache.read_from)
    return collected, tok


def _heads_of_largest(collected, files, read_from: dict[str, set]) -> None:
    """Read again the files that hold a --top candidate served from the cache (it has no head: the cache
    keeps no text) and give each its head, as an uncached scan would have. `read_from`: the files behind
    a row source that is not a file (ScanCache.read_from)."""
    from ..pipeline import scan_file

    largest = collected.folded.largest
    wanted = {row.source for row, head in largest if head is None}
    paths = sorted({str(p) for source in wanted for p in read_from.get(source, {Path(source)})})
    heads: dict[tuple, tuple] = {}
    for path in paths:
        result = scan_file(Path(path), files)
        heads.update(((r.source, r.line, r.session, r.call_id), head) for r, head in zip(result.measurements,
                                                                                          result.heads))
    collected.folded.largest = [(row, head if head is not None else heads.get((row.source, row.line, row.session,
                                                                                 row.call_id)))
                                for row, head in largest]


def _keeper(options: ScanOptions):
    """The Keeper of this scan's summary and files' folds (scan.summary_cache, scan.parts), or None for a scan
    whose are not kept: one that shows text (--top, --records), keeps rows, has a --since/--until window, is
    --strict, or prices (--cost: the price table prices at the time of asking, and it has prices by time of
    day and by date, so yesterday's sums are not today's)."""
    from .summary_cache import Keeper, plan_key

    if options.top or options.records is not None or options.calls or options.since or options.until \
            or options.read.strict or options.cost:
        return None
    return Keeper(plan_key(_plan(options)))


def _plan(options: ScanOptions):
    """What the summary will be asked for (summary.Plan)."""
    from .summary import Grouping, Plan

    return Plan(Grouping(options.by, options.families, options.tz), options.top, options.cost, options.model)


def context_now(transcript: Path | str, read: InputOptions | None = None, *, context: int | None = None,
                hooks: Hooks = SILENT) -> "ContextNow":
    """The main context of the session in `transcript` (one file). `context`: the current context's size
    when the caller knows it (Claude Code's statusline input), else the last recorded request's input."""
    from ..pipeline import FileOptions, gather, tokenizer_of
    from ..model import MAIN_AGENT
    from .cache import opened
    from .context import Rows, context_of

    read = read or InputOptions(tokenizer="claude")
    path = Path(transcript)
    tok = tokenizer_of(read)
    kept = Rows()
    with opened(read, hooks.tell) as cache:
        gather([path], read, FileOptions.of(read, previews=False), kept, hooks=hooks, cache=cache)
    if kept.errors or kept.unrecognised:
        from ..errors import ToolauditError

        raise ToolauditError((kept.errors + kept.unrecognised)[0], slug="statusline-input")
    from ..secrets.redact import name  # the file's name as its rows have it (Collector.records): a secret in it masked

    return context_of(name(str(path), path=True), [r for r in kept.rows if r.agent == MAIN_AGENT], kept.usage,
                      context, tok, tuple(str(s) for s in kept.skipped if not s.benign))


def live_snapshot(paths, read: InputOptions | None = None, *, window_s: float = 7200.0, hooks: Hooks = SILENT):
    """The sessions under `paths` (none: the agents' folders) written within the last `window_s` seconds,
    read through the scan cache: what `toolaudit watch` shows at each refresh (scan.live.Snapshot)."""
    import os
    import time

    from ..pipeline import FileOptions, input_files, run, tokenizer_of
    from .cache import opened
    from .context import Rows
    from .live import snapshot_of

    read = read or InputOptions()
    taken = time.time()
    files, _ = input_files([input_path(p) for p in paths], read.strict, hooks)
    mtimes: dict[str, float] = {}
    for path in files:
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            continue
        if taken - mtime <= window_s:
            mtimes[str(path)] = mtime
    recent = [p for p in files if str(p) in mtimes]
    kept = Rows()
    with opened(read, hooks.tell) as cache:
        run(recent, FileOptions.of(read, previews=False), kept, read, cache=cache)
    return snapshot_of(kept.rows, mtimes, window_s, taken, tokenizer_of(read), kept.projects)
