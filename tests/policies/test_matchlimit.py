"""Match and byte limit: at most N results, the whole response within the byte budget, a notice."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from strategies import PATHS, encodes, search_outputs

from toolaudit.scan.markers import truncated_by
from toolaudit.simulate.policies import MatchLimit, nbytes
from toolaudit.simulate.policies.preview import parse_match
from toolaudit.simulate.policies.matchlimit import result_lines

NOTICE_START = "[toolaudit: "


def results(out: str) -> int:
    return sum(1 for line in out.split("\n") if parse_match(line))


def body(out: str) -> str:
    """The response without its notice."""
    return out[: out.rindex(NOTICE_START)].removesuffix("\n") if NOTICE_START in out else out


def test_seed_repository_wide_grep_fits_100_matches_and_10000_bytes():
    # the motivating grep returned 25,247 bytes; the tool returns at most 100 matches and 10,000 bytes
    text = "".join(f"crates/core/src/m{i % 40}.rs:{i + 1}:    let réponse_{i} = call_{i}(&ctx); // ça\n"
                   for i in range(400))
    assert nbytes(text) > 25_000
    out = MatchLimit(max_matches=100, max_bytes=10_000).apply(text)
    assert nbytes(out) <= 10_000 and encodes(out)
    assert results(out) <= 100
    assert text.startswith(body(out))
    assert out.endswith("matches omitted; narrow your search]") and truncated_by(out) == "toolaudit"


def test_match_count_only():
    text = "".join(f"a.py:{i}:hit\n" for i in range(1, 151))
    out = MatchLimit(max_matches=100).apply(text)
    assert results(out) == 100
    assert out.endswith("a.py:100:hit\n[toolaudit: 50 matches omitted; narrow your search]")
    assert MatchLimit(max_matches=150, max_bytes=10_000).apply(text) is text


def test_file_lists_count_every_line_as_a_result():
    text = "".join(f"src/file_{i}.py\n" for i in range(30))
    out = MatchLimit(max_matches=10).apply(text)
    assert out.count("src/file_") == 10 and "[toolaudit: 20 matches omitted; narrow your search]" in out


def test_byte_cut_of_non_result_text_counts_bytes():
    out = MatchLimit(max_bytes=90).apply("a.py:1:hit\n" + "a long trailing message " * 5)
    assert nbytes(out) <= 90 and out.startswith("a.py:1:hit\na long")
    assert out.endswith("bytes omitted; narrow your search]")


def test_budget_smaller_than_the_notice_still_holds():
    out = MatchLimit(max_bytes=10).apply("a.py:1:" + "x" * 100)
    assert nbytes(out) <= 10


def test_json_matches_stay_valid_json():
    doc = {"total_count": 300, "matches": [{"path": f"p{i}.py", "line": i, "content": "é" * 40} for i in range(300)],
           "truncated": True}
    text = json.dumps(doc, ensure_ascii=False)
    out = MatchLimit(max_matches=100).apply(text)
    parsed = json.loads(out)
    assert len(parsed["matches"]) == 100 and parsed["total_count"] == 300
    assert parsed["notice"] == "[toolaudit: 200 matches omitted; narrow your search]"
    out = MatchLimit(max_matches=100, max_bytes=3_000).apply(text)
    parsed = json.loads(out)
    assert nbytes(out) <= 3_000 and 0 < len(parsed["matches"]) < 100
    assert parsed["notice"] == f"[toolaudit: {300 - len(parsed['matches'])} matches omitted; narrow your search]"
    small = json.dumps({"total_count": 1, "matches": doc["matches"][:1]})
    assert MatchLimit(max_matches=5, max_bytes=10_000).apply(small) is small


def test_hermes_densified_rows_are_matches():
    dense = "\n".join(f"src/f{i // 3}.py\n" + "\n".join(f"  {i * 10 + k}: row {k}" for k in range(3))
                      for i in range(0, 30, 3))
    text = json.dumps({"total_count": 30, "matches_format": "path-grouped", "matches_text": dense})
    parsed = json.loads(MatchLimit(max_matches=4).apply(text))
    assert parsed["matches_text"] == "src/f0.py\n  0: row 0\n  1: row 1\n  2: row 2\nsrc/f1.py\n  30: row 0"
    assert parsed["notice"].startswith("[toolaudit: 26 matches omitted")


@given(search_outputs, st.one_of(st.none(), st.integers(0, 30)), st.one_of(st.none(), st.integers(0, 600)))
def test_match_limit_properties(text, max_matches, max_bytes):
    if max_matches is None and max_bytes is None:
        max_matches = 3
    policy = MatchLimit(max_matches=max_matches, max_bytes=max_bytes)
    out = policy.apply(text)
    assert encodes(out)
    if result_lines(text.split("\n")) is None and not text.lstrip().startswith("{"):
        assert out is text  # not a search output: left alone
        return
    if max_bytes is not None:
        assert nbytes(out) <= max_bytes  # the whole response, notice included
    if out is text:
        return
    if max_matches is not None:
        assert results(body(out)) <= max_matches
    if max_bytes is None or max_bytes >= 60:  # room for the notice: the kept part is a prefix
        assert text.startswith(body(out)) and NOTICE_START in out
        if realistic(text):
            assert policy.apply(out) is out  # idempotent: within both limits now


def realistic(text: str) -> bool:
    """True when every context line belongs to a file that has a match, as in ripgrep's output."""
    lines = text.split("\n")
    matched = {found[0].rsplit(":", 1)[0] for found in map(parse_match, lines) if found}
    return all(not line.startswith(path + "-") or path in matched for line in lines for path in PATHS)
