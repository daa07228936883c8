"""What every preset is: (tool glob, Chain) rules, and, for an agent whose caps changed, one preset per version range."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from ...model import OutputCap, strip_mcp_prefix
from ..policies import Chain
from ..policies.base import CountTokens, Policy

# Equivalent tools across agents (lower case; globs); the shell list is the families table's (scan.families).
READ = ("read", "read_file")
SEARCH = ("grep", "search_file_content", "search_files", "ripgrep")
GLOB = ("glob",)


@dataclass(frozen=True)
class Preset:
    """An agent's caps: (glob, Chain) rules in order, "*" last; a one-line description and the choices made.

    `versions` names the range of the agent's versions the caps are those of ("" when the preset
    is not tied to one).
    """

    key: str
    description: str
    rules: tuple[tuple[str, Chain], ...]
    notes: str = ""
    # (the session's recorded cap or None, the call's model) -> the cap that replaces the rules'
    # own; None: the preset's caps are fixed
    cap_for: Callable[[OutputCap | None, str | None], Policy] | None = None
    versions: str = ""

    @property
    def follows_cap(self) -> bool:
        """True when a session's recorded cap (Codex `truncation_policy`) replaces the preset's own."""
        return self.cap_for is not None

    def at(self, version: str | None = None, collector: str | None = None) -> Preset:
        """The preset for a session of `version` recorded by `collector`: this one (its caps are fixed)."""
        return self

    def chain_for(self, tool: str, cap: Policy | None = None) -> Chain:
        """The chain for `tool` (first matching glob; unchanged when none matches), `cap` replacing its cap."""
        name = tool.lower()
        for glob, chain in self.rules:
            if fnmatchcase(name, glob):
                chain = chain.bind_tool(strip_mcp_prefix(tool))  # Claude Code's error names only the tool
                return chain.override(cap) if cap is not None else chain
        return Chain()

    def apply(self, tool: str, text: str, count_tokens: CountTokens | None = None) -> str:
        """What the model would have seen from `tool` under this preset."""
        return self.chain_for(tool).apply(text, count_tokens)


def preset(key: str, description: str, rules: dict, notes: str = "", cap_for=None, versions: str = "") -> Preset:
    """A Preset from {glob or tuple of globs: policy or Chain}, in order."""
    flat = []
    for globs, policy in rules.items():
        chain = policy if isinstance(policy, Chain) else Chain.of(policy)
        flat.extend((glob, chain) for glob in ((globs,) if isinstance(globs, str) else globs))
    return Preset(key, description, tuple(flat), notes, cap_for, versions)


def version_tuple(text: str | None) -> tuple[int, ...]:
    """`2.1.38` -> (2, 1, 38); `0.104.0-alpha.1` -> (0, 104, 0); () when `text` starts with no number."""
    found = re.match(r"\s*v?(\d+(?:\.\d+)*)", text or "")
    return tuple(int(part) for part in found.group(1).split(".")) if found else ()


@dataclass(frozen=True)
class Versioned:
    """An agent's presets, one per range of its versions, oldest first.

    Each session gets the range of the version it recorded (SessionInfo.version, from the
    agent's own collector); a session of another agent, or one that recorded no version,
    gets the newest range; a version before the oldest range gets the oldest, one after
    the newest the newest. `NAME@VERSION` pins one range for every session (get_preset).
    """

    key: str
    agent: str  # the collector whose recorded versions are this agent's versions
    summary: str
    ranges: tuple[tuple[tuple[int, ...], Preset], ...]  # (the range's first version, its preset), oldest first
    notes: str = ""

    @property
    def newest(self) -> Preset:
        return self.ranges[-1][1]

    @property
    def description(self) -> str:
        """One line: what the caps are and which ranges exist."""
        labels = ", ".join(p.versions for _, p in self.ranges)
        return (f"{self.summary}; per session, the range of its recorded version: {labels} "
                f"(the newest when none is recorded; {self.key}@VERSION pins one)")

    @property
    def follows_cap(self) -> bool:
        return any(p.follows_cap for _, p in self.ranges)

    @property
    def cap_for(self):
        """The newest range's: a versioned preset is used by the range (`at`)."""
        return self.newest.cap_for

    @property
    def rules(self) -> tuple[tuple[str, Chain], ...]:
        return self.newest.rules

    def at(self, version: str | None = None, collector: str | None = None) -> Preset:
        """The range of `version` when the agent's own collector recorded it, else the newest."""
        wanted = version_tuple(version) if collector == self.agent else ()
        return self.range_of(wanted) if wanted else self.newest

    def range_of(self, version: tuple[int, ...]) -> Preset:
        """The range holding `version` (before the oldest: the oldest)."""
        chosen = self.ranges[0][1]
        for first, found in self.ranges:
            if version >= first:
                chosen = found
        return chosen

    def pinned(self, text: str) -> Preset | None:
        """The range named `text` (its label, or a version inside it), or None when it names none."""
        for _, found in self.ranges:
            if text == found.versions:
                return found
        version = version_tuple(text)
        return self.range_of(version) if version else None

    def chain_for(self, tool: str, cap: Policy | None = None) -> Chain:
        return self.newest.chain_for(tool, cap)

    def apply(self, tool: str, text: str, count_tokens: CountTokens | None = None) -> str:
        """What the model would have seen from `tool` under the newest range."""
        return self.newest.apply(tool, text, count_tokens)
