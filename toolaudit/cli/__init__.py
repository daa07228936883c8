"""The command line: parse options, call one core entry point, render, map to an exit code.

One module per command; this one holds the group, the error handling and the option
decorators every command shares.
"""

from __future__ import annotations

import functools
import os
from importlib import import_module
import signal
import sys
from pathlib import Path

import click

from .. import __version__
from ..collectors import discover
from ..storage import is_url, local_or_remote
from ..config import default_map, find_pyproject, toolaudit_table
from ..files import refuse_writing_onto
from ..errors import EXIT_ERROR, EXIT_USAGE, ToolauditError
from ..options import Hooks, InputOptions
from ..reports import reporters
from ..tokenizers import DEFAULT_ENGINE, DEFAULT_TOKENIZER, ENGINES, TOKENIZERS

BY_CHOICES = ("tool", "session", "file", "collector", "agent", "model")
WRITTEN = ("output", "records", "save", "calls_out")  # options naming a file the command writes


class PathOrURL(click.Path):
    """A local path, checked as click.Path checks it, or an object-storage URL (`s3://…`, `gs://…`,
    `az://…`) kept as a RemotePath and checked when it is listed; `file://` URLs are local paths."""

    def convert(self, value, param, ctx):
        if isinstance(value, str):  # a quoted `~/…` or `$HOME/…` reaches us unexpanded
            target = local_or_remote(value)
            if not isinstance(target, Path):
                return target
            value = str(target)
        return super().convert(value, param, ctx)


# the PATH... argument of the commands that read transcripts
INPUT_PATHS = PathOrURL(exists=True, path_type=Path)
# scan --records: a file, or a folder (local or URL) for a Parquet dataset
RECORDS_PATH = PathOrURL(path_type=Path)


def refuse_overwriting_inputs(ctx: click.Context) -> None:
    """A UsageError when a file the command writes is one of its inputs, or a transcript an input folder holds.

    Checked before anything is read: a report written over a transcript destroys it, and one
    written into an input folder under a transcript's name would be read back as one.
    """
    inputs = []
    for param in ctx.command.params:
        if isinstance(param, click.Argument):
            value = ctx.params.get(param.name)
            inputs += [v for v in (value if isinstance(value, tuple) else (value,)) if isinstance(v, Path)]
    if "paths" in ctx.params and not inputs:  # no PATH: the agents' default folders are the inputs
        inputs = [p for p in discover.default_locations() if p.is_dir()]
    writes = []
    for param in ctx.command.params:
        value = ctx.params.get(param.name) if param.name in WRITTEN else None
        if value in (None, "", "-") or is_url(value):  # object storage: no local file to collide with
            continue
        writes.append((param.opts[-1], Path(value)))
    protected = []
    baseline = ctx.params.get("baseline")  # ci: the baseline is data it reads; only --update-baseline writes it
    if isinstance(baseline, Path):
        protected.append(("baseline", baseline))
        if ctx.params.get("update_baseline"):
            refuse_writing_onto([("--update-baseline", baseline)], inputs, transcript_suffixes=discover.SUFFIXES)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            writes.append(("GITHUB_STEP_SUMMARY", Path(summary)))
    refuse_writing_onto(writes, inputs, protected, discover.SUFFIXES)


class Command(click.Command):
    """A command that checks, before it reads anything, that it will not write over its inputs."""

    def invoke(self, ctx: click.Context):
        refuse_overwriting_inputs(ctx)
        return super().invoke(ctx)


# command name -> the module that defines it: imported when the command runs (or help lists them all),
# so `toolaudit statusline`, run after every message, does not import every other command
COMMANDS = {"scan": "scan", "simulate": "simulate", "replay": "replay", "compare": "compare", "ci": "ci",
            "calibrate": "calibrate", "list": "listing", "cache": "cache", "statusline": "statusline",
            "watch": "watch", "mcp": "mcp", "advise": "advise"}


class Cli(click.Group):
    """A group that turns every error into one `error: …` line and an exit code."""

    command_class = Command  # every `@cli.command()` refuses to write over its inputs

    def get_command(self, ctx, name):
        if name not in self.commands and name in COMMANDS:
            import_module(f"{__name__}.{COMMANDS[name]}")
        return super().get_command(ctx, name)

    def list_commands(self, ctx):
        self.load_all()
        return super().list_commands(ctx)

    def load_all(self) -> None:
        """Import every command's module (help, and checking [tool.toolaudit] against every option)."""
        for module in COMMANDS.values():
            import_module(f"{__name__}.{module}")

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = list(sys.argv[1:] if args is None else args)
        debug = "--debug" in argv
        previous = _on_termination()
        try:
            code = super().main(argv, prog_name or "toolaudit", complete_var, standalone_mode=False, **extra)
            code = code if isinstance(code, int) else 0
        except click.UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError" and exc.ctx is not None:
                click.echo(exc.ctx.get_help())  # `toolaudit` or `toolaudit list` alone: the help, not an error
                code = 0
            else:
                click.echo(f"error: {exc.format_message()} (see `toolaudit {_command(argv)}--help`)", err=True)
                code = EXIT_USAGE
        except click.ClickException as exc:
            click.echo(f"error: {exc.format_message()}", err=True)
            code = exc.exit_code
        except click.Abort as exc:  # click's answer to Ctrl-C (and to our SIGTERM/SIGHUP): every cleanup has run
            signum = getattr(exc.__cause__, "signum", signal.SIGINT) if exc.__cause__ is not None else None
            if signum is None:
                code = EXIT_ERROR
            else:
                click.echo(f"error: interrupted ({signal.Signals(signum).name})", err=True)
                code = 128 + signum
        except Interrupted as exc:  # outside click's own handling
            click.echo(f"error: interrupted ({signal.Signals(exc.signum).name})", err=True)
            code = 128 + exc.signum
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
        finally:
            _restore(previous)
        sys.exit(code)


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is so that every `finally` runs: temporary worktrees and
    folders removed, running tools ended, half-written files deleted, as after Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _on_termination() -> dict:
    """Turn SIGTERM and SIGHUP into Interrupted for the command's run (main thread only); the old handlers."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[signum] = signal.signal(signum, _interrupt)
        except (ValueError, OSError):
            continue
    return previous


def _interrupt(signum, _frame):
    raise Interrupted(signum)


def _restore(previous: dict) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def _command(argv: list[str]) -> str:
    first = next((a for a in argv if not a.startswith("-")), "")
    return f"{first} " if first in cli.commands or first in COMMANDS else ""


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
    path = find_pyproject()
    table = toolaudit_table(path)
    if table:  # every command's options are checked against the table
        cli.load_all()
    ctx.default_map = default_map(cli, path, table)
    ctx.obj = {"config_path": path, "config": table}  # read once; simulate takes its policies from it


def output_options(func):
    """-f/--format and -o/--output, the same on every command."""
    func = click.option("-o", "--output", default="-", show_default=True, metavar="PATH|-",
                        help="Write the report here; `-` is stdout.")(func)
    func = click.option("-f", "--format", "fmt", default="table", show_default=True,
                        type=click.Choice(sorted(k for k in reporters.keys() if k != "junit")),  # junit: ci only
                        help="table: rich on a terminal, plain when piped; json: the versioned schema.")(func)
    return func


def scheduler_option(func):
    """--scheduler ADDRESS (TOOLAUDIT_SCHEDULER, `scheduler` in [tool.toolaudit]): the per-file work on a Dask
    cluster; the command hands it to gather."""
    return click.option("--scheduler", metavar="ADDRESS", envvar="TOOLAUDIT_SCHEDULER", default=None,
                        help="Run the per-file work on this dask.distributed scheduler (tcp://HOST:8786) instead "
                             "of local worker processes; needs the `dask` extra. See docs/distributed.md.")(func)


def input_options(func):
    """--from, --tokenizer, --calibration, --engine, --strict, --debug, -q, -j, --scheduler, --no-cache: how inputs are read
    and counted. The command receives them as one InputOptions, `read`, and `quiet` beside it."""
    body = func

    @functools.wraps(body)
    def command(*args, source_format, tokenizer, calibration, engine, strict, debug, jobs=0, scheduler=None,
                no_cache=False, **kwargs):
        read = InputOptions(source_format, tokenizer, engine, calibration, strict, debug, jobs, scheduler,
                            cache=not no_cache)
        return body(*args, read=read, **kwargs)

    func = scheduler_option(command)
    func = click.option("--no-cache", is_flag=True,
                        help="Read every file again instead of reusing the scan cache's numbers for files that "
                             "did not change (see `toolaudit cache info`).")(func)
    func = click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True,
                        help="Worker processes; 0 = all cores, 1 = no workers.")(func)
    func = click.option("-q", "--quiet", is_flag=True, help="No progress bar, no notes on stderr.")(func)
    func = click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")(func)
    func = click.option("--strict", is_flag=True,
                        help="Fail (exit 1) on the first malformed line, or an unreadable or unrecognised file, "
                             "instead of skipping it.")(func)
    func = click.option("--engine", type=click.Choice(ENGINES), default=DEFAULT_ENGINE, show_default=True,
                        help="toktok (offline, exact) or tiktoken (the reference; needs its vocabulary cached).")(func)
    func = click.option("--calibration", type=click.Path(exists=True, dir_okay=False), default=None,
                        metavar="FILE", help="With --tokenizer claude: the factor from `toolaudit calibrate "
                        "--save FILE` (default: 1.25, labelled as a default).")(func)
    func = click.option("--tokenizer", type=click.Choice(TOKENIZERS), default=DEFAULT_TOKENIZER,
                        show_default=True, help="Encoding to count with; `approx` is chars/4 and `claude` is "
                        "o200k × a fitted factor, both labelled estimated.")(func)
    func = click.option("--from", "source_format", metavar="KEY", default=None,
                        help="Force one input format (see `toolaudit list collectors`); default: detect.")(func)
    return func


def hooks_for(quiet: bool) -> Hooks:
    """What a command shows while its job runs: a progress bar and notes on stderr, unless `quiet`."""
    if quiet:
        return Hooks()
    return Hooks(progress=lambda total: progress_for(total, quiet), say=lambda line: click.echo(line, err=True),
                 notes=lambda unrecognised, errors, skipped, count: report_notes(unrecognised, errors, quiet,
                                                                                  skipped, count))


SKIPPED_TOLD = 5  # skipped lines named on stderr; `-f json` lists more


def report_notes(unrecognised, errors, quiet: bool, skipped=(), skipped_count: int = 0) -> None:
    """Files no collector knew, files that failed and lines skipped (`file:line: reason`): on stderr, one rule
    for every command (the report keeps the count)."""
    if quiet:
        return
    for line in unrecognised:
        click.echo(f"note: {line} (see `toolaudit list collectors`)", err=True)
    for line in errors:
        click.echo(f"warning: {line}", err=True)
    for skip in list(skipped)[:SKIPPED_TOLD]:
        click.echo(f"skipped {skip}", err=True)
    if skipped_count > min(len(skipped), SKIPPED_TOLD):
        click.echo(f"… {skipped_count - min(len(skipped), SKIPPED_TOLD)} more skipped lines (-f json lists the "
                   f"first {len(skipped)}; --strict makes the first an error)", err=True)


def progress_for(total: int, quiet: bool):
    """A rich progress bar on stderr when it is a terminal; else a no-op callback."""
    if quiet or total < 2 or not sys.stderr.isatty():
        return None, lambda result: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(TextColumn("scanning"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=Console(stderr=True), transient=True)
    task = progress.add_task("scan", total=total)
    return progress, lambda result: progress.advance(task)


def main() -> None:
    """Console entry point."""
    cli.main()


