"""Refusal: an output over the token limit becomes the error message, counted with the given tokenizer."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import texts

from toolaudit.scan.markers import truncated_by
from toolaudit.simulate.policies import Refusal
from toolaudit.simulate.policies.refusal import CLAUDE_MCP_MESSAGE, CLAUDE_READ_MESSAGE


def test_claude_read_refusal_text():
    text = "x" * 200_000
    out = Refusal(25_000, CLAUDE_READ_MESSAGE).apply(text, lambda t: len(t) // 4)
    assert out == ("File content (50000 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit "
                   "parameters to read specific portions of the file, or use the GrepTool to search for specific "
                   "content.")
    assert truncated_by(out) == "claude-code"


def test_counts_with_the_given_tokenizer_or_estimates():
    text = "word " * 1000  # 5,000 chars
    assert Refusal(1000).apply(text, lambda t: 1000) is text
    assert Refusal(1000).apply(text, lambda t: 1001).startswith("[toolaudit: output refused: 1001 tokens")
    assert Refusal(1000).apply(text) == ("[toolaudit: output refused: 1250 tokens exceed the limit of 1000; "
                                         "ask for a narrower range]")  # ceil(5000 / 4)
    short = "é" * 10  # 20 bytes: at most 20 tokens, never counted
    assert Refusal(20).apply(short, lambda t: 1 / 0) is short


def test_mcp_message_names_the_tool():
    out = Refusal(10, CLAUDE_MCP_MESSAGE, tool="fetch_disassembly").apply("z" * 400)
    assert out == ('MCP tool "fetch_disassembly" response (100 tokens) exceeds maximum allowed tokens (10). '
                   "Please use pagination, filtering, or limit parameters to reduce the response size.")


@given(texts, st.integers(0, 50))
def test_refusal_properties(text, limit):
    out = Refusal(limit).apply(text, lambda t: len(t.encode("utf-8")) // 2)
    assert out is text or out.startswith("[toolaudit: output refused:")
