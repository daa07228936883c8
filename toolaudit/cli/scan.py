"""`toolaudit scan`: count every tool's output in transcripts."""

from __future__ import annotations

import click

from ..reports import render_report
from . import BY_CHOICES, INPUT_PATHS, RECORDS_PATH, cli, hooks_for, input_options, output_options

SCAN_BY = BY_CHOICES + ("family", "day", "week", "month")


def family_table(ctx: click.Context) -> dict | None:
    """`[tool.toolaudit.families]` as written (None without one)."""
    return ((ctx.find_root().obj or {}).get("config") or {}).get("families")


def families(ctx: click.Context):
    """The tool families: the built-in table changed by `[tool.toolaudit.families]` (scan.families)."""
    from ..scan.families import families_from

    path = (ctx.find_root().obj or {}).get("config_path")
    return families_from(family_table(ctx), f"{path} [tool.toolaudit.families]")


def table_options(columns: str):
    """-w/--wide and --columns: which columns the terminal table shows (`columns`: the names, for the help)."""
    def decorate(func):
        func = click.option("--columns", metavar="A,B,C",
                            help=f"Table: show these columns after the first, in this order: {columns}.")(func)
        return click.option("-w", "--wide", is_flag=True,
                            help="Table: every column. On a terminal the table shows the columns that fit its "
                                 "width (numbers are never cut); piped or written to a file it is the full plain "
                                 "table, unchanged, for scripts.")(func)
    return decorate


def wide_option(func):
    """-w/--wide alone, for the commands whose tables have no named columns (compare, replay, ci)."""
    return click.option("-w", "--wide", is_flag=True,
                        help="Table: every column. On a terminal the tables show the columns that fit its width, "
                             "from the left, and name the ones they leave out (numbers are never cut); piped or "
                             "written to a file they are whole.")(func)


def layout_of(fmt: str, wide: bool, columns: str | None, choices: tuple[str, ...]) -> dict:
    """The table reporter's `layout` option (empty for other formats)."""
    if fmt != "table":
        return {}
    from ..reports.table_report import BAR, Layout

    return {"layout": Layout.parse(wide, columns, choices + (BAR,))}


@cli.command()
@click.argument("paths", nargs=-1, type=INPUT_PATHS)
@input_options
@output_options
@click.option("--by", type=click.Choice(SCAN_BY), default="tool", show_default=True,
              help="Group rows by tool, session, file, collector, agent (subagents), model, family (shell, read, "
                   "search, edit/write, web, task/subagent, mcp:SERVER, other; [tool.toolaudit.families] changes "
                   "it), or day, week (ISO, from Monday) or month in --tz.")
@click.option("--top", type=click.IntRange(min=0), default=0, metavar="N",
              help="Also list the N largest calls (tool, session, file:line, tokens, redacted args), and the N largest "
                   "tool definitions where request logs record them.")
@click.option("--show-content", is_flag=True,
              help="With --top: show a redacted preview of each call's output. Off by default: outputs hold secrets.")
@click.option("--records", type=RECORDS_PATH, default=None, metavar="PATH",
              help="Also write one row per call to PATH (.csv, or .parquet with the `parquet` extra), as files "
                   "are read; a folder or URL without a suffix (s3://bucket/out/) gets a Parquet dataset "
                   "(part-*.parquet).")
@click.option("--cost", is_flag=True,
              help="Dollars per tool, session and model from an offline price table (genai-prices).")
@click.option("--model", metavar="NAME", help="The model, for transcripts that do not name it (pricing).")
@click.option("--since", metavar="WHEN",
              help="Only calls and requests at or after WHEN: 7d, 24h, 2w (back from now), today, yesterday "
                   "(from local midnight), or an ISO date/time (in --tz unless it names its zone).")
@click.option("--until", metavar="WHEN", help="Only calls and requests before WHEN (as --since).")
@click.option("--tz", metavar="NAME", help="Time zone of dates, today/yesterday and --by day|week|month "
                                           "(IANA name, e.g. UTC, Europe/Paris; default: this machine's).")
@table_options("calls, tokens, share, bar, mean, p50, p95, max, chars, bytes, errors, agent-cut, cost")
@click.pass_context
def scan(ctx, paths, read, quiet, fmt, output, by, top, show_content, records, cost, model, since, until, tz, wide,
         columns):
    """Count every tool's output in the transcripts under PATH... (files or folders).

    Without PATH, scans the agents' default folders that exist: ~/.claude/projects
    (and $CLAUDE_CONFIG_DIR/projects), $CODEX_HOME/sessions or ~/.codex/sessions,
    ~/.gemini/tmp. The table has one row per tool, largest first: calls, exact
    tokens, share of all tool-output tokens, mean/p50/p95/max per call, chars,
    UTF-8 bytes, error calls and calls the agent had already cut. On a terminal
    it shows the columns that fit (tool, calls, tokens, share with a bar, p95,
    max; -w for all); piped, the full plain table.

    \b
    Examples:
      toolaudit scan ~/.claude/projects
      toolaudit scan runs/ --by session -f json -o scan.json
      toolaudit scan session.jsonl --top 10
      toolaudit scan --since 7d --by day --cost
      toolaudit scan runs/ --by family --columns calls,tokens,share,cost
    """
    from ..scan.job import ScanOptions, scan as run_scan
    from ..scan.periods import parse_when, zone
    from ..reports.scan_data import SCAN_COLUMNS

    layout = layout_of(fmt, wide, columns, SCAN_COLUMNS)
    where = zone(tz)
    # -f html prices without --cost: the page leads with the dollars
    options = ScanOptions(
        read, by=by, families=families(ctx) if by == "family" else ScanOptions.families, top=top,
        show_content=show_content, records=records, cost=cost or fmt == "html", model=model, tz=where,
        since=parse_when(since, where) if since else None, until=parse_when(until, where) if until else None)
    result = run_scan(paths, options, hooks=hooks_for(quiet))
    render_report(result, fmt, output, **layout)
