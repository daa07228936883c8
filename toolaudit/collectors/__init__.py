"""Collectors: one module per transcript format, registered by importing it."""

from importlib import import_module

from .base import Collector, collectors

# Built-ins, in sniffing order: the most specific first.
BUILTIN = (
    "claude_code",
    "codex",
    "toolaudit_jsonl",
    "anthropic_messages",
    "gemini_cli",
    "gemini_stream",
    "swe_agent",
    "mini_swe_agent",
    "openhands_v1",  # before openhands: its events hold `action` and `observation` keys too
    "openhands",
    "openai_responses",
    "hermes",
    "atif",
    "otel_genai",
    "openai_chat",
)

# the built-ins whose `walked` changes a folder walk (tests/collectors keep this list whole): a walk imports
# only these, so a scan served from the cache imports no other format
WALKERS = ("openhands_v1",)


def _load_builtins() -> None:
    """Import the built-in collectors (each registers itself), on the registry's first use: a command that
    reads no transcript (a scan served from its cache, --help) does not import fifteen formats."""
    for name in BUILTIN:
        import_module(f"{__name__}.{name}")


collectors.builtins = (_load_builtins, tuple(f"{__name__}.{name}" for name in BUILTIN))

__all__ = ["Collector", "collectors", "WALKERS"]
