"""toolaudit as an MCP server (official SDK, stdio): an agent asks mid-session what filled its context,
what a scan of its transcripts says, and what a cap would save.

Each tool calls the same Python API as the CLI (scan.context_now, scan, simulate). It only reads: paths
must lie inside the folders given when the server started (symbolic links are resolved first, and a folder
holding a link to anything outside them is refused), and no
tool output or argument text is returned unless the server was started with show_content.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

INSTRUCTIONS = ("toolaudit measures which tool outputs fill an agent's context, from the transcripts agents "
                "write. Paths must lie inside the folders this server was started with.")


def _refused(message: str) -> Exception:
    """A request the server will not run (a path outside its folders, content it may not show): the
    SDK's ToolError, whose text reaches the client (any other exception's text stays on the server)."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(message)


def _answering(work):
    """`work()`, with toolaudit's own one-line errors (a bad option, an unreadable file) told to the client."""
    from .errors import ToolauditError

    try:
        return work()
    except ToolauditError as exc:
        raise _refused(str(exc)) from None


class Confined:
    """The folders a server may read, and the check that a path lies inside one."""

    def __init__(self, roots: list[Path]):
        self.roots = [Path(r).expanduser().resolve() for r in roots]

    def inside(self, resolved: Path) -> bool:
        """True when the resolved path `resolved` is a root or lies under one."""
        return any(resolved == root or resolved.is_relative_to(root) for root in self.roots)

    def path(self, given: str) -> Path:
        """`given` resolved (links followed), refused when it lies outside every root, or when it is a folder
        that holds a link to a file or folder outside them (a scan of the folder would read through it)."""
        resolved = Path(given).expanduser().resolve()
        if not self.inside(resolved):
            raise _refused(f"{given} is outside the folders this server reads: "
                           f"{', '.join(str(r) for r in self.roots)}")
        if not resolved.exists():
            raise _refused(f"{given}: no such file or folder")
        if resolved.is_dir():
            for link, target in _links(resolved):
                if not self.inside(target):
                    raise _refused(f"{link} links to {target}, outside the folders this server reads")
        return resolved


def _links(folder: Path):
    """(link, its target resolved) for every symbolic link under `folder` (links to folders not walked)."""
    for top, folders, files in os.walk(folder):
        for name in folders + files:
            at = os.path.join(top, name)
            if os.path.islink(at):
                yield Path(at), Path(os.path.realpath(at))


def build(roots: list[Path], show_content: bool = False):
    """The MCPServer with toolaudit's tools, confined to `roots`."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from . import __version__
    from . import advise as advise_job
    from . import scan as scan_job
    from . import simulate as simulate_job

    confined = Confined(roots)
    server = MCPServer("toolaudit", version=__version__, instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)

    @server.tool(annotations=read_only)
    def context(transcript: str) -> dict[str, Any]:
        """What fills a session's context now: the tokens of its tool outputs since the last compaction, per
        tool, their share of the last request, and the tokens re-sent so far (one transcript file)."""
        now = _answering(lambda: scan_job.context_now(confined.path(transcript)))
        doc = asdict(now)
        doc["share"] = now.share
        doc["by_tool"] = [{"tool": tool, "tokens": tokens} for tool, tokens in now.by_tool]
        return doc

    @server.tool(annotations=read_only)
    def scan(path: str, by: str = "tool", top: int = 0) -> dict[str, Any]:
        """`toolaudit scan PATH --by BY -f json`: every tool call's exact tokens, grouped by tool, session,
        file, agent, model, family, day, week or month. `top` lists the largest calls (their argument
        previews are content: only on a server started with --show-content)."""
        if top and not show_content:
            raise _refused("top calls carry argument previews: start the server with --show-content to see them")
        result = _answering(lambda: scan_job([confined.path(path)], by=by, top=top, show_content=show_content))
        return json.loads(result.to_json())

    @server.tool(annotations=read_only)
    def simulate(path: str, preset: str | None = None, max_chars: int | None = None, max_lines: int | None = None,
                 max_matches: int | None = None, preview_chars: int | None = None,
                 tools: list[str] | None = None) -> dict[str, Any]:
        """`toolaudit simulate`: what a cap would save and what it would hide, on the transcripts under PATH;
        an agent's real caps by `preset` (claude-code, codex, gemini-cli, ...: `toolaudit list presets`) or
        caps of your own (max_chars, max_lines, max_matches, preview_chars), for `tools` (globs) or all."""
        caps = {k: v for k, v in (("max_chars", max_chars), ("max_lines", max_lines), ("max_matches", max_matches),
                                  ("preview_chars", preview_chars)) if v is not None}
        result = _answering(lambda: simulate_job([confined.path(path)], preset=preset, tools=tuple(tools or ()), **caps))
        return json.loads(result.to_json())

    @server.tool(annotations=read_only)
    def advise(path: str, max_later_used: float = 0.01, max_refetch: float = 0.01) -> dict[str, Any]:
        """`toolaudit advise`: the few changes worth making to the agents whose transcripts are under PATH (caps
        per tool, a context policy, MCP outputs), ranked by net tokens saved within a risk budget (shares of
        calls), each with the agent's own setting and its source."""
        result = _answering(lambda: advise_job([confined.path(path)], max_later_used=max_later_used,
                                               max_refetch=max_refetch))
        return json.loads(result.to_json())

    return server


def serve(roots: list[Path], show_content: bool = False) -> None:
    """Serve over stdio until the client closes it."""
    build(roots, show_content).run("stdio")
