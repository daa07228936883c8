"""Compaction as the agents do it: fixtures cut from real compactions (tests/fixtures/compaction), read the way
benchmarks/compaction_fit.py reads the full recordings, and the compaction policy worked by hand."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from toolaudit.model import Usage
from toolaudit.simulate import context
from toolaudit.simulate.context.compact import Compact, cached_prefix, fixed_prefix
from toolaudit.simulate.context.timeline import Output, build

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "compaction"


def _bench():
    spec = importlib.util.spec_from_file_location("compaction_fit", HERE.parent / "benchmarks" / "compaction_fit.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, version, fired, after", [
    ("claude-code-2.0.76.jsonl", "2.0.76", 155_104, 52_979),
    ("claude-code-2.1.39.jsonl", "2.1.39", 166_223, 48_220),
    ("codex-0.141.0.jsonl", "0.141.0", 226_546, 21_416),
])
def test_recorded_compactions_are_predicted_within_the_budget(name, version, fired, after):
    found = _bench().collect([FIXTURES / name])
    assert len(found) == 1
    compaction, old_fixed = found[0]
    assert (compaction.version, compaction.fired, compaction.after) == (version, fired, after)
    # where the agent's preset (at the session's version) compacts: within 5,000 tokens of where the agent did
    predicted = compaction.predicted_fire()
    assert predicted is not None and abs(predicted - fired) <= 5_000
    # the first request after it: the fixed prefix, the summary, the re-attached files; within 15%
    assert abs(compaction.predicted_after() - after) / after <= 0.15
    # the model before: a 3,000-token summary after the prefix alone, 30% or more under the record
    assert (compaction.before_after(old_fixed) - after) / after < -0.25


def test_claude_code_versions_have_their_own_trigger():
    assert context.parse("claude-code@2.0.76").at == 155_000  # 200k − min(max output, 32k) − 13k
    assert context.parse("claude-code@2.1.20").at == 155_000
    assert context.parse("claude-code@2.1.21").at == context.parse("claude-code").at == 167_000
    assert context.parse("claude-code@2.1.39").files == 5
    assert context.parse("codex@0.141.0") == context.parse("codex")
    # codex-rs: 90% of the gpt-5 family's 272k window, the earlier turns' reasoning counted too (fitted share)
    assert (context.parse("codex").at, context.parse("codex").reasoning) == (244_800, 125)
    with pytest.raises(Exception, match="a version is N.N.N"):
        context.parse("claude-code@latest")


def test_reattached_files_are_the_newest_five_each_within_its_limit():
    policy = Compact(files=5, file_tokens=5_000, files_budget=9_000)
    # oldest first: the newest five are 400, 6,000 (over 5,000: left out), 3,000, 2,500, 4,000; 9,000 together
    assert policy.reattached([9_999, 400, 6_000, 3_000, 2_500, 4_000]) == 4_000 + 2_500 + 400
    assert Compact().reattached([1_000]) == 0  # an agent that re-attaches nothing
    assert policy.reattached([700, 800]) == 1_500  # fewer reads than files: all of them
    assert policy.rebuilt(30_000, [1_000]) == 30_000 + policy.summary + 1_000


def _usage(n: int, total: int, read: int) -> Usage:
    return Usage("s.jsonl", n + 1, "claude-code", "s", f"msg{n}", "claude-opus-4-5", 0, total - read, read, 50,
                 request_index=n)


def test_compaction_reattaches_the_reads_and_adds_the_rest():
    # requests of 1,000 … 2,000 tokens; requests 1 and 2 first carry a Read of 100 and a Bash of 100
    totals = [1000, 1200, 1400, 1600, 1800, 2000]
    usage = [_usage(n, t, totals[n - 1] if n else 300) for n, t in enumerate(totals)]
    outputs = [Output(1, 6, 100, 100, "Read"), Output(2, 6, 100, 100, "Bash")]
    timeline = build(usage, outputs)
    base = timeline.base()
    effect = Compact(at=1700, summary=50, files=5, extra=20).apply(timeline, base, timeline.positions(base),
                                                                  lambda t: 10)
    # request 4 would carry 1,800: the 1,600 before it become 1,000 (the first request) + 50 + 100 (the Read) + 20
    assert effect.summaries == ((4, 1600, 50),)
    assert effect.totals[3:] == (1600, 1800 - 430, 2000 - 430)
    assert effect.cut_at[4] == 300  # the first request's read: what stays in the cache
    assert effect.removed_at == (4, 4)


def test_the_fixed_prefix_is_the_first_request_and_the_cache_keeps_what_the_agent_read():
    usage = [_usage(0, 30_000, 12_000), _usage(1, 150_000, 30_000), _usage(2, 25_000, 18_000),
             _usage(3, 30_000, 25_000)]
    timeline = build(usage, [])
    assert fixed_prefix(timeline) == 30_000
    assert cached_prefix(timeline, 30_000) == 18_000  # read right after the recorded shrink
    assert cached_prefix(build(usage[:2], []), 30_000) == 12_000  # else the first request's read
    assert fixed_prefix(build([_usage(0, 90_000, 0)], [])) == 45_000  # a resumed history: capped
    assert fixed_prefix(build([_usage(0, 90_000, 0)], []), continued=42_400) == 42_400  # or a fresh one's size


def test_a_continued_context_keeps_a_fresh_contexts_prefix():
    # Claude Code 2.1.7 compacted a context whose first request (68,242 tokens) held the history of the session it
    # continued: what the compaction kept of it is a fresh context's prefix (the preset's `continued`, the median
    # first input of the fresh contexts fitted on), not the history capped at 45,000 (+20.1% then)
    (compaction, _), = _bench().collect([FIXTURES / "claude-code-2.1.7-continued.jsonl"])
    assert (compaction.first_input, compaction.fired, compaction.after) == (68_242, 155_017, 45_932)
    assert compaction.policy.continued == context.parse("claude-code").continued == 42_400
    assert compaction.fixed == 42_400
    assert abs(compaction.predicted_after() - 45_932) / 45_932 <= 0.15
    assert abs(compaction.predicted_fire() - 155_017) <= 5_000


def test_a_compaction_the_session_made_a_request_later_is_the_same_one():
    # the policy would fire before request 3 (160,000 ≥ 150,000); the agent compacted right after it (request 4
    # fell to 40,000): that is the compaction already in the numbers, not a second one
    totals = [100_000, 120_000, 140_000, 160_000, 40_000, 60_000]
    usage = [_usage(n, t, 0) for n, t in enumerate(totals)]
    timeline = build(usage, [])
    base = timeline.base()
    effect = Compact(at=150_000, summary=50).apply(timeline, base, timeline.positions(base), lambda t: 10)
    assert effect.summaries == () and effect.totals == tuple(totals)
    # without the recorded compaction after it, the policy fires there
    timeline = build(usage[:4], [])
    base = timeline.base()
    assert Compact(at=150_000, summary=50).apply(timeline, base, timeline.positions(base), lambda t: 10).summaries


def test_codex_counts_the_earlier_turns_reasoning_where_it_fires():
    # the fixture keeps every request and user message before the compaction: the input alone (226,546) and the
    # last count without the earlier turns' reasoning (about 243,000) stay under 244,800; Codex fired there
    compaction, _ = _bench().collect([FIXTURES / "codex-0.141.0.jsonl"])[0]
    assert compaction.trigger == "auto" and compaction.policy.at == 244_800  # 95% of 272k recorded: 258,400
    assert compaction.predicted_fire(reasoning=0) is None
    assert compaction.earlier[-1] > 10_000  # the reasoning of the turns before the one it fired in
    assert compaction.predicted_fire() == 226_546


def _codex_usage(n: int, total: int, reasoning: int) -> Usage:
    return Usage("r.jsonl", n + 1, "codex", "r", f"r#{n}", "gpt-5.5", total, 0, 0, 100, request_index=n,
                 reasoning=reasoning)


def test_the_codex_count_adds_the_reasoning_of_earlier_turns_only():
    # requests 0 and 2 start turns (no tool output arrives with them); 1 and 3 carry the outputs of a call
    totals, reasoning = [1_000, 1_300, 1_500, 1_700, 1_900], [400, 300, 200, 100, 0]
    usage = [_codex_usage(n, t, r) for n, (t, r) in enumerate(zip(totals, reasoning))]
    outputs = [Output(1, 5, 100, 100, "exec_command"), Output(3, 5, 100, 100, "exec_command"),
               Output(4, 5, 100, 100, "exec_command")]
    timeline = build(usage, outputs)
    base = timeline.base()

    def fires(policy: Compact) -> tuple[int, ...]:
        return tuple(r for r, *_ in policy.apply(timeline, base, timeline.positions(base), lambda t: 10).summaries)

    # the input alone passes 2,000 nowhere; before request 3 the turn of requests 0-1 is an earlier one: its
    # 700 reasoning tokens count (1,700 + 700 = 2,400), not the 200 of the turn request 3 belongs to
    assert fires(Compact(at=2_000, summary=50)) == ()
    assert fires(Compact(at=2_400, summary=50, reasoning=100)) == (3,)
    assert fires(Compact(at=2_401, summary=50, reasoning=100)) == (4,)  # 1,900 + 700 (request 3 is this turn's)
    assert fires(Compact(at=2_000, summary=50, reasoning=50)) == (3,)  # 1,700 + 350


def _attachments():
    spec = importlib.util.spec_from_file_location("compaction_attachments",
                                                  HERE.parent / "benchmarks" / "compaction_attachments.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_claude_code_reattachments_rebuilt_from_the_transcript():
    # the 2.1.39 fixture keeps the last five Reads before the compaction, each read whole: one entry per file,
    # each within 5,000 tokens, re-attached with its line numbers; no todo list, plan or skill in the cut
    from toolaudit.tokenizers import get_tokenizer

    found = _attachments().attachments(FIXTURES / "claude-code-2.1.39.jsonl", get_tokenizer().count)
    (rebuilt,) = found.values()
    assert (rebuilt["todos"], rebuilt["plan"], rebuilt["skills"]) == (0, 0, 0)
    assert 0 < rebuilt["files"] <= 5 * 5_000


def test_an_edit_is_applied_to_the_text_a_whole_read_gave():
    module = _attachments()
    assert module._edited("a b a", [{"old_string": "a", "new_string": "c"}]) == "c b a"
    assert module._edited("a b a", [{"old_string": "a", "new_string": "c", "replace_all": True}]) == "c b c"
    assert module._edited(None, [{"old_string": "a", "new_string": "c"}]) is None  # a file read in parts
    assert module._render("x\ny") == "     1→x\n     2→y"
