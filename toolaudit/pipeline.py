"""Scan files in parallel worker processes: detect, collect, measure, return numbers only.

Every job that reads transcripts goes through `gather`: list the inputs (the agents' default folders
without a path), run a worker over each file and fold its result into the job's sink.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator

from .scan.measure import head_of, measure, measure_menu, with_residency
from .scan.sessions import project_of
from .collectors import discover
from .errors import StrictError, ToolauditError, check_strict
from .model import FileResult, ScanMeta, SessionEnd, SessionInfo, Skipped, ToolCall, ToolMenu, Usage
from .options import SILENT, Hooks, InputOptions
from .tokenizers import Tokenizer, engine_for, get_tokenizer, sanitized_size


@dataclass(frozen=True)
class FileOptions:
    """What every worker needs to know to scan one file."""

    tokenizer: str = "o200k_base"
    engine: str = "toktok"
    forced: str | None = None
    show_content: bool = False
    debug: bool = False
    calibration: str | None = None  # --tokenizer claude: a `calibrate --save` file
    previews: bool = True  # each call's redacted argument preview and line count (--top, --records)
    # previews made by the command for the rows it keeps (--top), from heads the workers send, not by
    # a worker for every call; local runs only (the heads are unredacted: see FileResult.heads)
    late_previews: bool = False

    @classmethod
    def of(cls, read: InputOptions, **extra) -> "FileOptions":
        """The worker's options for inputs read as `read` says (`extra`: show_content, previews...)."""
        return cls(read.tokenizer, read.engine, read.source_format, debug=read.debug, calibration=read.calibration,
                   **extra)


_TOKENIZER: Tokenizer | None = None
_TOKENIZER_KEY: tuple | None = None


def _tokenizer(options: FileOptions) -> Tokenizer:
    global _TOKENIZER, _TOKENIZER_KEY
    key = (options.tokenizer, options.engine, options.calibration)
    if _TOKENIZER is None or _TOKENIZER_KEY != key:
        _TOKENIZER = get_tokenizer(options.tokenizer, options.engine, calibration=options.calibration)
        _TOKENIZER_KEY = key
    return _TOKENIZER


def _guarded(options: FileOptions, fail, work):
    """`work()`, or `fail(reason)` when the file cannot be read or a collector trips on odd data."""
    from .collectors import base

    base.DEBUG = options.debug  # --debug: odd data raises instead of becoming a skipped line
    try:
        return work()
    except OSError as exc:
        return fail(f"cannot read: {exc.strerror or exc}")
    except Exception as exc:  # a collector bug on odd data must not end the whole run
        if options.debug:
            raise
        return fail(f"failed: {type(exc).__name__}: {exc}")


def scan_file(path: Path, options: FileOptions, known: dict | None = None, resume: tuple | None = None
              ) -> FileResult:
    """Every measured call and skipped line of one file; errors become `FileResult.error`.

    When lines were only added since an earlier scan: `known` holds its token counts (scan.measure.measure),
    and `resume` = (its collector, its checkpoint, its rows and skipped lines up to the checkpoint) lets a
    resumable collector read on from there (scan.cache.through_cache).
    """
    source = str(path)

    def work() -> FileResult:
        late = options.previews and options.late_previews  # previews made by the command, from heads
        if resume is not None and not late and not options.forced:
            # its first bytes are those it was recognised by: the collector that read it reads on
            cls, doc = discover.collectors.builtin(resume[0]), None
        else:
            cls, doc = discover.detect(path, options.forced)
        if cls is None:
            return FileResult(source, None, error="no collector recognises this file")
        tokenizer = _tokenizer(options)
        rows, skipped, ends, usage, menus, heads = [], [], [], [], [], []
        projects: dict[str, str] = {}  # session -> its project (the first SessionInfo that names one)
        collector, checkpoint = cls(), None
        if resume is not None and cls.resumable and resume[0] == cls.key and not late:
            checkpoint = resume[1]
            for row in resume[2]:  # their residency is counted anew; in place: they were decoded for this read alone
                object.__setattr__(row, "residency", None)
            rows.extend(resume[2])
            skipped.extend(resume[3])
            projects.update(resume[4])  # a collector reading on does not tell again where its session worked
        for record in collector.records(path, doc, resume=checkpoint):
            if isinstance(record, ToolCall):
                text, size = sanitized_size(record.output)
                rows.append(measure(record, tokenizer, show_content=options.show_content and not late,
                                    previews=options.previews and not late, text=text, size=size, known=known))
                if late:
                    heads.append(head_of(record, text, options.show_content))
            elif isinstance(record, Skipped):
                skipped.append(record)
            elif isinstance(record, SessionEnd):
                ends.append(record)
            elif isinstance(record, Usage):
                usage.append(record)
            elif isinstance(record, ToolMenu):
                menus.append(measure_menu(record, tokenizer, cls.key))
            elif isinstance(record, SessionInfo) and record.session not in projects:
                project = project_of(record)
                if project:
                    projects[record.session] = project
        return FileResult(source, cls.key, tuple(with_residency(rows, ends)), tuple(skipped),
                          usage=tuple(usage), menus=tuple(menus), heads=tuple(heads), checkpoint=collector.checkpoint,
                          sessions=tuple(projects.items()))

    return _guarded(options, lambda reason: FileResult(source, None, error=reason), work)


def simulate_file(path: Path, options: FileOptions, maps: list, explain: bool = False, timeline: bool = False,
                  fields: bool = False, inputs: bool = False):
    """Measure one file's calls once and apply every policy map (simulate.engine); with `timeline`, keep what a
    context policy needs too (and with `fields`, MCP outputs' JSON key shares)."""
    from .simulate.engine import SimFile, simulate_records

    source = str(path)

    def work() -> SimFile:
        cls, doc = discover.detect(path, options.forced)
        if cls is None:
            return SimFile(source, None, error="no collector recognises this file")
        unanswered: list[tuple] = []  # calls whose result never came: simulate leaves them out, the dedupe counts them
        calls, cuts, skipped, sessions, found = simulate_records(
            _noting_unanswered(cls().records(path, doc), unanswered), maps, _tokenizer(options), explain=explain,
            timeline=timeline, fields=fields, inputs=inputs)
        if found is not None and found.menus:
            found = replace(found, menus=tuple(measure_menu(m, _tokenizer(options), cls.key) for m in found.menus))
        return SimFile(source, cls.key, tuple(calls), tuple(tuple(c) for c in cuts), tuple(skipped), sessions=sessions,
                       unanswered=tuple(unanswered), trace=found)

    return _guarded(options, lambda reason: SimFile(source, None, error=reason), work)


def _noting_unanswered(records, into: list[tuple]):
    """`records` as they come; the dedupe keys of calls whose result never came are noted in `into`."""
    for record in records:
        if isinstance(record, ToolCall) and record.status == "unpaired" and record.dedupe_key is not None:
            into.append(record.dedupe_key)
        yield record


def _worker_signals() -> None:
    """A worker ends when the pool ends it (SIGTERM) and leaves Ctrl-C to the command, which cleans up."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _scan_one(args: tuple) -> FileResult:
    return args[0](*args[1:])


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _workload(files: list) -> int | None:
    """The bytes `files` hold, counted only up to what decides the `auto` engine (None: remote inputs)."""
    from .distributed import size_of
    from .tokenizers import AUTO_CROSSOVER_BYTES

    total = 0
    for path in files:
        if not isinstance(path, Path):
            return None
        total += size_of(path)
        if total >= AUTO_CROSSOVER_BYTES:
            break
    return total


# Below this much input, worker processes cost more than they save (starting the pool, shipping
# results back): at 20 MB, -j 2 took twice as long as -j 1 on a 2-core machine (benchmarks/bench_scan.py).
FORK_PAYS_BYTES = 32 * 1024 * 1024


def auto_jobs(files: list) -> int:
    """Workers when -j is not given: one for one file or below FORK_PAYS_BYTES of local input, else all cores."""
    from .distributed import size_of

    if len(files) < 2:
        return 1
    # remote inputs are read over the network, where several workers pay at any size
    if not all(isinstance(path, Path) for path in files):
        return default_jobs()
    total = 0
    for path in files:  # stat only until the input is big enough: a large tree need not be stat'ed whole
        total += size_of(path)
        if total >= FORK_PAYS_BYTES:
            return default_jobs()
    return 1


def scan_files(files: list[Path], options: FileOptions, jobs: int | None = None, worker=scan_file,
               extra: tuple = (), scheduler: str | None = None) -> Iterator:
    """`worker(path, options, *extra)` for each file, in order, in `jobs` processes (1: in this one),
    or on the Dask cluster at `scheduler` (toolaudit.distributed)."""
    if scheduler:
        from .distributed import scan_on_cluster

        # heads are unredacted text: over a cluster every worker redacts its own previews
        options = replace(options, late_previews=False)
        yield from scan_on_cluster(scheduler, files, options, worker, extra)
        return
    options = replace(options, engine=engine_for(options.engine, _workload(files)))
    jobs = auto_jobs(files) if not jobs or jobs < 1 else jobs
    jobs = min(jobs, len(files))
    if jobs <= 1:
        for path in files:
            yield worker(path, options, *extra)
        return
    # spawn-safe and fork-fast: fork where available, the vocabulary built here first is shared by all
    # workers (toktok's takes 0.3 s and holds the GIL: once, not once per worker)
    if hasattr(os, "fork"):
        _tokenizer(options).count("warm")
    from multiprocessing import get_context  # 7 ms of imports: only when workers are started (not a statusline)

    ctx = get_context("fork") if hasattr(os, "fork") else get_context("spawn")
    with ctx.Pool(jobs, initializer=_worker_signals) as pool:
        yield from pool.imap(_scan_one, ((worker, p, options, *extra) for p in files), chunksize=1)


# Trim only past this much free heap: trimming after every file made the next file fault its pages
# in again (9% of a 100 MB scan's CPU); at 32 MB the peak at 2 GB of input stayed where trimming
# after every file kept it (144 MB), since what the heap keeps beyond its live data is bounded.
TRIM_ABOVE_BYTES = 32 * 1024 * 1024
_LIBC = None


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]


def release_freed() -> None:
    """Hand the heap's free memory back to the system once it is over TRIM_ABOVE_BYTES (glibc's malloc_trim;
    elsewhere nothing).

    Why: a file's lines and outputs are freed once it is folded in, but the few objects that stay
    (dedupe digests, count-cache entries) pin the heap pages around them, so without this the
    process keeps every file's high-water mark and its peak creeps up with the number of files.
    """
    global _LIBC
    if _LIBC is None:
        try:
            libc = ctypes.CDLL(None)
            libc.mallinfo2.restype = _Mallinfo2
            _LIBC = libc if libc.malloc_trim else False
        except (OSError, AttributeError):  # not glibc, or one older than 2.33
            _LIBC = False
    if _LIBC and _LIBC.mallinfo2().fordblks > TRIM_ABOVE_BYTES:
        _LIBC.malloc_trim(0)


def run(files: list[Path], options: FileOptions, sink, read: InputOptions = InputOptions(), *, on_file=None,
        worker=scan_file, extra: tuple = (), cache=None, roots: tuple = ()):
    """Run `worker` over `files` and fold each result into `sink` (its `add`); returns `sink`.

    `read` gives the workers (jobs), the cluster (scheduler: see scan_files) and `strict`: the first
    non-benign skipped line, or a file that could not be read or recognised, raises StrictError.
    `on_file(result)` is called after each file (progress). With `cache` (scan.cache.ScanCache) only the
    files that changed are read; the entries of files gone from the folders `roots` are dropped.
    """
    strict = read.strict
    if cache is None:
        results = scan_files(files, options, read.jobs, worker, extra, read.scheduler or None)
    else:
        from .scan.cache import stamped, through_cache

        def grown(path: Path, known: dict, resume: tuple | None):  # one file, in this process
            return worker(path, replace(options, engine=engine_for(options.engine, _workload([path]))), known=known,
                          resume=resume)

        stamps = stamped(cache.stamps(files, roots), files, True)
        keeper = getattr(sink, "keeper", None)  # a scan's Collected that may be answered by its kept summary
        # (not when a folder could not be listed: the summary was kept without that problem line)
        if keeper is not None and not sink.errors and sink.restore(keeper.check(cache, files, stamps)):
            return sink
        parts = None
        if keeper is not None and len(files) > 1:  # ... and takes each file's fold whole (scan.parts; one file
            # alone has nothing to merge with: its summary answers when it is unchanged)
            from .scan.parts import Kept

            parts = Kept(cache, sink.folded.plan, keeper.plan_key, files, roots)
        results = through_cache(cache, files, lambda changed: scan_files(changed, options, read.jobs, worker, extra),
                                roots, grown, stamps, parts)
    for result in results:
        if strict:
            check_strict(result)
        sink.add(result)
        if on_file is not None:
            on_file(result)
        del result  # the file's rows, before its memory is handed back
        release_freed()
    return sink


def resolve_paths(paths, hooks: Hooks = SILENT) -> list:
    """`paths`, or without any the agents' default folders that exist (each told through `hooks`)."""
    if paths:
        return list(paths)
    found = [p for p in discover.default_locations() if p.is_dir()]
    if not found:
        where = ", ".join(str(p) for p in discover.default_locations())
        raise ToolauditError(f"no PATH given and no agent transcripts in the default places ({where})",
                             slug="no-defaults")
    for place in found:
        hooks.tell(f"scanning {place}")
    return found


def input_files(paths, strict: bool, hooks: Hooks = SILENT) -> tuple[list, list[str]]:
    """The transcript files under `paths` (the agents' folders without any), and the entries that could not
    be listed; under `strict` the first of those is a StrictError."""
    problems: list[str] = []
    files = list(discover.iter_files(resolve_paths(paths, hooks), problems))
    if strict and problems:
        raise StrictError(f"{problems[0]} (--strict)", slug="strict")
    return files, problems


def gather(paths, read: InputOptions, options: FileOptions, sink, *, hooks: Hooks = SILENT, worker=None,
           extra: tuple = (), cache=None):
    """Find the files under `paths`, run them through `worker` (scan_file) into `sink`; returns `sink`.

    Files and folders that cannot be listed go into `sink.errors` (and fail `read.strict`). With
    `read.scheduler` the files are scanned on that Dask cluster.
    """
    from contextlib import nullcontext

    files, problems = input_files(paths, read.strict, hooks)
    sink.errors.extend(problems)  # unreadable folders belong in the result's errors, not only on stderr
    progress, advance = hooks.progress(len(files)) if hooks.progress else (None, None)
    with progress or nullcontext():
        run(files, options, sink, read, on_file=advance, worker=worker or scan_file, extra=extra, cache=cache,
            roots=tuple(resolve_paths(paths)))
    hooks.problems(sink.unrecognised, sink.errors, sink.skipped, sink.skipped_count)
    return sink


def meta_for(read: InputOptions, paths, by: str = "tool", tok: Tokenizer | None = None) -> ScanMeta:
    """The ScanMeta every result states: version, tokenizer (and `tok`'s label), engine, time, inputs."""
    from datetime import datetime, timezone

    from . import __version__

    tokenizer, engine = read.tokenizer, read.engine
    return ScanMeta(
        version=__version__, tokenizer=tokenizer, engine=engine if tokenizer != "approx" else "approx",
        estimated=tok.estimated if tok is not None else tokenizer in ("approx", "claude"),
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        inputs=tuple(str(p) for p in (paths or ())), by=by, tokenizer_label=tok.label if tok is not None else "",
    )


def tokenizer_of(read: InputOptions) -> Tokenizer:
    """The tokenizer `read` names, built now: a bad name or calibration fails before any worker starts."""
    return get_tokenizer(read.tokenizer, read.engine, calibration=read.calibration)


def check_format(read: InputOptions) -> None:
    """A UsageError when --from names no collector (before anything is read)."""
    if read.source_format:
        from .collectors import collectors

        collectors.get(read.source_format)
