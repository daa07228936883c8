"""The prompt-cache model: hand-computed splits, and its fit to the recorded reads and writes of real sessions."""

from __future__ import annotations

from pathlib import Path

from toolaudit.model import Usage
from toolaudit.simulate import prompt_cache
from toolaudit.simulate.prompt_cache import Split, context_fit, contexts, fit, provider_of, splits

FIXTURES = Path(__file__).parent / "fixtures" / "prompt_cache"


def _u(n: int, ts: str, uncached: int, write: int, read: int, model: str = "claude-opus-4-5", hour: int = 0) -> Usage:
    return Usage("s.jsonl", n + 1, "claude-code", "s", f"msg{n}", model, uncached, write, read, 10, ts=ts,
                 request_index=n, cache_write_1h=hour)


def test_hand_computed_splits():
    requests = [
        _u(0, "2026-03-01T10:00:00Z", 10, 1000, 4000),  # first: its recorded read (another session's prefix)
        _u(1, "2026-03-01T10:00:30Z", 10, 590, 5000),  # reads the 5,000 the first left
        _u(2, "2026-03-01T10:10:00Z", 10, 5990, 0),  # 9.5 minutes later: the entry expired
        _u(3, "2026-03-01T10:10:20Z", 10, 2990, 0),  # the context shrank (a compaction): nothing read
        _u(4, "2026-03-01T10:10:40Z", 10, 510, 2980),  # grew again; a policy cut it at token 1,000
        _u(5, "2026-03-01T10:11:00Z", 5, 100, 300, model="claude-haiku-4-5"),  # another model: its own cache
    ]
    got = splits(requests, cut_at=[None, None, None, None, 1000, None])
    assert got == [Split(4000, 1000, 10), Split(5000, 590, 10), Split(0, 5990, 10), Split(0, 2990, 10),
                   Split(1000, 2490, 10), Split(300, 100, 5)]
    # a policy's totals: the second request 200 tokens smaller; the first's 5,000 are still read
    assert splits(requests[:2], totals=[5010, 5400])[1] == Split(5000, 390, 10)


def test_one_hour_writes_live_an_hour():
    requests = [_u(0, "2026-03-01T10:00:00Z", 0, 2000, 0, hour=2000), _u(1, "2026-03-01T10:30:00Z", 0, 100, 2000)]
    assert splits(requests)[1] == Split(2000, 100, 0)
    five = [_u(0, "2026-03-01T10:00:00Z", 0, 2000, 0), _u(1, "2026-03-01T10:30:00Z", 0, 100, 2000)]
    assert splits(five)[1] == Split(0, 2100, 0)


def test_contexts_are_per_file_session_and_agent_in_request_order():
    a, b = _u(1, "2026-03-01T10:00:30Z", 0, 1, 1), _u(0, "2026-03-01T10:00:00Z", 0, 1, 1)
    sub = Usage("s.jsonl", 9, "claude-code", "s", "x", "m", 0, 1, 1, 1, agent="a1", request_index=0)
    assert contexts([a, b, sub]) == {("s.jsonl", "s", "main"): [b, a], ("s.jsonl", "s", "a1"): [sub]}


def test_no_policy_reproduces_the_recorded_reads_and_writes_of_real_claude_code_sessions(corpus):
    from toolaudit.scan.job import ScanOptions, collect

    files = sorted(p for p in (corpus / "claude-code").rglob("*.jsonl"))
    collected, _ = collect(files, ScanOptions.of(calls=True))
    found = fit(collected.usage)
    assert found.contexts >= 10 and found.requests >= 80
    assert abs(found.reads_error) <= 0.05 and abs(found.writes_error) <= 0.05, found
    assert fit([]).reads_error is None


def _o(n: int, ts: str, total: int, read: int, output: int = 0, reasoning: int = 0, model: str = "gpt-5.3-codex",
       turn: bool | None = None) -> Usage:
    return Usage("r.jsonl", n + 1, "codex", "r", f"r{n}", model, total - read, 0, read, output, ts=ts,
                 request_index=n, reasoning=reasoning, turn_start=turn)


def test_openai_reads_the_whole_previous_prompt_not_its_cached_part():
    requests = [
        _o(0, "2026-03-01T10:00:00Z", 10_000, 3_456, output=300, reasoning=100),  # first: as recorded
        # reads 10,000 + the 200 visible output, in 128s (10,112), less OpenAI's median shortfall of 384: 9,728
        _o(1, "2026-03-01T10:00:05Z", 12_000, 9_728),
        _o(2, "2026-03-01T10:00:09Z", 12_500, 11_520),  # a 12,000 prompt: 11,904 (93 blocks) less 384
        _o(3, "2026-03-01T10:20:00Z", 13_000, 3_456),  # 20 minutes idle: expired, the system prompt left
        _o(4, "2026-03-01T10:20:05Z", 6_000, 3_456),  # fell by 7,000: compacted, the first read kept
    ]
    got = splits(requests)
    assert got == [Split(3_456, 0, 6_544), Split(9_728, 0, 2_272), Split(11_520, 0, 980), Split(3_456, 0, 9_544),
                   Split(3_456, 0, 2_544)]
    # the old rule read only what the previous request had read: request 1 would read 3,456
    assert context_fit(requests).reads_error == 0.0 and context_fit(requests).writes_error is None
    assert context_fit(requests).uncached_error == 0.0
    # a policy's change at token 5,000 leaves 4,992 (39 blocks) of the prompt to read
    assert splits(requests[:2], cut_at=[None, 5_000])[1] == Split(4_992, 0, 7_008)


def test_provider_by_model_name_else_by_writes():
    assert provider_of([_o(0, "2026-03-01T10:00:00Z", 10, 0)]) == "openai"
    assert provider_of([_o(0, "2026-03-01T10:00:00Z", 10, 0, model="google/gemini-3-pro-preview")]) == "gemini"
    assert provider_of([_u(0, "2026-03-01T10:00:00Z", 1, 1, 1)]) == "anthropic"
    assert provider_of([_u(0, "2026-03-01T10:00:00Z", 1, 1, 1, model=None)]) == "anthropic"
    assert provider_of([_o(0, "2026-03-01T10:00:00Z", 10, 0, model=None)]) == "openai"


def test_codex_reads_and_uncached_input_of_real_sessions_within_five_percent(corpus):
    """The shared corpus' real Codex rollouts (the set the rule was fitted on; docs/simulate.md gives the held-out
    figures): median error per context of 3 requests or more, reads and uncached input."""
    from statistics import median

    from toolaudit.scan.job import ScanOptions, collect

    files = [p for p in sorted((corpus / "codex").rglob("rollout-*.jsonl"))]
    collected, _ = collect(files, ScanOptions.of(calls=True))
    fits = [context_fit(r) for r in contexts(collected.usage).values() if len(r) >= 3]
    assert len(fits) >= 3
    assert all(f.writes_error is None and f.uncached_error is not None for f in fits)
    assert abs(median(f.reads_error for f in fits)) <= 0.05
    assert abs(median(f.uncached_error for f in fits)) <= 0.05


def test_a_turn_start_reads_no_further_than_where_the_turn_before_began_to_reason():
    # requests 0 and 1 are one turn each, 2 carries the outputs of 1's calls (same turn), 3 starts a turn
    requests = [_o(0, "2026-03-01T10:00:00Z", 10_000, 3_456, output=300, reasoning=100),
                _o(1, "2026-03-01T10:00:30Z", 11_000, 9_600, output=300, reasoning=100),
                _o(2, "2026-03-01T10:00:40Z", 30_000, 10_496, output=300, reasoning=100),
                _o(3, "2026-03-01T10:01:30Z", 30_500, 10_496, output=300, reasoning=0)]
    starts = [True, True, False, True]
    got = splits(requests, starts=starts)
    # request 3: the turn of requests 1-2 reasoned first at request 1, whose input was 11,000: its 85 blocks
    # (10,880) less the shortfall of 384, not the 30,000 of the prompt before it
    assert got[3] == Split(10_496, 0, 20_004)
    # without turns: the whole previous prompt (30,000 and the 200 visible output: 235 blocks) less 384
    assert splits(requests)[3].read == 30_080 - 384
    # request 1 starts a turn after a one-request turn that reasoned at its input (10,000): 9,984 less 384
    assert got[1].read == 9_600
    # a turn whose requests did not reason leaves the prefix whole
    quiet = [_o(n, u.ts, u.input_total, u.cache_read, output=300, reasoning=0) for n, u in enumerate(requests)]
    assert splits(quiet, starts=starts) == splits(quiet)


def test_a_real_turn_start_reads_back_to_the_turn_before():
    """Codex 0.140 / gpt-5.5, cut from a public rollout (tests/fixtures/prompt_cache/README.md): the fourth request
    starts a turn; the turn before reasoned from its first request (124,105 tokens in) and the recorded read
    stops there (123,776), 23,000 tokens short of the prompt before it."""
    from toolaudit.scan.job import ScanOptions, collect

    fixture = Path(__file__).parent / "fixtures" / "prompt_cache" / "codex-0.140.0-turns.jsonl"
    collected, _ = collect([fixture], ScanOptions.of(calls=True, cache=False))
    carrying = {m.request_index for m in collected.rows}
    (requests,) = contexts(collected.usage).values()
    starts = [u.request_index not in carrying for u in requests]
    assert starts == [True, True, False, True, True]
    recorded = [u.cache_read for u in requests]
    modelled = [s.read for s in splits(requests, starts=starts)]
    assert recorded[3] == 123_776 and abs(modelled[3] - recorded[3]) <= 256
    assert abs(modelled[4] - recorded[4]) <= 256
    assert splits(requests)[3].read - recorded[3] > 20_000  # the rule without turns reads the whole prompt


def test_recorded_turns_overrule_the_guess():
    # request 2 carries no new tool output, so it is guessed to start a turn; the transcript says no user spoke
    requests = [_o(0, "2026-03-01T10:00:00Z", 10_000, 3_456, output=300, reasoning=100, turn=True),
                _o(1, "2026-03-01T10:00:30Z", 11_000, 9_600, output=300, reasoning=100, turn=True),
                _o(2, "2026-03-01T10:00:40Z", 30_000, 10_496, output=300, reasoning=100, turn=False),
                _o(3, "2026-03-01T10:01:30Z", 30_500, 10_496, output=300, reasoning=0, turn=None)]
    guessed = [True, True, True, True]
    got = splits(requests, starts=guessed)
    # as recorded, request 2 goes on the turn of request 1: it reads request 1's whole prompt (11,200: 87 blocks,
    # less 384), not only up to where request 1 began to reason
    assert got[2].read == 87 * 128 - 384
    # request 3 records nothing: the guess stands, and the turn of 1-2 began to reason at 11,000 (85 blocks)
    assert got[3].read == 85 * 128 - 384
    # with every recorded turn hidden, request 2 starts a turn as guessed: the prefix breaks at 11,000 too
    hidden = [_o(n, u.ts, u.input_total, u.cache_read, u.output, u.reasoning) for n, u in enumerate(requests)]
    assert splits(hidden, starts=guessed)[2].read == 85 * 128 - 384
    # no guess given: turns are not counted, recorded or not
    assert splits(requests) == splits(hidden)


def _fixture(name: str) -> list[Usage]:
    from toolaudit.scan.job import ScanOptions, collect

    collected, _ = collect([FIXTURES / name], ScanOptions.of(calls=True, cache=False))
    (requests,) = contexts(collected.usage).values()
    return requests


def test_a_real_request_after_fifteen_idle_minutes_reads_only_the_stable_prefix(monkeypatch):
    """Codex 0.118 / gpt-5.4, cut from a public rollout (tests/fixtures/prompt_cache/README.md): after 59 idle
    minutes the request reads 9,600 tokens, what the session's first request read (system prompt, tools), not
    the 65,920 it would read of the prompt before it."""
    requests = _fixture("codex-0.118.0-idle-miss.jsonl")
    starts = [True] * len(requests)
    assert [u.cache_read for u in requests] == [9_600, 46_464, 9_600]
    assert splits(requests, starts=starts)[2].read == 9_600
    monkeypatch.setattr(prompt_cache, "AUTOMATIC_TTL_S", float("inf"))  # no expiry: back to where the turn reasoned
    assert splits(requests, starts=starts)[2].read == 66_391 // 128 * 128 - 384


def test_a_real_cache_outlives_ten_idle_minutes(monkeypatch):
    """Codex 0.126 / gpt-5.5, cut from a public rollout (tests/fixtures/prompt_cache/README.md): after 12 idle
    minutes the request still reads the prompt before it back to where that turn began to reason; a 10-minute
    expiry (the rule before the lifetime was fitted) would read only the first request's 6,528."""
    requests = _fixture("codex-0.126.0-idle-hit.jsonl")
    starts = [True] * len(requests)
    assert [u.cache_read for u in requests][-1] == 63_360
    assert abs(splits(requests, starts=starts)[-1].read - 63_360) <= 256
    monkeypatch.setattr(prompt_cache, "AUTOMATIC_TTL_S", 600.0)
    assert splits(requests, starts=starts)[-1].read == 6_528


def _fit_benchmark():
    import importlib.util

    spec = importlib.util.spec_from_file_location("cache_model_fit", FIXTURES.parents[2] / "benchmarks" / "cache_model_fit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_review_subagents_misses_are_told_apart_by_session_kind():
    """Codex 0.139 `codex exec` review subagent / gpt-5.5, cut from a public rollout (tests/fixtures/prompt_cache/
    README.md): in one turn, four of its five later requests read far less than the prompt before them (0, 0,
    10,240 and 0 tokens where the model reads 6,784 to 20,480), the kind of in-turn miss behind the fitted-on
    set's error; the benchmark names the session kind from `session_meta.source` and counts them."""
    bench = _fit_benchmark()
    requests = _fixture("codex-0.139.0-review-misses.jsonl")
    assert bench.kind_of(requests[0].source) == "review subagent"
    assert bench.kind_of(str(FIXTURES / "codex-0.126.0-idle-hit.jsonl")) == "main"
    assert [u.cache_read for u in requests] == [0, 0, 0, 10_240, 0, 32_256]
    counts, errors = bench._decomposed(requests, [True] + [False] * 5)
    assert counts == [5, 4, 0, 0]  # in-turn requests, their misses, turn starts, theirs (the first left out)
    as_modelled, in_turn_told, _ = errors
    assert as_modelled < -0.5 and abs(in_turn_told) < 0.02  # the misses are the whole error


def test_a_review_subagents_misses_came_in_one_morning_not_with_every_review():
    """Two Codex 0.139 review subagents of the same `codex exec` run, same commit series, same gpt-5.5 / xhigh,
    cut from public rollouts (tests/fixtures/prompt_cache/README.md): the one made at 07:35 UTC missed at four of
    its five in-turn requests, three of them reading nothing; the one made at 16:54 UTC read the prompt before
    at all five. The benchmark counts them by the UTC hour they were made in (`--hours`)."""
    bench = _fit_benchmark()
    starts = [True] + [False] * 5
    morning = _fixture("codex-0.139.0-review-misses.jsonl")
    afternoon = _fixture("codex-0.139.0-review-hits.jsonl")
    assert bench.kind_of(afternoon[0].source) == "review subagent"
    assert [u.cache_read for u in afternoon] == [1_536, 6_656, 8_192, 13_312, 13_824, 27_136]
    assert bench._by_hour(morning, starts, "2026-06-17") == {"2026-06-17 07h": [5, 4, 3]}
    assert bench._by_hour(afternoon, starts, "2026-06-17") == {"2026-06-17 16h": [5, 0, 0]}
    assert bench._by_hour(afternoon, starts, "2026-06-18") == {}
