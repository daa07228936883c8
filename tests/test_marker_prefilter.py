"""The marker prefilter (a plain substring check before the regexes) never changes which agent cut an output."""

from __future__ import annotations

import random

from toolaudit.scan import markers
from toolaudit.scan.markers import _JSON_START, START, _required, earliest, truncated_by

EXAMPLES = [
    "\n\n... [48211 characters truncated] ...\n\n", "... [12 lines truncated] ...", "<persisted-output>\nOutput too large",
    "File content (123 tokens) exceeds maximum allowed tokens", "a.py:12:[Omitted long matching line]",
    "[... omitted 1 of 4 lines ...]", "[... output truncated to fit 100 bytes ...]", "…12 tokens truncated…",
    "[omitted 4 text items ...]", "Warning: truncated output (original token count: 5)",
    "... [1,234 characters omitted] ...", "... [Content truncated due to size limit] ...",
    "IMPORTANT: The file content has been truncated.", "[... Observation truncated due to length ...]",
    "<response clipped><NOTE>Due to the max output limit",
    "<response clipped><NOTE>Observations should not exceeded 10 characters. 5 characters were elided",
    "<observation_head>x\ny<elided_chars>\n 5 characters elided\n</elided_chars>",
    "<output_head>zz<elided_chars>5 characters elided</elided_chars>", "...12 lines truncated...",
    "[...5 characters omitted...]", "[toolaudit: 1,234 chars omitted by x]", "[toolaudit: output refused",
    _JSON_START, "\\n", "\n", "`", "{", "truncated", "omitted", "plain words ", "line\n",
]


def every_pattern(text: str) -> str | None:
    """truncated_by without the prefilter: every pattern searched in every text."""
    return earliest(text, markers.compiled()) if text else None


def test_every_marker_searched_anywhere_has_a_keyword():
    """Else that pattern would run on every output again (the slow path the prefilter removed)."""
    missing = [p.pattern for p, where, _, keyword in markers.compiled() if where != START and keyword is None]
    assert missing == []


def test_required_text_leaves_out_optional_and_grouped_parts():
    assert _required(r"ab?c(d|e)f+g*") == ["a", "c", "f"]
    assert _required(r"\[\.\.\. omitted \d+ of") == ["[... omitted ", " of"]
    assert _required(r"x[^\n]*\n\n\.") == ["x", "\n\n."]


def test_prefilter_gives_the_answer_of_every_pattern():
    rng = random.Random(10)
    texts = ["".join(rng.choice(EXAMPLES) for _ in range(rng.randint(1, 5))) for _ in range(20_000)]
    found = [truncated_by(t) for t in texts]
    assert found == [every_pattern(t) for t in texts]
    assert len({f for f in found if f}) >= 7  # the mixes did hit most agents' markers


def test_an_alternation_at_the_top_requires_no_keyword():
    # `a|b` matches either side alone: no literal of one side is in every match, so no prefilter
    assert markers._required("foo truncated|bar") == []
    assert markers._keyword("foo truncated|bar") is None
    assert markers._keyword(r"… (tokens|chars) truncated…") == "truncated"  # inside a group: still required
