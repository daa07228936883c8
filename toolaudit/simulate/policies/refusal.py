"""Refusal: an output over a token limit is replaced whole by an error message (Claude Code's Read and MCP caps)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...errors import UsageError
from .base import ORDER_REFUSAL, CountTokens, Policy, approx_tokens, nbytes, policies, render

DEFAULT_MESSAGE = (
    "[toolaudit: output refused: {tokens} tokens exceed the limit of {limit}; ask for a narrower range]"
)
CLAUDE_READ_MESSAGE = (
    "File content ({tokens} tokens) exceeds maximum allowed tokens ({limit}). Please use offset and limit "
    "parameters to read specific portions of the file, or use the GrepTool to search for specific content."
)
CLAUDE_MCP_MESSAGE = (
    'MCP tool "{tool}" response ({tokens} tokens) exceeds maximum allowed tokens ({limit}). '
    "Please use pagination, filtering, or limit parameters to reduce the response size."
)


@policies.register
@dataclass(frozen=True)
class Refusal(Policy):
    """Replace an output of more than `max_tokens` tokens by `message` ({tokens}, {limit}, {tool}).

    Tokens are counted with the `count_tokens` the caller passes (the scan's tokenizer);
    without one, ceil(chars / 4) stands in.
    """

    key: ClassVar[str] = "refusal"
    summary: ClassVar[str] = "replace an output over N tokens by an error message (Claude Code Read/MCP)"
    order: ClassVar[int] = ORDER_REFUSAL

    max_tokens: int = 25_000
    message: str = DEFAULT_MESSAGE
    tool: str = ""  # filled by presets for messages that name the tool

    def __post_init__(self) -> None:
        if self.max_tokens < 0:
            raise UsageError("a token limit must not be negative", slug="bad-policy")

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The refusal message, or `text` itself when within the limit."""
        if nbytes(text) <= self.max_tokens:  # a token holds at least one byte: no need to count
            return text
        tokens = (count_tokens or approx_tokens)(text)
        if tokens <= self.max_tokens:
            return text
        return render(self.message, tokens=tokens, limit=self.max_tokens, tool=self.tool)
