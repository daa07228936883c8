"""The options every job that reads transcripts shares, and what a command shows while a job runs.

A command builds its job's options object (scan.ScanOptions, simulate.SimulateOptions, …) from its
flags in one place and hands it on whole; the Python API builds the same objects from keywords.
Each holds an InputOptions: how the inputs are found, read and counted.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, fields
from typing import Any, Callable

from .tokenizers import DEFAULT_ENGINE, DEFAULT_TOKENIZER


@dataclass(frozen=True)
class InputOptions:
    """How transcripts are found, read and counted (--from, --tokenizer, --engine, --calibration, --strict,
    --debug, -j, --scheduler, --no-cache)."""

    source_format: str | None = None  # --from KEY: one format forced; None detects each file's
    tokenizer: str = DEFAULT_TOKENIZER
    engine: str = DEFAULT_ENGINE
    calibration: str | None = None  # --tokenizer claude: a `calibrate --save` file
    strict: bool = False  # the first malformed line, unreadable or unrecognised file is an error
    debug: bool = False  # odd data raises where it trips (tracebacks)
    jobs: int = 1  # worker processes; 0 = every core, 1 = none (the API's default: one process)
    scheduler: str | None = None  # a dask.distributed scheduler address for the per-file work
    cache: bool = True  # scan: reuse the numbers of files unchanged since the last scan (scan.cache)


def split_options(cls: type, given: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`given` keywords as (the fields of `cls`, the rest): how the API sorts `**options` into objects."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in given.items() if k in names}, {k: v for k, v in given.items() if k not in names}


def build(cls: type, given: dict[str, Any], what: str):
    """`cls(**given)`, or a UsageError naming the keywords `what` does not take."""
    from .errors import UsageError
    from .registry import did_you_mean

    own, rest = split_options(cls, given)
    if rest:
        name = sorted(rest)[0]
        raise UsageError(f"{what} takes no option {name!r}{did_you_mean(name, [f.name for f in fields(cls)])}",
                         slug="option")
    return cls(**own)


Progress = Callable[[int], tuple[AbstractContextManager | None, Callable[[Any], None]]]


@dataclass(frozen=True)
class Hooks:
    """What a command shows while a job runs; the API shows nothing (the defaults).

    `progress(total)` gives a context to run in (or None) and a callback per finished file;
    `say(line)` writes one line on stderr (e.g. which default folders are read); `notes(unrecognised,
    errors, skipped, skipped_count)` shows the files no collector knew, those that failed and the lines passed
    over (`file:line: reason`), once the inputs are read.
    """

    progress: Progress | None = None
    say: Callable[[str], None] | None = None
    notes: Callable[[list[str], list[str], list, int], None] | None = None

    def tell(self, line: str) -> None:
        """Say `line`, when a command listens."""
        if self.say is not None:
            self.say(line)

    def problems(self, unrecognised, errors, skipped=(), skipped_count: int = 0) -> None:
        """Show the files that were not read and the lines skipped, when a command listens."""
        if self.notes is not None:
            self.notes(list(unrecognised), list(errors), list(skipped), skipped_count)


SILENT = Hooks()
