"""Presets: the real output caps of real agents, per range of their versions, with their own marker texts.

Numbers and marker texts come from docs/caps.md, the agents' sources it
cites, and (Claude Code) the npm package's cli.js of each version range (see claude_code.py).
A preset maps tool-name globs (matched case-insensitively, first match wins) to a Chain; "*"
is the default. Tool groups name the equivalent tools of other agents too (Claude Code's Bash
is Codex's shell), so a preset can be simulated on any agent's transcripts. Where a source
leaves a detail open, the choice is written in the preset's `notes`.

An agent whose caps changed between versions (Claude Code, Codex) is a `Versioned` preset: each
session gets the range of the version it recorded, the newest range when it recorded none (or
is another agent's); `--preset NAME@VERSION` (a version, or a range's label) pins one range.
"""

from __future__ import annotations

from ...errors import UsageError
from ...registry import did_you_mean
from ...scan.families import SHELL
from .base import GLOB, READ, SEARCH, Preset, Versioned, preset, version_tuple
from .claude_code import CLAUDE_CODE
from .codex import CODEX, CODEX_LEGACY, CODEX_TOKENS, codex_session_cap
from .others import MINI_SWE_WARNING, OTHERS, SWE_AGENT_NOTE

__all__ = ["GLOB", "MINI_SWE_WARNING", "PRESETS", "READ", "SEARCH", "SHELL", "SWE_AGENT_NOTE", "Preset", "Versioned",
           "codex_session_cap", "get_preset", "preset", "version_tuple"]

PRESETS: dict[str, Preset | Versioned] = {p.key: p for p in (CODEX, CODEX_TOKENS, CODEX_LEGACY, CLAUDE_CODE, *OTHERS)}


def get_preset(name: str) -> Preset | Versioned:
    """The preset named `name` (`NAME@VERSION` pins a range of a versioned one), or a UsageError naming the closest."""
    family, at, version = name.partition("@")
    if at:
        found = PRESETS.get(family)
        if not isinstance(found, Versioned):
            versioned = [k for k, p in PRESETS.items() if isinstance(p, Versioned)]
            raise UsageError(f"preset {family!r} has no version ranges: NAME@VERSION takes "
                             f"{' or '.join(versioned)}{did_you_mean(family, versioned)}", slug="unknown-preset")
        pinned = found.pinned(version.strip())
        if pinned is None:
            labels = ", ".join(p.versions for _, p in found.ranges)
            raise UsageError(f"{name!r}: {version!r} is no version of {family} (ranges: {labels})",
                             slug="unknown-preset")
        return pinned
    try:
        return PRESETS[name]
    except KeyError:
        raise UsageError(
            f"unknown preset {name!r}{did_you_mean(name, PRESETS)}; see `toolaudit list policies`",
            slug="unknown-preset",
        ) from None
