"""Context policies (simulate --context): hand-computed removals, cache cuts, refetches, and real sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.model import ModelText, ToolCall, Usage
from toolaudit.simulate import context
from toolaudit.simulate.context.clear import Clear
from toolaudit.simulate.context.compact import Compact
from toolaudit.simulate.context.mask import Mask
from toolaudit.simulate.context.run import ContextRun
from toolaudit.simulate.context.timeline import Output, build
from toolaudit.simulate.prompt_cache import Split, shifted
from toolaudit.errors import UsageError

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
ONE = lambda text: 10  # noqa: E731  every placeholder: 10 tokens


def _usage(n: int, total: int, read: int) -> Usage:
    return Usage("s.jsonl", n + 1, "claude-code", "s", f"msg{n}", "claude-opus-4-5", 0, total - read, read, 50,
                 request_index=n)


def _session(uses: dict[int, tuple[int, ...]] | None = None) -> tuple[list[Usage], list[Output]]:
    """Six requests of 1,000 … 2,000 input tokens; requests 1-5 each first carry one 100-token output
    (a … e), which stays to the end. Recorded reads: the previous request's whole input."""
    totals = [1000, 1200, 1400, 1600, 1800, 2000]
    usage = [_usage(n, t, totals[n - 1] if n else 0) for n, t in enumerate(totals)]
    uses = uses or {}
    outputs = [Output(k, 6, 100, 100, "Read", uses.get(k, ())) for k in range(1, 6)]
    return usage, outputs


def _effect(policy, usage, outputs):
    timeline = build(usage, outputs)
    base = timeline.base()
    return timeline, policy.apply(timeline, base, timeline.positions(base), ONE)


def test_positions_are_at_the_end_of_the_first_request_that_carried_them():
    timeline = build(*_session())
    assert timeline.positions(timeline.base()) == [1100, 1300, 1500, 1700, 1900]


def test_masking_two_turns_removes_a_known_set():
    timeline, effect = _effect(Mask(keep=2), *_session())
    # a (first carried by request 1) is masked from request 3, b from 4, c from 5; d and e never leave
    assert effect.removed_at == (3, 4, 5, None, None)
    assert effect.totals == (1000, 1200, 1400, 1600 - 90, 1800 - 180, 2000 - 270)
    # the first output each request drops, less what the drops before it took off
    assert effect.cut_at == (None, None, None, 1100, 1300 - 90, 1500 - 180)
    assert effect.placeholders == (0, 0, 0, 1, 2, 3)
    requests = list(timeline.requests)
    assert shifted(requests, list(effect.totals), list(effect.cut_at), list(effect.tail_removed)) == [
        Split(0, 1000, 0), Split(1000, 200, 0), Split(1200, 200, 0),
        Split(1100, 410, 0), Split(1210, 410, 0), Split(1320, 410, 0)]


def test_clearing_invalidates_the_cache_where_it_clears():
    timeline, effect = _effect(Clear(trigger=1500, keep=1), *_session())
    # request 3 passes 1,500: all but the last tool use (c) cleared; then d's and e's turn pushes c, d out
    assert effect.removed_at == (3, 3, 4, 5, None)
    assert effect.totals == (1000, 1200, 1400, 1420, 1530, 1640)
    assert effect.cut_at == (None, None, None, 1100, 1500 - 180, 1700 - 270)
    assert shifted(list(timeline.requests), list(effect.totals), list(effect.cut_at), list(effect.tail_removed))[3:] == [
        Split(1100, 320, 0), Split(1320, 210, 0), Split(1430, 210, 0)]


def test_clear_at_least_waits_until_a_clearing_is_worth_its_cache_write():
    timeline, effect = _effect(Clear(trigger=1500, keep=1, clear_at_least=200), *_session())
    # request 3 could free 180 (< 200): nothing; request 4 frees a, b, c (270) at once; d waits
    assert effect.removed_at == (4, 4, 4, None, None)
    assert effect.cut_at == (None, None, None, None, 1100, None)
    assert shifted(list(timeline.requests), list(effect.totals), list(effect.cut_at), list(effect.tail_removed))[3:] == [
        Split(1400, 200, 0), Split(1100, 430, 0), Split(1530, 200, 0)]


def test_clear_spares_excluded_tools_and_takes_inputs_when_asked():
    usage, outputs = _session()
    outputs = [Output(o.first, o.end, o.tokens, o.recorded, "Grep" if o.first == 1 else "Read", (), 20)
               for o in outputs]
    _, effect = _effect(Clear(trigger=1500, keep=1, exclude=("gr*",), inputs=True), usage, outputs)
    assert effect.removed_at == (None, 3, 4, 5, None)
    assert effect.totals[3] == 1600 - (100 + 20 - 10)


def test_a_refetch_is_counted_once():
    usage, outputs = _session(uses={1: (2, 3, 4)})  # a's items written at requests 2, 3 and 4
    run = ContextRun(Mask(keep=2), ONE)
    timeline = build(usage, outputs)
    run.add(("s.jsonl", "s", "main"), timeline, [True] * 6)
    t = run.tally
    # a is masked from request 3; the use at 2 saw it; 3 and 4 did not: one refetch, carried from request 4 on
    # for min(keep 2, the 2 requests left) requests
    assert (t.removed_calls, t.refetched, t.refetch_tokens) == (3, 1, 200)
    assert t.gross_tokens_saved == 90 + 180 + 270
    assert t.net_tokens_saved == t.gross_tokens_saved - 200
    assert t.cache_invalidations == 3
    # a copy of the same context in another file (a resumed session) counts nothing twice
    copy = build(usage, [Output(o.first, o.end, o.tokens, o.recorded, o.tool, o.uses, 0, False) for o in outputs])
    run.add(("t.jsonl", "s", "main"), copy, [False] * 6)
    assert (t.removed_calls, t.refetched, t.requests) == (3, 1, 6)


def test_compaction_replaces_the_context_by_a_summary():
    usage, outputs = _session()
    usage[0] = _usage(0, 300, 0)  # the first request: 300 tokens (system prompt, tools, the first prompt)
    timeline, effect = _effect(Compact(at=1500, summary=50), usage, outputs)
    # request 3 would carry 1,600: the 1,400 before it become 300 (the fixed prefix) + 50 (the summary)
    assert effect.summaries == ((3, 1400, 50),)
    assert effect.totals[3:] == (1600 - 1050, 1800 - 1050, 2000 - 1050)
    assert effect.cut_at[3] == 300
    assert effect.removed_at == (3, 3, None, None, None)
    after = shifted(list(timeline.requests), list(effect.totals), list(effect.cut_at), list(effect.tail_removed))
    # the prefix is read; the summary and the new turn are written; then the context is read on
    assert after[3:] == [Split(300, 250, 0), Split(550, 200, 0), Split(750, 200, 0)]


def _openai(n: int, total: int, read: int) -> Usage:
    return Usage("s.jsonl", n + 1, "codex", "s", f"r{n}", "gpt-5.1-codex", total - read, 0, read, 50, request_index=n)


def test_a_cap_lowers_an_automatic_caches_bill_and_no_read_passes_a_cut():
    """OpenAI-style usage (no writes; what is not read is input): each request read the one before it whole.
    A 10-token cut of the output request 1 first carried comes off that request's new input, then off the
    prefix the later requests read; nothing moves from read to input."""
    usage = [_openai(n, 10_000 + 1_000 * n, 10_000 + 1_000 * (n - 1) if n else 0) for n in range(6)]
    outputs = [Output(1, 6, 890, 900, "shell")]
    timeline = build(usage, outputs)
    from toolaudit.simulate.context.effect import unchanged

    effect = unchanged(timeline, timeline.base())
    after = shifted(list(timeline.requests), list(effect.totals), list(effect.cut_at), list(effect.tail_removed))
    assert after[1] == Split(10_000, 0, 990) and after[2] == Split(10_990, 0, 1_000)
    assert all(a.read <= u.cache_read and a.uncached <= u.input_uncached for a, u in zip(after, usage))
    # a cut at token 5,000 caps the read, whatever the record read (the rest is written again: for a provider
    # that charges no write, simulate counts it as input)
    assert shifted(usage[3:4], [12_990], [5_000], [0]) == [Split(5_000, 6_990, 1_000)]


def test_no_policy_keeps_the_recorded_bill():
    usage, outputs = _session()
    run = ContextRun(None, ONE)
    run.add(("s.jsonl", "s", "main"), build(usage, outputs), [True] * 6)
    t = run.tally
    assert t.before == t.after and t.gross_tokens_saved == 0 and t.cache_invalidations == 0


def test_later_uses_names_the_requests_that_wrote_an_output_item():
    from toolaudit.simulate.engine import later_uses, _events, _said

    calls = [ToolCall("f", 2, "claude-code", "s", "Read", "def parse_config():\n    load_yaml_file()\n",
                      call_id="a", request_index=1, call_line=1),
             ToolCall("f", 4, "claude-code", "s", "Read", "other", call_id="b", request_index=2, call_line=3,
                      args='{"q": "parse_config"}')]
    stream = [calls[0], calls[1], ModelText("f", 5, "s", "now load_yaml_file is the one")]
    events = _events(stream, _said(stream))
    # parse_config is first written in b's arguments (request 1's answer), load_yaml_file after b's output (2)
    assert later_uses(events, calls, [c.output for c in calls]) == [(1, 2), ()]


@pytest.mark.parametrize("spec, error", [
    ("mask:keep=x", "whole number"), ("shrink:at=3", "unknown policy"), ("clear:keeep=3", "unknown parameter"),
    ("clear:inputs=maybe", "true or false"), ("mask:keep", "KEY=VALUE")])
def test_bad_specs_are_usage_errors(spec, error):
    with pytest.raises(UsageError, match=error):
        context.parse(spec)


def test_specs_parse():
    assert context.parse("none") is None
    assert context.parse("mask:keep=3,placeholder=gone, see above") == Mask(3, "gone, see above")
    assert context.parse("clear:trigger=80_000,keep=2,exclude=Read|Grep,inputs=true") == Clear(
        80000, 2, 0, ("Read", "Grep"), True)
    assert context.sweep_of("mask.keep=1:3") == ("mask", "keep", [1, 2, 3])
    assert context.sweep_of("max_chars=1,2") is None
    assert context.parse("claude-code") == Compact(167000, 2700, 5, 5000, 50000, 4000, continued=42400)
    assert context.parse("anthropic-clear") == Clear(100000, 3)
    for policy in (Mask(), Clear(50000, 2, 20000, ("Read", "Bash"), True), Compact(at=90000, summary=500)):
        assert context.parse(context.spec_of(policy)) == policy  # spec_of is parse's inverse
    assert context.spec_of(Compact(at=100000)) == "compact:at=100000"  # defaults left unsaid, the trigger said


def _json(run, *args):
    result = run("simulate", *args, "-f", "json", "-q")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_cli_mask_on_a_sample_session(run):
    doc = _json(run, "sample_logs/claude-code", "--context", "mask:keep=2", "--per-request")
    totals, ctx = doc["totals"], doc["context"]
    assert ctx["per_request"] and ctx["billed_contexts"] >= 1
    assert totals["net_tokens_saved"] == ctx["gross_tokens_saved"] - totals["refetch_tokens"]
    assert ctx["input_after"]["input"] < ctx["input_before"]["input"]
    assert totals["cost_before_usd"] is not None and totals["cost_after_usd"] is not None
    assert totals["cache_invalidations"] == sum(r["cut_at"] is not None for r in ctx["per_request"])


def test_cli_caps_and_a_context_policy_combine(run):
    masked = _json(run, "sample_logs/claude-code", "--context", "mask:keep=2")["context"]
    capped = _json(run, "sample_logs/claude-code", "--max-chars", "2000")
    both = _json(run, "sample_logs/claude-code", "--context", "mask:keep=2", "--max-chars", "2000")
    # the caps take their share off first (removed_by_caps: tokens × the requests that carried them), and a
    # capped output masked later leaves less to remove than a whole one
    assert both["context"]["removed_by_caps"] > 0
    assert both["totals"]["tokens_saved"] == capped["totals"]["tokens_saved"]
    assert both["context"]["gross_tokens_saved"] > masked["gross_tokens_saved"]
    assert both["context"]["gross_tokens_saved"] - both["context"]["removed_by_caps"] <= masked["gross_tokens_saved"]


def test_cli_context_sweep(run):
    doc = _json(run, "sample_logs/claude-code", "--sweep", "mask.keep=1,2,50")
    assert doc["meta"]["sweep"] == "mask.keep"
    saved = [row["net_tokens_saved"] + row["refetch_tokens"] for row in doc["sweep"]]
    assert saved[0] >= saved[1] >= saved[2] == 0  # a longer window removes less; 50 turns removes nothing


def test_cli_usage_errors(run):
    result = run("simulate", "sample_logs/claude-code", "--context", "mask:keep=two")
    assert result.exit_code == 2 and "whole number" in result.output
    result = run("simulate", "sample_logs/claude-code", "--max-chars", "10", "--per-request")
    assert result.exit_code == 2 and "--context" in result.output


@pytest.mark.skipif(not (CORPUS / "claude-code").is_dir(), reason="../shared/corpus is not beside the project")
def test_no_policy_fit_on_the_corpus_claude_code_sessions(run):
    doc = _json(run, str(CORPUS / "claude-code"), "--context", "none")
    fit = doc["cache_model"]
    assert fit == doc["context"]["cache_model"]
    assert abs(fit["reads_error"]) < 0.05 and abs(fit["writes_error"]) < 0.05
    assert doc["totals"]["cost_before_usd"] == doc["totals"]["cost_after_usd"]
    assert doc["context"]["input_before"] == doc["context"]["input_after"]


def test_html_shows_the_bill_by_kind_and_a_context_sweep(run, tmp_path):
    pytest.importorskip("altair")
    one, sweep = tmp_path / "one.html", tmp_path / "sweep.html"
    assert run("simulate", "sample_logs/claude-code", "--context", "mask:keep=2", "-f", "html", "-o", one,
               "-q").exit_code == 0
    assert "The bill by kind of input, before and after" in one.read_text(encoding="utf-8")
    assert run("simulate", "sample_logs/claude-code", "--sweep", "mask.keep=1:4", "-f", "html", "-o", sweep,
               "-q").exit_code == 0
    html = sweep.read_text(encoding="utf-8")
    assert "Sweep of mask.keep" in html and "cache invalidations" in html


def test_the_api_gives_each_requests_counterfactual_context_as_a_frame():
    pytest.importorskip("pandas")
    import toolaudit

    result = toolaudit.simulate(["sample_logs/claude-code"], context="mask:keep=2", per_request=True)
    frame = result.to_pandas("requests")
    assert len(frame) == result.variants[0].context.requests and {"input_before", "input_after", "placeholders",
                                                                  "cut_at"} <= set(frame.columns)
    assert (frame["input_after"] <= frame["input_before"]).all()


def test_a_text_only_answer_is_the_request_its_usage_names():
    """The model writes an output's item in its answer to request 3, after a user turn with no tool output:
    the usage record of that answer names the request, not the last output's."""
    from toolaudit.simulate.engine import later_uses, _events, _said

    call = ToolCall("f", 2, "claude-code", "s", "Read", "see src/app/checkout.py\n", call_id="a", request_index=1,
                    call_line=1)
    stream = [call, ModelText("f", 8, "s", "the fix goes in src/app/checkout.py")]
    usage = [_usage(n, 1000 + 100 * n, 0) for n in range(4)]
    usage = [Usage(u.source, line, u.collector, u.session, u.request_id, u.model, u.input_uncached, u.cache_write,
                   u.cache_read, u.output, request_index=u.request_index) for u, line in zip(usage, (1, 3, 5, 8))]
    events = _events(stream, _said(stream))
    assert later_uses(events, [call], [call.output]) == [(1,)]  # without usage: the last output's request
    assert later_uses(events, [call], [call.output], usage) == [(3,)]


def test_item_search_reads_a_long_output_in_pieces():
    from toolaudit.simulate.risk import LOCATE_CHUNK, ItemSearch

    text = "0123 " * (3 * LOCATE_CHUNK // 5) + "parse_config_file\n"  # the item lies past the first pieces
    edge = "x" * (LOCATE_CHUNK - 3) + " handle_request\n"  # the item straddles the first piece's end
    search = ItemSearch(["parse_config_file", "handle_request", "0123"])
    assert search.items_in(text) == {"parse_config_file", "0123"}
    assert search.items_in(edge) == {"handle_request"}


def test_mask_keeps_at_least_one_turn_and_exclude_globs_are_trimmed():
    with pytest.raises(UsageError, match="keep must be 1 or more"):
        context.parse("mask:keep=0")
    assert context.parse("clear:exclude=Read | Bash").exclude == ("Read", "Bash")


def test_cli_clearing_tool_inputs_counts_the_calls_arguments(run):
    results = _json(run, "sample_logs/claude-code", "--context", "clear:trigger=1000,keep=1")["context"]
    inputs = _json(run, "sample_logs/claude-code", "--context", "clear:trigger=1000,keep=1,inputs=true")["context"]
    assert inputs["gross_tokens_saved"] > results["gross_tokens_saved"]  # the arguments go too
