"""Codex CLI's config.toml keys for output sizes and compaction (openai/codex, codex-rs)."""

from __future__ import annotations

from .base import Known, Setting

AGENT = "codex"
COLLECTORS = ("codex",)

OUTPUT = Known(AGENT, "tool_output_token_limit", "~/.codex/config.toml", "tokens",
               "unset: the model's truncation_policy (10000 tokens in the 0.171 catalog)", "0.59.0",
               "openai/codex 3de87907 (#6746): codex-rs/core/src/models_manager/model_info.rs with_config_overrides; "
               "codex-rs/utils/string/src/truncate.rs", "every tool output kept in history: a middle cut")
COMPACT = Known(AGENT, "model_auto_compact_token_limit", "~/.codex/config.toml", "tokens",
                "unset: 90% of the context window (244800 of 272000); capped at 90% since #11516", "0.36.0",
                "openai/codex ea225df2 (#3446); codex-rs/protocol/src/openai_models.rs auto_compact_token_limit()",
                "auto-compact trigger")
KNOWN = (OUTPUT, COMPACT)


def for_cap(tool: str, chars: int, tokens: int) -> Setting | None:
    """Codex has one limit for every tool's output, in tokens."""
    return Setting.of(OUTPUT, str(tokens), "one limit for every tool's output")


def for_context(policy) -> Setting | None:
    """Compaction maps onto the auto-compact limit."""
    return Setting.of(COMPACT, str(policy.at)) if policy.name == "compact" else None


def for_mcp(tokens_per_call: int) -> Setting | None:
    """No MCP-only limit: tool_output_token_limit applies to all."""
    return None
