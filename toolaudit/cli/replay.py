"""`toolaudit replay`: re-run recorded calls through a new tool and measure what it returns."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import click

from ..errors import UsageError
from ..reports import render_report
from ..tokenizers import get_tokenizer
from . import cli, input_options, meta_for, output_options, progress_for, report_notes

TRANSLATIONS = ("shell-search",)


def _config_tools() -> list[str]:
    """`[tool.toolaudit.replay.tools]`: `"GLOB" = "KIND:SPEC"` pairs, as --tool texts."""
    config = click.get_current_context().find_root().obj or {}
    table = config.get("config", {}).get("replay", {}).get("tools") or {}
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise UsageError(f"{config.get('config_path')}: [tool.toolaudit.replay.tools] maps tool globs to "
                         "strings such as \"builtin:grep\"", slug="config")
    return [f"{glob}={impl}" for glob, impl in table.items()]


def build_options(workspace, tools, translate, tool_names, path_maps, timeout, max_output_bytes, env, explain=0):
    """The ReplayOptions of the command's flags (shared with `ci`'s replay baseline)."""
    from ..replay.base import ReplayOptions, Sandbox
    from ..replay.runner import parse_mapping, parse_pair

    mappings = tuple(parse_mapping(text) for text in tools)
    if not mappings:
        raise UsageError("nothing to replay: give at least one --tool GLOB=IMPL (e.g. --tool 'Grep=builtin:grep'), "
                         "or [tool.toolaudit.replay.tools] in pyproject.toml; replay never re-runs anything "
                         "by default", slug="no-mapping")
    root = Path(workspace).resolve()
    if not root.is_dir():
        raise UsageError(f"--workspace {workspace}: not a folder", slug="workspace")
    sandbox = Sandbox(root, timeout=timeout, max_output_bytes=max_output_bytes, env=tuple(env))
    return ReplayOptions(
        mappings=mappings, sandbox=sandbox, translate=tuple(translate),
        tool_names=tuple(parse_pair(t, "--tool-name") for t in tool_names),
        path_map=tuple(parse_pair(p, "--path-map") for p in path_maps), explain=explain,
    )


def spec_of(options, workspace) -> dict:
    """What `ci` needs to run the same replay again: mappings, translation, renames, limits."""
    return {
        "workspace": str(workspace), "tools": [m.text for m in options.mappings], "translate": list(options.translate),
        "tool_names": [f"{a}={b}" for a, b in options.tool_names],
        "path_map": [f"{a}={b}" for a, b in options.path_map], "timeout": options.sandbox.timeout,
        "max_output_bytes": options.sandbox.max_output_bytes, "env": list(options.sandbox.env),
    }


def run_replay(paths, options, spec, *, tokenizer, engine, calibration, source_format, strict, quiet,
               calls_out=None):
    """Replay PATHS under `options` and return the ReplayResult (the core entry point of replay and ci)."""
    from ..replay.summary import ReplayCollected, menu_of, result
    from ..replay.calls_out import CallsWriter
    from ..replay.runner import Runner, replay_files
    from . import input_files

    tok = get_tokenizer(tokenizer, engine, calibration=calibration)
    files, problems = input_files(paths, strict, quiet)  # as gather's: an unreadable folder fails --strict
    sink = ReplayCollected(tok, explain=options.explain)
    writer = CallsWriter(calls_out) if calls_out is not None else None
    progress, advance = progress_for(len(files), quiet)  # without a bar, advance does nothing
    try:
        with Runner(options) as runner:
            with progress or nullcontext():
                replay_files(files, runner, sink, forced=source_format, strict=strict, on_file=advance,
                             calls_out=writer)
            renames = dict(options.tool_names)
            menus = []
            for mapping, impl in runner.started().items():
                defs = impl.menu()
                if defs is not None:
                    menus.append(menu_of(mapping.text, defs, tok.count, sink.requests, sink.recorded_menus, renames))
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    if writer is not None:
        writer.commit()
    sink.errors.extend(problems)
    report_notes(sink.unrecognised, sink.errors, quiet)
    meta = meta_for(tokenizer, engine, paths, tok=tok)
    return result(sink, meta, tuple(menus), spec)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--workspace", type=click.Path(exists=True, file_okay=False, path_type=Path), default=".",
              show_default=True, help="The repository the sessions worked in: builtins never leave it, "
                                      "python/mcp/cmd run in it.")
@click.option("--tool", "tools", multiple=True, metavar="GLOB=IMPL",
              help="Send the recorded calls of tools matching GLOB to IMPL (repeatable; first match wins). "
                   "IMPL: builtin:NAME[?k=v&...], python:MODULE:FUNCTION, mcp:COMMAND ARGS..., cmd:ARGV...")
@click.option("--translate", type=click.Choice(TRANSLATIONS), multiple=True,
              help="shell-search: plain searches run in a shell (grep -rn, rg, find -name, ls -R) become "
                   "grep/glob calls; anything else keeps its recorded output, counted as not translated.")
@click.option("--tool-name", "tool_names", multiple=True, metavar="OLD=NEW",
              help="The server renamed a tool: recorded OLD calls go to NEW (mcp).")
@click.option("--path-map", "path_maps", multiple=True, metavar="FROM=TO",
              help="Map recorded absolute paths under FROM to TO (besides the session's recorded cwd).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True, metavar="SECONDS",
              help="Per call, for python/mcp/cmd/builtins: a call past it is a failed call; the run goes on.")
@click.option("--max-output-bytes", type=click.IntRange(min=1), default=10_000_000, show_default=True, metavar="N",
              help="Read at most N bytes of one call's output, so a runaway call cannot exhaust memory.")
@click.option("--env", "env", multiple=True, metavar="NAME",
              help="Pass this environment variable through to python/mcp/cmd (the rest is scrubbed).")
@click.option("--explain", type=click.IntRange(min=0), default=0, metavar="N",
              help="Show N replayed calls: sizes before/after and redacted previews of both outputs.")
@click.option("--calls-out", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write every call, with its new output, as toolaudit-jsonl (scan/simulate/ci read it).")
@input_options
@output_options
def replay(paths, workspace, tools, translate, tool_names, path_maps, timeout, max_output_bytes, env, explain,
           calls_out, source_format, tokenizer, calibration, engine, strict, debug, quiet, fmt, output):
    """Re-run the calls agents really made through a new tool, and measure it before it ships.

    Reads the recorded calls under PATH... (any transcript scan reads, or a calls
    file: toolaudit-jsonl lines with `tool` and `args` and no `output`), sends the
    calls of each mapped tool to the new implementation, and reports per tool:
    calls replayed / kept / not translated / refused / failed, tokens and UTF-8
    bytes before (recorded) → after (replayed), the median per call, errors
    recorded vs replayed, the context-weighted saving, and for MCP servers the
    menu (tool definitions' tokens × the requests that carry them). No model is
    involved; nothing recorded ever reaches a shell.

    \b
    IMPL, for --tool GLOB=IMPL (or [tool.toolaudit.replay.tools] in pyproject.toml):
      builtin:grep?max_matches=100&max_bytes=10000   ripgrep, capped, "narrow your search"
      builtin:glob | builtin:search_files?preview_chars=100 | builtin:read_file?max_chars=5000
      builtin:list_dir
      python:mypkg.tools:grep      your function(args: dict, workspace: Path) -> str | parts
      mcp:python server.py         an MCP server over stdio (tools/call, tools/list)
      cmd:./my-tool --json         any program: arguments as JSON on stdin, stdout back

    \b
    Examples:
      toolaudit replay session.jsonl --workspace ~/src/app --translate shell-search \\
          --tool 'grep=builtin:grep?max_matches=100&max_bytes=10000' --tool 'glob=builtin:glob'
      toolaudit replay ~/.claude/projects/app --workspace . \\
          --tool 'mcp__kanban__*=mcp:python kanban_server.py' -f json -o replay-baseline.json
      toolaudit ci ~/.claude/projects/app --baseline replay-baseline.json
    """
    from ..collectors import collectors

    if source_format:
        collectors.get(source_format)
    options = build_options(workspace, tuple(tools) or tuple(_config_tools()), translate, tool_names, path_maps,
                            timeout, max_output_bytes, env, explain)
    spec = spec_of(options, workspace)
    result = run_replay(paths, options, spec, tokenizer=tokenizer, engine=engine, calibration=calibration,
                        source_format=source_format, strict=strict, quiet=quiet, calls_out=calls_out)
    render_report(result, fmt, output)


# replay runs its calls one at a time (servers and worktrees are shared): no -j
replay.params = [p for p in replay.params if p.name not in ("jobs", "scheduler")]  # replay reads in one process
