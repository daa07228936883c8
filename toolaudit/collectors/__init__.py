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
for _name in BUILTIN:
    import_module(f"{__name__}.{_name}")

__all__ = ["Collector", "collectors"]
