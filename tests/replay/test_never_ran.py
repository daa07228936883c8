"""Calls the agent answered itself are never replayed: read from the recorded result's text."""

from __future__ import annotations

import pytest

from toolaudit.model import ToolCall
from toolaudit.replay.never_ran import never_ran


def _read(output: str, is_error: bool = True) -> ToolCall:
    return ToolCall(source="s.jsonl", line=1, collector="claude-code", session="s", tool="Read",
                    args='{"file_path": "/r/.entire/metadata/40f9401a/prompt.txt"}', output=output, is_error=is_error)


@pytest.mark.parametrize(("output", "why"), [
    # a deny rule of the settings answers before Read runs (gabadi/crap4py's Claude Code 2.1.186 sessions, reading
    # `.entire/metadata/<session>/prompt.txt`)
    ("<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>",
     "never ran: permission denied"),
    ("Permission to use Read has been denied.", "never ran: permission denied"),
    ("<tool_use_error>Sibling tool call errored</tool_use_error>", "never ran: a sibling call's error"),
])
def test_an_answer_the_agent_gave_itself_never_ran(output: str, why: str) -> None:
    assert never_ran(_read(output)) == why


def test_an_error_the_tool_itself_gave_ran() -> None:
    assert never_ran(_read("<tool_use_error>File does not exist.</tool_use_error>")) is None
    assert never_ran(_read("EACCES: permission denied, open '/r/secret.txt'")) is None  # the disk's, not a rule's
