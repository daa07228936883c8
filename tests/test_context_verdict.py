"""A context policy's first line is its dollar verdict, a rise said as a rise (issue 31.6: "net 260,521 (3.7%)
saved" was the first line of a run whose bill went from $8.77 to $10.16)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolaudit.cli import cli

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


def _run(*args):
    result = CliRunner().invoke(cli, ["simulate", str(SAMPLES), *args, "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("extra", [(), ("--max-chars", "3000")])
def test_a_policy_that_raises_the_bill_says_so_first(extra):
    out = _run("--context", "mask:keep=3", *extra)
    doc = json.loads(_run("--context", "mask:keep=3", *extra, "-f", "json"))
    before, after = doc["totals"]["cost_before_usd"], doc["totals"]["cost_after_usd"]
    assert after > before  # the samples' cache is invalidated more than masking saves
    first = out.lstrip().splitlines()[0]
    assert first.startswith("verdict: the bill RISES $")
    shown = [float(x) for x in re.findall(r"\$(\d+\.\d\d)", first)[:2]]
    assert shown == [round(before, 2), round(after, 2)]
    assert "leave the context" in first and "cache invalidations" in first


def test_a_policy_that_lowers_the_bill_says_falls():
    first = _run("--context", "mask:keep=1", "--max-chars", "2000").lstrip().splitlines()[0]
    assert first.startswith("verdict: the bill ") and ("falls" in first or "RISES" in first)
    doc = json.loads(_run("--context", "mask:keep=1", "--max-chars", "2000", "-f", "json"))
    rises = doc["totals"]["cost_after_usd"] > doc["totals"]["cost_before_usd"]
    assert ("RISES" in first) == rises


def test_a_sweep_has_no_single_verdict():
    out = _run("--context", "mask:keep=3", "--sweep", "mask.keep=1:3")
    assert "verdict:" not in out
