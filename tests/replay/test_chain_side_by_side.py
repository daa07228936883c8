"""Sessions running side by side in one folder (an agent team's lead and teammates, two windows on one checkout)
share its working tree: what one writes while the other runs is there for the other's later calls, at the time
it was written (replay.chain's `during`)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import committed_repo, run_git

import toolaudit

# PackmindHub/context-evaluator (Apache-2.0): two sessions behind one checkpoint; see the folder's README
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "claude-code-side-by-side"
LEAD, BESIDE = FIXTURE / "lead.jsonl", FIXTURE / "beside.jsonl"
CARD = "frontend/src/components/RemediationHistoryCard.tsx"


def _repo(tmp_path: Path) -> Path:
    """The card as it was before the other session rewrote it (any older text), committed before both began."""
    repo = tmp_path / "repo"
    committed_repo(repo, {CARD: "export function RemediationHistoryCard() {}\n" * 300})
    run_git(repo, "commit", "--amend", "-q", "--no-edit", "--date=2026-02-19T08:00:00Z")
    return repo


def _offset_read(repo: Path, earlier: list[Path]):
    """The lead's Read of the card at offset 250, replayed by identity, and the run's notes."""
    result = toolaudit.replay([str(LEAD)], workspace=str(repo), identity=True, at_session_start=True,
                              earlier=[str(p) for p in earlier])
    row = next(r for r in result.identity.tools if r.tool == "Read")
    return row, result.notes


def test_a_file_another_session_rewrote_while_this_one_ran_is_read_as_rewritten(tmp_path):
    repo = _repo(tmp_path)
    row, notes = _offset_read(repo, [BESIDE])
    assert row.identical == 1  # the card at 10:24:14, as the other session wrote it at 10:23:49
    assert any("1 other session(s) worked in its folder while it ran" in n for n in notes)
    alone, _ = _offset_read(repo, [])
    assert alone.identical == 0  # without it: the committed card


def test_a_write_made_after_the_read_is_not_applied_before_it(tmp_path):
    # the same Write, recorded a minute after the lead's Read: the Read saw the committed card
    later = tmp_path / "beside-later.jsonl"
    lines = [json.loads(line) for line in BESIDE.read_text().splitlines()]
    for line in lines:
        line["timestamp"] = line["timestamp"].replace("10:23:", "10:25:")
    later.write_text("".join(json.dumps(line) + "\n" for line in lines))
    row, _ = _offset_read(_repo(tmp_path), [later])
    assert row.identical == 0
