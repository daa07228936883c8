"""Subagents whose work the transcript does not hold. From 2.1.x Claude Code writes a subagent's calls to a file of
its own (`subagents/agent-<id>.jsonl`), which Entire's checkpoints do not keep: the main transcript holds only the
Agent (Task) call and its answer, which ends `agentId: <id> (use SendMessage …)` (entireio/git-sync's 2.1.101
session: 22 general-purpose subagents fixing tests and code, none of their edits recorded). Such a subagent is read
as a program replay does not know: what it changed is what the session's own later `git status`/`git diff` shows
(replay.start_state's `later`), the rest stays certain. Claude Code's read-only agent types (Explore, Plan: no Edit
or Write among their tools; the guide and the status-line agents work outside the repository) change nothing."""

from __future__ import annotations

import re

from ..model import ToolCall
from .arguments import call_args

READ_ONLY = frozenset({"Explore", "Plan", "claude-code-guide", "statusline-setup"})
_AGENT_ID = re.compile(r"^agentId: ([\w-]+)", re.MULTILINE)


def unrecorded(call: ToolCall, agents: set[str]) -> str | None:
    """The subagent type (`general-purpose`, a custom agent's name) of a Claude Code Agent/Task call whose
    subagent may have edited files and whose own calls are not among the session's (`agents`: the agent ids of
    its calls), or None."""
    if call.collector != "claude-code" or call.tool not in ("Agent", "Task") or call.is_error:
        return None
    found = _AGENT_ID.search(call.output)
    if found is None or found.group(1) in agents:
        return None
    return None if kind(call) in READ_ONLY else kind(call)


def kind(call: ToolCall) -> str:
    """The subagent type an Agent/Task call asked for (`general-purpose` when it names none)."""
    return str(call_args(call).get("subagent_type") or "general-purpose")
