"""Dollars on every report (issue 31): simulate's caps, replay's variant, compare's sides and ci's run priced as scan
prices tool outputs (billing.price_outputs), checked by hand on tiny inputs; every HTML verdict leads with them,
on sample_logs and on the real corpus."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import SAMPLES
from toolaudit.scan.billing import OutputTally, token_prices

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SONNET = "claude-sonnet-4-5-20250929"
KANBAN, SHOP = SAMPLES / "claude-code" / "-home-dev-kanban", SAMPLES / "claude-code" / "-home-dev-shop"
REPLAY = ("replay", FIXTURES / "search_session.jsonl", "--workspace", FIXTURES / "search_repo", "--translate",
          "shell-search", "--tool", "grep=builtin:grep?max_matches=100&max_bytes=10000", "--tool", "glob=builtin:glob",
          "--tool", "Read=builtin:read_file?max_chars=5000")
# Sonnet 4.5 in the offline table: $3.75 per million tokens written to the cache, $0.30 read from it; Opus 4.5
# (all of sample_logs' kanban session): $6.25 and $0.50
FIRST, AGAIN = Decimal("3.75") / 1_000_000, Decimal("0.30") / 1_000_000
OPUS = (Decimal("6.25") / 1_000_000, Decimal("0.50") / 1_000_000)


def json_of(run, *args, code: int = 0) -> dict:
    jobs = () if args[0] == "replay" else ("-j", "1")
    result = run(*args, "-f", "json", "-q", *jobs)
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def by_hand(tokens: int, weighted: int, prices=(FIRST, AGAIN)) -> float:
    """The dollars of `tokens` first sent and `weighted - tokens` re-sent (Sonnet's prices unless given)."""
    return float(tokens * prices[0] + (weighted - tokens) * prices[1])


def test_the_price_table_has_the_prices_these_tests_compute_with():
    assert token_prices(SONNET) == (FIRST, AGAIN) and token_prices("claude-opus-4-5") == OPUS


def test_a_cap_saves_each_removed_token_at_its_calls_first_and_resent_price():
    tally = OutputTally(model=SONNET)  # --model: prices the call that names none
    tally.add(SONNET, 1000, 400, residency=3)  # first sent, then re-sent twice
    tally.add(None, 100, 100, residency=None)  # unknown residency: sent once
    tally.add("mystery-1", 500, 50, residency=2)
    dollars = tally.finish()
    before = 1000 * FIRST + 2000 * AGAIN + 100 * FIRST
    after = 400 * FIRST + 800 * AGAIN + 100 * FIRST
    assert (dollars.before, dollars.after, dollars.saved) == (before, after, before - after)
    assert (dollars.priced_calls, dollars.unpriced_calls, dollars.unknown_models) == (2, 1, ("mystery-1",))
    assert dollars.as_dict()["saved_usd"] == pytest.approx(0.00261) and dollars.as_dict()["estimated"] is True


def test_nothing_priced_is_null_never_a_false_zero():
    tally = OutputTally()
    tally.add("mystery-1", 500, 50, residency=2)
    doc = tally.finish().as_dict()
    assert (doc["before_usd"], doc["after_usd"], doc["saved_usd"], doc["unpriced_calls"]) == (None, None, None, 1)


def test_a_size_policy_prices_before_as_scan_prices_the_same_outputs(run):
    scan = json_of(run, "scan", KANBAN, "--cost")
    doc = json_of(run, "simulate", KANBAN, "--max-chars", "2000")
    t, cost = doc["totals"], doc["cost"]
    assert cost["before_usd"] == pytest.approx(sum(x["total_usd"] for x in scan["cost"]["tools"]), abs=1e-7)
    assert cost["before_usd"] == pytest.approx(by_hand(t["tokens_before"], t["weighted_tokens_before"], OPUS),
                                               abs=1e-7)
    weighted_after = t["weighted_tokens_before"] - t["weighted_tokens_saved"]
    assert cost["after_usd"] == pytest.approx(by_hand(t["tokens_after"], weighted_after, OPUS), abs=1e-7)
    assert cost["saved_usd"] > 0 and cost["unpriced_calls"] == 0 and cost["prices"].startswith("genai-prices ")
    sweep = json_of(run, "simulate", KANBAN, "--sweep", "max_chars=500,2000")
    assert [v["cost"]["after_usd"] for v in sweep["sweep"]][1] == pytest.approx(cost["after_usd"])


def test_replay_prices_the_calls_its_token_saving_stands_on(run):
    doc = json_of(run, *REPLAY)
    t, cost = doc["totals"], doc["cost"]  # every call of the fixture is Sonnet's
    assert cost["before_usd"] == pytest.approx(by_hand(t["tokens_before"], t["weighted_tokens_before"]), abs=1e-7)
    weighted_after = t["weighted_tokens_before"] - t["weighted_tokens_saved"]
    assert cost["after_usd"] == pytest.approx(by_hand(t["tokens_after"], weighted_after), abs=1e-7)
    assert cost["saved_usd"] > 0 and cost["priced_calls"] == t["calls"] - t["drifted"]


def test_compare_prices_each_side_and_each_run(run):
    doc = json_of(run, "compare", KANBAN, SHOP)
    cost = doc["cost"]
    for side, path in (("a", KANBAN), ("b", SHOP)):
        scan = json_of(run, "scan", path, "--cost")
        assert cost[f"{side}_usd"] == pytest.approx(sum(x["total_usd"] for x in scan["cost"]["tools"]), abs=1e-7)
        runs = [r["tool_output_usd"] for r in doc["runs"] if r["side"] == side]
        assert sum(runs) == pytest.approx(cost[f"{side}_usd"], abs=1e-7)
    assert cost["why_not"] is None and cost["per_run"]["change"] == pytest.approx(
        cost["per_run"]["b"]["median"] - cost["per_run"]["a"]["median"])


def test_compare_says_why_a_side_has_no_dollars(run, tmp_path):
    rows = [{"source": "t/a.jsonl", "session": "s", "tool": "Read", "tokens": 10, "bytes": 40}]
    records = tmp_path / "records.json"
    records.write_text(json.dumps(rows))
    doc = json_of(run, "compare", records, KANBAN)
    assert doc["cost"]["a_usd"] is None and "records file" in doc["cost"]["why_not"]


def test_compare_prices_transcripts_without_a_model_with_model(run):
    from conftest import ROOT

    runs = ROOT / "docs" / "examples" / "runs"
    unpriced = json_of(run, "compare", runs / "baseline", runs / "capped")["cost"]
    assert unpriced["a_usd"] is None and "--model NAME" in unpriced["why_not"]
    cost = json_of(run, "compare", runs / "baseline", runs / "capped", "--model", "claude-sonnet-4-5")["cost"]
    assert cost["why_not"] is None and cost["a_usd"] > cost["b_usd"] > 0  # the capped runs' outputs cost less


def test_ci_prices_the_gated_run_and_reads_the_baselines_dollars_as_data(run, tmp_path):
    scan = json_of(run, "scan", KANBAN, "--cost")
    total = sum(x["total_usd"] for x in scan["cost"]["tools"])
    baseline = tmp_path / "baseline.json"
    assert run("ci", KANBAN, "--baseline", baseline, "--update-baseline", "-q", "-j", "1").exit_code == 0
    cost = json_of(run, "ci", KANBAN, "--baseline", baseline)["cost"]
    assert cost["current_usd"] == pytest.approx(total) and cost["baseline_usd"] == pytest.approx(total)
    assert cost["change_usd"] == pytest.approx(0)
    old = json.loads(baseline.read_text())
    for broken in (None, {"tools": "not a list"}, {"tools": [{"tool": "Read", "total_usd": "9"}]}):
        if broken is None:
            del old["cost"]  # a baseline written before ci priced anything
        else:
            old["cost"] = broken  # data, never trusted: no price, no crash
        baseline.write_text(json.dumps(old))
        cost = json_of(run, "ci", KANBAN, "--baseline", baseline)["cost"]
        assert cost["baseline_usd"] is None and cost["change_usd"] is None
        assert cost["current_usd"] == pytest.approx(total)
    text = run("ci", KANBAN, "--baseline", baseline, "-q", "-j", "1").stdout
    assert "the baseline carries no dollars" in text


def verdict_line(run, tmp_path: Path, *args, code: int = 0) -> str:
    """The first line of the HTML report's verdict."""
    page = tmp_path / "page.html"
    jobs = () if args[0] == "replay" else ("-j", "1")
    result = run(*args, "-f", "html", "-o", page, "-q", *jobs)
    assert result.exit_code == code, result.output
    html = page.read_text()
    box = html[html.index('<section class="verdict'):]
    return re.search(r"<li>(.*?)</li>", box).group(1)


DOLLARS = re.compile(r"\$\d|under \$0\.01")


def test_every_report_on_sample_logs_leads_with_dollars(run, tmp_path):
    baseline = tmp_path / "baseline.json"
    assert run("scan", SAMPLES, "-f", "json", "-o", baseline, "-q", "-j", "1").exit_code == 0
    for args in (("scan", SAMPLES), ("simulate", SAMPLES, "--max-chars", "2000"),
                 ("simulate", SAMPLES, "--preset", "codex"), ("simulate", KANBAN, "--sweep", "max_chars=500,2000"),
                 ("compare", KANBAN, SHOP), ("ci", SAMPLES, "--baseline", baseline), REPLAY):
        line = verdict_line(run, tmp_path, *args)
        assert DOLLARS.search(line) and "estimated" in line, (args[0], line)


@pytest.mark.slow
def test_every_report_on_real_sessions_leads_with_dollars(run, tmp_path, corpus):
    baseline = tmp_path / "baseline.json"
    assert run("scan", corpus, "-f", "json", "-o", baseline, "-q", "-j", "1").exit_code == 0
    empty = tmp_path / "workspace"
    empty.mkdir()
    for args in (("scan", corpus), ("simulate", corpus / "claude-code", "--max-chars", "2000"),
                 ("simulate", corpus, "--preset", "claude-code"), ("compare", corpus / "claude-code", corpus / "codex"),
                 ("ci", corpus, "--baseline", baseline), ("advise", corpus),
                 ("replay", corpus / "claude-code", "--workspace", empty, "--translate", "shell-search", "--tool",
                  "grep=builtin:grep", "--tool", "glob=builtin:glob", "--before", "recorded", "--keep-drifted")):
        line = verdict_line(run, tmp_path, *args)
        assert DOLLARS.search(line), (args[0], line)
