"""The HTML verdict's dollars (issue 31.5): a priced scan leads with them; where no price is known the verdict
says so in words, never a false $0.00; a line that already states dollars gets no second one."""

from __future__ import annotations

import json

from conftest import SAMPLES
from toolaudit.reports.html_verdict import dollars, verdict


def scan_doc(run, *args) -> dict:
    result = run("scan", SAMPLES, "-f", "json", "-q", "-j", "1", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_priced_scan_leads_with_what_its_tool_outputs_cost(run):
    doc = scan_doc(run, "--cost")
    status, lines = verdict("scan", None, doc)
    tools = [t for t in doc["cost"]["tools"] if t["total_usd"] is not None]
    total = sum(t["first_usd"] + t["resent_usd"] for t in tools)
    assert status == "info" and lines[0].startswith(f"tool outputs cost ≈ {dollars(total)} (")
    assert f"of {dollars(doc['cost']['billed_usd'])} billed over {doc['usage']['requests']:,} requests" in lines[0]
    assert lines[1].startswith(f"tool outputs: {doc['totals']['tokens']:,} tokens in {doc['totals']['calls']:,} calls")


def test_without_a_price_the_verdict_says_why_instead_of_dollars(run):
    doc = scan_doc(run)  # no --cost: the document has no prices
    assert verdict("scan", None, doc)[1][-1].startswith("dollars: not priced")
    doc = scan_doc(run, "--cost")
    doc["cost"]["tools"] = [{**t, "first_usd": None, "resent_usd": None, "total_usd": None} for t in doc["cost"]["tools"]]
    doc["cost"]["unknown_models"] = ["mystery-1"]
    last = verdict("scan", None, doc)[1][-1]
    assert last.startswith("dollars unknown: no price for mystery-1") and "$" not in last


def test_a_line_with_dollars_gets_no_second_one():
    headline = ("warn", ["verdict: the bill RISES $0.84 → $0.95 (+$0.11, +13.4%)", "risk: 1 cut call"])
    assert verdict("simulate", headline, {"meta": {}})[1] == headline[1]
    replay = verdict("replay", ("info", ["verdict: the new tools' outputs are smaller"]), {"meta": {}})[1]
    assert replay[-1].startswith("dollars: not priced: this result carries no tool-output dollars")


def test_replay_compare_and_ci_lead_with_the_dollars_their_jobs_computed():
    cost = {"prices": "genai-prices 0.2.5", "before_usd": 1.5, "after_usd": 2.25, "saved_usd": -0.75,
            "priced_calls": 9, "unpriced_calls": 2, "unknown_models": ["mystery-1"]}
    lines = verdict("replay", ("info", ["verdict: the new tools' outputs are larger"]), {"meta": {}, "cost": cost})[1]
    assert lines[0] == ("tool outputs cost ≈ $1.50 → $2.25: the new tools cost $0.75 more (estimated, genai-prices "
                        "0.2.5, over 9 priced calls; 2 calls without a price)")
    none = {**cost, "before_usd": None, "after_usd": None, "saved_usd": None, "priced_calls": 0}
    assert verdict("replay", None, {"meta": {}, "cost": none})[1][-1].startswith("dollars unknown: no price for mystery-1")
    money = {"median": 0.5, "min": 0.25, "max": 1.0, "n": 3}
    compare = {"prices": "genai-prices 0.2.5", "a_usd": 3.0, "b_usd": 1.0, "a_unpriced_calls": 0, "b_unpriced_calls": 0,
               "per_run": {"a": {**money, "median": 1.0}, "b": money, "change": -0.5, "pct_change": -50.0},
               "why_not": None}
    doc = {"meta": {}, "overall": {"metrics": {}}, "cost": compare}
    assert verdict("compare", None, doc)[1][0] == ("tool outputs cost ≈ $1.00 → $0.50 per run (median, −$0.50); $3.00 "
                                                   "over A's runs, $1.00 over B's (estimated, genai-prices 0.2.5)")
    doc["cost"] = {**compare, "why_not": "A is a records file (`scan --records`): it names no model to price"}
    assert verdict("compare", None, doc)[1][-1] == f"dollars: not priced: {doc['cost']['why_not']}"
    gate = {"prices": "genai-prices 0.2.5", "baseline_usd": 1.0, "current_usd": 1.25, "change_usd": 0.25,
            "unpriced_calls": 0, "why_not": None}
    assert verdict("ci", ("pass", ["toolaudit ci: PASS"]), {"cost": gate})[1] == [
        "tool outputs cost ≈ $1.25 now against $1.00 in the baseline (+$0.25); estimated, genai-prices 0.2.5",
        "toolaudit ci: PASS"]


def test_dollars_read_as_a_reader_reads_them():
    assert [dollars(v) for v in (None, 0, 0.004, 0.005, 1234.567)] == ["n/a", "$0.00", "under $0.01", "$0.01",
                                                                        "$1,234.57"]
    from toolaudit.reports.html_verdict import signed

    assert [signed(v) for v in (None, 0, 0.003, -0.003, -0.4, 1.2)] == [
        "n/a", "±$0.00", "less than a cent more", "less than a cent less", "−$0.40", "+$1.20"]


def test_a_change_that_saves_nothing_says_so_in_words():
    """`the new tools save $0.00` read as a rounded saving; a replay whose variant changed nothing says `nothing`."""
    from toolaudit.reports.html_verdict import output_change

    cost = {"saved_usd": 0.0, "before_usd": 0.004, "after_usd": 0.004, "prices": "p", "priced_calls": 4,
            "unpriced_calls": 0}
    assert ": the new tools save nothing (" in output_change(cost, "the new tools")
    assert "save under $0.01" in output_change({**cost, "saved_usd": 0.001}, "the new tools")
