"""`--diff N`: the N replayed calls whose output changed most, each with a unified diff of the redacted texts.

The change is measured from what the variant is compared with (the identity replay, or the recording with
`--before recorded`) to the variant; each entry also names the recording's size. Texts are redacted before
they are compared (secrets.redact), and a diff is cut at MAX_LINES lines.
"""

from __future__ import annotations

import difflib
import heapq
from dataclasses import dataclass

from ..secrets.redact import redact

MAX_LINES = 200


@dataclass(frozen=True)
class DiffEntry:
    """One changed call: where it is, its three sizes, and the diff from `before` to the variant."""

    tool: str
    call_id: str
    session: str
    where: str  # file:line of the recorded result
    tokens_recorded: int
    tokens_identity: int | None  # None: no emulation of the recorded tool (or --before recorded)
    tokens_variant: int
    diff: str


@dataclass
class Diffs:
    """Keeps the N largest changes seen (by tokens, then place), their texts only until the end."""

    top: int
    _heap: list = None  # (change, order, entry fields, labels, before text, after text)

    def __post_init__(self) -> None:
        self._heap = []
        self._order = 0

    def add(self, item, recorded: int, identity: int | None, variant: int, before_text: str,
            against: int | None = None, labels: tuple[str, str] = ("before", "variant")) -> None:
        """One replayed call: its sizes, and the text the variant is compared with (`against`: its size, when it
        is not the identity's or the recording's; `labels`: the two sides' names in the diff)."""
        if self.top <= 0 or item.after is None:
            return
        base = against if against is not None else identity if identity is not None else recorded
        change = abs(variant - base)
        if change == 0 and before_text == item.after.output:
            return
        self._order += 1
        call = item.before
        entry = (call.tool, call.call_id, call.session, f"{call.source}:{call.line}", recorded, identity, variant)
        pushed = (change, -self._order, entry, labels, before_text, item.after.output)
        if len(self._heap) < self.top:
            heapq.heappush(self._heap, pushed)
        elif pushed[:2] > self._heap[0][:2]:
            heapq.heapreplace(self._heap, pushed)

    def entries(self) -> tuple[DiffEntry, ...]:
        """The kept changes, largest first, each with its diff."""
        out = []
        for _change, _order, entry, labels, before, after in sorted(self._heap, reverse=True):
            out.append(DiffEntry(*entry, unified(before, after, entry[0], labels)))
        return tuple(out)


def unified(before: str, after: str, tool: str, labels: tuple[str, str] = ("before", "variant")) -> str:
    """A unified diff of the redacted texts, at most MAX_LINES lines."""
    lines = list(difflib.unified_diff(redact(before).splitlines(), redact(after).splitlines(),
                                      f"{tool} ({labels[0]})", f"{tool} ({labels[1]})", lineterm="", n=1))
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES] + [f"... {len(lines) - MAX_LINES} more diff lines"]
    return "\n".join(lines)
