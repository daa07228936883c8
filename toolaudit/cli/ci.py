"""`toolaudit ci`: measure again, compare with a baseline, fail the build when outputs grew."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from ..errors import EXIT_ERROR, EXIT_GATE
from ..files import atomic_write
from ..options import InputOptions
from ..reports import render_report, reporters
from .scan import layout_of, wide_option
from ..tokenizers import ENGINES, TOKENIZERS
from . import INPUT_PATHS, cli, hooks_for, scheduler_option


class Percent(click.ParamType):
    """A share in percent, 0 to 100, written `50` or `50%`."""

    name = "percent"

    def convert(self, value, param, ctx):
        try:
            number = float(str(value).strip().removesuffix("%"))
        except ValueError:
            number = -1.0
        if not 0 <= number <= 100:
            self.fail(f"{value!r} is not a percentage from 0 to 100", param, ctx)
        return number


@cli.command(name="ci")
@click.argument("paths", nargs=-1, required=True, type=INPUT_PATHS)
@click.option("--baseline", required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="A JSON result of `scan`, `simulate` or `replay` (-f json -o FILE).")
@click.option("--workspace", type=click.Path(exists=True, file_okay=False, path_type=Path), metavar="DIR",
              help="A replay baseline: the repository to replay in (default: the workspace it names).")
@click.option("--tool", "tools", multiple=True, metavar="GLOB=IMPL",
              help="A replay baseline: a mapping that runs a program (cmd:, python:, mcp:) that ci may run again, "
                   "as written in the baseline; builtin: and agent: mappings need none. Also from "
                   "[tool.toolaudit.replay.tools]. A baseline's own cmd:/python:/mcp: mappings never run otherwise.")
@click.option("--fail-on", "fail_on", multiple=True, metavar="CHECK",
              help="[TOOL:]METRIC:+LIMIT[%], repeatable: tokens.total:+5%, tokens_per_run.median:+10%, "
                   "'*:tokens.p95:+10%', Grep:tokens.mean:+500, calls:+20%, later_used:+0. Default: "
                   "tokens.total:+20% and tokens_per_run.median:+20% (simulate: tokens.total:+5% and later_used:+0).")
@click.option("--min-calls", type=click.IntRange(min=0), default=None, show_default="5; 0 for a replay baseline",
              metavar="N", help="A per-tool check on a tool with fewer calls (baseline or now) says `too few calls` "
                   "instead of judging.")
@click.option("--max-vanished", type=Percent(), default=50.0, show_default="50%", metavar="PCT",
              help="Exit 1 (nothing measured) when more than PCT of the baseline's calls are gone.")
@click.option("--allow-vanished", "allow_vanished", multiple=True, metavar="NAME|all",
              help="Accept that this baseline tool (a glob; `all`: any) is gone from the run; by default a vanished "
                   "tool fails, since a renamed tool would hide its growth.")
@click.option("--allow-unjudged", is_flag=True,
              help="Accept a check that judged nothing (every scope had too few calls or no baseline value).")
@click.option("--update-baseline", is_flag=True, help="Write the new measurement to the baseline file, on purpose.")
@click.option("--from", "source_format", metavar="KEY", help="Force one input format.")
@click.option("--tokenizer", type=click.Choice(TOKENIZERS), help="Default: the baseline's. Another one is not comparable.")
@click.option("--engine", type=click.Choice(ENGINES), help="Default: the baseline's.")
@click.option("--calibration", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="With a `--tokenizer claude` baseline: the calibration file it was measured with.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on the first malformed line or unreadable file or folder.")
@click.option("--cache/--no-cache", "use_cache", default=False, show_default=True,
              help="Reuse the scan cache's numbers for files that did not change. Off by default: a gate measures "
                   "every file itself, so nothing left in a cache folder can decide its verdict.")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, no notes on stderr.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes; 0 = all cores.")
@scheduler_option
@click.option("-f", "--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "markdown", "json", "csv", "junit", "html"]),
              help="markdown: a PR comment; junit: one test case per check; csv: one row per check.")
@click.option("-o", "--output", default="-", metavar="PATH|-", help="Write the report here; `-` is stdout.")
@wide_option
@click.pass_context
def ci(ctx, paths, baseline, workspace, tools, fail_on, min_calls, max_vanished, allow_vanished, allow_unjudged,
       update_baseline, source_format, tokenizer, engine,
       calibration, strict, use_cache, debug, quiet, jobs, scheduler, fmt, output, wide):
    """Fail the build when tool outputs grew against a baseline.

    Measures PATH... again the way the baseline was measured (the same tokenizer,
    for a `simulate` baseline the same policies, for a `replay` baseline the same
    tools: the calls are replayed again) and applies the checks. A replay is
    deterministic, so its default checks fail on any growth (tokens.total:+0 and
    *:tokens.total:+0, no minimum sample).
    Exit 0: every check passed; 3: a check failed; 1: the comparison is not
    meaningful (tokenizer, schema version or policy differ) or nothing was
    measured (no file, no call, or more than --max-vanished of the baseline's
    calls gone). New and vanished tools and unreadable files are reported. With
    $GITHUB_STEP_SUMMARY set, the Markdown report is appended there too. Checks,
    --min-calls and --max-vanished also come from [tool.toolaudit.ci] of
    pyproject.toml (fail_on = [...], min_calls, max_vanished). The scan cache
    is not used unless --cache is given.

    \b
    Examples:
      toolaudit scan evals/transcripts -f json -o toolaudit-baseline.json
      toolaudit ci evals/transcripts --baseline toolaudit-baseline.json -f markdown
      toolaudit ci evals/transcripts --baseline toolaudit-baseline.json --update-baseline
      toolaudit ci recorded/ --baseline replay-baseline.json   # written by replay -f json -o
    """
    from ..gate.baseline import read_baseline
    from ..gate.job import GateOptions, gate as run_gate, measure

    read = InputOptions(source_format, calibration=calibration, strict=strict, debug=debug, jobs=jobs,
                        scheduler=scheduler, cache=use_cache)
    from .replay import config_tools

    options = GateOptions(baseline, read, tokenizer, engine, workspace, tuple(fail_on), min_calls, max_vanished,
                          tuple(tools) + tuple(config_tools()), tuple(allow_vanished), allow_unjudged)
    hooks = hooks_for(quiet)
    if update_baseline:
        current = measure(paths, read_baseline(baseline, create=True), options, hooks)
        atomic_write(baseline, json.dumps(current, indent=2, ensure_ascii=False) + "\n")
        totals = current.get("totals", {})
        click.echo(f"baseline updated on purpose: {baseline} ({len(current.get('tools', []))} tools, "
                   f"{totals.get('tokens', totals.get('tokens_after', 0)):,} tokens)", err=True)
        return
    result = run_gate(paths, options, hooks=hooks)
    render_report(result, fmt, output, **layout_of(fmt, wide, None, ()))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:  # appended, not replaced: earlier steps wrote there too
        local = [p for p in paths if isinstance(p, Path)]  # object storage holds no file this could be
        _append_summary(summary, reporters.get("markdown")().render(result), local + [baseline])
    if result.blocked is not None:
        ctx.exit(EXIT_ERROR)
    if not result.passed:
        ctx.exit(EXIT_GATE)


def _append_summary(summary: str, text: str, inputs: list[Path]) -> None:
    """Append `text` to the step summary, unless the file opened is one of `inputs` (checked on the open file:
    a hard link or a swap made after the command's first check is caught too). A summary that cannot be
    written is a warning: the verdict stands."""
    from ..collectors.discover import SUFFIXES
    from ..files import input_named

    try:
        with open(summary, "a", encoding="utf-8") as fh:
            same = input_named(os.fstat(fh.fileno()), inputs, SUFFIXES)
            if same is not None:
                click.echo(f"warning: GITHUB_STEP_SUMMARY {summary} is the input {same}: not written", err=True)
                return
            fh.write(text)
    except OSError as exc:
        click.echo(f"warning: cannot write GITHUB_STEP_SUMMARY {summary}: {exc.strerror or exc}", err=True)
