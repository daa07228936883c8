"""The command line: parse options, call one core entry point, render, map to an exit code."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

import click

from . import __version__
from .collectors import collectors, discover
from .config import default_map, find_pyproject
from .errors import EXIT_ERROR, EXIT_USAGE, ToolauditError, UsageError
from .model import ScanMeta
from .reports import render_report, reporters
from .tokenizers import DEFAULT_ENGINE, DEFAULT_TOKENIZER, ENGINES, TOKENIZERS, get_tokenizer

BY_CHOICES = ("tool", "session", "file", "collector", "agent", "model")


class Cli(click.Group):
    """A group that turns every error into one `error: …` line and an exit code."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = list(sys.argv[1:] if args is None else args)
        debug = "--debug" in argv
        try:
            code = super().main(argv, prog_name or "toolaudit", complete_var, standalone_mode=False, **extra)
            code = code if isinstance(code, int) else 0
        except click.UsageError as exc:
            click.echo(f"error: {exc.format_message()} (see `toolaudit {_command(argv)}--help`)", err=True)
            code = EXIT_USAGE
        except click.ClickException as exc:
            click.echo(f"error: {exc.format_message()}", err=True)
            code = exc.exit_code
        except click.Abort:
            code = EXIT_ERROR
        except ToolauditError as exc:
            if debug:
                raise
            click.echo(f"error: {exc.message}", err=True)
            code = exc.exit_code
        except Exception as exc:  # a bug: one line, the traceback only with --debug
            if debug:
                raise
            click.echo(f"error: {type(exc).__name__}: {exc} (run with --debug for the traceback)", err=True)
            code = EXIT_ERROR
        sys.exit(code)


def _command(argv: list[str]) -> str:
    first = next((a for a in argv if not a.startswith("-")), "")
    return f"{first} " if first in cli.commands else ""


@click.group(cls=Cli, context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "TOOLAUDIT"})
@click.version_option(__version__, prog_name="toolaudit")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Measure which tool outputs fill your agent's context, exactly and offline.

    toolaudit reads the transcripts agents already write (Claude Code, Codex,
    OpenAI/Anthropic message logs, its own JSONL) and counts every tool output in
    exact tokens. Settings come from [tool.toolaudit] in pyproject.toml,
    TOOLAUDIT_* variables and flags, in that order of strength.
    """
    ctx.default_map = default_map(cli, find_pyproject())


def output_options(func):
    """-f/--format and -o/--output, the same on every command."""
    func = click.option("-o", "--output", default="-", show_default=True, metavar="PATH|-",
                        help="Write the report here; `-` is stdout.")(func)
    func = click.option("-f", "--format", "fmt", default="table", show_default=True,
                        type=click.Choice(sorted(reporters.all())),
                        help="table: rich on a terminal, plain when piped; json: the versioned schema.")(func)
    return func


def input_options(func):
    """--from, --tokenizer, --engine, --strict, --debug, -q, -j: how inputs are read and counted."""
    func = click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True,
                        help="Worker processes; 0 = all cores, 1 = no workers.")(func)
    func = click.option("-q", "--quiet", is_flag=True, help="No progress bar, no notes on stderr.")(func)
    func = click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")(func)
    func = click.option("--strict", is_flag=True,
                        help="Fail (exit 1) on the first malformed line instead of skipping it.")(func)
    func = click.option("--engine", type=click.Choice(ENGINES), default=DEFAULT_ENGINE, show_default=True,
                        help="toktok (offline, exact) or tiktoken (the reference; needs its vocabulary cached).")(func)
    func = click.option("--tokenizer", type=click.Choice(TOKENIZERS), default=DEFAULT_TOKENIZER,
                        show_default=True, help="Encoding to count with; `approx` is chars/4, labelled estimated.")(func)
    func = click.option("--from", "source_format", metavar="KEY", default=None,
                        help="Force one input format (see `toolaudit list collectors`); default: detect.")(func)
    return func


def _resolve_paths(paths: tuple[Path, ...], quiet: bool) -> list[Path]:
    if paths:
        return list(paths)
    found = [p for p in discover.default_locations() if p.is_dir()]
    if not found:
        where = ", ".join(str(p) for p in discover.default_locations())
        raise ToolauditError(f"no PATH given and no agent transcripts in the default places ({where})",
                             slug="no-defaults")
    if not quiet:
        for place in found:
            click.echo(f"scanning {place}", err=True)
    return found


def _progress(total: int, quiet: bool):
    """A rich progress bar on stderr when it is a terminal; else a no-op callback."""
    if quiet or total < 2 or not sys.stderr.isatty():
        return None, lambda result: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(TextColumn("scanning"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=Console(stderr=True), transient=True)
    task = progress.add_task("scan", total=total)
    return progress, lambda result: progress.advance(task)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@input_options
@output_options
@click.option("--by", type=click.Choice(BY_CHOICES), default="tool", show_default=True,
              help="Group rows by tool, session, file, collector, agent (subagents) or model.")
@click.option("--top", type=click.IntRange(min=0), default=0, metavar="N",
              help="Also list the N largest calls (tool, session, file:line, tokens, redacted args).")
@click.option("--show-content", is_flag=True,
              help="With --top: show a redacted preview of each call's output. Off by default: outputs hold secrets.")
@click.option("--records", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="PATH",
              help="Also write one row per call to PATH (.csv, or .parquet with the `parquet` extra).")
def scan(paths, source_format, tokenizer, engine, strict, debug, quiet, jobs, fmt, output, by, top,
         show_content, records):
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
    from .audit.summary import summarize
    from .pipeline import ScanOptions, run_scan

    if source_format:
        collectors.get(source_format)
    get_tokenizer(tokenizer, engine)  # fail fast, before any worker starts
    files = list(discover.iter_files(_resolve_paths(paths, quiet)))
    options = ScanOptions(tokenizer, engine, source_format, show_content, debug)
    progress, advance = _progress(len(files), quiet)
    if progress is not None:
        with progress:
            collected = run_scan(files, options, jobs=jobs, strict=strict, on_file=advance)
    else:
        collected = run_scan(files, options, jobs=jobs, strict=strict)
    if not quiet:
        for line in collected.unrecognised:
            click.echo(f"note: {line} (see `toolaudit list collectors`)", err=True)
        for line in collected.errors:
            click.echo(f"warning: {line}", err=True)
    meta = ScanMeta(
        version=__version__, tokenizer=tokenizer, engine=engine if tokenizer != "approx" else "approx",
        estimated=tokenizer == "approx", created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        inputs=tuple(str(p) for p in (paths or ())), by=by,
    )
    result = summarize(collected, meta, by=by, top=top)
    if records is not None:
        from .reports.records import write_records

        write_records(collected.all_rows(), records)
    render_report(result, fmt, output)


@cli.group(name="list")
def list_() -> None:
    """List what toolaudit knows: input formats, report formats."""


@list_.command(name="collectors")
def list_collectors() -> None:
    """The input formats (use a KEY with --from), in detection order."""
    for key, cls in collectors.all().items():
        click.echo(f"{key:20} {cls.description}")


@list_.command(name="reports")
def list_reports() -> None:
    """The report formats (use a KEY with -f/--format)."""
    for key, cls in reporters.all().items():
        click.echo(f"{key:20} {cls.description}")


def main() -> None:
    """Console entry point."""
    cli.main()
