"""Usage per request, the bill from the offline price table, and the date window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.tokenizers import get_tokenizer


def _session(tmp_path: Path, model: str | None = "claude-sonnet-4-5-20250929") -> Path:
    """Two requests of a known size; one Read result carried by the second and third."""
    usage = {"input_tokens": 1000, "cache_creation_input_tokens": 2000, "cache_read_input_tokens": 10000,
             "output_tokens": 500}
    msg = lambda mid, content, out=500: {"id": mid, "content": content,  # noqa: E731
                                         **({"model": model} if model else {}), "usage": {**usage, "output_tokens": out}}
    lines = [
        {"type": "assistant", "sessionId": "s", "uuid": "1", "timestamp": "2026-03-01T10:00:00Z",
         "message": msg("m1", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a"}}], 7)},
        # a split line of the same request: usage repeated, output_tokens running
        {"type": "assistant", "sessionId": "s", "uuid": "1b", "timestamp": "2026-03-01T10:00:00Z",
         "message": msg("m1", [{"type": "text", "text": "reading"}])},
        {"type": "user", "sessionId": "s", "uuid": "2", "timestamp": "2026-03-01T10:00:01Z",
         "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "word " * 1000}]}},
        {"type": "assistant", "sessionId": "s", "uuid": "3", "timestamp": "2026-03-02T10:00:00Z",
         "message": msg("m2", [{"type": "text", "text": "done"}])},
        {"type": "assistant", "sessionId": "s", "uuid": "4", "timestamp": "2026-03-03T10:00:00Z",
         "message": msg("m3", [{"type": "text", "text": "really done"}])},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _scan(run, *args) -> dict:
    result = run("scan", *args, "-f", "json", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_usage_once_per_request_and_the_tool_share(run, tmp_path):
    doc = _scan(run, _session(tmp_path))
    usage = doc["usage"]
    assert (usage["requests"], usage["input_uncached"], usage["cache_write"], usage["cache_read"], usage["output"]) \
        == (3, 3000, 6000, 30000, 1500)
    read_tokens = get_tokenizer().count("word " * 1000)
    # the read is carried by requests m2 and m3
    assert usage["tool_output_share"] == round(2 * read_tokens / 39000, 4)
    assert "cost" not in doc


def test_cost_matches_the_price_table_by_hand(run, tmp_path):
    doc = _scan(run, _session(tmp_path), "--cost")
    cost = doc["cost"]
    assert cost["prices"].startswith("genai-prices ") and cost["unknown_models"] == []
    # claude-sonnet-4-5 base tier: $3 input, $3.75 cache write, $0.30 cache read, $15 output per MTok
    per_request = (1000 * 3 + 2000 * 3.75 + 10000 * 0.30 + 500 * 15) / 1e6
    assert cost["billed_usd"] == pytest.approx(3 * per_request)
    read = next(t for t in cost["tools"] if t["tool"] == "Read")
    tokens = get_tokenizer().count("word " * 1000)
    assert read["first_usd"] == pytest.approx(tokens * 3.75 / 1e6)
    assert read["resent_usd"] == pytest.approx(tokens * 1 * 0.30 / 1e6)  # residency 2: one re-send


def test_unknown_model_is_said_not_guessed_and_model_fills_in(run, tmp_path):
    doc = _scan(run, _session(tmp_path, model=None), "--cost")
    assert doc["cost"]["unknown_models"] == ["(no model named)"]
    assert doc["usage"]["unpriced_requests"] == 3 and doc["cost"]["billed_usd"] is None  # nothing had a price: null, never $0
    table = run("scan", _session(tmp_path, model=None), "--cost", "-j", "1")
    assert "no price for: (no model named)" in table.stdout
    named = _scan(run, _session(tmp_path, model=None), "--cost", "--model", "claude-sonnet-4-5")
    assert named["cost"]["unknown_models"] == [] and named["cost"]["billed_usd"] > 0


def test_by_model_and_session_show_billed_usage(run, tmp_path):
    doc = _scan(run, _session(tmp_path), "--by", "model", "--cost")
    assert doc["usage"]["groups"][0]["model"] == "claude-sonnet-4-5-20250929"
    assert doc["usage"]["groups"][0]["requests"] == 3
    table = run("scan", _session(tmp_path), "--by", "session", "--cost", "-j", "1")
    assert table.exit_code == 0 and "billed" in table.stdout


def test_since_until_window(run, tmp_path):
    path = _session(tmp_path)
    doc = _scan(run, path, "--since", "2026-03-02")
    assert doc["totals"]["calls"] == 0 and doc["usage"]["requests"] == 2
    doc = _scan(run, path, "--until", "2026-03-02")
    assert doc["totals"]["calls"] == 1 and doc["usage"]["requests"] == 1
    assert run("scan", path, "--since", "last tuesday").exit_code == 2


def test_corpus_usage_totals_equal_the_collector_sum(run, corpus):
    from test_claude_code_usage import independent_totals

    doc = _scan(run, corpus / "claude-code")
    hand = independent_totals(corpus / "claude-code")
    assert (doc["usage"]["input_uncached"], doc["usage"]["cache_write"], doc["usage"]["cache_read"],
            doc["usage"]["output"]) == hand


def test_router_prefixed_models_are_priced_and_unknown_ones_are_not():
    from toolaudit.scan.billing import token_prices

    assert token_prices("google/gemini-3-pro-preview") == token_prices("gemini-3-pro-preview") is not None
    assert token_prices("policy_model") is None and token_prices(None) is None


def test_share_counts_only_sessions_that_have_usage(run, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    _session(folder)
    (folder / "calls.jsonl").write_text(json.dumps({"tool": "Grep", "output": "x " * 5000, "session": "other"}) + "\n")
    alone = _scan(run, _session(tmp_path))["usage"]
    mixed = _scan(run, folder)["usage"]
    assert mixed["tool_output_share"] == alone["tool_output_share"]
    assert (mixed["share_calls"], mixed["calls_without_usage"]) == (1, 1)


def test_since_takes_the_timestamps_transcripts_write(run, tmp_path):
    path = _session(tmp_path)
    for since in ("2026-03-02", "2026-03-02T00:00:00.000Z", "2026-03-02T01:00:00+01:00"):
        assert _scan(run, path, "--since", since)["usage"]["requests"] == 2, since
