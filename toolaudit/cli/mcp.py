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
    """Serve toolaudit's questions to an agent over MCP (stdio), over the transcripts in FOLDERS only
    (default: the agents' own folders that exist). Read-only; no output or argument text unless
    --show-content.

    \b
    Tools (compact JSON, at most 1,500 tokens unless max_tokens asks more):
      context   what fills a session's context now, per tool
      scan      tokens per tool, session, file, agent, model, day...
      simulate  what a cap (preset, max_chars...) or a context policy
                (context: mask:keep=10, claude-code...) would save, cost
      advise    the few changes worth making, with each agent's setting

    Without a path, a tool reads the current session: the newest transcript
    of the working folder's project (Claude Code, Codex, Gemini CLI), else
    the newest under the working folder.

    \b
    For Claude Code:
      claude mcp add toolaudit -- toolaudit mcp ~/.claude/projects
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
