"""Each agent's real settings (one module per agent), and the recommendation → setting lookup advise uses."""

from __future__ import annotations

from importlib import import_module

from .base import Known, Setting

AGENTS = ("claude_code", "codex", "gemini_cli", "anthropic_api", "openhands", "swe_agent")


def _module(collector: str | None):
    """The settings module of the agent whose transcripts `collector` reads, or None."""
    for name in AGENTS:
        module = import_module(f"{__name__}.{name}")
        if collector in module.COLLECTORS:
            return module
    return None


def knows(collector: str | None) -> bool:
    """Whether toolaudit knows the settings of the agent whose transcripts `collector` reads."""
    return _module(collector) is not None


def known() -> list[Known]:
    """Every setting advise can name, with its source (docs/advise.md lists each)."""
    return [k for name in AGENTS for k in import_module(f"{__name__}.{name}").KNOWN]


def for_cap(collector: str | None, tool: str, chars: int, tokens: int) -> Setting | None:
    """The agent's setting that caps `tool`'s outputs, or None where it has none."""
    module = _module(collector)
    return module.for_cap(tool, chars, tokens) if module else None


def for_context(collector: str | None, policy) -> Setting | None:
    """The agent's setting for a context policy, or None where it has none."""
    module = _module(collector)
    return module.for_context(policy) if module else None


def for_mcp(collector: str | None, tokens_per_call: int) -> Setting | None:
    """The agent's MCP output limit, or None."""
    module = _module(collector)
    return module.for_mcp(tokens_per_call) if module else None
