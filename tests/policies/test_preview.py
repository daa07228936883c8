"""Search preview: per-match content cut, in text and JSON search outputs; the seed figures; line clip."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from strategies import encodes, search_outputs, texts

from toolaudit.simulate.policies import LineClip, SearchPreview
from toolaudit.simulate.policies.preview import parse_match


def content_chars(out: str) -> int:
    """Chars of match content in a `path:line:content` output."""
    return sum(len(found[2]) for found in map(parse_match, out.split("\n")) if found)


def matches(n: int, width: int) -> str:
    return "".join(f"src/module_{i % 7}.py:{i + 1}:{'x' * width}\n" for i in range(n))


def test_seed_one_500_char_match_becomes_103_chars():
    text = matches(1, 500)
    out = SearchPreview().apply(text)
    assert out == "src/module_0.py:1:" + "x" * 100 + "...\n"
    assert content_chars(text) == 500 and content_chars(out) == 103  # 79% saved


def test_seed_a_757_char_line_already_capped_to_500_becomes_103():
    # the engine capped the 757-char matched line at 500 chars; the preview takes it to 103
    engine_capped = ("y" * 757)[:500]
    out = SearchPreview().apply(f"a.py:12:{engine_capped}")
    assert content_chars(out) == 103
    assert content_chars(SearchPreview().apply(f"a.py:12:{'y' * 757}")) == 103  # uncapped: the same


def test_seed_50_matches_of_500_chars_become_5150_chars():
    text = matches(50, 500)
    out = SearchPreview().apply(text)
    assert content_chars(text) == 25_000 and content_chars(out) == 5_150  # 79% saved
    assert out.count("\n") == 50


def test_seed_preview_chars_0_keeps_path_and_line_only():
    out = SearchPreview(preview_chars=0).apply(matches(3, 500))
    assert out == "src/module_0.py:1\nsrc/module_1.py:2\nsrc/module_2.py:3\n"
    assert content_chars(out) == 0


def test_seed_include_content_leaves_the_output_whole():
    text = matches(50, 500)
    assert SearchPreview(include_content=True).apply(text) is text


def test_context_lines_separators_and_other_lines():
    text = ("Found 2 matches\r\n"
            "lib/my-file-2-x.rs-9-" + "c" * 10 + "\r\n"
            "lib/my-file-2-x.rs:10:" + "m" * 10 + "\r\n"
            "--\r\n"
            "2024-01-15 not-a-context-line " + "d" * 20 + "\r\n")
    out = SearchPreview(preview_chars=4).apply(text)
    assert out == ("Found 2 matches\r\n"
                   "lib/my-file-2-x.rs-9-cccc...\r\n"
                   "lib/my-file-2-x.rs:10:mmmm...\r\n"
                   "--\r\n"
                   "2024-01-15 not-a-context-line " + "d" * 20 + "\r\n")


def test_json_matches_stay_valid_json_in_the_same_style():
    doc = {"total_count": 2, "matches": [{"path": "a.py", "line": 3, "content": "z" * 500},
                                         {"path": "b.py", "line": 4, "content": "short"}]}
    for dump in (json.dumps, lambda d: json.dumps(d, indent=2), lambda d: json.dumps(d, separators=(",", ":"))):
        text = dump(doc)
        out = SearchPreview().apply(text)
        assert json.loads(out)["matches"][0]["content"] == "z" * 100 + "..."
        assert json.loads(out)["matches"][1]["content"] == "short"
        assert out == dump(json.loads(out))  # re-serialised the way it came
    out = json.loads(SearchPreview(preview_chars=0).apply(json.dumps(doc)))
    assert out["matches"] == [{"path": "a.py", "line": 3}, {"path": "b.py", "line": 4}]


def test_hermes_densified_matches_text():
    dense = "src/a.py\n  12: " + "q" * 300 + "\n  13: ok\nsrc/b.py\n  1: " + "r" * 200
    text = json.dumps({"total_count": 3, "matches_format": "path-grouped: …", "matches_text": dense})
    out = json.loads(SearchPreview().apply(text))
    assert out["matches_text"] == "src/a.py\n  12: " + "q" * 100 + "...\n  13: ok\nsrc/b.py\n  1: " + "r" * 100 + "..."
    out = json.loads(SearchPreview(preview_chars=0).apply(text))
    assert out["matches_text"] == "src/a.py\n  12\n  13\nsrc/b.py\n  1"


def test_ripgrep_max_columns_replacement():
    policy = SearchPreview(500, replacement="[Omitted long matching line]")
    assert policy.apply("a.py:1:" + "w" * 501) == "a.py:1:[Omitted long matching line]"
    text = "a.py:1:" + "w" * 500
    assert policy.apply(text) is text


@given(search_outputs, st.integers(0, 20))
def test_preview_properties(text, n):
    policy = SearchPreview(preview_chars=n)
    out = policy.apply(text)
    assert encodes(out)
    assert out.count("\n") == text.count("\n")  # lines are never added or dropped
    assert policy.apply(out) == out  # idempotent
    for before, after in zip(text.split("\n"), out.split("\n")):
        assert after == before or before.startswith(after.removesuffix("..."))
        found = parse_match(after)
        if found and n:
            assert len(found[2]) <= n + 3
    if out == text:
        assert out is text  # nothing cut: the very same object


@given(texts, st.integers(0, 20))
def test_preview_never_breaks_arbitrary_text(text, n):
    out = SearchPreview(preview_chars=n).apply(text)
    assert encodes(out) and out.count("\n") == text.count("\n")


def test_line_clip():
    text = "short\n" + "L" * 30 + "\nend"
    assert LineClip(10, "... [truncated]").apply(text) == "short\n" + "L" * 10 + "... [truncated]\nend"
    assert LineClip(30).apply(text) is text


@given(texts, st.integers(0, 20))
def test_line_clip_properties(text, n):
    out = LineClip(n, "…").apply(text)
    assert encodes(out) and out.count("\n") == text.count("\n")
    assert all(len(line) <= n + 1 for line in out.split("\n"))
    if all(len(line) <= n for line in text.split("\n")):
        assert out is text
