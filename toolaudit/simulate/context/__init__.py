"""Context policies: when tool outputs leave an agent's context, and what that does to the bill.

`--context mask:keep=10`, `clear:trigger=100000,keep=3`, `compact:at=160000,summary=3000` or `none`
(mask.py, clear.py, compact.py: one module per policy). Each reads one context's Timeline and answers an
Effect; run.py prices both sides with the prompt-cache model and counts what had to be fetched again.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace
from typing import Any

from ...errors import UsageError
from ...registry import did_you_mean
from .clear import Clear
from .compact import Compact
from .mask import Mask

POLICIES = {"mask": Mask, "clear": Clear, "compact": Compact}
# what Claude Code writes after compacting, fitted on 77 recorded compactions (benchmarks/compaction_fit.py): a
# summary, its 5 last files read (each up to 5,000 tokens, 50,000 together: cli.js) and todos, plan and hooks;
# after the fixed prefix, a fresh context's size where the first request holds a continued session's history
_CLAUDE_CODE = "summary=2700,files=5,file_tokens=5000,files_budget=50000,extra=4000,continued=42400"
# each agent's real default, by name (docs/advise.md has the sources): what it would do were it the policy
PRESETS = {
    # auto-compact: 200k window − min(max output, 20k) − 13k (2.1.21 on); the count includes the newest turn
    "claude-code": f"compact:at=167000,{_CLAUDE_CODE}",
    # Codex (codex-rs): 90% of the model's context window (the one the rollout names; else the gpt-5 family's
    # 272k: 244,800), counted as the last response's total, the items since and the earlier turns' reasoning; it
    # keeps the user messages
    "codex": "compact:at=244800,summary=3100,reasoning=125,window=90",
    "gemini-cli": "compact:at=524288",  # model.compressionThreshold 0.5 of a 1,048,576-token model
    "anthropic-clear": "clear:trigger=100000,keep=3",  # clear_tool_uses_20250919's defaults
    "anthropic-compact": "compact:at=150000",  # compact_20260112's default trigger
}
# an agent's older ranges (`--context claude-code@2.1.7`): (first version of the next range, spec)
VERSIONED = {
    # before 2.1.21: 200k − min(max output, 32k) − 13k
    "claude-code": (((2, 1, 21), f"compact:at=155000,{_CLAUDE_CODE}"),),
}
_PARAM = re.compile(r",\s*(?=[A-Za-z_-]+\s*=)")  # a comma that starts the next key=value (a placeholder may hold commas)
_ALIASES = {"exclude_tools": "exclude", "clear_tool_inputs": "inputs"}


def parse(spec: str):
    """The policy a `--context` value names (None for `none`), or a UsageError naming what is wrong."""
    spec = spec.strip()
    if spec in ("", "none"):
        return None
    if spec in PRESETS:
        return parse(PRESETS[spec])
    agent, at, version = spec.partition("@")
    if at and agent in PRESETS:
        return parse(preset_for(agent, version))
    name, _, rest = spec.partition(":")
    kind = POLICIES.get(name.strip())
    if kind is None:
        raise UsageError(f"--context: unknown policy {name!r}{did_you_mean(name, [*POLICIES, *PRESETS, 'none'])} "
                         f"(mask:keep=N, clear:trigger=T,keep=K, compact:at=T, none, or an agent's default: "
                         f"{', '.join(PRESETS)})", slug="context")
    given: dict[str, Any] = {}
    for part in _PARAM.split(rest) if rest.strip() else ():
        key, sep, value = part.partition("=")
        if not sep:
            raise UsageError(f"--context {name}: {part!r} is not KEY=VALUE", slug="context")
        key = key.strip().replace("-", "_")
        key = _ALIASES.get(key, key)
        if key == "exclude":
            given["exclude"] = given.get("exclude", ()) + tuple(g.strip() for g in value.split("|") if g.strip())
        else:
            given[key] = value
    return with_values(kind(), given, f"--context {name}")


def preset_for(agent: str, version: str) -> str:
    """The spec of `agent`'s default at `version` (its newest range for a version after all of them)."""
    try:
        wanted = tuple(int(p) for p in version.strip().split("."))
    except ValueError:
        raise UsageError(f"--context {agent}@{version}: a version is N.N.N, like 2.1.7", slug="context") from None
    for upto, spec in VERSIONED.get(agent, ()):
        if wanted < upto:
            return spec
    return PRESETS[agent]


def agent_compaction(agent: str | None, at: int) -> Compact:
    """Compaction at `at` as `agent` (a collector's name) compacts: what it writes after, its preset's; else the
    generic summary."""
    spec = PRESETS.get(agent or "", "")
    return replace(parse(spec) if spec.startswith("compact:") else Compact(), at=at)


def with_values(policy, given: dict[str, Any], where: str):
    """`policy` with the parameters `given` (strings or values), checked against its fields."""
    known = {f.name: f for f in fields(policy)}
    values = {}
    for key, value in given.items():
        field = known.get(key)
        if field is None:
            raise UsageError(f"{where}: unknown parameter {key!r}{did_you_mean(key, known)}", slug="context")
        values[key] = _value(getattr(policy, key), value, f"{where}: {key}")
    chosen = replace(policy, **values)
    if chosen.name == "mask" and chosen.keep < 1:
        # a window of none would hide every output from the model that asked for it: no session to compare
        raise UsageError(f"{where}: keep must be 1 or more (turns an output stays whole)", slug="context")
    return chosen


def _value(default: Any, value: Any, where: str) -> Any:
    """`value` as the type of the field's default."""
    if not isinstance(value, str) or isinstance(default, str):
        return value
    if isinstance(default, tuple):
        return tuple(v.strip() for v in value.split("|") if v.strip())
    if isinstance(default, bool):
        if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
            raise UsageError(f"{where} takes true or false, not {value!r}", slug="context")
        return value.lower() in ("true", "1", "yes")
    try:
        number = int(value.replace("_", ""))
    except ValueError:
        raise UsageError(f"{where} takes a whole number, not {value!r}", slug="context") from None
    if number < 0:
        raise UsageError(f"{where} must not be negative", slug="context")
    return number


def sweep_of(spec: str | None) -> tuple[str, str, list[int]] | None:
    """(policy, parameter, values) of a `--sweep mask.keep=1:20`, or None for a size-cap sweep."""
    if not spec:
        return None
    name, sep, values = spec.partition("=")
    policy, dot, param = name.strip().partition(".")
    if not dot or policy not in POLICIES:
        return None
    from ..policymap import parse_sweep

    numeric = [f.name for f in fields(POLICIES[policy]) if type(f.default) is int]  # bool is no number here
    param = param.replace("-", "_")
    if param not in numeric:
        raise UsageError(f"--sweep: {policy} has no numeric parameter {param!r}{did_you_mean(param, numeric)}",
                         slug="sweep")
    _, out = parse_sweep(f"max_chars={values}")  # the same value syntax as a size-cap sweep
    return policy, param, out


MAIN = {"mask": ("keep",), "clear": ("trigger", "keep"), "compact": ("at",)}  # always said, default or not


def spec_of(policy) -> str:
    """A policy as `--context` takes it: its main parameters, and the others where not at their default
    (parse's inverse)."""
    default = POLICIES[policy.name]()
    parts = []
    for f in fields(policy):
        value = getattr(policy, f.name)
        if f.name in MAIN[policy.name] or value != getattr(default, f.name):
            text = "|".join(value) if isinstance(value, tuple) else str(value).lower() if isinstance(value, bool) \
                else value
            parts.append(f"{f.name}={text}")
    return f"{policy.name}:{','.join(parts)}"


def describe(policy) -> str:
    """One line for the report ("none": the size caps alone)."""
    return policy.describe() if policy is not None else "none: outputs stay until the session ends or compacts"
