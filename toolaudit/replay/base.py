"""The replay seam: one Implementation interface, the per-call context and the outcome of a call.

An implementation (a builtin reference tool, the user's Python function, an MCP server, a
command) answers one recorded call with an `Outcome`. It never raises for a call that
cannot be replayed: a path outside the workspace is `REFUSED`, a crash or a timeout is
`FAILED`, both with the reason and the error text the model would have seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..options import InputOptions
from ..registry import Registry

# Outcome.status values, and the runner's own for calls it did not send anywhere
REPLAYED = "replayed"  # the new tool answered (an error result such as a bad regex included)
REFUSED = "refused"  # the call named a path outside the workspace: nothing ran
FAILED = "failed"  # the implementation crashed, timed out or returned something unusable
KEPT = "kept"  # no mapping for this tool: the recorded output stands
NOT_TRANSLATED = "not_translated"  # --translate could not turn the recorded call into a new one
NEVER_RAN = "never_ran"  # the agent answered the call itself (rejected, cancelled, a sibling's error): kept

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_OUTPUT_BYTES = 10_000_000


@dataclass(frozen=True)
class Sandbox:
    """What every external call may use: the workspace, a timeout, an output cap, the environment."""

    workspace: Path
    timeout: float = DEFAULT_TIMEOUT
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    env: tuple[str, ...] = ()  # names of environment variables passed through (--env NAME)


@dataclass(frozen=True)
class Outcome:
    """What one replayed call returned: the text the model would see, or why there is none."""

    output: str
    is_error: bool = False
    images: int = 0
    image_bytes: int = 0
    status: str = REPLAYED
    reason: str = ""  # for REFUSED and FAILED: one line, e.g. "timed out after 10 s"


@dataclass(frozen=True)
class ToolDef:
    """One tool definition of a menu: its name and the JSON a client sends for it."""

    name: str
    definition: str  # compact JSON: {"name", "description", "input_schema"}, as Anthropic request logs record it


class Implementation:
    """Answers recorded calls. One instance serves every call mapped to the same spec.

    `spec` is what follows `KIND:` in `--tool GLOB=KIND:SPEC`; `sandbox` is the run's limits.
    """

    key: ClassVar[str] = ""  # the KIND prefix: builtin, python, mcp, cmd
    summary: ClassVar[str] = ""

    def __init__(self, spec: str, sandbox: Sandbox) -> None:
        self.spec = spec
        self.sandbox = sandbox

    def call(self, tool: str, args: dict[str, Any], workspace: Path) -> Outcome:
        """Answer one call of `tool` with `args`, run in `workspace` (the sandbox's, or a worktree of it)."""
        raise NotImplementedError

    def menu(self) -> list[ToolDef] | None:
        """The tool definitions the implementation offers (MCP `tools/list`); None when it has no menu."""
        return None

    def take_notes(self) -> list[str]:
        """What the run should say about this implementation once (e.g. a server's stray output), then nothing."""
        return []

    def close(self) -> None:
        """Stop whatever the implementation started (a server process)."""


# `toolaudit list replay` shows them; a user's package adds one by the entry point
implementations: Registry[type[Implementation]] = Registry("replay implementation", "toolaudit.replay", plural="replay")


@dataclass(frozen=True)
class Mapping:
    """`--tool GLOB=KIND:SPEC`: the recorded calls whose tool matches GLOB go to that implementation."""

    glob: str
    kind: str
    spec: str

    @property
    def text(self) -> str:
        """As the user wrote it."""
        return f"{self.glob}={self.kind}:{self.spec}"


@dataclass(frozen=True)
class Base:
    """Where a session's state starts: the recorded commit (default), `commit` (--commit REV), the last commit
    before the session's first timestamp (--at-session-start: on `commit`'s history when both are given, else
    HEAD's; a commit the session recorded and the workspace has is kept), or the folder as it is (--no-checkout)."""

    commit: str | None = None
    at_session_start: bool = False
    no_checkout: bool = False
    # transcripts of sessions that ran before, read only for the state they left in their folder (replay.chain)
    earlier: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReplayOptions:
    """Everything a replay run needs besides the transcripts (the flags of `toolaudit replay`)."""

    mappings: tuple[Mapping, ...]
    sandbox: Sandbox
    translate: tuple[str, ...] = ()  # e.g. ("shell-search",)
    tool_names: tuple[tuple[str, str], ...] = ()  # --tool-name OLD=NEW
    path_map: tuple[tuple[str, str], ...] = ()  # --path-map FROM=TO
    explain: int = 0  # --explain N: replayed calls shown with previews
    identity: bool = False  # --identity: every known agent tool without a mapping goes to its own emulation
    before: str = "identity"  # what a variant is measured against: the identity replay, or "recorded"
    keep_drifted: bool = False  # count calls whose identity replay differs from the recording in the saving
    base: Base = field(default_factory=Base)  # where each session's state starts
    diff: int = 0  # --diff N: the N largest changes, with a unified diff of the redacted texts
    read: InputOptions = field(default_factory=InputOptions)  # how the transcripts are read and counted
    calls_out: Path | None = None  # every call with its new output, as toolaudit-jsonl
    workspace: str = ""  # the workspace as the user named it (the spec stores it so)

    def spec(self) -> dict:
        """What `ci` needs to run the same replay again: mappings, translation, renames, limits."""
        return {
            "workspace": self.workspace or str(self.sandbox.workspace), "tools": [m.text for m in self.mappings],
            "translate": list(self.translate), "tool_names": [f"{a}={b}" for a, b in self.tool_names],
            "path_map": [f"{a}={b}" for a, b in self.path_map], "timeout": self.sandbox.timeout,
            "max_output_bytes": self.sandbox.max_output_bytes, "env": list(self.sandbox.env),
            **({"identity": True} if self.identity else {}),
            **({"before": self.before} if self.before != "identity" else {}),
            **({"keep_drifted": True} if self.keep_drifted else {}),
            **({"commit": self.base.commit} if self.base.commit else {}),
            **({"at_session_start": True} if self.base.at_session_start else {}),
            **({"no_checkout": True} if self.base.no_checkout else {}),
        }
