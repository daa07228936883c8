"""`toolaudit calibrate`: fit Claude tokens per o200k token from Claude Code transcripts."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..files import atomic_write
from ..tokenizers import default_factor
from . import cli, hooks_for


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def _table(cal) -> list[str]:
    """Plain lines: one row per model (subagents apart), then the pooled fit and the skips."""
    rows = [(f.key, str(f.n), f"{f.f:.3f}", f"{f.p25:.3f}–{f.p75:.3f}", _pct(f.mape), _pct(f.mape_o200k),
             f"{default_factor(f.key.split(' ')[0]):g}") for f in cal.fits]
    p = cal.pooled
    rows.append(("all (used by --tokenizer claude)", str(p.n), f"{p.f:.3f}", f"{p.p25:.3f}–{p.p75:.3f}",
                 _pct(p.mape), _pct(p.mape_o200k), ""))
    head = ("model", "turns", "f", "p25–p75", "MAPE", "MAPE o200k", "default")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in (head, *rows)]
    skipped = ", ".join(f"{reason} {n}" for reason, n in cal.skipped.items())
    lines += [
        "f = Claude tokens / o200k tokens of the tool results added between two requests "
        "(median over turns; MAPE: each turn predicted by the others' median).",
        f"files: {cal.files} · turns: {p.n}" + (f" · passed over: {skipped}" if skipped else ""),
    ]
    if p.n < 30:
        lines.append(f"note: only {p.n} turns; more transcripts give a steadier fit.")
    return lines


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write the fit as JSON, for `scan --tokenizer claude --calibration FILE`.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="table: one row per model; json: the calibration file's document.")
@click.option("-q", "--quiet", is_flag=True, help="No notes on stderr.")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
def calibrate(paths, save, fmt, quiet, debug):
    """Fit Claude tokens per o200k token from the usage in Claude Code transcripts.

    Claude's tokenizer is not public, but each request's usage is: between two
    requests the context grows by the first one's output plus the tool results
    added. Over turns that added only tool results (at least 500 o200k tokens; no
    user text, thinking, image, compaction or model switch between), the factor
    f = Claude tokens / o200k tokens is fitted per model, subagents apart, with
    its p25–p75 and the error of predicting each turn from the others (MAPE).

    \b
    Examples:
      toolaudit calibrate ~/.claude/projects
      toolaudit calibrate ~/.claude/projects --save claude-fit.json
      toolaudit scan ~/.claude/projects --tokenizer claude --calibration claude-fit.json
    """
    from ..calibrate.job import calibrate as run_calibrate

    cal = run_calibrate(paths, hooks=hooks_for(quiet))
    doc = cal.to_dict()
    if save is not None:
        atomic_write(save, json.dumps(doc, indent=2) + "\n")
        if not quiet:
            click.echo(f"saved {save}", err=True)
    click.echo(json.dumps(doc, indent=2) if fmt == "json" else "\n".join(_table(cal)))
