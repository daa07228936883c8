"""The seam of faithful replay: an agent's own read-only tool, emulated byte for byte.

An `Emulation` answers one recorded call of one agent tool as that agent's version printed it:
the same numbering, order, headers, caps, notices and envelope. It runs in the replay folder (a
scratch worktree holding the session's state at that call), never leaves it, and never reaches a
shell. Paths the agent printed absolute are printed under the session's recorded working folder
(`Call.cwd`), so an identity replay can be byte-identical to the recording.

Each agent has one module here (`claude_code`, `codex`, `gemini_cli`, `openhands`) that registers
its emulations; `agent:AGENT/TOOL?param=value` names one (`--tool 'Grep=agent:claude-code/Grep?head_limit=50'`),
its parameters overriding the recorded arguments or the version's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar

from ..base import Outcome, Sandbox


@dataclass(frozen=True)
class Call:
    """One recorded call as an emulation sees it."""

    tool: str  # the agent's tool name, as recorded (Read, Grep, shell, read_file...)
    args: dict[str, Any]  # the recorded arguments, paths as recorded (absolute under `cwd`)
    root: Path  # the replay folder: the session's working folder in the scratch worktree
    cwd: str | None  # the session's recorded working folder (absolute, as the agent saw it)
    version: str | None  # the agent's version, from the transcript (None: unknown)
    sandbox: Sandbox  # timeouts and output caps for anything run
    params: dict[str, str] = field(default_factory=dict)  # overrides from `agent:AGENT/TOOL?k=v`
    session: str = ""  # the session id (some agents name saved outputs after it)
    call_id: str = ""  # the call's id (likewise)
    model: str | None = None  # the model the output went to (some agents cut by its tokenizer)
    main_model: str | None = None  # the session's main-thread model at this call (a subagent's may differ)
    output_cap: tuple[str, int] | None = None  # the session's recorded cap (Codex truncation_policy): (unit, limit)
    here: str | None = None  # the agent's current folder at this call, when its transcript logs it (absolute)
    ts: str | None = None  # when the call was made (ISO 8601, as recorded): a tool that orders by age reads it


class Emulation:
    """One agent tool. `run` never raises for a call the tool would answer with an error: that error
    text is the output (`Outcome.is_error`), as the agent showed it to the model."""

    agent: ClassVar[str] = ""  # claude-code, codex, gemini-cli, openhands
    tool: ClassVar[str] = ""  # the tool's name as the agent records it
    versions: ClassVar[str] = ""  # the version range it reproduces, for `toolaudit list replay` and docs
    params: ClassVar[dict[str, str]] = {}  # the parameters `?k=v` may set, with what each does

    def run(self, call: Call) -> Outcome:
        """The output the agent would have shown for `call`."""
        raise NotImplementedError

    def from_recording(self, recorded: str, call: Call) -> dict[str, str]:
        """Parameters an identity replay takes from the recorded output itself: what the agent printed that no
        re-run can reproduce (a wall time, a chunk id), so that only the tool's answer is compared."""
        return {}

    def cut(self, output: str, call: Call) -> str:
        """`output` as the agent would have passed it to the model: what it writes instead of an output that
        is too large (a persisted preview, a truncation). Replay applies it to a variant's output when the
        recording shows the agent cut this call's output, so both are compared after the same cut."""
        return output


# what identity copies from the recording (machine paths, redactions, the recorded git header…): a variant has no use
# for them, so a usage error lists them apart from the parameters a user sets
FROM_RECORDING = frozenset({"start_cwd", "unchanged", "home", "saved_path", "redacted", "duration", "preamble",
                            "status_branch", "status_head", "status_homes", "unknown_revision", "offline", "abbrev"})

EMULATIONS: dict[tuple[str, str], type[Emulation]] = {}


def register(cls: type[Emulation]) -> type[Emulation]:
    """Class decorator: make `cls` the emulation of (cls.agent, cls.tool)."""
    EMULATIONS[(cls.agent, cls.tool)] = cls
    return cls


def version_tuple(version: str | None) -> tuple[int, ...]:
    """`2.1.19` -> (2, 1, 19); None or unreadable -> () (compares below every version)."""
    parts = []
    for piece in (version or "").split("."):
        digits = "".join(ch for ch in piece if ch.isdigit()) if piece else ""
        if not digits:
            break
        parts.append(int(digits))
        if not piece.isdigit():
            break
    return tuple(parts)


Runner = Callable[[Call], Outcome]
