"""SWE-agent's history processors (SWE-agent/SWE-agent 1.x)."""

from __future__ import annotations

from .base import Known, Setting

AGENT = "swe-agent"
COLLECTORS = ("swe-agent",)

LAST_N = Known(AGENT, "history_processors: [{type: last_n_observations, n: N}]", "the agent's config YAML",
               "observations", "none (SWE-agent 0.7 configs: 5; The Complexity Trap: M=10)", "1.0",
               "SWE-agent/SWE-agent sweagent/agent/history_processors.py LastNObservations (n, polling)",
               "elides all but the last N observations; `polling` spaces the changes out for the prompt cache")
KNOWN = (LAST_N,)


def for_cap(tool: str, chars: int, tokens: int) -> Setting | None:
    """SWE-agent's own cap (max_observation_length) is not a per-tool setting advise maps onto."""
    return None


def for_context(policy) -> Setting | None:
    """Masking maps onto the last-N-observations processor."""
    return Setting.of(LAST_N, str(policy.keep)) if policy.name == "mask" else None


def for_mcp(tokens_per_call: int) -> Setting | None:
    """No MCP in SWE-agent."""
    return None
