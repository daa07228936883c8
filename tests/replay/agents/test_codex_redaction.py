"""Entire's `REDACTED`, in a recorded Codex output, put back into the replayed one: a real 0.118.0 `sed -n` of a
README whose `GITSYNC_E2E_ENTIRE_REPO=…` line Entire's secret scan redacted (tests/fixtures/agents/codex)."""

from __future__ import annotations

import json
from pathlib import Path

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand, recorded_noise
from toolaudit.replay.agents.entire_redaction import as_recorded, recorded_lines
from toolaudit.replay.base import Sandbox

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "codex" / "redacted-0.118.json"
DOC = json.loads(FIXTURE.read_text())


def _call(root: Path, params: dict) -> Call:
    recorded = DOC["call"]
    return Call(tool=DOC["tool"], args=recorded["arguments"], root=root, cwd=DOC["cwd"], version=DOC["version"],
                sandbox=Sandbox(root), params=params, call_id=recorded["call_id"])


def test_a_line_entire_redacted_is_printed_as_recorded(tmp_path: Path) -> None:
    root = tmp_path / "git-sync"
    root.mkdir()
    # the lines the call read, where the commit holds them; the lines before them are not read
    (root / DOC["file"]).write_text("\n" * (DOC["first_line"] - 1) + "\n".join(DOC["lines"]) + "\n")
    recorded = DOC["call"]["output"]
    emulation = ExecCommand()
    params = emulation.from_recording(recorded, _call(root, {}))
    assert [line for _, line in json.loads(params["redacted"])] == ["- `REDACTED`"]
    assert emulation.run(_call(root, params)).output == recorded
    # without the recorded lines, the real value shows: the recording's redaction is what differed
    plain = emulation.run(_call(root, recorded_noise(recorded))).output
    assert "GITSYNC_E2E_ENTIRE_REPO=git-sync-smoke" in plain and plain != recorded


def test_only_the_line_at_the_same_place_is_replaced_and_only_when_it_matches() -> None:
    recorded = "a\ntoken: REDACTED\n- `REDACTED`\ngo.sum:49:x v1 h1:REDACTED=\n"
    lines = recorded_lines(recorded)
    assert json.loads(lines) == [[1, "token: REDACTED"], [2, "- `REDACTED`"], [3, "go.sum:49:x v1 h1:REDACTED="]]
    text = "a\ntoken: s3cr3t\n- `mise run test`\ngo.sum:49:x v1 h1:abc=\n"
    # a run with a space is not what Entire redacts: the line stays a difference
    assert as_recorded(text, lines) == "a\ntoken: REDACTED\n- `mise run test`\ngo.sum:49:x v1 h1:REDACTED=\n"
    assert as_recorded("token: s3cr3t\na\n", lines) == "token: s3cr3t\na\n"  # another place: no match
    assert as_recorded(text, "") == text
