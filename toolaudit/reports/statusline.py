"""The one line `toolaudit statusline` prints under Claude Code's prompt (format only).

Tool names are data: each is printed as `visible` text, so an escape sequence in a name (an OSC 52
clipboard write, a colour, a cursor move) reaches the terminal as `\x1b]52;…`, never as a command.
"""

from __future__ import annotations

from ..scan.context import ContextNow
from .view import visible

TOP_TOOLS = 2


def compact(n: int) -> str:
    """12,345 as 12k, 1,234,567 as 1.2M: a count that fits a status line."""
    for size, unit in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if n >= size * 0.9995:  # 999,999 is 1.0M, not 1000k
            value = n / size
            return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"
    return str(n)


def _percent(share: float) -> str:
    """61%, or <1% for a share that rounds to nothing."""
    return "<1%" if 0 < share < 0.005 else f"{min(1.0, max(0.0, share)):.0%}"


def statusline(now: ContextNow, top: int = TOP_TOOLS) -> str:
    """`tools ~61% of ctx · Bash 31% · Read 22% · re-sent 1.2M` ("~": the counts are estimated; without
    the context's size, tokens instead of shares)."""
    mark = "~" if now.estimated else ""
    if not now.calls:
        return "tools: no tool output yet"
    # a context size of 0 or less is no size (a usage line or a caller said so): tokens, and "size unknown"
    invalid = now.context is not None and now.context <= 0
    if now.share is None or invalid:
        parts = [f"tools {mark}{compact(now.in_context)} tok in ctx" + (" (ctx size unknown)" if invalid else "")]
        parts += [f"{visible(tool)} {mark}{compact(tokens)}" for tool, tokens in now.by_tool[:top] if tokens]
    else:
        parts = [f"tools {mark}{_percent(now.share)} of ctx"]
        parts += [f"{visible(tool)} {_percent(tokens / now.context)}" for tool, tokens in now.by_tool[:top] if tokens]
    parts.append(f"re-sent {mark}{compact(now.resent)}")
    return " · ".join(parts)
