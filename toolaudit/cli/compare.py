"""`toolaudit compare`: a baseline condition against a variant, run on the same tasks."""

from __future__ import annotations

from pathlib import Path

import click

from ..collectors import collectors
from ..reports import render_report
from ..tokenizers import get_tokenizer
from . import cli, gather, input_options, meta_for, output_options


def _side(path: Path, options, *, jobs: int, strict: bool, quiet: bool, scheduler: str | None):
    """One condition: a `scan --records` file as it is, else the transcripts under `path` scanned."""
    from ..compare.engine import records_side, side_from_scan
    from ..scan.summary import Collected

    side = records_side(path)
    if side is not None:
        return side
    return side_from_scan(path, gather((path,), options, Collected(), jobs=jobs, strict=strict, quiet=quiet,
                                       scheduler=scheduler))


@cli.command()
@click.argument("a", type=click.Path(exists=True, path_type=Path))
@click.argument("b", type=click.Path(exists=True, path_type=Path))
@click.option("--group-by", "group_by", metavar="LEVEL|re:REGEX", default=None,
              help="Name each run's task from its main file's path below A or B: the component at depth "
                   "LEVEL (1: A/<task>/...; 0: one task; a file above LEVEL by its own name), or re:REGEX "
                   "searched in that path (its first group, else the match). Runs are found before tasks, so "
                   "this never splits or merges one. Default: 1 when a run's main file sits in a subfolder of A or "
                   "B, else 0.")
@input_options
@output_options
def compare(a, b, group_by, source_format, tokenizer, calibration, engine, strict, debug, quiet, jobs, scheduler, fmt,
            output):
    """Compare condition A (baseline) with B (variant): tool output per run, by task and tool.

    A and B are folders of transcripts (or one transcript file each), or per-call
    records written by `scan --records` (.csv, .parquet, or a .json list of them);
    not a `scan -f json` report, which holds totals only.

    A run is one session in one transcript file, known by the file's path without
    its extensions and the session id. The same session id in two files is two
    runs (mini-swe-agent, SWE-agent and OpenHands name sessions after the task
    instance: run1/x.traj.json and run2/x.traj.json are two runs). A subagent's
    file with its parent's session joins the parent's run when it sits in a folder
    named after the parent's transcript or session (Claude Code's
    <session>/subagents/, Gemini CLI's chats/<session id>/), or is an agent-<id>
    file beside <session>.jsonl (older Claude Code); the parent's transcript is
    then the run's main file. Runs are found first, then grouped into tasks by
    --group-by, which never splits or merges a run.

    For each task, overall and per tool, the table shows the median per run of A
    and of B with n, the change and % change (↑/↓), and min–max: tool output
    tokens and bytes, calls, and input tokens billed (from provider usage, where
    transcripts have it). Medians, not means: runs are few and skewed. -f json adds
    every run's numbers (runs[]); -f csv is long-format, one row per scope, key and
    metric; -f markdown suits a PR comment (junit is for `ci` only).

    \b
    Examples:
      toolaudit compare runs/baseline runs/variant            # runs/<cond>/<task>/<run>.jsonl
      toolaudit compare base/ new/ --group-by 're:^(.+)-run\\d+'
      toolaudit compare a.csv runs/variant -f json -o compare.json
    """
    from ..compare.engine import compare as compare_sides, parse_group_by
    from ..pipeline import ScanOptions

    grouping = parse_group_by(group_by)
    if source_format:
        collectors.get(source_format)
    tok = get_tokenizer(tokenizer, engine, calibration=calibration)  # fail fast, before any worker starts
    options = ScanOptions(tokenizer, engine, source_format, False, debug, calibration, previews=False)
    sides = [_side(p, options, jobs=jobs, strict=strict, quiet=quiet, scheduler=scheduler) for p in (a, b)]
    result = compare_sides(*sides, grouping, meta_for(tokenizer, engine, (a, b), tok=tok))
    render_report(result, fmt, output)
