"""`toolaudit mcp`: toolaudit as an MCP server over stdio, confined to the folders it is given."""

from __future__ import annotations

from pathlib import Path

import click

from . import cli


@cli.command(name="mcp")
@click.argument("folders", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--show-content", is_flag=True,
              help="Let `scan` return its largest calls with their (redacted) argument previews.")
def mcp_server(folders: tuple[Path, ...], show_content: bool) -> None:
    """Serve toolaudit's questions to an agent over MCP (stdio): `context` (what fills a session's context
    now), `scan` and `simulate` (what a cap would save), over the transcripts in FOLDERS only (default: the
    agents' own folders that exist). Read-only; no output or argument text unless --show-content.

    For Claude Code:  claude mcp add toolaudit -- toolaudit mcp ~/.claude/projects
    """
    from ..collectors import discover
    from ..errors import UsageError

    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError("the MCP server needs the official SDK: pip install 'agent-toolaudit[mcp]'",
                         slug="mcp-extra") from None
    roots = list(folders) or [p for p in discover.default_locations() if p.is_dir()]
    if not roots:
        raise UsageError("name the folders the server may read (no agent folders found in the default places)",
                         slug="mcp-roots")
    from ..server import serve

    serve(roots, show_content)
