"""`toolaudit simulate`: run recorded outputs through cap policies; savings beside risk."""

from __future__ import annotations

from pathlib import Path

import click

from ..reports import render_report
from . import INPUT_PATHS, cli, hooks_for, input_options, output_options
from .scan import families, family_table, layout_of, table_options


def _rules_table(policy_file: Path | None) -> tuple[dict | None, str]:
    """The policy table of --policy-file, else of `[tool.toolaudit.simulate.policies]`."""
    from ..simulate.job import policy_table

    config = click.get_current_context().find_root().obj or {}
    return policy_table(policy_file, config.get("config"), config.get("config_path"))


@cli.command()
@click.argument("paths", nargs=-1, type=INPUT_PATHS)
@click.option("--preview-chars", type=click.IntRange(min=0), metavar="N",
              help="Search outputs: cut each match's content to N chars + '...' (0 keeps path:line only).")
@click.option("--include-content", is_flag=True, default=None,
              help="Search outputs: keep match content whole (the preview's off switch).")
@click.option("--max-chars", type=click.IntRange(min=0), metavar="N", help="Cap each output at N chars, head + tail.")
@click.option("--max-bytes", type=click.IntRange(min=0), metavar="N",
              help="Cap at N UTF-8 bytes: the whole response with --max-matches, else head + tail.")
@click.option("--head-ratio", type=click.FloatRange(0, 1), metavar="R",
              help="Share of a head/tail cap kept from the head (default 0.4: 40% head, 60% tail).")
@click.option("--max-lines", type=click.IntRange(min=0), metavar="N", help="Cap at N lines, head + tail.")
@click.option("--tail-lines", type=click.IntRange(min=0), metavar="N", help="Keep only the last N lines.")
@click.option("--head-lines", type=click.IntRange(min=0), metavar="N", help="Keep only the first N lines.")
@click.option("--max-matches", type=click.IntRange(min=0), metavar="N",
              help="Search outputs: at most N results, with a notice to narrow the search.")
@click.option("--no-body", is_flag=True, default=None, help="JSON outputs: drop the body fields (--body-fields).")
@click.option("--body-chars", type=click.IntRange(min=0), metavar="N", help="JSON outputs: cut body fields to N chars.")
@click.option("--body-fields", metavar="A,B", help="JSON field names that are bodies (default body,content,description,result).")
@click.option("--tool", "tools", multiple=True, metavar="GLOB|@FAMILY",
              help="Apply the flags only to tools matching GLOB or of a family (repeatable; e.g. Grep, 'mcp__*', "
                   "@shell, @read, @search, @edit/write, @web, @task/subagent, @mcp:SERVER, @other).")
@click.option("--preset", metavar="NAME[@VERSION]",
              help="An agent's real caps, as the version each session recorded had them (claude-code@2.1.38 pins "
                   "one; see `toolaudit list policies`); flags win over it.")
@click.option("--policy-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="FILE",
              help="TOML: a table per tool glob, plus [default]. Default: [tool.toolaudit.simulate.policies].")
@click.option("--sweep", metavar="PARAM=VALUES",
              help="One row per value: max_chars=2000,5000,10000 or preview_chars=0:500:50.")
@click.option("--context", "context", metavar="POLICY",
              help="When outputs leave the context, priced with the prompt cache: mask:keep=N (outputs older than "
                   "the last N turns become a placeholder), clear:trigger=T,keep=K[,clear_at_least=C][,exclude=GLOB]"
                   "[,inputs=true] (Anthropic's context editing), compact:at=T[,summary=S][,files=N][,extra=E], an "
                   "agent's default (claude-code[@VERSION], codex, gemini-cli, anthropic-clear, anthropic-compact), "
                   "or none (the cache "
                   "model's fit alone). Combines with the size flags; --sweep mask.keep=1:20 sweeps it.")
@click.option("--per-request", is_flag=True,
              help="With --context: each request's counterfactual context in the JSON (context.per_request[]).")
@click.option("--model", metavar="NAME", help="Price requests whose transcript names no model as NAME (--context).")
@click.option("--explain", type=click.IntRange(min=0), default=0, metavar="N",
              help="Show N affected calls: sizes, what was hidden (redacted), where it was used later.")
@input_options
@output_options
@table_options("calls, affected, before, after, saved, saved%, bar, weighted, agent-cut, errors_cut, json_broken, "
               "later_used")
@click.pass_context
def simulate(ctx, paths, preview_chars, include_content, max_chars, max_bytes, head_ratio, max_lines, tail_lines,
             head_lines, max_matches, no_body, body_chars, body_fields, tools, preset, policy_file, sweep,
             context, per_request, model, explain, read, quiet, fmt, output, wide, columns):
    """What would caps on tool outputs have saved, and what would they have hidden?

    Runs every recorded output under PATH... through the policies you give (flags,
    a --preset of a real agent's caps, or a policy file) and reports per tool:
    calls, affected calls, tokens before/after/saved, chars and bytes, the
    context-weighted saving (tokens saved × the requests that would have re-sent
    them), and the risk: errors_cut (a failure signal lost), json_broken, and
    later_used (the cut hid a path, file:line, identifier or number that the agent
    used later in the session). Outputs the agent had already cut are left as
    they were and reported apart. With --context, it also says how long outputs
    stay: input and dollars before → after under the prompt cache, the cache
    invalidations a policy causes, and the outputs it removed that the agent
    used later (fetched again, so the saving is net).

    \b
    Examples:
      toolaudit simulate ~/.claude/projects --preview-chars 100 --tool Grep
      toolaudit simulate runs/ --preset codex
      toolaudit simulate runs/ --sweep max_chars=2000,5000,10000,20000 -f csv
      toolaudit simulate ~/.claude/projects --context mask:keep=10
      toolaudit simulate ~/.claude/projects --context clear:trigger=100000,keep=3 --sweep clear.keep=1:10
    """
    from ..simulate.job import Caps, SimulateOptions, simulate as run_simulate
    from ..reports.sim_data import SIM_COLUMNS

    layout = layout_of(fmt, wide, columns, SIM_COLUMNS)
    caps = Caps(preview_chars, include_content, max_chars, max_bytes, head_ratio, max_lines, tail_lines, head_lines,
                max_matches, no_body, body_chars, body_fields)
    rules, where = _rules_table(policy_file)
    selects_family = any(t.startswith("@") for t in tools) or any(g.startswith("@") for g in rules or {})
    if selects_family:
        families(ctx)  # a malformed [tool.toolaudit.families] fails before the scan
    options = SimulateOptions(read, caps, tuple(tools), preset, rules, where,
                              family_table(ctx) if selects_family else None, sweep, explain, context, per_request, model)
    result = run_simulate(paths, options, hooks=hooks_for(quiet))
    render_report(result, fmt, output, **layout)
