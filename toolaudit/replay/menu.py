"""The tool menu: each definition's tokens, the menu's cost over requests, before/after menus compared.

A definition is counted as the JSON a client sends to the model for it, in Anthropic's shape:
`{"name", "description", "input_schema"}`, compact, non-ASCII kept (`definition_json`). Recorded
menus (Anthropic/OpenAI request logs, OpenHands `SystemPromptEvent.tools`) and an MCP server's
`tools/list` are both turned into that one shape, so before and after count the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from ..model import mcp_name
from .base import ToolDef

Count = Callable[[str], int]



def definition_json(name: str, description: str | None, input_schema: Any) -> str:
    """The compact JSON a client sends for one tool; a missing description counts as ""."""
    body = {"name": name, "description": description or "", "input_schema": input_schema}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def strip_mcp_prefix(name: str) -> str:
    """`mcp__SERVER__TOOL` (Claude Code's name) -> `TOOL`, the server's own; any other name as it is."""
    parts = mcp_name(name)
    return parts[1] if parts and parts[1] else name


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


def menu_tokens(defs: list[ToolDef], count: Count) -> tuple[list[int], int]:
    """Tokens of each definition, in menu order, and their total."""
    tokens = [count(d.definition) for d in defs]
    return tokens, sum(tokens)


def menu_cost(total_tokens: int, requests: int) -> int:
    """What a menu costs over a run: it rides along on every model request that carried it."""
    return total_tokens * requests


@dataclass(frozen=True)
class MenuChange:
    """One tool in a before/after comparison; a name is "" when the tool is on one side only."""

    before: str
    after: str
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True)
class MenuComparison:
    """Per-tool changes (recorded order, then tools new in `after`) and the two menus' totals."""

    changes: tuple[MenuChange, ...]
    tokens_before: int
    tokens_after: int


def compare_menus(before: Mapping[str, str], after: Mapping[str, str],
                  renames: Mapping[str, str], count: Count) -> MenuComparison:
    """Pair the recorded definitions (name -> definition JSON) with the new ones and count both.

    Names are paired the way calls are (`resolve_tool_name`); a recorded tool with no new
    counterpart is removed (after = 0), a new tool nobody recorded is added (before = 0).
    """
    changes: list[MenuChange] = []
    paired: set[str] = set()
    for old, definition in before.items():
        new = resolve_tool_name(old, after, renames)
        if new in after and new not in paired:
            paired.add(new)
            changes.append(MenuChange(old, new, count(definition), count(after[new])))
        else:
            changes.append(MenuChange(old, "", count(definition), 0))
    changes += [MenuChange("", new, 0, count(d)) for new, d in after.items() if new not in paired]
    return MenuComparison(tuple(changes), sum(c.tokens_before for c in changes),
                          sum(c.tokens_after for c in changes))
