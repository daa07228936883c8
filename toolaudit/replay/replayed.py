"""What replay made of one recorded call (Replayed) and of one file (ReplayFile): what the runner hands the summary."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import SessionEnd, Skipped, ToolCall, ToolMenu
from .base import Mapping


# What the recording harness assumed for an argument the model left out, where a builtin's default
# differs: Claude Code's Grep lists the matching files unless `output_mode` says otherwise (builtin:grep,
# like `grep -rn`, prints the matching lines). Only builtins get them: a user's own tool (python:, cmd:,
# mcp:) gets the arguments as the model wrote them, and its schema may refuse extra ones.
RECORDED_DEFAULTS: dict[tuple[str, str], dict] = {("claude-code", "Grep"): {"output_mode": "files_with_matches"}}


@dataclass(frozen=True)
class Replayed:
    """One recorded call and what replay made of it; `after` is None when nothing was re-run."""

    before: ToolCall
    after: ToolCall | None
    status: str
    reason: str = ""
    as_tool: str = ""  # the tool the call went to (after translation)
    mapping: Mapping | None = None  # the --tool mapping that answers it
    args: dict | None = None  # the arguments sent (after translation and path mapping)
    identity: ToolCall | None = None  # the agent's own tool re-run now, in the same state (its emulation)
    emulated: bool = False  # the recorded tool has an emulation: the call counts for fidelity
    doubt: str = ""  # why the session's state may not be what the call saw (an unreplayable command before it)
    identity_reason: str = ""  # why the emulation gave no identity replay (refused, failed)
    probe: bool = False  # kept (not translated) but --identity: its identity replay still counts for fidelity
    fresh: bool = False  # the session's first look at what it reads (a difference is in the start state)
    variant: bool = False  # the mapping is not the recorded tool's own emulation as recorded (a variant's diff)

    @property
    def runs(self) -> bool:
        """Whether anything is re-run for it: the variant, or (a probe) its identity replay alone."""
        return self.status == "" or self.probe


@dataclass(frozen=True)
class ReplayFile:
    """What replaying one file produced."""

    source: str
    collector: str | None
    calls: tuple[Replayed, ...] = ()
    ends: tuple[SessionEnd, ...] = ()
    menus: tuple[ToolMenu, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()
    error: str | None = None
    stream: tuple = ()  # the file's ToolCalls and ModelTexts in order: what the model later wrote
    newer: tuple[tuple[str, str, str], ...] = ()  # (agent, recorded version, newest read) replayed as the newest
