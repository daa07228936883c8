"""compare's entry point: a baseline condition against a variant, run on the same tasks."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..options import SILENT, Hooks, InputOptions, build, split_options
from ..storage import user_path
from .engine import CompareResult
from .sides import Side


@dataclass(frozen=True)
class CompareOptions:
    """How two conditions are read and grouped (the flags of `toolaudit compare`)."""

    read: InputOptions = field(default_factory=InputOptions)
    group_by: str | None = None  # LEVEL or re:REGEX: each run's task from its main file's path
    model: str | None = None  # prices the tool outputs of calls whose transcript names no model

    @classmethod
    def of(cls, **given: Any) -> "CompareOptions":
        """The options of API keywords: InputOptions' fields and `group_by`, flat."""
        read, rest = split_options(InputOptions, given)
        return build(cls, {**rest, "read": InputOptions(**read)}, "compare")


def side(path: Path, read: InputOptions, hooks: Hooks = SILENT, model: str | None = None) -> Side:
    """One condition: a `scan --records` file as it is, else the transcripts under `path`, through the scan."""
    from ..scan.job import ScanOptions, collect
    from .sides import records_side, side_from_scan

    found = records_side(path)
    if found is not None:
        return found
    collected, _ = collect([path], ScanOptions(read, calls=True, call_previews=False), hooks)  # numbers: the cache serves
    return side_from_scan(path, collected, model)


def compare(a: Path | str, b: Path | str, options: CompareOptions | None = None, *, hooks: Hooks = SILENT,
            **given: Any) -> CompareResult:
    """Condition `a` (the baseline) against `b` (the variant): tool output per run, by task and tool
    (what `toolaudit compare -f json` prints)."""
    from ..pipeline import check_format, meta_for, tokenizer_of
    from .engine import compare as compare_sides, parse_group_by

    options = options or CompareOptions.of(**given)
    a, b = user_path(a), user_path(b)
    grouping = parse_group_by(options.group_by)
    check_format(options.read)
    tok = tokenizer_of(options.read)  # fail fast, before any worker starts
    sides = [side(p, options.read, hooks, options.model) for p in (a, b)]
    return compare_sides(*sides, grouping, meta_for(options.read, (a, b), tok=tok))
