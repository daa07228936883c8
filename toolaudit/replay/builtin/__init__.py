"""builtin:NAME: reference tools in the package (grep, glob, search_files, read_file, list_dir).

`--tool GLOB=builtin:NAME?param=value&...` answers the matching recorded calls with one
of them; its parameters are typed from the builtin's `Params` (see each module), and an
unknown builtin or parameter is a usage error naming the choices. Every path argument
is resolved inside the call's workspace: a path outside it (`..`, absolute, a symlink
pointing out) is REFUSED and nothing runs. Nothing recorded reaches a shell: ripgrep is
started from an argument list, its operands after `--`.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl

from ...errors import UsageError
from ...registry import did_you_mean
from ..base import Implementation, Outcome, Sandbox, implementations
from ..sandbox import OutsideWorkspace
from . import glob, grep, list_dir, read_file, search_files
from .common import BadArgument, CallFailed, error, failed, parse_params, refused
from .ripgrep import rg_path

BUILTINS: dict[str, ModuleType] = {
    "grep": grep, "glob": glob, "search_files": search_files, "read_file": read_file, "list_dir": list_dir,
}


def parse_spec(spec: str) -> tuple[str, Any]:
    """`NAME?key=value&...` -> (NAME, its typed Params); a UsageError names the choices."""
    name, _, query = spec.strip().partition("?")
    if name not in BUILTINS:
        raise UsageError(f"unknown builtin {name!r}{did_you_mean(name, BUILTINS)}; "
                         f"choose one of: {', '.join(BUILTINS)}", slug="unknown-builtin")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise UsageError(f"builtin:{spec}: parameters are key=value pairs joined by '&'", slug="builtin-param") from None
    return name, parse_params(BUILTINS[name].Params, pairs, name)


@implementations.register
class Builtin(Implementation):
    """A reference tool of the package answers the recorded calls."""

    key = "builtin"
    summary = ("reference tools: " + ", ".join(BUILTINS)
               + " (builtin:grep?max_matches=100&max_bytes=10000); paths confined to the workspace")

    def __init__(self, spec: str, sandbox: Sandbox) -> None:
        super().__init__(spec, sandbox)
        self.name, self.params = parse_spec(spec)
        self.module = BUILTINS[self.name]
        if self.module.NEEDS_RG:
            rg_path()  # a missing rg is said once, before any call

    def call(self, tool: str, args: dict[str, Any], workspace: Path) -> Outcome:
        """Answer one recorded call; never raises for a call that cannot be answered."""
        if not isinstance(args, dict):
            return error(f"Error: {tool} takes an object of arguments, not {type(args).__name__}")
        try:
            return self.module.call(self.params, args, Path(workspace).resolve(), self.sandbox)
        except OutsideWorkspace as exc:
            return refused(exc)
        except BadArgument as exc:
            return error(f"Error: {exc}")
        except CallFailed as exc:
            return failed(str(exc))
