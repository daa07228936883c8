"""Head/tail cap: budgets in chars, bytes and lines; markers; identity; the seed figures."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import encodes, texts

from toolaudit.scan.markers import truncated_by
from toolaudit.simulate.policies import HeadTail, nbytes
from toolaudit.errors import UsageError

MARK = "\ue000{omitted}\ue000"  # a marker the texts never hold, so a result splits back into its parts
SPLIT = re.compile("\ue000(\\d+)\ue000")
clean_texts = texts.map(lambda t: t.replace("\ue000", ""))
ratios = st.sampled_from([0.0, 0.2, 0.4, 0.5, 1.0])


def parts(out: str) -> tuple[str, int, str]:
    """(head, omitted, tail) of a result made with MARK."""
    found = SPLIT.search(out)
    return out[: found.start()], int(found.group(1)), out[found.end() :]


@given(clean_texts, st.integers(0, 80), ratios, st.sampled_from(["chars", "bytes"]))
def test_size_cut_keeps_a_prefix_and_a_suffix_within_the_budget(text, limit, ratio, unit):
    size = len if unit == "chars" else nbytes
    policy = HeadTail(**{f"max_{unit}": limit}, head_ratio=ratio, marker=MARK)
    out = policy.apply(text)
    if size(text) <= limit:
        assert out is text
        return
    head, omitted, tail = parts(out)
    assert text.startswith(head) and text.endswith(tail)
    assert size(head) + size(tail) <= limit  # the marker comes on top
    assert omitted == size(text) - size(head) - size(tail)
    assert encodes(out)
    if ratio == 1.0:
        assert tail == ""
    if ratio == 0.0:
        assert head == ""


@given(clean_texts, st.integers(0, 30), st.integers(0, 30), st.integers(0, 30))
def test_line_cuts(text, max_lines, head_lines, tail_lines):
    n = len(text.splitlines()) if text else 0  # "a\n" is one line, as `tail -n` sees it
    assume(all(sep not in text for sep in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"))
    for policy, keep in ((HeadTail(max_lines=max_lines, marker=MARK), max_lines),
                         (HeadTail(head_lines=head_lines, tail_lines=tail_lines, marker=MARK), head_lines + tail_lines),
                         (HeadTail(tail_lines=tail_lines, marker=MARK), tail_lines)):
        out = policy.apply(text)
        if n <= keep:
            assert out is text
            continue
        head, omitted, tail = parts(out)
        assert text.startswith(head) and text.endswith(tail)
        assert omitted == n - keep
        assert len(head.splitlines()) + len(tail.splitlines()) == keep


@given(clean_texts, st.integers(70, 200), ratios, st.sampled_from(["chars", "bytes"]))
def test_marker_in_budget_keeps_the_whole_response_within_it_and_is_idempotent(text, limit, ratio, unit):
    size = len if unit == "chars" else nbytes
    policy = HeadTail(**{f"max_{unit}": limit}, head_ratio=ratio, marker_in_budget=True)
    out = policy.apply(text)
    assert size(out) <= limit and encodes(out)
    assert policy.apply(out) is out  # within the budget now: applying twice = once
    if size(text) > limit:
        assert truncated_by(out) == "toolaudit"


@given(clean_texts, st.integers(0, 60), st.integers(0, 5))
def test_lines_and_size_together_make_one_cut_with_one_marker(text, limit, lines):
    out = HeadTail(max_chars=limit, max_lines=lines, marker=MARK).apply(text)
    if out is text:
        return
    head, omitted, tail = parts(out)
    assert text.startswith(head) and text.endswith(tail)
    assert len(SPLIT.findall(out)) == 1
    assert len(head) + len(tail) <= limit


def test_default_marker_states_what_was_omitted():
    out = HeadTail(max_chars=10).apply("abcdefghijklmnopqrstuvwxyz")
    assert out == "abcd\n[toolaudit: 16 chars omitted; ask again with a narrower range]\nuvwxyz"
    assert truncated_by(out) == "toolaudit"
    out = HeadTail(max_bytes=4, head_ratio=0.5).apply("ééé")  # 6 bytes; each end keeps one 2-byte é
    assert out == "é\n[toolaudit: 2 bytes omitted; ask again with a narrower range]\né"


def test_head_ratio_splits_the_budget():
    text = "".join(chr(0x4E00 + i % 500) for i in range(1000))
    head, _, tail = parts(HeadTail(max_chars=100, head_ratio=0.5, marker=MARK).apply(text))
    assert len(head) == len(tail) == 50
    head, _, tail = parts(HeadTail(max_chars=100, marker=MARK).apply(text))
    assert (len(head), len(tail)) == (40, 60)
    head, _, tail = parts(HeadTail(max_bytes=100, head_ratio=0.5, marker=MARK).apply(text))
    assert (nbytes(head), nbytes(tail)) == (48, 48)  # 3-byte characters: never half of one


def test_templates_header_footer_and_fields():
    policy = HeadTail(max_chars=4, head_ratio=0.5, header="<{total}/{limit} {head}+{tail} {excess}>",
                      marker="[{omitted:,} {unit}]", footer="</{total_lines}>")
    assert policy.apply("ab" + "x" * 2000 + "\ncd") == "<2005/4 2+2 2001>ab[2,001 chars]cd</2>"


def test_cut_at_limit_cuts_an_output_of_exactly_the_limit():
    assert HeadTail(max_chars=4, marker="|").apply("abcd") == "abcd"
    assert HeadTail(max_chars=4, head_ratio=0.5, marker="|{omitted}|", cut_at_limit=True).apply("abcd") == "ab|0|cd"


def test_seed_terminal_keeps_the_last_50_lines():
    text = "".join(f"step {i}\n" for i in range(1, 201))
    out = HeadTail(tail_lines=50).apply(text)
    assert out.endswith("".join(f"step {i}\n" for i in range(151, 201)))
    assert out.startswith("\n[toolaudit: 150 lines omitted;") and "step 150\n" not in out


def test_seed_read_file_max_chars_5000_saves_80_percent():
    # an 851-line source file of 25,134 chars, as in the seed measurement
    lines = [f"    t_{i:03d} = add(t, {i})" for i in range(851)]
    text = "\n".join(lines)
    text += "  # " + "x" * (25_134 - len(text) - 4)
    assert len(text) == 25_134 and text.count("\n") + 1 == 851
    out = HeadTail(max_chars=5000).apply(text)
    assert 5000 < len(out) < 5000 + 130
    assert round(1 - len(out) / len(text), 2) == 0.80


@pytest.mark.parametrize("kwargs", [
    dict(max_chars=1, max_bytes=1), dict(max_lines=1, head_lines=1), dict(), dict(max_chars=5, head_ratio=1.5),
    dict(max_chars=-1),
])
def test_bad_settings_are_usage_errors(kwargs):
    with pytest.raises(UsageError):
        HeadTail(**kwargs)
