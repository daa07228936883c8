"""A tool result whose line Claude Code wrote before its call's line is paired with that call, not left an orphan
with the call unpaired (entireio/git-sync's sessions hold 109 such results: the Edits among them went unapplied in
replay, and every later read of their files differed)."""

from __future__ import annotations

import json
from pathlib import Path

from toolaudit.collectors.claude_code import ClaudeCodeCollector
from toolaudit.model import ORPHAN, PAIRED, ToolCall

# entireio/git-sync (MIT): two lines of one session, in the file's order; see the folder's README
SESSION = Path(__file__).resolve().parents[1] / "fixtures" / "claude-code-result-first" / "session.jsonl"


def _calls(path: Path) -> list[ToolCall]:
    return [r for r in ClaudeCodeCollector().records(path) if isinstance(r, ToolCall)]


def test_a_result_written_before_its_call_is_paired_with_it():
    (call,) = _calls(SESSION)
    assert (call.status, call.tool, call.call_id) == (PAIRED, "Edit", "toolu_01FAfRjgyd3aW1hNVNNkxqSw")
    assert call.output.endswith("syncer.go has been updated successfully.")
    assert json.loads(call.args)["file_path"].endswith("internal/syncer/syncer.go")
    assert call.ts == "2026-04-11T15:39:08.067Z" and call.line == 1  # the result's own line and time


def test_a_result_whose_call_never_comes_is_still_an_orphan(tmp_path):
    alone = tmp_path / "alone.jsonl"
    alone.write_text(SESSION.read_text().splitlines()[0] + "\n")
    (orphan,) = _calls(alone)
    assert orphan.status == ORPHAN and orphan.output.endswith("has been updated successfully.")
