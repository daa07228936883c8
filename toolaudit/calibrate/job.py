"""calibrate's entry point: fit Claude tokens per o200k token from the usage Claude Code transcripts record."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Iterable, Iterator

from ..collectors import discover
from ..collectors.claude_code import ClaudeCodeCollector
from ..errors import ToolauditError
from ..options import SILENT, Hooks
from ..storage import input_path
from .engine import Calibration, calibrate as fit_all


def claude_files(paths: list[Path], problems: list[str]) -> Iterator[Path]:
    """The Claude Code session files under `paths`; other formats are passed over."""
    for path in discover.iter_files(paths, problems):
        try:
            if discover.detect(path)[0] is ClaudeCodeCollector:
                yield path
        except OSError as exc:
            problems.append(f"{path}: cannot read: {exc.strerror or exc}")


def calibrate(paths: Iterable[Path | str] = (), *, hooks: Hooks = SILENT) -> Calibration:
    """The fit per model (subagents apart) and pooled, over the Claude Code sessions under `paths` (none: the
    agents' default folders); a ToolauditError when no turn qualifies."""
    from ..pipeline import resolve_paths
    from ..tokenizers import get_tokenizer

    problems: list[str] = []
    files = list(claude_files(resolve_paths([input_path(p) for p in paths], hooks), problems))
    hooks.problems((), problems)
    cal = fit_all(files, get_tokenizer())
    if cal.pooled is None:
        raise ToolauditError(f"no qualifying turns in {len(files)} Claude Code files: a turn needs two requests "
                             "of one model with only tool results (≥ 500 o200k tokens) between them",
                             slug="no-turns")
    return replace(cal, errors=tuple(problems))
