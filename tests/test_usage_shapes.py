"""Claude Code usage as current versions write it: the cache-write breakdown by lifetime, and the
per-iteration usage of a request that compacted (the top-level numbers are the last iteration's only).

The line shapes follow the corpus (../shared/corpus/claude-code/spotter/*.jsonl: `cache_creation` with
`ephemeral_1h_input_tokens` / `ephemeral_5m_input_tokens`, `iterations: []`); the numbers are ours.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.collectors.base import anthropic_1h, anthropic_parts, anthropic_steps
from toolaudit.model import Usage
from toolaudit.scan.billing import request_cost

MODEL = "claude-sonnet-4-5-20250929"
# claude-sonnet-4-5 base tier per MTok: $3 input, $3.75 5-minute cache write, $6 1-hour write, $0.30 read, $15 output
INPUT, WRITE_5M, WRITE_1H, READ, OUTPUT = 3, 3.75, 6, 0.30, 15


def _usage(**numbers) -> dict:
    """A usage object shaped as Claude Code 2.x writes it (server_tool_use, service_tier, iterations)."""
    usage = {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0,
             "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard",
             "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
             "inference_geo": "", "iterations": []}
    usage.update(numbers)
    return usage


# the line of the issue: the total says 0 written, its 1-hour breakdown 2,505
BREAKDOWN_ONLY = _usage(input_tokens=3, cache_read_input_tokens=20_000, output_tokens=120,
                        cache_creation={"ephemeral_1h_input_tokens": 2505, "ephemeral_5m_input_tokens": 0})
# a request that compacted: the numbers sit only in its iterations (a compaction, then the message)
ITERATIONS_ONLY = _usage(iterations=[
    {"type": "compaction", "input_tokens": 180_000, "output_tokens": 3500, "cache_read_input_tokens": 0,
     "cache_creation_input_tokens": 0},
    {"type": "message", "input_tokens": 2000, "output_tokens": 1000, "cache_read_input_tokens": 0,
     "cache_creation_input_tokens": 21_000,
     "cache_creation": {"ephemeral_1h_input_tokens": 21_000, "ephemeral_5m_input_tokens": 0}},
])
# the API's own compaction example: top-level = the message iteration, the compaction iteration beside it
ITERATIONS_AND_TOP = _usage(input_tokens=23_000, output_tokens=1000, iterations=[
    {"type": "compaction", "input_tokens": 180_000, "output_tokens": 3500, "cache_read_input_tokens": 0,
     "cache_creation_input_tokens": 0},
    {"type": "message", "input_tokens": 23_000, "output_tokens": 1000, "cache_read_input_tokens": 0,
     "cache_creation_input_tokens": 0},
])


def test_a_breakdown_larger_than_its_total_is_the_cache_write():
    assert anthropic_parts(BREAKDOWN_ONLY) == (3, 2505, 20_000, 120)
    assert anthropic_1h(BREAKDOWN_ONLY) == 2505
    both = _usage(cache_creation_input_tokens=100,
                  cache_creation={"ephemeral_1h_input_tokens": 40, "ephemeral_5m_input_tokens": 60})
    assert anthropic_parts(both)[1] == 100 and anthropic_1h(both) == 40


def test_each_iteration_is_a_step_and_the_message_stands_for_the_request():
    assert anthropic_steps(ITERATIONS_ONLY) == [("", (2000, 21_000, 0, 1000, 21_000)),
                                                ("compaction0", (180_000, 0, 0, 3500, 0))]
    assert anthropic_parts(ITERATIONS_ONLY) == (2000, 21_000, 0, 1000) and anthropic_1h(ITERATIONS_ONLY) == 21_000
    # the top level is the message step: not counted twice
    assert anthropic_steps(ITERATIONS_AND_TOP) == [("", (23_000, 0, 0, 1000, 0)),
                                                   ("compaction0", (180_000, 0, 0, 3500, 0))]
    # iterations without the message's own entry: the top level is that message
    compaction_only = _usage(input_tokens=23_000, output_tokens=1000, iterations=[
        {"type": "compaction", "input_tokens": 180_000, "output_tokens": 3500}])
    assert anthropic_steps(compaction_only) == [("", (23_000, 0, 0, 1000, 0)), ("compaction0", (180_000, 0, 0, 3500, 0))]
    # junk in the list is passed over, never a crash; a step of nothing bills nothing
    junk = _usage(input_tokens=5, iterations=[None, "x", {"input_tokens": "many"}, 7, {"output_tokens": 2}])
    assert anthropic_steps(junk) == [("", (5, 0, 0, 0, 0)), ("step1", (0, 0, 0, 2, 0))]


def test_a_1h_count_over_the_cache_write_is_billed_not_a_crash():
    """A Usage built elsewhere (an old cache entry, a plugin) with more 1-hour writes than writes."""
    odd = Usage("f", 1, "claude-code", "s", "r", MODEL, 0, 0, 0, 10, cache_write_1h=2505)
    assert float(request_cost(odd, MODEL)) == pytest.approx(10 * OUTPUT / 1e6)


def _session(path: Path, usages: list[dict]) -> Path:
    lines = []
    for i, usage in enumerate(usages):
        lines.append({"type": "assistant", "sessionId": "s1", "uuid": f"a{i}", "timestamp": f"2026-11-0{i + 1}T10:00:00Z",
                      "message": {"id": f"msg_{i}", "model": MODEL, "role": "assistant", "usage": usage,
                                  "content": [{"type": "tool_use", "id": f"t{i}", "name": "Read",
                                               "input": {"file_path": f"/p/{i}.py"}}]}})
        lines.append({"type": "user", "sessionId": "s1", "uuid": f"u{i}", "timestamp": f"2026-11-0{i + 1}T10:00:01Z",
                      "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}",
                                                               "content": "line\n" * 50}]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_scan_cost_bills_both_shapes_as_claude_code_means_them(run, tmp_path):
    path = _session(tmp_path / "s1.jsonl", [BREAKDOWN_ONLY, ITERATIONS_ONLY])
    result = run("scan", path, "--cost", "-f", "json", "-j", "1", "-q", "--no-cache")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    usage = doc["usage"]
    # the compaction step is a request of its own, priced at its own tier (each step is under 200k input)
    assert (usage["requests"], usage["input_uncached"], usage["cache_write"], usage["cache_read"], usage["output"]) \
        == (3, 3 + 2000 + 180_000, 2505 + 21_000, 20_000, 120 + 1000 + 3500)
    assert usage["cache_write_1h"] == 2505 + 21_000
    first = 3 * INPUT + 2505 * WRITE_1H + 20_000 * READ + 120 * OUTPUT
    message = 2000 * INPUT + 21_000 * WRITE_1H + 1000 * OUTPUT
    compaction = 180_000 * INPUT + 3500 * OUTPUT
    assert doc["cost"]["billed_usd"] == pytest.approx((first + message + compaction) / 1e6)
    assert doc["cost"]["unknown_models"] == []


def test_scan_cost_table_on_the_breakdown_line(run, tmp_path):
    path = _session(tmp_path / "s1.jsonl", [BREAKDOWN_ONLY])
    result = run("scan", path, "--cost", "-j", "1", "-q", "--no-cache", env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    billed = (3 * INPUT + 2505 * WRITE_1H + 20_000 * READ + 120 * OUTPUT) / 1e6
    assert f"${billed:.2f}" in result.stdout
