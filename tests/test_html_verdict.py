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
    assert replay[-1].startswith("dollars: not priced: replay measures")


def test_dollars_read_as_a_reader_reads_them():
    assert [dollars(v) for v in (None, 0, 0.004, 0.005, 1234.567)] == ["n/a", "$0.00", "under $0.01", "$0.01",
                                                                        "$1,234.57"]
