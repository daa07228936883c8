"""Gemini CLI's settings.json keys for output sizes and compression (google-gemini/gemini-cli)."""

from __future__ import annotations

from .base import Known, Setting

AGENT = "gemini-cli"
COLLECTORS = ("gemini-cli", "gemini-stream-json")
TOKEN_LIMIT = 1_048_576  # the Gemini 2.5 / 3 models' input limit that compressionThreshold is a share of

THRESHOLD = Known(AGENT, "tools.truncateToolOutputThreshold", "settings.json", "chars",
                  "40000 (v0.29.0 on; 4000000 before)", "v0.5.3",
                  "google-gemini/gemini-cli v0.56.0: packages/core/src/config/config.ts "
                  "DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD = 40_000; packages/core/src/utils/fileUtils.ts",
                  "shell and single-text MCP output: saved to a file, 20% head and 80% tail shown")
COMPRESSION = Known(AGENT, "model.compressionThreshold", "settings.json", "fraction of the model's token limit",
                    "0.5 (v0.18.0 on)", "v0.12.0",
                    "google-gemini/gemini-cli v0.56.0: packages/core/src/context/chatCompressionService.ts",
                    "chat compression trigger; the newest 30% is kept")
KNOWN = (THRESHOLD, COMPRESSION)


def for_cap(tool: str, chars: int, tokens: int) -> Setting | None:
    """The truncation threshold covers the shell and MCP tools."""
    if tool == "run_shell_command" or tool.startswith("mcp_") or "__" in tool:
        return Setting.of(THRESHOLD, str(chars))
    return None


def for_context(policy) -> Setting | None:
    """Compaction maps onto the compression threshold."""
    if policy.name != "compact":
        return None
    return Setting.of(COMPRESSION, f"{policy.at / TOKEN_LIMIT:.2f}", f"of {TOKEN_LIMIT:,} tokens")


def for_mcp(tokens_per_call: int) -> Setting | None:
    """The same threshold, in chars."""
    return Setting.of(THRESHOLD, str(max(4000, tokens_per_call * 2)), "≈ half the tokens per call, at 4 chars a token")
