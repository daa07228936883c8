"""advise: ranked recommendations from a cap sweep, context policies and MCP outputs, each with a real setting."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS, ROOT
from toolaudit.advise.settings import known
from toolaudit.scan.fields import json_shares


def _advise(run, *args) -> dict:
    result = run("advise", *args, "-f", "json", "-q")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_sample_logs_each_recommendation_says_its_evidence_and_what_was_left_out(run):
    doc = _advise(run, "sample_logs")
    recs = doc["recommendations"]
    assert doc["budget"]["min_net_tokens"] == 1000
    for rec in recs:
        assert set(rec["evidence"]) == {"sessions", "events"} and rec["evidence"]["sessions"] >= 1
        assert rec["risk"] is None or 0 <= rec["risk"] <= 1
        if rec["kind"] != "mcp":
            assert rec["net_tokens_saved"] >= doc["budget"]["min_net_tokens"]
    mcp = next(r for r in recs if r["tools"] == ["mcp__kanban__list_tasks"])
    # a finding, not a measured change: no setting value that nothing was simulated behind, no risk
    assert mcp["kind"] == "mcp" and mcp["fields"][0]["path"] == "tasks[].body"
    assert mcp["setting"] is None and mcp["risk"] is None
    rejected = " | ".join(doc["rejected"])
    # Claude Code offers no setting for Grep: no policy file is offered to its users
    assert "Grep (claude-code): claude-code has no setting that caps it" in rejected
    assert not any(r["tools"] == ["Grep"] for r in recs)
    # Read's limit refuses the file, which the agent reads again in parts: nothing measured, no recommendation
    assert "Read (claude-code): the setting refuses" in rejected
    # Bash's limit keeps the head: at 2,000 chars it hides what the agent used (a head-and-tail cut did not)
    assert "Bash (claude-code): no value in budget" in rejected
    # OpenHands' max_message_chars is one setting over every tool of V0 and V1 sessions, file_editor's too
    assert any("file_editor" in r and "terminal" in r and "execute_bash" in r and "(openhands)" in r
               for r in doc["rejected"])


def test_a_stricter_budget_never_picks_a_smaller_cap(run):
    loose = {tuple(r["tools"]): r for r in _advise(run, "sample_logs", "--max-later-used", "50%")["recommendations"]}
    strict = {tuple(r["tools"]): r for r in _advise(run, "sample_logs", "--max-later-used", "0")["recommendations"]}
    for tools, rec in strict.items():
        if rec["kind"] == "cap" and tools in loose:
            assert int(rec["policy"].split("=")[1]) >= int(loose[tools]["policy"].split("=")[1])


def test_bad_budget_is_a_usage_error(run):
    result = run("advise", "sample_logs", "--max-refetch", "lots")
    assert result.exit_code == 2 and "not a share" in result.output


def test_every_setting_is_backed_by_a_source_in_the_docs():
    text = (ROOT / "docs" / "advise.md").read_text(encoding="utf-8").replace("\\|", "|")
    for k in known():
        assert k.source and k.since, k
        assert k.name in text and k.source in text, f"docs/advise.md lacks {k.agent} {k.name} or its source"


def test_json_shares_names_the_fields_that_make_the_size():
    count = lambda text: len(text)  # noqa: E731  chars stand in for tokens: the shares are what is tested
    shares = json_shares('{"items": [{"id": 1, "body": "aaaaaaaaaa"}, {"id": 22, "body": "b"}], "next": null}', count)
    assert shares == {"items[].id": 3, "items[].body": 15, "next": 4}
    assert json_shares("not json", count) == {} and json_shares("[1, 2]", count) == {}


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside the project")
def test_html_draws_each_sweep(run, tmp_path):
    pytest.importorskip("altair")
    out = tmp_path / "advice.html"
    result = run("advise", str(CORPUS), "-f", "html", "-o", out, "-q")
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert "The sweep behind #1" in html and "<svg" in html


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside the project")
def test_corpus_recommendations_name_real_settings(run):
    doc = _advise(run, str(CORPUS))
    recs = doc["recommendations"]
    assert recs and any(r["setting"] for r in recs)
    names = {k.name for k in known()}
    for rec in recs:
        if rec["setting"]:
            assert rec["setting"]["name"] in names and rec["setting"]["source"]
        if rec["kind"] == "context":
            assert rec["cost_after_usd"] is None or rec["cost_after_usd"] <= rec["cost_before_usd"]
    # every context candidate over budget or raising the bill is said, not dropped silently
    assert all(": " in line for line in doc["rejected"])
    # ranked by dollars where priced, then by tokens
    priced = [r["saved_usd"] for r in recs if r["kind"] != "mcp" and r["saved_usd"] is not None]
    assert priced == sorted(priced, reverse=True)
    first_unpriced = next((i for i, r in enumerate(recs) if r["kind"] != "mcp" and r["saved_usd"] is None), len(recs))
    assert all(r["saved_usd"] is None for r in recs[first_unpriced:] if r["kind"] != "mcp")
    # a compaction that acted in one context has nothing measured behind its risk
    for rec in recs:
        if rec["kind"] == "context" and rec["evidence"]["sessions"] < 2:
            assert rec["risk"] is None
    assert not any(r["tools"] == ["Grep"] or r["tools"] == ["Glob"] for r in recs)  # Claude Code: no setting


def test_mcp_definitions_that_cost_most_are_named():
    from collections import Counter

    from toolaudit.advise.rank import _definitions
    from toolaudit.scan.menu import Definition, Menu

    menu = Menu((Definition("mcp__gh__search", 900, 40, 36_000), Definition("Read", 2_000, 40, 80_000),
                 Definition("mcp__gh__tiny", 50, 40, 2_000), Definition("mcp__db__query", 400, 200, 80_000)),
                1, 1, 240, 198_000)
    found = _definitions(menu, {"mcp__gh__search": Counter({"claude-code": 3})})
    # MCP tools only, big enough to matter, the most carried first
    assert [r.tools for r in found] == [("mcp__db__query",), ("mcp__gh__search",)]
    assert "900 tokens, carried by 40 requests" in found[1].why


def _rows(tool, calls, saved, risky, cut=1):
    from toolaudit.simulate.summary import SimRow

    return [SimRow(tool, calls=calls, affected_calls=cut, tokens_before=10_000, tokens_after=10_000 - s // 4,
                   chars_before=40_000, weighted_tokens_saved=s, later_used=r) for s, r in zip(saved, risky)]


def _sink(**sessions):
    from collections import Counter
    from types import SimpleNamespace

    return SimpleNamespace(models={t: Counter({"gpt-5.1-codex": 1}) for t in sessions},
                           sessions={t: set(s) for t, s in sessions.items()})


def test_a_setting_over_several_tools_is_swept_over_all_of_them_at_once():
    from toolaudit.advise.job import AdviseOptions
    from toolaudit.advise.rank import _setting_knee

    options = AdviseOptions.of(caps=(2000, 5000, 20000), min_net_tokens=100)
    # one later_used at 2,000 chars in apply_patch: 1 of 20 calls, over the 1% budget; in budget from 5,000
    mine = {"shell": _rows("shell", 10, (900, 700, 100), (0, 0, 0)),
            "apply_patch": _rows("apply_patch", 10, (500, 300, 50), (1, 0, 0))}
    rec, why = _setting_knee(_sink(shell=("a", "b"), apply_patch=("b", "c")), options, "codex",
                             ("apply_patch", "shell"), mine)
    assert why is None
    assert (rec.policy, rec.tools, rec.net_tokens_saved, rec.risk) == ("max_chars=5000", ("apply_patch", "shell"),
                                                                       1000, 0.0)
    assert (rec.setting.name, rec.setting.value) == ("tool_output_token_limit", "1250")  # 5,000 chars / 4
    assert rec.evidence == (3, 2)  # sessions a, b, c; the calls cut at 5,000
    assert rec.saved_usd is not None and rec.saved_usd > 0
    # below the floor: left out, and said why
    rec, why = _setting_knee(_sink(shell=("a",)), AdviseOptions.of(caps=(2000, 5000, 20000), min_net_tokens=5_000),
                             "codex", ("shell",), {"shell": mine["shell"]})
    assert rec is None and "no value in budget saves 5,000 tokens" in why


def test_each_setting_acts_as_the_agent_applies_it():
    from toolaudit.advise.acting import RefuseReread, acting, refused

    text = "".join(f"line {i:05d} of the output\n" for i in range(2000))  # 50,000 chars
    old = acting("claude-code", "Bash", "2.1.1", 2000).apply(text)
    # Claude Code's Bash keeps the head: the last lines are gone
    assert old.startswith("line 00000") and "line 01999" not in old and "lines truncated" in old
    assert "persisted-output" in acting("claude-code", "Bash", "2.1.38", 2000).apply(text)
    # Read's limit refuses the file; the agent reads it again in parts: nothing saved, nothing hidden
    read = acting("claude-code", "Read", "2.1.38", 2000)
    assert isinstance(read, RefuseReread) and refused("claude-code", "Read") and text in read.apply(text)
    assert acting("claude-code", "Grep", "2.1.38", 2000) is None  # no setting
    # OpenHands' max_message_chars cuts every observation, file_editor's as terminal's (head and tail)
    for tool in ("terminal", "file_editor"):
        cut = acting("openhands", tool, None, 2000).apply(text)
        assert cut.startswith("line 00000") and cut.rstrip().endswith("line 01999 of the output")
        assert "Observation truncated due to length" in cut and len(cut) < 2100
    # Codex's tool_output_token_limit: a middle cut in tokens of 4 bytes, on every tool
    assert "tokens truncated" in acting("codex", "apply_patch", "0.142.0", 2000).apply(text)


def test_a_context_risk_with_nothing_behind_it_is_unknown():
    from types import SimpleNamespace

    from toolaudit.advise.rank import _context_risk

    assert _context_risk(SimpleNamespace(acted_contexts=1, removed_calls=40, refetched=0), 100) is None
    assert _context_risk(SimpleNamespace(acted_contexts=3, removed_calls=0, refetched=0), 100) is None
    assert _context_risk(SimpleNamespace(acted_contexts=3, removed_calls=40, refetched=2), 100) == 0.02


def test_ranked_by_dollars_where_priced_then_tokens():
    from toolaudit.advise.rank import Recommendation, _order

    def rec(tokens, usd):
        return Recommendation("cap", ("t",), "max_chars=1", tokens, 0.0, None, "", saved_usd=usd)

    recs = [rec(5_000_000, None), rec(20_000, 0.03), rec(9_000, 2.09)]
    assert [r.saved_usd for r in sorted(recs, key=_order)] == [2.09, 0.03, None]


def test_advise_reads_the_tool_definitions_in_its_one_pass_as_scan_does():
    """The menus advise folds (to name costly MCP definitions) are scan's, without a second pass over the files."""
    import toolaudit
    from toolaudit.options import InputOptions
    from toolaudit.pipeline import FileOptions, gather, simulate_file
    from toolaudit.scan.menu import menu_summary
    from toolaudit.simulate.policymap import PolicyMap
    from toolaudit.simulate.summary import SimCollected

    read = InputOptions(cache=False)
    sink = gather([ROOT / "sample_logs"], read, FileOptions.of(read), SimCollected([""], [()]),
                  worker=simulate_file, extra=([PolicyMap()], False, True, True))
    assert menu_summary(list(sink.menus.values())) == toolaudit.scan([ROOT / "sample_logs"], cache=False).menu
