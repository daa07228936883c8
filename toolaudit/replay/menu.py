"""The tool menu: each definition as the JSON a client sends for it, and a recorded tool's name on a server.

A definition is counted as the JSON a client sends to the model for it, in Anthropic's shape:
`{"name", "description", "input_schema"}`, compact, non-ASCII kept (`definition_json`). Recorded
menus (Anthropic/OpenAI request logs, OpenHands `SystemPromptEvent.tools`) and an MCP server's
`tools/list` are both turned into that one shape, so before and after count the same way
(replay.summary.menu_of counts them).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from ..model import strip_mcp_prefix


def definition_json(name: str, description: str | None, input_schema: Any) -> str:
    """The compact JSON a client sends for one tool; a missing description counts as ""."""
    body = {"name": name, "description": description or "", "input_schema": input_schema}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def resolve_tool_name(recorded: str, available: Collection[str], renames: Mapping[str, str]) -> str:
    """The server's name for a recorded tool name.

    In order: an explicit rename (`--tool-name OLD=NEW`) of the recorded name; the recorded
    name when the server has it; the name without its `mcp__SERVER__` prefix (renamed when
    the table names it). When nothing matches, the stripped name, so the server's own
    "unknown tool" answer names what was asked.
    """
    if recorded in renames:
        return renames[recorded]
    if recorded in available:
        return recorded
    bare = strip_mcp_prefix(recorded)
    return renames.get(bare, bare)
