"""`toolaudit statusline`: one line for Claude Code's status bar, from the JSON it writes on stdin."""

from __future__ import annotations

import json
import sys

import click

from . import cli


def _given_context(doc: dict) -> int | None:
    """The current context's tokens, when Claude Code's input says (context_window.current_usage)."""
    usage = (doc.get("context_window") or {}).get("current_usage")
    if not isinstance(usage, dict):
        return None
    parts = [usage.get(k) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
    numbers = [p for p in parts if isinstance(p, int)]
    return sum(numbers) if numbers else None


@cli.command()
@click.argument("transcript", required=False, type=click.Path(dir_okay=False))
@click.option("--top", type=click.IntRange(min=0), default=2, show_default=True, help="Tools named on the line.")
@click.option("--tokenizer", default="claude", show_default=True,
              type=click.Choice(["claude", "o200k_base", "cl100k_base", "approx"]),
              help="Claude's context is counted with `claude` (o200k × a factor, marked ~ as estimated).")
@click.option("--calibration", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="With --tokenizer claude: the factor of `toolaudit calibrate --save FILE`.")
def statusline(transcript: str | None, top: int, tokenizer: str, calibration: str | None) -> None:
    """One line for Claude Code's status bar: the tool outputs' share of the current context, the top
    tools, and the tokens re-sent so far, e.g. `tools ~61% of ctx · Bash 31% · Read 22% · re-sent 1.2M`.

    Claude Code runs it with its statusline JSON on stdin (which names the session's transcript); give a
    TRANSCRIPT to try it by hand. In ~/.claude/settings.json:

        "statusLine": {"type": "command", "command": "toolaudit statusline"}

    It never fails the bar: a problem prints a short `toolaudit: ...` line and exits 0.
    """
    from ..errors import ToolauditError
    from ..options import InputOptions
    from ..reports.statusline import statusline as line
    from ..scan.job import context_now

    doc: dict = {}
    if transcript is None:
        try:
            doc = json.loads(sys.stdin.read() or "{}")
        except ValueError:
            doc = {}
        transcript = doc.get("transcript_path") if isinstance(doc, dict) else None
        if not transcript:
            click.echo("toolaudit: no transcript_path on stdin (Claude Code's statusline JSON)")
            return
    try:
        now = context_now(transcript, InputOptions(tokenizer=tokenizer, calibration=calibration),
                          context=_given_context(doc))
    except (ToolauditError, OSError) as exc:
        click.echo(f"toolaudit: {exc}")
        return
    click.echo(line(now, top))
