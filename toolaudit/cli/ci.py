"""`toolaudit ci`: measure again, compare with a baseline, fail the build when outputs grew."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from ..errors import EXIT_ERROR, EXIT_GATE, UsageError
from ..reports import render_report, reporters
from ..reports.files import atomic_write
from ..tokenizers import ENGINES, TOKENIZERS
from . import cli, gather, meta_for


def _measure(paths, baseline: dict, source_format, tokenizer, engine, calibration, strict, debug, quiet,
             jobs) -> dict:
    """The same measurement the baseline holds (scan, or simulate with its policy spec), as JSON."""
    from ..pipeline import ScanOptions
    from ..reports.view import view_of
    from ..tokenizers import get_tokenizer

    tok = get_tokenizer(tokenizer, engine, calibration=calibration)
    options = ScanOptions(tokenizer, engine, source_format, False, debug, calibration, previews=False)
    meta = meta_for(tokenizer, engine, paths, tok=tok)
    if baseline.get("meta", {}).get("command") == "simulate":
        from ..audit import simsummary
        from ..audit.policymap import maps_from_spec
        from ..pipeline import simulate_file

        spec = baseline["meta"].get("policy_spec")
        if not spec or baseline["meta"].get("sweep"):
            raise UsageError("this simulate baseline has no single policy to run again (a sweep, or written "
                             "by an older toolaudit); write it again with simulate -f json -o", slug="baseline")
        maps, _ = maps_from_spec(spec)
        sink = simsummary.SimCollected([""], [tuple(maps[0].describe())])
        gather(paths, options, sink, jobs=jobs, strict=strict, quiet=quiet, worker=simulate_file, extra=(maps, False))
        result = simsummary.result(sink, meta, preset=spec.get("preset"), spec=spec)
    else:
        from ..audit.summary import Collected, summarize

        result = summarize(gather(paths, options, Collected(), jobs=jobs, strict=strict, quiet=quiet), meta)
    return view_of(result).doc(result)


def _read_baseline(path: Path, create: bool) -> dict:
    if not path.exists():
        if create:
            return {"meta": {"command": "scan"}}
        raise UsageError(f"no baseline at {path}: write one with `toolaudit scan PATH -f json -o {path}` "
                         "or `toolaudit ci PATH --baseline FILE --update-baseline`", slug="baseline")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the baseline {path}: {exc}", slug="baseline") from None
    if not isinstance(doc, dict) or doc.get("meta", {}).get("command") not in ("scan", "simulate"):
        raise UsageError(f"{path} is not a toolaudit scan or simulate JSON result", slug="baseline")
    return doc


@cli.command(name="ci")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--baseline", required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="A JSON result of `scan` or `simulate` (-f json -o FILE).")
@click.option("--fail-on", "fail_on", multiple=True, metavar="CHECK",
              help="[TOOL:]METRIC:+LIMIT[%], repeatable: tokens.total:+5%, '*:tokens.p95:+10%', "
                   "Grep:tokens.mean:+500, calls:+20%, later_used:+0. Default: tokens.total:+5% and "
                   "*:tokens.p95:+10% (simulate: tokens.total:+5% and later_used:+0).")
@click.option("--update-baseline", is_flag=True, help="Write the new measurement to the baseline file, on purpose.")
@click.option("--from", "source_format", metavar="KEY", help="Force one input format.")
@click.option("--tokenizer", type=click.Choice(TOKENIZERS), help="Default: the baseline's. Another one is not comparable.")
@click.option("--engine", type=click.Choice(ENGINES), help="Default: the baseline's.")
@click.option("--calibration", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="With a `--tokenizer claude` baseline: the calibration file it was measured with.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on the first malformed line.")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, no notes on stderr.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes; 0 = all cores.")
@click.option("-f", "--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "markdown", "json", "junit"]),
              help="markdown: a PR comment; junit: one test case per check.")
@click.option("-o", "--output", default="-", metavar="PATH|-", help="Write the report here; `-` is stdout.")
@click.pass_context
def ci(ctx, paths, baseline, fail_on, update_baseline, source_format, tokenizer, engine, calibration, strict, debug,
       quiet, jobs, fmt, output):
    """Fail the build when tool outputs grew against a baseline.

    Measures PATH... again the way the baseline was measured (the same tokenizer,
    and for a `simulate` baseline the same policies) and applies the checks.
    Exit 0: every check passed; 3: a check failed; 1: the comparison is not
    meaningful (tokenizer, schema version or policy differ). New and vanished
    tools are reported. With $GITHUB_STEP_SUMMARY set, the Markdown report is
    appended there too. Checks also come from `fail_on = [...]` in
    [tool.toolaudit.ci] of pyproject.toml.

    \b
    Examples:
      toolaudit scan evals/transcripts -f json -o toolaudit-baseline.json
      toolaudit ci evals/transcripts --baseline toolaudit-baseline.json -f markdown
      toolaudit ci evals/transcripts --baseline toolaudit-baseline.json --update-baseline
    """
    from ..audit.gate import DEFAULT_CHECKS, Check, gate

    base = _read_baseline(baseline, update_baseline)
    meta = base.get("meta", {})
    command = meta.get("command", "scan")
    checks = [Check.parse(text) for text in (fail_on or DEFAULT_CHECKS[command])]
    current = _measure(paths, base, source_format, tokenizer or meta.get("tokenizer") or "o200k_base",
                       engine or meta.get("engine") or "toktok", calibration, strict, debug, quiet, jobs)
    if update_baseline:
        atomic_write(baseline, json.dumps(current, indent=2, ensure_ascii=False) + "\n")
        totals = current.get("totals", {})
        click.echo(f"baseline updated on purpose: {baseline} ({len(current.get('tools', []))} tools, "
                   f"{totals.get('tokens', totals.get('tokens_after', 0)):,} tokens)", err=True)
        return
    result = gate(str(baseline), base, current, checks)
    render_report(result, fmt, output)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write(reporters.get("markdown")().render(result))
    if result.not_comparable is not None:
        ctx.exit(EXIT_ERROR)
    if not result.passed:
        ctx.exit(EXIT_GATE)
