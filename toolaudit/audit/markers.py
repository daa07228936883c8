"""Recognise the truncation markers agents put into outputs they already cut.

Marker texts come from ../shared/docs/harness-caps.md and formats.md; each pattern
is tied to the agent that writes it, so reports can say whose cap fired.
"""

from __future__ import annotations

import re

# Anchored where the agent writes them (the start of the output, or a line of its own),
# so a file that merely quotes a marker (a doc, this module) is not taken for a cut.
MARKERS: dict[str, tuple[str, ...]] = {
    "claude-code": (
        r"\n\n\.\.\. \[\d+ characters truncated\] \.\.\.\n\n",
        r"^\.\.\. \[\d+ lines truncated\] \.\.\.$",
        r"\A<persisted-output>\s*Output too large",
        r"\AFile content \(\d+ tokens\) exceeds maximum allowed tokens",
        r"\AMCP tool \"[^\"]*\" response \(\d+ tokens\) exceeds maximum allowed tokens",
        r":\d+[:-]\[Omitted long matching line\]$",
    ),
    "codex": (
        r"^\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]$",
        r"^\[\.\.\. output truncated to fit \d+ bytes \.\.\.\]$",
        r"…\d+ (tokens|chars) truncated…",
        r"^\[omitted \d+ text items \.\.\.\]$",
        r"\AWarning: truncated output \(original token count: \d+\)",
    ),
    "gemini-cli": (
        r"\AOutput too large\. Showing first [\d,]+ and last [\d,]+ characters",
        r"^\.\.\. \[[\d,]+ characters omitted\] \.\.\.$",
        r"^\.\.\. \[Content truncated due to size limit\] \.\.\.$",
        r"^IMPORTANT: The file content has been truncated\.",
    ),
    "openhands": (
        r"^\[\.\.\. Observation truncated due to length \.\.\.\]$",
        r"(?<![`{}])<response clipped><NOTE>Due to the max output limit",
    ),
    "swe-agent": (
        r"<response clipped><NOTE>Observations should not exceeded \d+ characters\. \d+ characters were elided",
        r"<observation_head>.*?<elided_chars>\s*\d+ characters elided\s*</elided_chars>",
    ),
    "mini-swe-agent": (r"<output_head>.*?<elided_chars>\s*\d+ characters elided\s*</elided_chars>",),
    "opencode": (r"^\.\.\.\d+ (lines|bytes) truncated\.\.\.$",),
    "roo": (r"^\[\.\.\.\d+ (characters|lines) omitted\.\.\.\]$",),
    "toolaudit": (r"^\[toolaudit: [\d,]+ (chars|bytes|lines|matches) omitted", r"^\[toolaudit: output refused"),
}

# One search per pattern: Python's re cannot skip ahead to the literal start of a
# many-way alternation, which made one combined pattern the slowest part of a scan.
_COMPILED = [(re.compile(p, re.S | re.M), agent) for agent, ps in MARKERS.items() for p in ps]


def truncated_by(text: str) -> str | None:
    """The agent whose truncation marker `text` carries (the earliest marker wins), or None."""
    if not text:
        return None
    best: tuple[int, str] | None = None
    for pattern, agent in _COMPILED:
        found = pattern.search(text)
        if found is not None and (best is None or found.start() < best[0]):
            best = (found.start(), agent)
    return best[1] if best else None
