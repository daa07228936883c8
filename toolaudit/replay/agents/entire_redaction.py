"""Entire's redaction, as a recorded output shows it, put back into a replayed one.

Entire (entireio/cli) stores each transcript with what its secret scan flags (a high-entropy string: a go.sum
hash, a token, an `ENV=value` it takes for a credential) replaced by `REDACTED`, tool outputs included. A re-run
prints the real text, which the recording no longer holds: like a wall time, that is the recorder's doing, not the
tool's answer. So a replayed line that the recorded line at the same place matches, `REDACTED` standing for a run
of characters other than white space, is printed as recorded; any other line stays as it is (a difference)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

MARK = "REDACTED"
_MAX_LINES = 500  # recorded lines kept: beyond that the output is no source of a few redacted values


def recorded_lines(output: str) -> str:
    """The lines of a recorded output that hold the mark, with their places, as JSON ("" when none does)."""
    if MARK not in output:
        return ""
    return json.dumps([[i, line] for i, line in enumerate(output.split("\n")) if MARK in line][:_MAX_LINES])


def pattern(line: str) -> re.Pattern[str]:
    """A recorded line as a pattern: each mark stands for a run of characters other than white space."""
    return re.compile(r"\S+?".join(re.escape(part) for part in line.split(MARK)))


def as_recorded(text: str, lines: str) -> str:
    """`text` with each line that the recorded line at its place matches (`lines`: recorded_lines) replaced by it."""
    if not lines:
        return text
    out = text.split("\n")
    for at, recorded in json.loads(lines):
        if at < len(out) and pattern(recorded).fullmatch(out[at]):
            out[at] = recorded
    return "\n".join(out)


def hidden(root: Path, rel: str) -> bool:
    """Whether `rel`, a path a tool was given (relative to the replay folder `root`), is one Entire's secret scan
    took part of: it holds the mark and the replay folder lacks it up to the part holding it (FSM1/cipher-box's
    `.REDACTED.md`, Beep206/CyberVPN's whole path `REDACTED.md`; a real folder `docs/REDACTED_CLAIMS/` is no mark)."""
    parts = rel.split("/")
    at = next((i for i, part in enumerate(parts) if MARK in part), None)
    return at is not None and not os.path.lexists(root / "/".join(parts[:at + 1]))
