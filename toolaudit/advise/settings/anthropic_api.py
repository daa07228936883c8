"""The Messages API's context_management block, for harnesses that call the API themselves."""

from __future__ import annotations

from .base import Known, Setting

AGENT = "anthropic-api"
COLLECTORS = ("anthropic-messages",)

CLEAR = Known(AGENT, "context_management.edits[clear_tool_uses_20250919]", "Messages API request "
              "(beta header context-management-2025-06-27)", "input tokens / tool uses", "trigger 100000 input tokens",
              "2025-09-19", "https://docs.claude.com/en/docs/build-with-claude/context-editing; anthropic-sdk-python "
              "887ee67f src/anthropic/types/beta/beta_clear_tool_uses_20250919_edit_param.py",
              "clears old tool results past a trigger, keeping the last uses")
COMPACT = Known(AGENT, "context_management.edits[compact_20260112]", "Messages API request "
                "(beta header compact-2026-01-12)", "input tokens", "trigger 150000 input tokens", "2026-01-12",
                "https://platform.claude.com/docs/en/build-with-claude/compaction; anthropic-sdk-python 887ee67f "
                "src/anthropic/types/beta/beta_compact_20260112_edit_param.py", "server-side compaction")
KNOWN = (CLEAR, COMPACT)


def for_cap(tool: str, chars: int, tokens: int) -> Setting | None:
    """The API has no output cap: the harness cuts its own tools' outputs."""
    return None


def for_context(policy) -> Setting | None:
    """Clearing and compaction are edits of the request."""
    if policy.name == "clear":
        return Setting.of(CLEAR, f'{{"type": "clear_tool_uses_20250919", "trigger": {{"type": "input_tokens", '
                                 f'"value": {policy.trigger}}}, "keep": {{"type": "tool_uses", "value": {policy.keep}}}'
                                 + (f', "clear_at_least": {{"type": "input_tokens", "value": {policy.clear_at_least}}}'
                                    if policy.clear_at_least else "") + "}")
    if policy.name == "compact":
        return Setting.of(COMPACT, f'{{"type": "compact_20260112", "trigger": {{"type": "input_tokens", '
                                   f'"value": {policy.at}}}}}')
    return None


def for_mcp(tokens_per_call: int) -> Setting | None:
    """No MCP limit in the API."""
    return None
