"""Agents' own truncation markers, as the agents write them (and as our presets reproduce them)."""

from __future__ import annotations

import pytest

from toolaudit.scan.markers import truncated_by
from toolaudit.simulate.presets import PRESETS

BIG = "".join(f"line {i} of a long build log with some words in it\n" for i in range(6000))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_marker_is_recognised(name):
    preset = PRESETS[name]
    out = preset.apply("Bash", BIG, lambda t: len(t) // 4)
    if out is BIG:
        out = preset.apply("Read", BIG * 3, lambda t: len(t) // 4)
    assert out is not BIG
    assert truncated_by(out) is not None, name


@pytest.mark.parametrize("text, agent", [
    ("head\n\n... [48211 characters truncated] ...\n\ntail", "claude-code"),
    ("<persisted-output>\nOutput too large (61.4KB). Full output saved to: x", "claude-code"),
    ("Total output lines: 400\n\na\n[... omitted 144 of 400 lines ...]\n\nb", "codex"),
    ("Output too large. Showing first 8,000 and last 32,000 characters. For full output see: f", "gemini-cli"),
    ("a\n[... Observation truncated due to length ...]\nb", "openhands"),
    ("<output_head>a</output_head>\n<elided_chars>\n5 characters elided\n</elided_chars>", "mini-swe-agent"),
    ("a\n[...120 characters omitted...]\nb", "roo"),
    ("plain output with no marker", None),
    ("", None),
])
def test_known_markers(text, agent):
    assert truncated_by(text) == agent


def test_a_file_that_quotes_markers_is_not_cut():
    """Reading a doc that lists the markers (harness-caps.md-like) is not an agent's cut."""
    doc = "\n".join([
        "| Codex | `\\n[... omitted {k} of {N} lines ...]\\n\\n` | head |",
        "| SWE-agent | `Observation: {obs[:max]}<response clipped><NOTE>Observations should not exceeded {max} "
        "characters. {elided} characters were elided.</NOTE>` |",
        "| OpenHands | `<response clipped><NOTE>Due to the max output limit, only part of this file` |",
        "Gemini writes `Output too large. Showing first 8,000 and last 32,000 characters.` and",
        "Claude Code `... [120 lines truncated] ...` inside a sentence.",
    ])
    assert truncated_by(doc) is None
