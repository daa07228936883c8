"""OpenCode's own cap: whole lines only (opencode `packages/opencode/src/tool/truncation.ts`, docs/caps.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...errors import UsageError
from .base import ORDER_CAP, CountTokens, Policy, nbytes, policies, render



OPENCODE_HINT = (
    "The tool call succeeded but the output was truncated. Full output saved to: <file>\n"
    "Use Grep to search the full content or Read with offset/limit to view specific sections."
)


@policies.register
@dataclass(frozen=True)
class OpenCodeCut(Policy):
    """OpenCode: whole lines within 2,000 lines and 50 KiB (first limit hit wins), head or tail, saved-file hint.

    The marker and hint come on top of the budget. The hint names `<file>` where
    OpenCode writes the path of the saved full output.
    """

    key: ClassVar[str] = "opencode-cut"
    summary: ClassVar[str] = "OpenCode's cap: whole lines within 2,000 lines / 50 KiB, head (preset opencode)"
    order: ClassVar[int] = ORDER_CAP
    family: ClassVar[str] = "cap"

    max_lines: int = 2000
    max_bytes: int = 50 * 1024
    direction: str = "head"
    hint: str = OPENCODE_HINT

    def __post_init__(self) -> None:
        if self.direction not in ("head", "tail"):
            raise UsageError("opencode-cut direction is head or tail", slug="bad-policy")

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """Kept lines + `...N lines|bytes truncated...` + hint, or `text` itself when within both limits."""
        lines = text.split("\n")
        total = nbytes(text)
        if len(lines) <= self.max_lines and total <= self.max_bytes:
            return text
        kept: list[str] = []
        used, hit_bytes = 0, False
        order = lines if self.direction == "head" else reversed(lines)
        for line in order:
            if len(kept) >= self.max_lines:
                break
            size = nbytes(line) + (1 if kept else 0)
            if used + size > self.max_bytes:
                hit_bytes = True
                break
            kept.append(line)
            used += size
        removed, unit = (total - used, "bytes") if hit_bytes else (len(lines) - len(kept), "lines")
        hint = render(self.hint, removed=removed, unit=unit)
        if self.direction == "head":
            return f"{chr(10).join(kept)}\n\n...{removed} {unit} truncated...\n\n{hint}"
        return f"...{removed} {unit} truncated...\n\n{hint}\n\n{chr(10).join(reversed(kept))}"
