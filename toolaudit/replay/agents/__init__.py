"""agent:AGENT/TOOL: the agents' own read-only tools, emulated (agents.base), as a replay implementation.

`--tool 'Grep=agent:claude-code/Grep?head_limit=50'` answers the recorded Grep calls as Claude Code's Grep
of the recording's version would have, with `head_limit=50`; `--identity` maps every recorded read-only
call of a known agent tool to its own emulation with the recording's arguments.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from ...errors import UsageError
from ...registry import did_you_mean
from ..base import FAILED, Implementation, Outcome, Sandbox, implementations
from .base import EMULATIONS, FROM_RECORDING, Call, Emulation

# one module per agent; each registers its emulations on import
AGENT_MODULES = {"claude-code": "claude_code", "codex": "codex", "gemini-cli": "gemini_cli", "openhands": "openhands"}
# the collector a recording came from -> the agent whose tools it records
COLLECTOR_AGENT = {"claude-code": "claude-code", "codex": "codex", "gemini-cli": "gemini-cli",
                   "openhands": "openhands", "openhands-v1": "openhands"}
_LOADED: dict[str, str | None] = {}  # agent -> why its module cannot load (None: loaded)


def load(agent: str) -> str | None:
    """Import `agent`'s module (once); why it cannot load, or None."""
    if agent not in _LOADED:
        try:
            import_module(f"{__name__}.{AGENT_MODULES[agent]}")
            _LOADED[agent] = None
        except ImportError as exc:
            _LOADED[agent] = str(exc)
    return _LOADED[agent]


def emulation_for(collector: str, tool: str) -> type[Emulation] | None:
    """The emulation of the agent tool a recorded call of `collector`'s format went to, or None."""
    agent = COLLECTOR_AGENT.get(collector)
    if agent is None or agent not in AGENT_MODULES or load(agent) is not None:
        return None
    return EMULATIONS.get((agent, tool))


def all_emulations() -> dict[tuple[str, str], type[Emulation]]:
    """Every emulation of every agent whose module loads (for `toolaudit list replay` and docs)."""
    for agent in AGENT_MODULES:
        load(agent)
    return dict(sorted(EMULATIONS.items()))


def parse_spec(spec: str) -> tuple[type[Emulation], dict[str, str]]:
    """`AGENT/TOOL?k=v&...` -> (the emulation, its parameters); a UsageError names the choices."""
    name, _, query = spec.strip().partition("?")
    agent, slash, tool = name.partition("/")
    if agent not in AGENT_MODULES or not slash:
        raise UsageError(f"agent:{spec}: the form is agent:AGENT/TOOL, AGENT one of {', '.join(AGENT_MODULES)}"
                         f"{did_you_mean(agent, AGENT_MODULES)}", slug="unknown-agent")
    why = load(agent)
    if why is not None:
        raise UsageError(f"agent:{spec}: the {agent} emulations cannot load ({why})", slug="unknown-agent")
    cls = EMULATIONS.get((agent, tool))
    if cls is None:
        tools = sorted(t for a, t in EMULATIONS if a == agent)
        raise UsageError(f"agent:{spec}: {agent} has no emulated tool {tool!r}{did_you_mean(tool, tools)}; "
                         f"emulated: {', '.join(tools) or 'none'}", slug="unknown-agent")
    try:
        params = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
    except ValueError:
        raise UsageError(f"agent:{spec}: parameters are key=value pairs joined by '&'", slug="agent-param") from None
    unknown = sorted(set(params) - set(cls.params))
    if unknown:
        raise UsageError(f"agent:{spec}: {agent}/{tool} takes no parameter {unknown[0]!r}"
                         f"{did_you_mean(unknown[0], cls.params)}; {takes(cls)}", slug="agent-param")
    return cls, params


def takes(cls: type[Emulation]) -> str:
    """`it takes: …` for a usage error: what a variant may set, then what identity copies from the recording."""
    mine = [p for p in cls.params if p not in FROM_RECORDING]
    copied = [p for p in cls.params if p in FROM_RECORDING]
    return (f"it takes: {', '.join(mine) or 'none'}"
            + (f" (identity copies {', '.join(copied)} from the recording)" if copied else ""))


@implementations.register
class Agent(Implementation):
    """An agent's own tool, emulated as the recording's version printed it."""

    key = "agent"
    summary = ("the agents' own read-only tools, emulated byte for byte (agent:claude-code/Grep?head_limit=50); "
               "see `toolaudit list replay`")

    def __init__(self, spec: str, sandbox: Sandbox) -> None:
        super().__init__(spec, sandbox)
        self.emulation_class, self.params = parse_spec(spec)
        self.emulation = self.emulation_class()

    def emulate(self, call: Call) -> Outcome:
        """Answer one recorded call as the agent's tool; never raises for a call that cannot be answered."""
        try:
            return self.emulation.run(replace(call, params={**call.params, **self.params}))
        except UsageError:
            raise
        except Exception as exc:  # an emulation bug must not end the run: this call failed
            return Outcome(f"error: {type(exc).__name__}: {exc}", is_error=True, status=FAILED,
                           reason=f"{type(exc).__name__}: {exc}")

    def call(self, tool: str, args: dict[str, Any], workspace: Path) -> Outcome:
        """Without the session's context (a calls file): the workspace stands for the recorded folder."""
        root = Path(workspace).resolve()
        return self.emulate(Call(tool, args, root, str(root), None, self.sandbox))
