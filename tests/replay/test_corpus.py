"""The whole real corpus replayed against an empty workspace: no crash, every call accounted for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolaudit.cli import cli

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
from toolaudit.replay.summary import STATUSES
pytestmark = pytest.mark.slow  # make test-all only: the whole real corpus replayed


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the real corpus is not at {CORPUS}")
def test_the_corpus_replays_with_every_call_accounted_for(tmp_path):
    empty = tmp_path / "workspace"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["replay", str(CORPUS), "--workspace", str(empty), "--translate", "shell-search",
                                      "--tool", "grep=builtin:grep", "--tool", "glob=builtin:glob", "--before", "recorded", "--keep-drifted", "-f", "json",
                                      "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    totals = doc["totals"]
    # as many calls as scan counts (replay reads the same records and drops the same copies)
    scan = CliRunner().invoke(cli, ["scan", str(CORPUS), "-f", "json", "-q", "-j", "1"], catch_exceptions=False)
    scanned = json.loads(scan.output)
    assert totals["calls"] == scanned["totals"]["calls"] + scanned["totals"]["unpaired_calls"]
    assert totals["tokens_before"] == scanned["totals"]["tokens"]
    assert totals["calls"] == sum(totals[s] for s in STATUSES)
    assert sum(t["calls"] for t in doc["tools"]) == totals["calls"]
    # every call that was not replayed has its reason, and the reasons add up
    for status in ("kept", "not_translated", "refused", "failed"):
        assert sum(r["calls"] for r in doc["reasons"] if r["status"] == status) == totals[status], status
    assert totals["replayed"] > 0 and totals["not_translated"] > 0
    # nothing escapes an empty workspace: a search of an absolute path elsewhere is refused
    assert all("outside the workspace" in r["reason"] for r in doc["reasons"] if r["status"] == "refused")
