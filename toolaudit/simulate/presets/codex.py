"""Codex CLI's caps, one preset per range of versions (openai/codex, as replay/agents/codex.py reproduces them).

- before 0.45: the legacy cut (10 KiB and 256 lines, 128 + 128 lines) without the `Total output lines: N`
  line that openai/codex#4740 (2025-10-04) added (the version is an estimate from that PR's date);
- 0.45 - 0.58: the legacy cut with it (the corpus's 0.58.0 recordings match it);
- 0.59 - 0.140 (openai/codex#6842): the session's TruncationPolicy (turn_context.truncation_policy), else
  Tokens(10_000) for a `*codex*` model, else Bytes(10_000): a 50/50 middle cut under `Total output lines: N`;
- 0.141 on (openai/codex#28467): the same with `Warning: truncated output (original token count: T)` above.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model import OutputCap
from ..policies import CodexLegacy, CodexMiddle
from ..policies.codex import CodexCut
from .base import Preset, Versioned, preset


def codex_session_cap(recorded: OutputCap | None, model: str | None) -> CodexMiddle:
    """The session's recorded `truncation_policy`, else the model family's default.

    Codex models (a slug with `codex`: gpt-5-codex, gpt-5.1-codex-max...) default to
    Tokens(10_000), the GPT-4/5 families to Bytes(10_000) (docs/caps.md: Codex CLI — current).
    """
    if recorded is not None:
        return CodexMiddle(recorded.limit, recorded.unit)
    return CodexMiddle(10_000, "tokens" if model and "codex" in model.lower() else "bytes")


@dataclass(frozen=True)
class SessionCut:
    """A preset's `cap_for`: the session's recorded cap (else the model's default) as a CodexCut.

    A module-level class, not a closure, so a preset crosses to worker processes (pickle).
    """

    warning: bool

    def __call__(self, recorded: OutputCap | None, model: str | None) -> CodexCut:
        middle = codex_session_cap(recorded, model)
        return CodexCut(middle.unit, middle.limit, self.warning, recorded is not None)


ENVELOPES = ("shell_command's `Exit code: … Output:` and exec_command's `Wall time: … Output:` envelopes are "
             "kept and the output inside them cut (exec_command to max_output_tokens 10,000 within the "
             "policy's token budget); `shell`'s 0.4x-0.5x JSON wrapper likewise.")
POLICY_NOTES = (
    "Each session gets the cap its rollout records (turn_context.truncation_policy, the latest before the "
    "call); without one, a model slug containing `codex` gets Tokens(10_000), any other Bytes(10_000). "
    "Marker after the budget: half the budget head + half tail, marker and header on top. T = ceil(bytes/4), "
    "N = Rust str::lines. Every tool, MCP included; the 1 MiB exec capture and the x1.2 history allowance "
    "are not simulated. " + ENVELOPES
)
LEGACY_NOTES = (
    "Marker inside the 10,240-byte budget (head + marker + tail). `[... omitted k of N lines ...]` when lines "
    "were dropped, else `[... output truncated to fit 10240 bytes ...]`. Multi-item outputs (`[omitted n text "
    "items ...]`) are not simulated. " + ENVELOPES
)


def _range(first: tuple[int, ...], label: str, what: str, notes: str, cut: CodexCut | None = None,
           warning: bool | None = None) -> tuple[tuple[int, ...], Preset]:
    cap_for = SessionCut(warning) if warning is not None else None
    policy = cut if cut is not None else CodexCut("bytes", 10_000, bool(warning))
    return first, preset(f"codex@{label}", f"Codex CLI {label}: {what}", {"*": policy}, notes, cap_for,
                         versions=label)


CODEX = Versioned(
    "codex", "codex",
    "Codex CLI: 10 KiB and 256 lines, 128 + 128 (before 0.59), then the session's recorded truncation_policy, "
    "else Bytes(10_000) (GPT-4/5 families) or Tokens(10_000) (Codex models), 50/50 middle cut, `…N chars|tokens "
    "truncated…` (docs/caps.md: Codex CLI — legacy, current)",
    (
        _range((0,), "0.1-0.44", "10 KiB and 256 lines, 128 + 128 lines, `[... omitted k of N lines ...]`, no "
               "`Total output lines` line", LEGACY_NOTES, cut=CodexCut("legacy-nohint")),
        _range((0, 45), "0.45-0.58", "10 KiB and 256 lines, 128 + 128 lines, `Total output lines: N` on top",
               LEGACY_NOTES, cut=CodexCut("legacy")),
        _range((0, 59), "0.59-0.140", "the session's truncation_policy, else Bytes or Tokens(10_000) by model, "
               "50/50 middle cut under `Total output lines: N`", POLICY_NOTES, warning=False),
        _range((0, 141), "0.141+", "the same under `Warning: truncated output (original token count: T)`",
               POLICY_NOTES, warning=True),
    ),
    POLICY_NOTES,
)

CODEX_TOKENS = preset(
    "codex-tokens",
    "Codex CLI (current, Codex models): Tokens(10_000) = 40,000 bytes at 4 bytes/token, 50/50 middle cut, "
    "`…N tokens truncated…` (docs/caps.md: Codex CLI — current)",
    {"*": CodexMiddle(10_000, "tokens")},
    "Marker after the budget: 20,000 B head + 20,000 B tail; N = ceil((bytes - 40,000) / 4); same header "
    "as codex 0.141+. Tokens are Codex's bytes/4 estimate, not the scan's tokenizer. Every session, whatever "
    "its version.",
)

CODEX_LEGACY = preset(
    "codex-legacy",
    "Codex CLI legacy (<= v0.5x): 10 KiB (10,240 B) AND 256 lines, 128 head + 128 tail lines, head <= 5,120 B "
    "(docs/caps.md: Codex CLI — legacy)",
    {"*": CodexLegacy()},
    "Marker inside the 10,240-byte budget (head + marker + tail), `Total output lines: N\\n\\n` on top. "
    "`[... omitted k of N lines ...]` when lines were dropped, else `[... output truncated to fit 10240 "
    "bytes ...]`. Multi-item outputs (`[omitted n text items ...]`) are not simulated. Every session, "
    "whatever its version (codex@0.45-0.58 is the same cut inside Codex's envelopes).",
)
