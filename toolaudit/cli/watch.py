"""`toolaudit watch`: a live view of the sessions being written, refreshed from the scan cache."""

from __future__ import annotations

import os
import select
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import click

from . import cli, input_options


@contextmanager
def _keys() -> Iterator[Callable[[float], str | None]]:
    """A function that waits up to N seconds for one key (None when none came): keys are read one at a
    time (cbreak) when stdin is a terminal, and the terminal is restored on the way out."""
    if not sys.stdin.isatty():
        yield lambda timeout: time.sleep(timeout)
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    try:
        def key(timeout: float) -> str | None:
            ready, _, _ = select.select([fd], [], [], timeout)
            return os.read(fd, 1).decode(errors="replace") if ready else None

        yield key
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--since", "window", default="2h", show_default=True, metavar="SPAN",
              help="Sessions whose transcript was written within this span (30m, 2h, 1d).")
@click.option("--interval", type=click.FloatRange(min=0.1), default=2.0, show_default=True,
              help="Seconds between refreshes.")
@click.option("--once", is_flag=True, help="Print the view once and exit (for a pipe or a script).")
@input_options
def watch(paths: tuple[Path, ...], window: str, interval: float, once: bool, read, quiet: bool) -> None:
    """A live view of the sessions being written now (PATHS, default: the agents' folders): per session its
    calls, tool-output tokens, top tool and last outputs' sizes, and per tool its share; refreshed every
    --interval from the scan cache, so only the transcripts that grew are read again. q quits.
    """
    from rich.console import Console
    from rich.live import Live

    from ..reports.watch import view
    from ..scan.job import live_snapshot

    span = _span(window)

    def take():
        return live_snapshot(list(paths), read, window_s=span)

    console = Console()
    if once or not console.is_terminal:
        console.print(view(take(), keys_hint=""))
        return
    with _keys() as key, Live(view(take()), console=console, auto_refresh=False, transient=False) as live:
        try:
            while (pressed := key(interval)) not in ("q", "Q"):
                if pressed is None:
                    live.update(view(take()), refresh=True)
        except KeyboardInterrupt:
            pass


def _span(text: str) -> float:
    """Seconds in `30m`, `2h`, `1d` (or plain seconds)."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    try:
        if text and text[-1] in units:
            return float(text[:-1]) * units[text[-1]]
        return float(text)
    except ValueError:
        raise click.BadParameter(f"{text!r}: a span such as 30m, 2h or 1d", param_hint="--since") from None
