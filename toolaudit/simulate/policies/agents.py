"""Agents' own truncation functions, ported exactly where the generic head/tail cap cannot express them.

Codex counts lines the Rust way (a trailing newline ends the last line, it does not
start a new one) and mixes byte and line budgets; OpenCode keeps whole lines only.
Sources: openai/codex `codex-rs/utils/string/src/truncate.rs`,
`codex-rs/utils/output-truncation/src/lib.rs`, legacy `codex-rs/core/src/truncate.rs`;
opencode `packages/opencode/src/tool/truncation.ts` (see docs/harness-caps.md).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from ...errors import UsageError
from .base import ORDER_CAP, CountTokens, Policy, cut_bytes, cut_bytes_tail, dump_json_like, nbytes, policies, render


def rust_lines(text: str) -> int:
    """Lines as Rust's `str::lines().count()` counts them."""
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


@policies.register
@dataclass(frozen=True)
class CodexMiddle(Policy):
    """Codex CLI (current): 50/50 middle cut on UTF-8 boundaries, `…N chars|tokens truncated…`.

    unit "bytes" is `TruncationPolicy::Bytes(limit)`; "tokens" is `Tokens(limit)`, a budget
    of 4 bytes per token. The marker and the header come on top of the budget.
    """

    key: ClassVar[str] = "codex-middle"
    summary: ClassVar[str] = "Codex CLI's current cap: 50/50 middle cut in bytes or bytes/4 tokens (preset codex)"
    order: ClassVar[int] = ORDER_CAP
    family: ClassVar[str] = "cap"

    limit: int = 10_000
    unit: str = "bytes"
    header: bool = True  # formatted_truncate_text's "Warning: … token count\nTotal output lines: N\n\n"

    def __post_init__(self) -> None:
        if self.unit not in ("bytes", "tokens") or self.limit < 0:
            raise UsageError("codex-middle takes unit bytes or tokens and a limit >= 0", slug="bad-policy")

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """Head + `…N … truncated…` + tail, or `text` itself when within the budget."""
        budget = self.limit * 4 if self.unit == "tokens" else self.limit
        size = nbytes(text)
        if size <= budget:
            return text
        left = budget // 2
        head, tail = cut_bytes(text, left), cut_bytes_tail(text, budget - left)
        if self.unit == "tokens":
            marker = f"…{math.ceil((size - budget) / 4)} tokens truncated…"
        else:
            marker = f"…{len(text) - len(head) - len(tail)} chars truncated…"
        out = head + marker + tail
        if self.header:
            out = (f"Warning: truncated output (original token count: {math.ceil(size / 4)})\n"
                   f"Total output lines: {rust_lines(text)}\n\n" + out)
        return out


@policies.register
@dataclass(frozen=True)
class CodexLegacy(Policy):
    """Codex CLI legacy (≤ v0.5x): 10 KiB AND 256 lines; 128 head + 128 tail lines, head ≤ 5,120 B.

    The marker counts inside the byte budget (head + marker + tail ≤ max_bytes); the
    `Total output lines: N` header comes on top.
    """

    key: ClassVar[str] = "codex-legacy"
    summary: ClassVar[str] = "Codex CLI's legacy cap: 10 KiB and 256 lines, 128+128 (preset codex-legacy)"
    order: ClassVar[int] = ORDER_CAP
    family: ClassVar[str] = "cap"

    max_bytes: int = 10 * 1024
    max_lines: int = 256

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """`Total output lines: N` + head + marker + tail, or `text` itself when within both limits."""
        total_lines = rust_lines(text)
        size = nbytes(text)
        if size <= self.max_bytes and total_lines <= self.max_lines:
            return text
        # split_inclusive('\n'): lines keep their newline
        segments = [line + "\n" for line in text.split("\n")]
        segments[-1] = segments[-1][:-1]
        if not segments[-1]:
            segments.pop()
        head_take = min(self.max_lines // 2, len(segments))
        tail_take = min(self.max_lines - self.max_lines // 2, len(segments) - head_take)
        omitted = len(segments) - head_take - tail_take
        head_slice = "".join(segments[:head_take])
        tail_slice = "".join(segments[len(segments) - tail_take :]) if tail_take else ""
        if omitted > 0:
            marker = f"\n[... omitted {omitted} of {total_lines} lines ...]\n\n"
        else:
            marker = f"\n[... output truncated to fit {self.max_bytes} bytes ...]\n\n"
        head_budget = min(self.max_bytes // 2, max(self.max_bytes - nbytes(marker), 0))
        result = cut_bytes(head_slice, head_budget) + marker
        remaining = max(self.max_bytes - nbytes(result), 0)
        if remaining:
            result += cut_bytes_tail(tail_slice, remaining)
        return f"Total output lines: {total_lines}\n\n{result}"


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


# Codex 0.4x-0.5x ExecToolCallOutput as stored: {"output": "...", "metadata": {"exit_code": N, ...}}
_WRAPPER_END = re.compile(r'"metadata":\s*\{[^{}]*\}\s*\}\s*$')


def codex_inner(text: str) -> tuple[dict[str, Any], str] | None:
    """(the parsed wrapper, its output text) when `text` is a Codex 0.5x JSON-wrapped output, else None.

    The answers for the last few texts asked about are kept (callers do not change a text): simulate
    asks of one output under every policy map of a sweep, and each map's risk checks ask of its cut
    in between, so one slot was taken by the cut before the next map asked of the output again.
    """
    for seen, found in _RECENT:
        if seen is text:
            return found
    found = _parse_wrapper(text)
    _RECENT.append((text, found))
    del _RECENT[:-_KEEP]
    return found


_KEEP = 4  # the full output, a cut of it, and room for both of the next call
_RECENT: list[tuple[str, Any]] = []


def _parse_wrapper(text: str) -> tuple[dict[str, Any], str] | None:
    if not text.startswith('{"output":') or not _WRAPPER_END.search(text[-200:]):
        return None  # literal checks first: most outputs are never parsed
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if isinstance(doc, dict) and doc.keys() == {"output", "metadata"} and isinstance(doc["output"], str):
        return doc, doc["output"]
    return None


@dataclass(frozen=True)
class CodexWrapped(Policy):
    """Applies `inner` to the output text inside a Codex 0.5x JSON wrapper, as Codex itself cut it.

    Codex truncated the command's output and then wrapped it, so a cap on such an output
    cuts the inner text and keeps the wrapper (and its exit code) valid JSON, serialised as
    it was. Any other text goes to `inner` as it is.
    """

    key: ClassVar[str] = "codex-wrapped"
    summary: ClassVar[str] = "a cap applied inside Codex 0.5x's {output, metadata} JSON wrapper"

    inner: Policy

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The wrapper with its output cut, or `inner` applied to `text`; `text` itself when unchanged."""
        found = codex_inner(text)
        if found is None:
            return self.inner.apply(text, count_tokens)
        doc, output = found
        cut = self.inner.apply(output, count_tokens)
        return text if cut is output else dump_json_like({**doc, "output": cut}, text)

    def describe(self) -> str:
        """The inner policy's description: the wrapper is a detail of how the text is stored."""
        return self.inner.describe()
