"""`toolaudit statusline`: one line for Claude Code's status bar, from the JSON it writes on stdin."""

from __future__ import annotations

import click

from ..resident import TOKENIZERS, line, read_stdin, request_of, stop_server
from . import cli


@cli.command()
@click.argument("transcript", required=False, type=click.Path(dir_okay=False))
@click.option("--top", type=click.IntRange(min=0), default=2, show_default=True, help="Tools named on the line.")
@click.option("--tokenizer", default="claude", show_default=True,
              type=click.Choice(TOKENIZERS),
              help="Claude's context is counted with `claude` (o200k × a factor, marked ~ as estimated).")
@click.option("--calibration", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="With --tokenizer claude: the factor of `toolaudit calibrate --save FILE`.")
@click.option("--resident/--no-resident", default=True, show_default=True,
              help="Answer through a resident server (started in the background by the first call, gone after "
                   "15 idle minutes) instead of loading toolaudit for every line. TOOLAUDIT_NO_RESIDENT=1 also "
                   "turns it off.")
@click.option("--stop", is_flag=True, help="Stop the resident server, if one runs (and say whether one did).")
def statusline(transcript: str | None, top: int, tokenizer: str, calibration: str | None, resident: bool,
               stop: bool) -> None:
    """One line for Claude Code's status bar: the tool outputs' share of the current context, the top
    tools, and the tokens re-sent so far, e.g. `tools ~61% of ctx · Bash 31% · Read 22% · re-sent 1.2M`.

    Claude Code runs it with its statusline JSON on stdin (which names the session's transcript); give a
    TRANSCRIPT to try it by hand. In ~/.claude/settings.json:

        "statusLine": {"type": "command", "command": "toolaudit statusline"}

    It never fails the bar: a problem prints a short `toolaudit: ...` line and exits 0, and so does a line
    not computed within 20 s.
    """
    if stop:
        click.echo("stopped the resident server" if stop_server() else "no resident server runs")
        return
    stdin = read_stdin() if transcript is None else ""
    click.echo(line(request_of(stdin, transcript, top, tokenizer, calibration), resident))
