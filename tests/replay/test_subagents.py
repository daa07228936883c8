"""A subagent whose calls the transcript does not hold (from 2.1.x they go to a file of their own, which Entire
does not keep) is read as a program replay does not know (replay.subagents)."""

from __future__ import annotations

import json

from toolaudit.model import ToolCall
from toolaudit.replay.subagents import unrecorded

# the answer's last lines as entireio/git-sync's 2.1.101 session (MIT) recorded them for a general-purpose subagent
ANSWER = ("`go build ./...` passes cleanly.\nagentId: acf375c565b60e0d1 (use SendMessage with to: "
          "'acf375c565b60e0d1' to continue this agent)\n<usage>total_tokens: 53092\ntool_uses: 32\n"
          "duration_ms: 149181</usage>")


def _agent(kind: str, output: str = ANSWER) -> ToolCall:
    return ToolCall("s.jsonl", 1, "claude-code", "s", "Agent", output, call_id="toolu_1",
                    args=json.dumps({"subagent_type": kind, "description": "Fix references", "prompt": "…"}))


def test_a_writing_subagent_whose_calls_are_elsewhere_is_unknown():
    assert unrecorded(_agent("general-purpose"), {"main"}) == "general-purpose"


def test_its_calls_in_the_transcript_or_a_read_only_type_change_nothing_unknown():
    assert unrecorded(_agent("general-purpose"), {"main", "acf375c565b60e0d1"}) is None  # its calls are here
    assert unrecorded(_agent("Explore"), {"main"}) is None  # no Edit or Write among its tools
    assert unrecorded(_agent("general-purpose", "done"), {"main"}) is None  # an answer naming no agent: as before
