"""Recognise the truncation markers agents put into outputs they already cut.

Marker texts come from docs/caps.md and formats.md; each pattern
is tied to the agent that writes it, so reports can say whose cap fired.
"""

from __future__ import annotations

import re
from functools import cache

# Anchored where the agent writes them, so a file that merely quotes a marker (a doc,
# this module) is not taken for a cut: LINE markers stand on a line of their own, START
# markers open the output, BARE ones are not quoted (no backtick or brace before them),
# ANY markers are specific enough anywhere. A line may also end
# in an escaped `\n`: some outputs are JSON strings (Codex 0.5x shell).
ANY, LINE, START, BARE = "any", "line", "start", "bare"

MARKERS: dict[str, tuple[tuple[str, str], ...]] = {
    "claude-code": (
        (r"\n\n\.\.\. \[\d+ characters truncated\] \.\.\.\n\n", ANY),
        (r"\.\.\. \[\d+ lines truncated\] \.\.\.", LINE),
        (r"<persisted-output>\s*Output too large", START),
        (r"File content \(\d+ tokens\) exceeds maximum allowed tokens", START),
        (r"MCP tool \"[^\"]*\" response \(\d+ tokens\) exceeds maximum allowed tokens", START),
        (r":\d+[:-]\[Omitted long matching line\]", ANY),
    ),
    "codex": (
        (r"\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]", LINE),
        (r"\[\.\.\. output truncated to fit \d+ bytes \.\.\.\]", LINE),
        (r"…\d+ (tokens|chars) truncated…", ANY),
        (r"\[omitted \d+ text items \.\.\.\]", LINE),
        (r"Warning: truncated output \(original token count: \d+\)", START),
    ),
    "gemini-cli": (
        (r"Output too large\. Showing first [\d,]+ and last [\d,]+ characters", START),
        (r"\.\.\. \[[\d,]+ characters omitted\] \.\.\.", LINE),
        (r"\.\.\. \[Content truncated due to size limit\] \.\.\.", LINE),
        (r"IMPORTANT: The file content has been truncated\.", LINE),
    ),
    "openhands": (
        (r"\[\.\.\. Observation truncated due to length \.\.\.\]", LINE),
        (r"<response clipped><NOTE>Due to the max output limit", BARE),
    ),
    "swe-agent": (
        (r"<response clipped><NOTE>Observations should not exceeded \d+ characters\. \d+ characters were elided", ANY),
        (r"<observation_head>.*?<elided_chars>\s*\d+ characters elided\s*</elided_chars>", ANY),
    ),
    "mini-swe-agent": ((r"<output_head>.*?<elided_chars>\s*\d+ characters elided\s*</elided_chars>", ANY),),
    "opencode": ((r"\.\.\.\d+ (lines|bytes) truncated\.\.\.", LINE),),
    "roo": ((r"\[\.\.\.\d+ (characters|lines) omitted\.\.\.\]", LINE),),
    "toolaudit": ((r"\[toolaudit: [\d,]+ (chars|bytes|lines|matches) omitted[^\n]*\]", LINE),
                  (r"\[toolaudit: output refused", START)),
}

# Words one of which every marker (but those that open the output) holds, found with a plain
# substring search: a pattern is only run on a text holding its word, so the regexes see only
# the few outputs that may carry a marker (one regex per pattern on every output was a third
# of a scan's per-file work). Each pattern's word is found in its required literal text
# (_required), so skipping a pattern whose word is absent never changes the answer.
KEYWORDS = ("truncated", "mitted", "elided", "clipped")


def _required(pattern: str) -> list[str]:
    """Literal runs every match of `pattern` holds: those outside groups, classes and optional atoms."""
    runs, run, depth, i = [], "", 0, 0
    while i < len(pattern):
        c, lit = pattern[i], None
        i += 1
        if c == "\\":
            c, i = pattern[i], i + 1
            lit = "\n" if c == "n" else None if c.isalnum() else c
        elif c == "[":
            i = pattern.index("]", i + 1) + 1
        elif c in "*?{":  # the atom before may be absent
            i = pattern.index("}", i) + 1 if c == "{" else i
            run = run[:-1]
        elif c in "()":
            depth += 1 if c == "(" else -1
        elif c == "|" and not depth:  # an alternation at the top: no run is in every match
            return []
        elif c not in "+.|^$":
            lit = c
        if lit is None or depth:
            runs, run = runs + [run] if run else runs, ""
        else:
            run += lit
    return runs + [run] if run else runs


def _keyword(pattern: str) -> str | None:
    """The first KEYWORD that every match of `pattern` holds (None: the pattern runs on every text)."""
    return next((k for k in KEYWORDS if any(k in run for run in _required(pattern))), None)


# One search per pattern, boundaries checked after: Python's re cannot skip ahead to the
# literal start of a pattern that opens with an alternation (a many-way one was the
# slowest part of a scan).
@cache
def compiled() -> list[tuple]:
    """(pattern, where, agent, keyword) of every marker, compiled on first use (a scan served from its
    cache never needs them)."""
    return [(re.compile(p, re.S), where, agent, _keyword(p)) for agent, ps in MARKERS.items() for p, where in ps]
_JSON_START = '{"output":"'


def _placed(text: str, start: int, end: int, where: str) -> bool:
    """True when a marker stands where its agent writes it (see MARKERS)."""
    if where == ANY:
        return True
    if where == BARE:  # checked here: a lookbehind in the pattern would defeat the literal search
        return start == 0 or text[start - 1] not in "`{}"
    before = start == 0 or text[start - 1] == "\n" or text[start - 2:start] == "\\n"
    after = end == len(text) or text[end] == "\n" or text[end:end + 2] == "\\n"
    return before and after


def truncated_by(text: str) -> str | None:
    """The agent whose truncation marker `text` carries (the earliest marker wins), or None."""
    if not text:
        return None
    held = {keyword: keyword in text for keyword in KEYWORDS}
    return earliest(text, [entry for entry in compiled() if entry[3] is None or held[entry[3]]])


def earliest(text: str, compiled: list) -> str | None:
    """The agent of the earliest well-placed marker among `compiled` entries (ties: the first entry), or None."""
    best: tuple[int, str] | None = None
    for pattern, where, agent, _ in compiled:
        if where == START:  # only where the output opens: no scan of the whole text
            at = len(_JSON_START) if text.startswith(_JSON_START) else 0
            if (pattern.match(text) or (at and pattern.match(text, at))) and (best is None or best[0] > 0):
                best = (0, agent)
            continue
        for found in pattern.finditer(text):
            if best is not None and found.start() >= best[0]:
                break
            if _placed(text, found.start(), found.end(), where):
                best = (found.start(), agent)
                break
    return best[1] if best else None
