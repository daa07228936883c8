"""Codex CLI's own truncation functions, ported exactly where the generic head/tail cap cannot express them.

Codex counts lines the Rust way (a trailing newline ends the last line, it does not
start a new one) and mixes byte and line budgets. Sources: openai/codex
`codex-rs/utils/string/src/truncate.rs`, `codex-rs/utils/output-truncation/src/lib.rs`,
legacy `codex-rs/core/src/truncate.rs` (see docs/caps.md).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from ...errors import UsageError
from .base import ORDER_CAP, CountTokens, Policy, cut_bytes, cut_bytes_tail, dump_json_like, nbytes, policies



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
    warning: bool = True  # the header's `Warning: truncated output …` line (Codex 0.141 on)

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
            warning = f"Warning: truncated output (original token count: {math.ceil(size / 4)})\n" if self.warning else ""
            out = f"{warning}Total output lines: {rust_lines(text)}\n\n" + out
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


# --- Codex, by version -----------------------------------------------------------------------------

# Codex's text envelopes around a command's output (the JSON wrapper of `shell` is CodexWrapped's):
# shell_command's freeform `Exit code: N\nWall time: X seconds\n[Total output lines: N\n]Output:\n…` and
# unified exec's `[Chunk ID: …\n]Wall time: X seconds\nProcess exited with code N\nOriginal token count: T\nOutput:\n…`
_FREEFORM = re.compile(r"Exit code: -?\d+\nWall time: [\d.]+ seconds\n(?:Total output lines: \d+\n)?Output:\n")
_UNIFIED = re.compile(r"(?:Chunk ID: [^\n]*\n)?Wall time: [\d.]+ seconds\n(?:Process exited with code -?\d+\n|"
                      r"Process running with session ID [^\n]*\n)(?:Original token count: \d+\n)?Output:\n")


@dataclass(frozen=True)
class CodexCut(Policy):
    """Codex's cut as one range of versions did it, inside the text envelope Codex put around the output.

    kind "legacy" (0.45 - 0.58: 10 KiB and 256 lines, `Total output lines: N` on top), "legacy-nohint"
    (before 0.45: the same without that line), "bytes" or "tokens" (0.59 on: TruncationPolicy(limit), the
    50/50 middle cut under `Total output lines: N`, and from 0.141 `Warning: truncated output …` above it).
    shell_command's freeform output is cut inside (its body without a header, `Total output lines: N`
    added to the envelope); exec_command's unified output inside too, to its max_output_tokens (10,000)
    within the policy's token budget. Ported from the replay of Codex (replay/agents/codex.py).
    """

    key: ClassVar[str] = "codex-cut"
    summary: ClassVar[str] = "Codex CLI's cut of one version range, inside Codex's envelopes (preset codex)"
    order: ClassVar[int] = ORDER_CAP
    family: ClassVar[str] = "cap"

    kind: str = "bytes"
    limit: int = 10_000
    warning: bool = True
    recorded: bool = False  # the limit is the session's recorded truncation_policy (not the model's default)

    def __post_init__(self) -> None:
        if self.kind not in ("legacy", "legacy-nohint", "bytes", "tokens") or self.limit < 0:
            raise UsageError("codex-cut takes kind legacy, legacy-nohint, bytes or tokens and a limit >= 0",
                             slug="bad-policy")

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The output as this Codex version cut it, or `text` itself when within its budget."""
        found = _FREEFORM.match(text)
        if found:
            body = text[found.end():]
            cut = self._legacy(body, False) if self.kind.startswith("legacy") else self._middle(body, False)
            if cut is body:
                return text
            head = found.group(0)
            if "\nTotal output lines: " not in head and rust_lines(body) != rust_lines(cut):
                head = head.replace("Output:\n", f"Total output lines: {rust_lines(body)}\nOutput:\n")
            return head + cut
        found = _UNIFIED.match(text)
        if found and not self.kind.startswith("legacy"):
            body = text[found.end():]
            tokens = 10_000  # max_output_tokens' default, within a recorded policy's token budget
            if self.recorded:
                tokens = min(tokens, self.limit if self.kind == "tokens" else math.ceil(self.limit / 4))
            cut = CodexMiddle(tokens, "tokens", warning=self.warning).apply(body)
            return text if cut is body else found.group(0) + cut
        if self.kind.startswith("legacy"):
            return self._legacy(text, self.kind == "legacy")
        return CodexMiddle(self.limit, self.kind, warning=self.warning).apply(text)

    def _legacy(self, text: str, hint: bool) -> str:
        cut = CodexLegacy().apply(text)
        return cut.split("\n\n", 1)[1] if cut is not text and not hint else cut

    def _middle(self, text: str, header: bool) -> str:
        return CodexMiddle(self.limit, self.kind, header=header, warning=self.warning).apply(text)
