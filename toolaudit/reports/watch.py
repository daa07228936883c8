"""The view `toolaudit watch` refreshes: the sessions written lately and their tools (format only).

Session, project and tool names are data: each cell is a rich Text (no markup read from it) of `visible`
text (an escape sequence in a name is printed as `\x1b…`, never sent to the terminal).
"""

from __future__ import annotations

import time

from ..model import MAIN_AGENT
from ..scan.live import SessionLive, Snapshot
from .statusline import compact
from .view import visible

SESSIONS_SHOWN = 12
TOOLS_SHOWN = 8


def _age(seconds: float) -> str:
    """12s, 3m, 2h: how long ago a transcript was written."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h"


def _window(seconds: float) -> str:
    """2h, 30m, 3d: the span of --since."""
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m"), (1, "s")):
        if seconds >= size or unit == "s":
            value = seconds / size
            return f"{value:.0f}{unit}" if value >= 10 or value == int(value) else f"{value:.1f}{unit}"
    return ""


def _label(s: SessionLive) -> str:
    """A row's name: the session's short id and project; a subagent's id after `↳` (one row per subagent)."""
    sub = f" ↳{s.agent[:8]}" if s.agent != MAIN_AGENT else ""
    return f"{s.session[:8]}{sub} {s.project}".rstrip()


def view(snap: Snapshot, keys_hint: str = "q quits"):
    """A rich renderable of `snap` that fits 80 columns: a header line, the sessions, the tools."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    def cell(text: str) -> Text:
        return Text(visible(text))

    mark = "~" if snap.estimated else ""
    clock = time.strftime("%H:%M:%S", time.localtime(snap.taken))
    header = Text.assemble(
        ("toolaudit watch", "bold"),
        f" · {len(snap.sessions)} sessions in {_window(snap.window_s)} · tool outputs {mark}{compact(snap.tokens)}"
        f" tok · {clock}",
        (f" · {keys_hint}" if keys_hint else "", "dim"),
    )
    sessions = Table(box=None, pad_edge=False, expand=False, header_style="bold")
    for name, justify, width in (("session", "left", 28), ("calls", "right", 5), ("tokens", "right", 7),
                                 ("top tool", "left", 12), ("last outputs", "right", 16), ("age", "right", 4)):
        sessions.add_column(name, justify=justify, max_width=width, no_wrap=True, overflow="ellipsis")
    for s in snap.sessions[:SESSIONS_SHOWN]:
        sessions.add_row(cell(_label(s)), f"{s.calls:,}", compact(s.tokens), cell(s.top_tool),
                         " ".join(compact(n) for n in s.last), _age(snap.taken - s.updated))
    if len(snap.sessions) > SESSIONS_SHOWN:
        sessions.add_row(f"… {len(snap.sessions) - SESSIONS_SHOWN} more", "", "", "", "", "")
    tools = Table(box=None, pad_edge=False, expand=False, header_style="bold")
    for name, justify, width in (("tool", "left", 28), ("calls", "right", 7), ("tokens", "right", 8),
                                 ("share", "right", 6)):
        tools.add_column(name, justify=justify, max_width=width, no_wrap=True, overflow="ellipsis")
    total = sum(n for _, _, n in snap.tools) or 1
    for tool, calls, tokens in snap.tools[:TOOLS_SHOWN]:
        tools.add_row(cell(tool), f"{calls:,}", compact(tokens), f"{tokens / total:.0%}")
    if not snap.sessions:
        return Group(header, Text(f"no transcript written in the last {_window(snap.window_s)} yet: waiting"))
    return Group(header, Text(""), sessions, Text(""), tools)
