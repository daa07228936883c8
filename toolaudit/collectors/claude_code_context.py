"""What each Claude Code line adds to its model context besides tool results: ContextEvent records.

calibrate measures how much a context grew between two requests; a turn tells it something only
when tool results were all that entered. These are the lines that say otherwise (compactions,
attachments, user text or images, synthetic replies) and each reply's own part: its thinking and
what it visibly wrote. ClaudeCodeCollector(context_events=True) yields them beside its records;
no other consumer asks, so a scan never pays for this second look at each line.
"""

from __future__ import annotations

import json

from ..model import ContextEvent
from . import base
from .base import str_or_none


def line_events(obj: dict, number: int, own_agent: str, source: str) -> list[ContextEvent]:
    """The events of one line of the file's own agent `own_agent` (nested subagent lines their agent's).

    A line whose values are of types this reader does not expect is one "unreadable line" event of
    `own_agent`: the turn it falls in is passed over, never the file (as base.guarded skips it).
    """
    try:
        return _line(obj, number, own_agent, source)
    except Exception:  # noqa: BLE001 -- odd data: this line, not the file
        if base.DEBUG:
            raise
        return [ContextEvent(source, number, own_agent, ContextEvent.UNREADABLE)]


def _line(obj: dict, number: int, agent: str, source: str) -> list[ContextEvent]:
    kind = obj.get("type")
    if kind == "progress":
        data = obj.get("data")
        if not (isinstance(data, dict) and data.get("type") == "agent_progress"
                and isinstance(data.get("message"), dict)):
            return []
        # nested subagent lines: named as ClaudeCodeCollector names them, so request indices line up
        agent = str_or_none(data.get("agentId")) or str_or_none(obj.get("parentToolUseID")) or "subagent"
        obj, kind = data["message"], data["message"].get("type")
    if kind == "system" and obj.get("subtype") == "compact_boundary":
        return [ContextEvent(source, number, agent, "compaction")]
    if kind == "attachment":  # hook output, file mentions: sent to the model as reminders
        return [ContextEvent(source, number, agent, "attachment")]
    if kind == "user":
        reason = _user_extra(obj)
        return [ContextEvent(source, number, agent, reason)] if reason else []
    if kind == "assistant":
        return _assistant(obj, number, agent, source)
    return []


def _user_extra(obj: dict) -> str | None:
    """Why a user line adds more than tool results to the context, or None."""
    if obj.get("isCompactSummary"):
        return "compaction"
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return "user text" if content else None
    if not isinstance(content, list):
        return None
    kinds = {block.get("type") for block in content if isinstance(block, dict)}  # an odd type raises: unreadable
    if "image" in kinds:
        return "image"
    return "user text" if kinds - {"tool_result"} else None


def _assistant(obj: dict, number: int, agent: str, source: str) -> list[ContextEvent]:
    """A reply line: its request's event (thinking, visible texts), or "other message" when no API call wrote it."""
    message = obj.get("message")
    if not isinstance(message, dict):
        return []
    message_id = message.get("id")
    if message.get("model") == "<synthetic>" or not isinstance(message_id, str):
        return [ContextEvent(source, number, agent, ContextEvent.OTHER)]
    thinking, visible = False, []
    content = message.get("content")
    for block in content if isinstance(content, list) else [{"type": "text", "text": content}]:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("thinking", "redacted_thinking"):
            thinking = True
        elif kind == "text" and isinstance(block.get("text"), str):
            visible.append(block["text"])
        elif kind == "tool_use":
            visible.append(f"{block.get('name') or ''}{json.dumps(block.get('input'), ensure_ascii=False)}")
    return [ContextEvent(source, number, agent, ContextEvent.REQUEST, message_id, thinking, tuple(visible))]
