"""A command as a reason quotes it: short enough to group the reasons of a report, and never without the part the
reason is about.

A reason quotes the command line that set a call aside (`after \\`git status --short && git checkout main -q && git
pull -q\\` (git checkout changes the working tree)`). Cut at its end, as it was, a long line lost what the reason
names: 1curafu/Fitcheck's `rm -f openspec/changes/windows-image-scan-scope/HEAD && g...` (git checkout changes the
working tree). So a long line is cut in its middle with `…`: its start stays (the program it runs), and so does the
part that names the program the reason is about, or else its end.
"""

from __future__ import annotations

from ..secrets.redact import redact

WIDTH = 60  # the longest quote
_HEAD = 20  # a cut line's start that stays when the part the reason names lies further on


def quote(command: str, about: str = "", width: int = WIDTH) -> str:
    """`command`'s first line, redacted (before it is cut: a cut key is no longer recognised), in `width` characters
    at most: a longer line keeps its start and, after `…`, the words of `about` it holds (a reason's `git pull
    changes the working tree`: `git pull`, its first two or three words that the line holds), else its end."""
    text = redact(command).strip()
    line = text.splitlines()[0] if text else ""
    if len(line) <= width:
        return line
    at, named = _named(line, about)
    head = width // 2
    if at + named <= head:  # nothing named, or named within the start that stays anyway
        return line[:head] + "…" + line[len(line) - (width - head - 1):]
    room = width - _HEAD - 1
    if at + room >= len(line):  # the named part reaches the end: the end stays whole
        return line[:_HEAD] + "…" + line[len(line) - room:]
    return line[:_HEAD] + "…" + line[at:at + room - 1] + "…"


def _named(line: str, about: str) -> tuple[int, int]:
    """Where `line` holds the longest run of `about`'s first words (three, two, then one: `git checkout` before
    `git`) and its length; (0, 0) when it holds none."""
    words = about.split()
    for n in (3, 2, 1):
        if len(words) >= n:
            at = line.find(" ".join(words[:n]))
            if at >= 0:
                return at, len(" ".join(words[:n]))
    return 0, 0
