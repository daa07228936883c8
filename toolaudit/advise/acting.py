"""Each agent's output setting as the agent applies it, for advise's sweep: the transformation the setting
makes, on every tool it governs, at each swept value.

- Claude Code: `BASH_MAX_OUTPUT_LENGTH` keeps the head of Bash's output (`... [N lines truncated] ...`; from
  2.1.2 a longer output becomes the `<persisted-output>` preview); `TASK_MAX_OUTPUT_LENGTH` keeps the tail;
  `CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS` refuses a larger file, which the agent then reads in parts, and
  `MAX_MCP_OUTPUT_TOKENS` cuts an MCP result to its head (before 2.0.71) or saves it to a file the agent reads
  in parts (2.0.71 on): a refusal and re-read (RefuseReread), whose saving and risk are not measured here;
- Codex: `tool_output_token_limit`: a 50/50 middle cut of every tool's output, in tokens of 4 bytes;
- OpenHands: `max_message_chars`: a 50/50 middle cut of every observation, `file_editor`'s as `terminal`'s;
- Gemini CLI: `tools.truncateToolOutputThreshold`: 20% head and 80% tail of shell and MCP outputs.

A value is swept in chars; a setting in tokens takes chars // CHARS_PER_TOKEN (the value it is recommended at).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from ..model import OutputCap
from ..scan.families import SHELL
from ..simulate.policies import Chain, CodexMiddle, HeadTail, Policy
from ..simulate.policies.base import CountTokens, approx_tokens
from ..simulate.policies.claude_code import ClaudeBash, ClaudeMcp
from ..simulate.policies.codex import CodexWrapped

CHARS_PER_TOKEN = 4
OPENHANDS_MARKER = "\n[... Observation truncated due to length ...]\n"
GEMINI_HEADER = ("Output too large. Showing first {head:,} and last {tail:,} characters. "
                 "For full output see: <file>\n")
GEMINI_MARKER = "\n\n... [{omitted:,} characters omitted] ...\n\n"
REFUSED = "[refused over {limit} tokens; read again in parts]\n"


@dataclass(frozen=True)
class RefuseReread(Policy):
    """A refusal the agent answers by reading the same content again in parts: the output over `max_tokens` is
    the refusal and then the content, re-read (how much less it re-reads is not in the transcript)."""

    key: ClassVar[str] = "refuse-reread"
    summary: ClassVar[str] = "an output over N tokens refused, then read again in parts (advise)"

    max_tokens: int = 25_000

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The refusal and the content again, or `text` itself within the limit."""
        if len(text.encode("utf-8")) <= self.max_tokens or (count_tokens or approx_tokens)(text) <= self.max_tokens:
            return text
        return REFUSED.format(limit=self.max_tokens) + text


def version_tuple(text: str | None) -> tuple[int, ...]:
    """`2.1.38` -> (2, 1, 38); () when `text` starts with no number."""
    found = re.match(r"\s*v?(\d+(?:\.\d+)*)", text or "")
    return tuple(int(part) for part in found.group(1).split(".")) if found else ()


def _shell(tool: str) -> bool:
    return tool.lower() in SHELL


def acting(collector: str | None, tool: str, version: str | None, chars: int) -> Policy | None:
    """The transformation the setting that governs `tool` in `collector`'s agent applies at `chars` (tokens:
    chars // CHARS_PER_TOKEN), or None where the agent has no setting for the tool."""
    tokens = max(1, chars // CHARS_PER_TOKEN)
    v = version_tuple(version) or (9999,)  # no version recorded: the newest behaviour
    if collector == "claude-code":
        if tool == "Bash":
            return ClaudeBash(persist=v >= (2, 1, 2), max_chars=chars)
        if tool in ("TaskOutput", "BashOutput"):
            return HeadTail(max_chars=chars, head_ratio=0.0)
        if tool == "Read":
            return RefuseReread(tokens)
        if tool.startswith("mcp__") and not tool.startswith("mcp__ide__"):
            return RefuseReread(tokens) if v >= (2, 0, 71) else ClaudeMcp(saved=None, max_tokens=tokens)
        return None
    if collector == "codex":
        return CodexWrapped(Chain.of(CodexMiddle(limit=tokens, unit="tokens")))
    if collector in ("openhands", "openhands-v1"):
        return HeadTail(max_chars=chars, head_ratio=0.5, marker=OPENHANDS_MARKER)
    if collector == "gemini-cli" and (_shell(tool) or tool.startswith("mcp_")):
        return HeadTail(max_chars=chars, head_ratio=0.2, header=GEMINI_HEADER, marker=GEMINI_MARKER)
    return None


def refused(collector: str | None, tool: str, version: str | None = None) -> bool:
    """Whether the setting governing `tool` refuses and the agent re-reads (its saving and risk: not measured)."""
    return isinstance(acting(collector, tool, version, 40_000), RefuseReread)


@dataclass(frozen=True)
class SettingMap:
    """A policy map for simulate's engine: each call gets the transformation its agent's setting applies at
    `chars` (acting), by the call's collector and its session's version; nothing where there is no setting."""

    chars: int

    @property
    def label(self) -> str:
        """The swept value."""
        return str(self.chars)

    @property
    def follows_session(self) -> bool:
        """A setting's value is the user's, not the session's recorded cap."""
        return False

    def policy_for(self, tool: str, model: str | None = None, recorded: OutputCap | None = None,
                   version: str | None = None, collector: str | None = None) -> Policy | None:
        """The setting's transformation for this call, or None."""
        return acting(collector, tool, version, self.chars)

    def describe(self) -> list[str]:
        """One line: what it applies."""
        return [f"each agent's own setting at {self.chars:,} chars ({self.chars // CHARS_PER_TOKEN:,} tokens), "
                "as the agent applies it"]
