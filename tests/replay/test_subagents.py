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


# JanDeDobbeleer/oh-my-posh's checkpoint 0d/cae3896550 (Claude Code 2.1.209, MIT): a general-purpose subagent added
# `Executed` to src/cache/template.go; the session's `git diff` after it showed the file changed
DIFF = ("diff --git a/src/cache/template.go b/src/cache/template.go\nindex 28fd2835..4e1f81be 100644\n"
        "--- a/src/cache/template.go\n+++ b/src/cache/template.go\n@@ -29,6 +29,7 @@ type SimpleTemplate struct {\n"
        " \tWSL           bool\n \tRoot          bool\n \tInterrupted   bool\n+\tExecuted      bool\n }\n \n"
        " func (t *Template) AddSegmentData(key string, value any) {\n")


def _diff(line: int) -> ToolCall:
    return ToolCall("s.jsonl", line, "claude-code", "s", "Bash", DIFF, call_id=f"toolu_{line}",
                    args=json.dumps({"command": "git diff -- src/cache/template.go"}))


def test_a_file_a_diff_shows_first_after_such_a_subagent_is_its_doing_not_the_start():
    from toolaudit.replay.start_state import call_key, read

    after = read([_agent("general-purpose"), _diff(2)], "D:\\oh-my-posh")
    assert "src/cache/template.go" not in after.diffs  # not work the session began on
    assert after.later[call_key(_agent("general-purpose"))] == ("src/cache/template.go",)  # the subagent's
    # no subagent before it, or a diff before the subagent: the work the session started on, as before
    assert "src/cache/template.go" in read([_diff(2)], "D:\\oh-my-posh").diffs
    assert "src/cache/template.go" in read([_diff(1), _agent("general-purpose"), _diff(3)], "D:\\oh-my-posh").diffs


def test_a_status_after_the_subagent_does_not_make_its_file_the_starts():
    """The same checkpoint: `git status --short && git diff --stat` after the subagent listed template.go before
    the diff showed it. Shown first after the subagent, it stays the subagent's doing (replay.segments read that
    status from b29308b on, and the subagent's change was applied to the start: 8 reads of oh-my-posh missed)."""
    from toolaudit.replay.start_state import read

    status = ToolCall("s.jsonl", 2, "claude-code", "s", "Bash", " M src/cache/template.go\n", call_id="toolu_2",
                      args=json.dumps({"command": "git status --short"}))
    assert "src/cache/template.go" not in read([_agent("general-purpose"), status, _diff(3)], "D:\\oh-my-posh").diffs
    before = ToolCall("s.jsonl", 0, "claude-code", "s", "Bash", " M src/cache/template.go\n", call_id="toolu_0",
                      args=json.dumps({"command": "git status --short"}))
    assert "src/cache/template.go" in read([before, _agent("general-purpose"), _diff(3)], "D:\\oh-my-posh").diffs
