"""Tool families: the same job under different agents' names (one table for scan, simulate, presets, replay).

A family is a list of tool-name globs, matched case-insensitively; the first family whose
glob matches a tool names it. Claude Code names MCP tools `mcp__SERVER__tool`: they are
the family `mcp:SERVER`. Every other tool is `other`.

The built-in table (BUILTIN) is what the presets (their shell rule) and replay's shell
translation read. `[tool.toolaudit.families]` in pyproject.toml changes it for
`scan --by family` and `simulate --tool @FAMILY`: each key is a family, its value a list
of globs; a family named there replaces the built-in one of that name, a new name adds
one, and the families written there are tried before the built-in ones:

    [tool.toolaudit.families]
    shell = ["bash", "exec_command", "my_runner"]
    notebook = ["run_ipython", "execute_code"]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from ..errors import ConfigError, UsageError
from ..model import mcp_name
from ..registry import did_you_mean

OTHER = "other"
MCP = "mcp:"
# lower-case globs; the shell list is the union of what the presets and replay's translation knew
BUILTIN: dict[str, tuple[str, ...]] = {
    "shell": ("bash", "shell", "shell_command", "local_shell*", "exec_command", "container.exec",
              "run_shell_command", "execute_command", "execute_bash", "terminal", "run_command"),
    "read": ("read", "read_file", "read_many_files", "readfile", "notebookread", "cat", "open", "view", "view_file"),
    "search": ("grep", "glob", "find", "find_file", "search_file_content", "search_files", "search_dir",
               "search_code", "grep_search", "ripgrep", "rg", "ls", "list_dir", "list_directory", "codebase_search",
               "file_search"),
    "edit/write": ("edit", "multiedit", "write", "write_file", "create", "edit_file", "replace", "insert",
                   "str_replace_editor", "str_replace_based_edit_tool", "file_editor", "apply_patch", "patch",
                   "notebookedit"),
    "web": ("webfetch", "websearch", "web_fetch", "web_search", "google_web_search", "fetch", "fetch_page",
            "browser*"),
    "task/subagent": ("task", "agent", "taskoutput", "subagent*", "dispatch_agent", "spawn_agent"),
}
SHELL = BUILTIN["shell"]


def mcp_server(tool: str) -> str | None:
    """The SERVER of a Claude Code MCP tool name `mcp__SERVER__tool`, else None."""
    parts = mcp_name(tool)
    return parts[0] if parts and parts[0] else None


@dataclass(frozen=True)
class Families:
    """A family table: (family, globs) in the order they are tried."""

    table: tuple[tuple[str, tuple[str, ...]], ...] = tuple(BUILTIN.items())
    # each tool name's family, worked out once: a run names few tools, and `of` is asked per call
    _known: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def of(self, tool: str) -> str:
        """The family of a tool name: the first family with a matching glob, else mcp:SERVER, else `other`."""
        family = self._known.get(tool)
        if family is None:
            family = self._known[tool] = self._match(tool)
        return family

    def _match(self, tool: str) -> str:
        name = tool.lower()
        for family, globs in self.table:
            if any(fnmatchcase(name, glob) for glob in globs):
                return family
        server = mcp_server(tool)
        return MCP + server if server else OTHER

    def names(self) -> list[str]:
        """The families a selector can name: the table's, `mcp:SERVER` and `other`."""
        return [family for family, _ in self.table] + ["mcp:SERVER", OTHER]

    def selects(self, selector: str, tool: str) -> bool:
        """Whether `@FAMILY` (a --tool selector) takes `tool`; UsageError for an unknown family."""
        family = selector[1:].lower()
        known = {f for f, _ in self.table} | {OTHER}
        if family not in known and not family.startswith(MCP):
            raise UsageError(f"unknown tool family {selector!r}{did_you_mean(family, known)}; families: "
                             + ", ".join("@" + n for n in self.names()), slug="unknown-family")
        return self.of(tool).lower() == family


DEFAULT = Families()


def is_shell(tool: str) -> bool:
    """Whether the built-in table counts `tool` as a shell (presets, replay's translation)."""
    return DEFAULT.of(tool) == "shell"


def families_from(table: dict[str, Any] | None, where: str = "[tool.toolaudit.families]") -> Families:
    """The built-in table changed by `[tool.toolaudit.families]` (module docstring); ConfigError when malformed."""
    if not table:
        return DEFAULT
    own = []
    for family, globs in table.items():
        if isinstance(globs, str):
            globs = [globs]
        if not isinstance(globs, list) or not all(isinstance(g, str) and g for g in globs):
            raise ConfigError(f"{where}: {family} takes a list of tool-name globs, not {globs!r}", slug="config")
        own.append((family.lower(), tuple(g.lower() for g in globs)))
    mine = {family for family, _ in own}
    return Families(tuple(own) + tuple((f, g) for f, g in BUILTIN.items() if f not in mine))
