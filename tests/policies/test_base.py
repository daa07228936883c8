"""The cut helpers, Chain's order and composition, the registry of families."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import encodes, texts

from toolaudit.simulate.policies import (Chain, CodexMiddle, FirstOf, HeadTail, JsonFields, MatchLimit, Refusal,
                                      SearchPreview, cut_bytes, cut_bytes_tail, cut_chars, cut_chars_tail, nbytes,
                                      policies)
from toolaudit.errors import UsageError

PAIR = "\ud83d\ude00"  # 😀 as two code points, as lenient JSON decoders leave it


@given(texts, st.integers(0, 200))
def test_cut_bytes_is_the_longest_prefix_within_n(text, n):
    head, tail = cut_bytes(text, n), cut_bytes_tail(text, n)
    assert text.startswith(head) and text.endswith(tail)
    assert nbytes(head) <= n and nbytes(tail) <= n
    assert encodes(head) and encodes(tail)
    if head != text:  # one more character would not fit
        assert nbytes(text[: len(head) + 1]) > n
    if tail != text:
        assert nbytes(text[len(text) - len(tail) - 1 :]) > n


@given(texts, st.integers(0, 200))
def test_cut_chars(text, n):
    assert cut_chars(text, n) == text[:n] and cut_chars_tail(text, n) == (text[-n:] if n else "")


def test_cuts_never_separate_a_surrogate_pair():
    text = "a" + PAIR + "b"
    assert cut_chars(text, 2) == "a" and cut_chars_tail(text, 2) == "b"
    assert cut_bytes(text, 4) == "a" and cut_bytes_tail(text, 4) == "b"
    assert cut_bytes(text, 7) == "a" + PAIR
    assert cut_bytes("aé", 2) == "a" and cut_bytes_tail("éa", 2) == "a"  # é is 2 bytes: never half of it


def test_chain_sorts_into_the_documented_order():
    chain = Chain.of(Refusal(10), HeadTail(max_chars=5), MatchLimit(max_matches=1), SearchPreview(),
                     JsonFields(no_body=True))
    assert [p.key for p in chain.policies] == ["json-fields", "search-preview", "match-limit", "head-tail", "refusal"]
    # nested chains are flattened; equal orders keep their given order
    assert Chain.of(chain, HeadTail(max_chars=9)).policies[-3:] == (HeadTail(max_chars=5), HeadTail(max_chars=9),
                                                                     Refusal(10))


def test_chain_returns_the_same_object_when_nothing_changes_and_flags_override():
    text = "short"
    chain = Chain.of(HeadTail(max_chars=100), SearchPreview())
    assert chain.apply(text) is text and Chain().apply(text) is text
    merged = Chain.of(HeadTail(max_chars=100), SearchPreview()).override(HeadTail(max_chars=3))
    assert merged.policies == (SearchPreview(), HeadTail(max_chars=3))
    # every overall cap is one family: a --max-chars flag replaces an agent's own cap
    assert Chain.of(CodexMiddle(), Refusal(5)).override(HeadTail(max_chars=3)).policies == (HeadTail(max_chars=3),
                                                                                             Refusal(5))
    assert chain.describe() == "search-preview(preview_chars=100) → head-tail(max_chars=100 head_ratio=0.4)"


def test_first_of_takes_the_first_policy_that_fires():
    first = FirstOf((HeadTail(max_chars=4, marker="|c|"), HeadTail(max_lines=1, marker="|l|")))
    assert first.apply("abcdefgh") == "a|c|fgh"
    assert first.apply("a\nb") == "|l|b"  # 1 line at 40% head: 0 head lines, 1 tail line
    assert first.apply("ab") == "ab"


def test_registry_lists_every_family_with_a_summary():
    families = policies.all()
    assert {"json-fields", "search-preview", "line-clip", "match-limit", "head-tail", "refusal"} <= set(families)
    assert all(cls.summary and cls.__doc__ for cls in families.values())
    with pytest.raises(UsageError, match="did you mean 'head-tail'"):
        policies.get("head-tial")
