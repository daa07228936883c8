"""`toolaudit replay`: re-run recorded calls through a new tool and measure what it returns."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import EXIT_GATE, UsageError
from ..reports import render_report
from .scan import layout_of, wide_option
from . import cli, hooks_for, input_options, output_options

TRANSLATIONS = ("shell-search",)


def config_tools() -> list[str]:
    """`[tool.toolaudit.replay.tools]`: `"GLOB" = "KIND:SPEC"` pairs, as --tool texts."""
    config = click.get_current_context().find_root().obj or {}
    table = config.get("config", {}).get("replay", {}).get("tools") or {}
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise UsageError(f"{config.get('config_path')}: [tool.toolaudit.replay.tools] maps tool globs to "
                         "strings such as \"builtin:grep\"", slug="config")
    return [f"{glob}={impl}" for glob, impl in table.items()]


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
@click.option("--identity", is_flag=True,
              help="Re-run every recorded read-only call of a known agent tool through its own emulation "
                   "(agent:AGENT/TOOL) with the recorded arguments, and report fidelity per tool.")
@click.option("--before", "before", type=click.Choice(["identity", "recorded"]), default="identity", show_default=True,
              help="What a variant is measured against: the agent's own tool re-run now in the same state (where "
                   "an emulation exists), or the recording.")
@click.option("--keep-drifted", is_flag=True,
              help="Count calls whose identity replay differs from the recording in the sizes and the saving.")
@click.option("--min-identity", type=click.FloatRange(0, 100), metavar="PCT",
              help="Exit 3 when fewer than PCT%% of the replayed emulated calls come within ±1%% tokens of the "
                   "recording (a check that the replay set-up is sound).")
@click.option("--commit", metavar="REV", help="Start every session's state at REV (default: the recorded commit).")
@click.option("--at-session-start", is_flag=True,
              help="Start each session's state at the last commit written before its first timestamp, on the "
                   "first-parent history of --commit REV, else of the branch the session recorded (when the "
                   "workspace has it), else of HEAD.")
@click.option("--no-checkout", is_flag=True, help="Start from the workspace as it is (copied when edits apply).")
@click.option("--diff", "diff", type=click.IntRange(min=0), default=0, metavar="N",
              help="Show the N largest changes: call id, session, line, tokens recorded / identity / variant, "
                   "and a unified diff of the redacted texts.")
@click.option("--calls-out", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write every call, with its new output, as toolaudit-jsonl (scan/simulate/ci read it).")
@input_options
@output_options
@wide_option
def replay(paths, workspace, tools, translate, tool_names, path_maps, timeout, max_output_bytes, env, explain,
           identity, before, keep_drifted, min_identity, commit, at_session_start, no_checkout, diff, calls_out, read,
           quiet, fmt, output, wide):
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
    from ..replay.job import replay as run_replay, replay_options

    spec = {"workspace": str(workspace), "tools": list(tools) or ([] if identity else config_tools()), "translate": list(translate),
            "tool_names": list(tool_names), "path_map": list(path_maps), "timeout": timeout,
            "max_output_bytes": max_output_bytes, "env": list(env), "identity": identity, "before": before,
            "keep_drifted": keep_drifted, "commit": commit, "at_session_start": at_session_start,
            "no_checkout": no_checkout, "diff": diff}
    options = replay_options(spec, read=read, explain=explain, calls_out=calls_out)
    result = run_replay(paths, options, hooks=hooks_for(quiet))
    render_report(result, fmt, output, **layout_of(fmt, wide, None, ()))
    rate = result.identity.totals.rate if result.identity is not None else None
    if min_identity is not None and (rate is None or rate * 100 < min_identity):
        shown = "no emulated call was replayed" if rate is None else f"identity {rate:.1%}"
        click.echo(f"replay: {shown}, below --min-identity {min_identity:g}%", err=True)
        click.get_current_context().exit(EXIT_GATE)


# replay runs its calls one at a time (servers and worktrees are shared): no -j
replay.params = [p for p in replay.params if p.name not in ("jobs", "scheduler")]  # replay reads in one process
