"""`toolaudit scan`: count every tool's output in transcripts."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import click

from ..collectors import collectors
from ..reports import render_report
from ..tokenizers import get_tokenizer
from . import BY_CHOICES, cli, gather, input_options, meta_for, output_options

class IsoDate(click.ParamType):
    """A date or an ISO-8601 time as transcripts write them (`2026-03-01`, `…T10:00:00.000Z`); UTC unless given."""

    name = "date"

    def convert(self, value, param, ctx):
        if isinstance(value, datetime):
            return value
        try:
            when = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            self.fail(f"{value!r} is not a date (YYYY-MM-DD) or an ISO-8601 time", param, ctx)
        return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@input_options
@output_options
@click.option("--by", type=click.Choice(BY_CHOICES), default="tool", show_default=True,
              help="Group rows by tool, session, file, collector, agent (subagents) or model.")
@click.option("--top", type=click.IntRange(min=0), default=0, metavar="N",
              help="Also list the N largest calls (tool, session, file:line, tokens, redacted args), and the N largest "
                   "tool definitions where request logs record them.")
@click.option("--show-content", is_flag=True,
              help="With --top: show a redacted preview of each call's output. Off by default: outputs hold secrets.")
@click.option("--records", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="PATH",
              help="Also write one row per call to PATH (.csv, or .parquet with the `parquet` extra).")
@click.option("--cost", is_flag=True,
              help="Dollars per tool, session and model from an offline price table (genai-prices).")
@click.option("--model", metavar="NAME", help="The model, for transcripts that do not name it (pricing).")
@click.option("--since", type=IsoDate(), metavar="DATE",
              help="Only calls and requests at or after DATE (YYYY-MM-DD or an ISO time; UTC unless given).")
@click.option("--until", type=IsoDate(), metavar="DATE", help="Only calls and requests before DATE.")
def scan(paths, source_format, tokenizer, calibration, engine, strict, debug, quiet, jobs, fmt, output, by, top,
         show_content, records, cost, model, since, until):
    """Count every tool's output in the transcripts under PATH... (files or folders).

    Without PATH, scans the agents' default folders that exist: ~/.claude/projects
    (and $CLAUDE_CONFIG_DIR/projects), $CODEX_HOME/sessions or ~/.codex/sessions,
    ~/.gemini/tmp. The table has one row per tool, largest first: calls, exact
    tokens, share of all tool-output tokens, mean/p50/p95/max per call, chars,
    UTF-8 bytes, error calls and calls the agent had already cut.

    \b
    Examples:
      toolaudit scan ~/.claude/projects
      toolaudit scan runs/ --by session -f json -o scan.json
      toolaudit scan session.jsonl --top 10
    """
    from ..audit.summary import Collected, summarize
    from ..pipeline import ScanOptions

    if source_format:
        collectors.get(source_format)
    tok = get_tokenizer(tokenizer, engine, calibration=calibration)  # fail fast, before any worker starts
    options = ScanOptions(tokenizer, engine, source_format, show_content, debug, calibration,
                          previews=bool(top) or records is not None)
    collected = gather(paths, options, Collected(since=since, until=until),
                       jobs=jobs, strict=strict, quiet=quiet)
    result = summarize(collected, meta_for(tokenizer, engine, paths, by, tok), by=by, top=top, cost=cost, model=model)
    if records is not None:
        from ..reports.records import write_records

        write_records(collected.all_rows(), records)
    render_report(result, fmt, output)


