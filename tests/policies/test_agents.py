"""Agents' own truncation functions (Codex current and legacy, OpenCode): budgets, identity, boundaries."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from strategies import encodes, texts

from toolaudit.simulate.policies import CodexLegacy, CodexMiddle, OpenCodeCut, nbytes
from toolaudit.simulate.policies.codex import rust_lines

CODEX_MARKER = re.compile(r"…(\d+) (chars|tokens) truncated…")


def test_rust_lines():
    assert [rust_lines(t) for t in ("", "a", "a\n", "a\nb", "\n", "a\n\n")] == [0, 1, 1, 2, 1, 2]


@given(texts.map(lambda t: t.replace("…", "")), st.integers(0, 60), st.sampled_from(["bytes", "tokens"]))
def test_codex_middle_keeps_a_prefix_and_suffix_within_the_byte_budget(text, limit, unit):
    out = CodexMiddle(limit, unit, header=False).apply(text)
    budget = limit * 4 if unit == "tokens" else limit
    if nbytes(text) <= budget:
        assert out is text
        return
    found = CODEX_MARKER.search(out)
    head, tail = out[: found.start()], out[found.end() :]
    assert text.startswith(head) and text.endswith(tail) and encodes(out)
    assert nbytes(head) <= budget // 2 and nbytes(tail) <= budget - budget // 2
    if unit == "bytes":
        assert int(found.group(1)) == len(text) - len(head) - len(tail)


@given(texts, st.integers(0, 300), st.integers(0, 12))
def test_codex_legacy_body_fits_the_byte_budget_marker_included(text, max_bytes, max_lines):
    out = CodexLegacy(max_bytes=max_bytes, max_lines=max_lines).apply(text)
    if nbytes(text) <= max_bytes and rust_lines(text) <= max_lines:
        assert out is text
        return
    header = f"Total output lines: {rust_lines(text)}\n\n"
    assert out.startswith(header) and encodes(out)
    assert nbytes(out) - nbytes(header) <= max(max_bytes, 0) or max_bytes < 60  # marker inside the budget


@given(texts, st.integers(1, 20), st.integers(0, 200), st.sampled_from(["head", "tail"]))
def test_opencode_keeps_whole_lines(text, max_lines, max_bytes, direction):
    policy = OpenCodeCut(max_lines, max_bytes, direction)
    out = policy.apply(text)
    lines = text.split("\n")
    if len(lines) <= max_lines and nbytes(text) <= max_bytes:
        assert out is text
        return
    found = re.search(r"\.\.\.(\d+) (lines|bytes) truncated\.\.\.", out)
    assert found and encodes(out)
    removed, unit = int(found.group(1)), found.group(2)
    preview = out[: found.start() - 2] if direction == "head" else out[found.end() + 4 + len(policy.hint) :]
    assert nbytes(preview) <= max_bytes
    if unit == "bytes":
        assert nbytes(preview) == nbytes(text) - removed
    # the preview is whole lines from the chosen end
    k = len(lines) - removed if unit == "lines" else len(preview.split("\n")) if preview else 0
    assert 0 <= k <= max_lines
    kept = lines[:k] if direction == "head" else lines[len(lines) - k :]
    assert preview == "\n".join(kept) or (k == 1 and preview == "" and kept == [""])
