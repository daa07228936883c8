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


def test_sample_logs_ranked_with_knees_and_settings(run):
    doc = _advise(run, "sample_logs")
    recs = doc["recommendations"]
    ranked = [r["net_tokens_saved"] for r in recs if r["kind"] != "mcp"]
    assert ranked == sorted(ranked, reverse=True) and ranked[0] > 0
    by_tool = {tuple(r["tools"]): r for r in recs}
    for rec in (r for r in recs if r["kind"] == "cap"):
        # the knee: the smallest swept value in budget that saves something; every smaller one is over budget
        # or saves nothing
        chosen = rec["policy"].split("=")[1]
        values = [p["value"] for p in rec["curve"]]
        before = rec["curve"][:values.index(chosen)]
        assert all(not p["in_budget"] or p["net_tokens_saved"] <= 0 for p in before)
        assert rec["risk"] <= doc["budget"]["max_later_used"]
    assert by_tool[("Bash",)]["setting"]["name"] == "BASH_MAX_OUTPUT_LENGTH"
    assert by_tool[("Bash",)]["setting"]["value"] == by_tool[("Bash",)]["policy"].split("=")[1]
    assert by_tool[("Grep",)]["setting"] is None and by_tool[("Grep",)]["policy_file"].startswith('["Grep"]')
    mcp = by_tool[("mcp__kanban__list_tasks",)]
    assert mcp["kind"] == "mcp" and mcp["fields"][0]["path"] == "tasks[].body"
    assert mcp["setting"]["name"] == "MAX_MCP_OUTPUT_TOKENS"


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


def test_html_draws_each_sweep(run, tmp_path):
    pytest.importorskip("altair")
    out = tmp_path / "advice.html"
    result = run("advise", "sample_logs", "-f", "html", "-o", out, "-q")
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


def test_a_setting_that_governs_several_tools_is_recommended_once():
    from collections import Counter

    from toolaudit.advise.rank import Point, Recommendation, _one_per_setting
    from toolaudit.advise.settings import for_cap

    def rec(tool, cap, saved_at):
        curve = tuple(Point(str(v), saved_at[v], 0.0, True) for v in (2000, 5000, 20000))
        return Recommendation("cap", (tool,), f"max_chars={cap}", saved_at[cap], 0.0,
                              for_cap("codex", tool, cap, cap // 4), "", None, curve, per_char=0.25, cap=cap)

    shell = rec("shell", 5000, {2000: 900, 5000: 700, 20000: 100})
    patch = rec("apply_patch", 20000, {2000: 500, 5000: 300, 20000: 50})
    merged = _one_per_setting([shell, patch], {"shell": Counter({"codex": 3}), "apply_patch": Counter({"codex": 2})})
    assert len(merged) == 1
    one = merged[0]
    # the larger knee, so that apply_patch stays in budget; the saving is both tools' at that value
    assert (one.policy, one.tools, one.net_tokens_saved) == ("max_chars=20000", ("shell", "apply_patch"), 150)
    assert (one.setting.name, one.setting.value) == ("tool_output_token_limit", "5000")


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
