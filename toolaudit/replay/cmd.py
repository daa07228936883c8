"""`cmd:ARGV...`: replay recorded calls through any executable.

The spec is split like a shell would split it (shlex) and run as an argument list, never by
a shell, once per call: the workspace is its working folder (relative paths in the spec are
relative to it), the recorded arguments are on stdin as JSON (exactly the arguments: one
JSON object), and the tool's name is in the environment as TOOLAUDIT_TOOL. Nothing else of
the user's environment reaches it but the sandbox's basics and `--env` names.

- stdout is the output (UTF-8, invalid bytes replaced); stderr is not shown to the model.
- A non-zero exit code is an error result (REPLAYED, is_error), as a tool's failure is.
- A timeout (`--timeout`) is FAILED "timed out after N s" and the program's process group is killed.
- stdout is read up to `--max-output-bytes`: the first bytes are kept, cut on a character
  boundary, the program is killed, and `reason` says "output capped at N bytes".
- A program that cannot be started (not found, not executable) is a usage error: the spec is wrong.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, Sequence

from ..simulate.policies.base import cut_bytes, nbytes
from ..errors import UsageError
from .base import FAILED, Implementation, Outcome, Sandbox, implementations
from .sandbox import RunResult, run_in

TOOL_ENV = "TOOLAUDIT_TOOL"


def failed(reason: str, output: str = "") -> Outcome:
    """A call that did not replay: an error result with the reason."""
    return Outcome(output, is_error=True, status=FAILED, reason=reason)


def capped(text: str, cap: int, cut: bool = False) -> tuple[str, str]:
    """`text` within `cap` UTF-8 bytes and the reason to report ("" when nothing was cut);
    `cut`: the reader already stopped at the cap."""
    if not cut and nbytes(text) <= cap:
        return text, ""
    return cut_bytes(text, cap), f"output capped at {cap} bytes"


def split_argv(spec: str, key: str, example: str, slug: str) -> list[str]:
    """The program and arguments of a `KEY:COMMAND ARGS...` spec, split like a shell (never run by one)."""
    try:
        argv = shlex.split(spec)
    except ValueError as exc:
        raise UsageError(f"{key}:{spec}: {exc}", slug=slug) from exc
    if not argv:
        raise UsageError(f"{key}: needs a command, e.g. {key}:{example}", slug=slug)
    return argv


def run_tool(sandbox: Sandbox, argv: Sequence[str], tool: str, args: dict[str, Any], workspace: Path,
             where: str, extra_bytes: int = 0) -> RunResult:
    """Run one call's program in `workspace`: the arguments as JSON on stdin, the tool's name in the
    environment. `extra_bytes`: stdout the caller reads beyond the cap (a header). A program that
    cannot be started is a UsageError naming `where` (the spec)."""
    stdin = json.dumps(args).encode("ascii")  # \u escapes: valid JSON even for lone surrogates
    limits = Sandbox(sandbox.workspace, sandbox.timeout, sandbox.max_output_bytes + extra_bytes, sandbox.env)
    try:
        return run_in(limits, argv, cwd=workspace, stdin=stdin, env={TOOL_ENV: tool})
    except OSError as exc:
        raise UsageError(f"{where}: cannot run {argv[0]!r}: {exc.strerror or exc}", slug="cannot-run") from exc


@implementations.register
class Command(Implementation):
    """Any executable: the recorded arguments as JSON on stdin, stdout as the output."""

    key = "cmd"
    summary = "any executable: cmd:ARGV... gets the arguments as JSON on stdin; stdout is the output"

    def __init__(self, spec: str, sandbox: Sandbox) -> None:
        super().__init__(spec, sandbox)
        self.argv = split_argv(spec, self.key, "python3 /path/to/my_tool.py", "bad-cmd")

    def call(self, tool: str, args: dict[str, Any], workspace: Path) -> Outcome:
        """Run the program once for this call (module docstring)."""
        done = run_tool(self.sandbox, self.argv, tool, args, workspace, f"cmd:{self.spec}")
        text = done.stdout.decode("utf-8", "replace")
        if done.timed_out:
            return failed(f"timed out after {self.sandbox.timeout:g} s", text)
        text, reason = capped(text, self.sandbox.max_output_bytes, done.capped)
        # a capped program was killed by us: its exit code says nothing about the call
        return Outcome(text, is_error=done.exit_code != 0 and not done.capped, reason=reason)
