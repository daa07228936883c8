"""`toolaudit compare`: a baseline condition against a variant, run on the same tasks."""

from __future__ import annotations

from pathlib import Path

import click

from ..reports import render_report
from .scan import layout_of, wide_option
from . import cli, hooks_for, input_options, output_options


@cli.command()
@click.argument("a", type=click.Path(exists=True, path_type=Path))
@click.argument("b", type=click.Path(exists=True, path_type=Path))
@click.option("--group-by", "group_by", metavar="LEVEL|re:REGEX", default=None,
              help="Name each run's task from its main file's path below A or B: the component at depth "
                   "LEVEL (1: A/<task>/...; 0: one task; a file above LEVEL by its own name), or re:REGEX "
                   "searched in that path (its first group, else the match). Runs are found before tasks, so "
                   "this never splits or merges one. Default: 1 when a run's main file sits in a subfolder of A or "
                   "B, else 0.")
@click.option("--model", metavar="NAME", help="Price the tool outputs of calls whose transcript names no model as NAME.")
@input_options
@output_options
@wide_option
def compare(a, b, group_by, model, read, quiet, fmt, output, wide):
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
    from ..compare.job import CompareOptions, compare as run_compare

    result = run_compare(a, b, CompareOptions(read, group_by, model), hooks=hooks_for(quiet))
    render_report(result, fmt, output, **layout_of(fmt, wide, None, ()))
