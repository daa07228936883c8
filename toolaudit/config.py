"""Settings from `[tool.toolaudit]` in pyproject.toml, as a click default_map.

Precedence, lowest first: built-in defaults < `[tool.toolaudit]` in the nearest
pyproject.toml (cwd and its parents) < `TOOLAUDIT_<COMMAND>_<OPTION>` environment
variables < command-line flags. Top-level keys apply to every command that has the
option; a sub-table `[tool.toolaudit.<command>]` applies to that command only.
`[tool.toolaudit.families]` is the tool-family table (scan.families), not options.
Keys are option names with `_` or `-`; an unknown key is an error with a suggestion.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import click

from .errors import ConfigError
from .files import find_pyproject  # noqa: F401  (where the commands look for their table)
from .registry import did_you_mean

# sub-tables a command reads itself: [tool.toolaudit.simulate.policies], [tool.toolaudit.replay.tools]
SUB_TABLES = {("simulate", "policies"), ("replay", "tools")}
# top-level tables the commands read themselves: [tool.toolaudit.families] (scan.families: scan --by
# family, simulate --tool @FAMILY)
TOP_TABLES = {"families"}


def _options(command: click.Command) -> set[str]:
    return {p.name for p in command.params if isinstance(p, click.Option) and p.name}


def toolaudit_table(path: Path | None) -> dict[str, Any]:
    """`[tool.toolaudit]` of a pyproject.toml (empty without one); ConfigError when unreadable."""
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read [tool.toolaudit]: {exc}", slug="config") from None
    return data.get("tool", {}).get("toolaudit", {})


def default_map(group: click.Group, path: Path | None, table: dict[str, Any]) -> dict[str, Any]:
    """`{command: {option: value}}` from `[tool.toolaudit]` (`table`); ConfigError on unknown keys."""
    commands = {name: _options(cmd) for name, cmd in group.commands.items() if not isinstance(cmd, click.Group)}
    known = set().union(*commands.values()) if commands else set()
    result: dict[str, dict[str, Any]] = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if key in group.commands and isinstance(value, dict):
            for sub_key, sub_value in value.items():
                sub_name = sub_key.replace("-", "_")
                if (key, sub_name) in SUB_TABLES and isinstance(sub_value, dict):
                    continue  # read by the command itself
                if sub_name not in commands.get(key, set()):
                    suggestions = set(commands.get(key, ())) | {s for c, s in SUB_TABLES if c == key}
                    raise ConfigError(
                        f"{path}: unknown key {sub_key!r} in [tool.toolaudit.{key}]"
                        f"{did_you_mean(sub_name, suggestions)}", slug="config")
                result.setdefault(key, {})[sub_name] = sub_value
            continue
        if name in TOP_TABLES and isinstance(value, dict):
            continue  # read by the commands themselves
        if name not in known:
            raise ConfigError(f"{path}: unknown key {key!r} in [tool.toolaudit]{did_you_mean(name, known)}",
                              slug="config")
        for command, names in commands.items():
            if name in names:
                result.setdefault(command, {}).setdefault(name, value)
    return result
