"""OpenHands' config.toml: the message cap and the condensers (All-Hands-AI/OpenHands, V0 app)."""

from __future__ import annotations

from .base import Known, Setting

AGENT = "openhands"
COLLECTORS = ("openhands", "openhands-v1")

CHARS = Known(AGENT, "[llm] max_message_chars", "config.toml", "chars", "30000", "0.9.0",
              "All-Hands-AI/OpenHands 0.62.0: openhands/core/config/llm_config.py; "
              "openhands/events/serialization/event.py truncate_content", "each observation: a middle cut")
MASKING = Known(AGENT, "[condenser] type = \"observation_masking\", attention_window", "config.toml", "events",
                "100 (10 before 0.28.0)", "0.20.0", "All-Hands-AI/OpenHands 0.62.0: "
                "openhands/core/config/condenser_config.py ObservationMaskingCondenserConfig",
                "masks observations older than the last N events")
KNOWN = (CHARS, MASKING)


def for_cap(tool: str, chars: int, tokens: int) -> Setting | None:
    """One cap for every observation."""
    return Setting.of(CHARS, str(chars), "one cap for every observation")


def for_context(policy) -> Setting | None:
    """Masking by turns maps onto the masking condenser's window (an action and its observation: 2 events)."""
    if policy.name == "mask":
        return Setting.of(MASKING, str(2 * policy.keep), f"{policy.keep} turns ≈ {2 * policy.keep} events")
    return None


def for_mcp(tokens_per_call: int) -> Setting | None:
    """No MCP-only limit."""
    return None
