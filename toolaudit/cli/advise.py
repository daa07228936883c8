"""`toolaudit advise`: the few changes worth making, ranked, each as the agent's own setting."""

from __future__ import annotations

import click

from ..reports import render_report
from . import INPUT_PATHS, cli, hooks_for, input_options, output_options
from .scan import layout_of, table_options


def _share(text: str) -> float:
    value = text.strip()
    try:
        number = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a share (1%, 0.01)") from None
    if not 0 <= number <= 1:
        raise click.BadParameter(f"{text!r} is not between 0% and 100%")
    return number


@cli.command()
@click.argument("paths", nargs=-1, type=INPUT_PATHS)
@click.option("--max-later-used", default="1%", show_default=True, metavar="SHARE",
              help="A cap may hide something used later (or a failure signal) in at most this share of a tool's calls.")
@click.option("--max-refetch", default="1%", show_default=True, metavar="SHARE",
              help="A context policy may remove outputs the agent used later for at most this share of all calls.")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True, metavar="N",
              help="Show at most N recommendations (MCP findings come after them).")
@click.option("--model", metavar="NAME", help="Price requests whose transcript names no model as NAME.")
@input_options
@output_options
@table_options("rank, tools, net, risk, policy, setting, kind")
def advise(paths, max_later_used, max_refetch, top, model, read, quiet, fmt, output, wide, columns):
    """What should I change? Turns toolaudit's evidence into the few changes worth making.

    In one pass over PATH... it sweeps a cap per tool (2,000 to 40,000 chars) and context policies
    (masking, clearing, compaction) with the prompt-cache bill, then ranks by net tokens saved: per
    tool the smallest cap whose risk stays in budget, per agent the context policy that saves most
    net of refetches without raising the bill, and the MCP tools whose outputs cost most per call
    with the JSON fields that make them. Each comes with the setting of the agent the sessions came
    from (Claude Code environment variables, Codex config.toml, Gemini CLI settings.json, the Messages
    API's context_management, OpenHands, SWE-agent), checked against that agent's source
    (docs/advise.md), or a policy file where the agent has no setting.

    \b
    Examples:
      toolaudit advise ~/.claude/projects
      toolaudit advise ~/.codex/sessions --max-refetch 2% -f json
    """
    from ..advise.job import AdviseOptions, advise as run_advise
    from ..reports.advise_view import COLUMNS

    layout = layout_of(fmt, wide, columns, COLUMNS)
    options = AdviseOptions(read, _share(max_later_used), _share(max_refetch), top=top, model=model)
    result = run_advise(paths, options, hooks=hooks_for(quiet))
    render_report(result, fmt, output, **layout)
