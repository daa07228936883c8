"""`python:package.module:function`: replay recorded calls through the user's own tool function.

The function is called as `function(args: dict, workspace: pathlib.Path)` and returns a string,
or a list of parts: strings, `{"type": "text", "text": ...}`, `{"type": "image", ...}` (an
Anthropic `source`, an OpenAI `image_url`, or MCP's `data`). Parts are joined the way the
collectors join what the model saw (`collectors.base.flatten`): text with "\\n", images counted
with their decoded bytes, never turned into text.

Each call runs in a child Python process (this interpreter), so a function that hangs, crashes
the interpreter or leaks memory costs one call, never the run:
- import path: the folder toolaudit was started in comes first (the user's module lives there
  or is installed); the workspace is NOT on the path, so its files cannot shadow modules;
- working folder: the workspace; environment: the sandbox's scrubbed one, plus TOOLAUDIT_TOOL
  (`--env PYTHONPATH` passes an import path through);
- what the function prints goes to stderr (file descriptor 1 is pointed there), never into
  its output;
- an exception is FAILED "ExceptionType: message"; a timeout is FAILED "timed out after N s";
  a return value that is neither a string nor a list of parts is FAILED too;
- the output is read up to `--max-output-bytes` and cut there ("output capped at N bytes");
- a module or function that does not exist is a usage error naming it (the spec is wrong).
A new process per call costs an interpreter start and the module's import (tens of ms).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .base import Implementation, Outcome, Sandbox, implementations
from .cmd import capped, failed, run_tool

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding `toolaudit`, for the child
HEADER_BYTES = 4096  # the child's first line: {"images", "image_bytes"} or {"error"} or {"usage"}

# The child: imports the function, reads the arguments from stdin, writes one JSON header line
# and then the output text to what was its stdout. Kept in one string so no file of the package
# directory is ever run as a script (its folder on sys.path would shadow `cmd` and others).
CHILD = r"""
import importlib, json, os, sys
from pathlib import Path
spec, user_dir, package_root = sys.argv[1:4]
sys.path[:] = [user_dir] + [p for p in sys.path if p not in ("", os.getcwd())] + [package_root]
out = os.fdopen(os.dup(1), "wb")
os.dup2(2, 1)  # the function's prints go to stderr, never into its output
def send(header, text=""):
    out.write(json.dumps(header).encode() + b"\n" + text.encode("utf-8", "replace"))
    out.flush()
    sys.exit(0)
def problem(exc):
    return {"error": f"{type(exc).__name__}: {exc}"[:2000]}
module_name, _, function_name = spec.partition(":")
try:
    module = importlib.import_module(module_name)
except ModuleNotFoundError as exc:
    if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
        send({"usage": f"no module named {module_name!r} (looked in {user_dir} and the installed packages)"})
    send(problem(exc))
except BaseException as exc:
    send(problem(exc))
function = getattr(module, function_name, None)
if not callable(function):
    send({"usage": f"module {module_name!r} has no function {function_name!r}"})
args = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogatepass"))
try:
    result = function(args, Path.cwd())
except BaseException as exc:
    send(problem(exc))
if isinstance(result, dict):
    result = [result]
if not isinstance(result, (str, list)) or (isinstance(result, list) and not all(isinstance(p, (str, dict)) for p in result)):
    send({"error": f"returned {type(result).__name__}: expected a string or a list of text/image parts"})
from toolaudit.collectors.base import flatten
if isinstance(result, list):  # MCP's image part {"type": "image", "data": ...}: its bytes where flatten reads them
    result = [{**p, "source": {"data": p["data"]}} if isinstance(p, dict) and p.get("type") == "image"
              and isinstance(p.get("data"), str) and "source" not in p else p for p in result]
seen = flatten(result)
send({"images": seen.images, "image_bytes": seen.image_bytes}, seen.text)
"""


@implementations.register
class PythonFunction(Implementation):
    """The user's function `package.module:function(args, workspace)`, run in a child process per call."""

    key = "python"
    summary = "your own function: python:package.module:function, called with (args: dict, workspace: Path)"

    def __init__(self, spec: str, sandbox: Sandbox) -> None:
        super().__init__(spec, sandbox)
        module, sep, function = spec.partition(":")
        if not (sep and function.isidentifier() and all(part.isidentifier() for part in module.split("."))):
            raise UsageError(f"python:{spec}: expected python:package.module:function", slug="bad-python-spec")
        self.user_dir = os.getcwd()

    def call(self, tool: str, args: dict[str, Any], workspace: Path) -> Outcome:
        """Call the function once, in a child process (module docstring)."""
        # -P: the working folder (the workspace) is not put on the path, not even for our own imports
        argv = [sys.executable, "-P", "-c", CHILD, self.spec, self.user_dir, PACKAGE_ROOT]
        done = run_tool(self.sandbox, argv, tool, args, workspace, f"python:{self.spec}", HEADER_BYTES)
        if done.timed_out:
            return failed(f"timed out after {self.sandbox.timeout:g} s")
        header, newline, body = done.stdout.partition(b"\n")
        try:
            meta = json.loads(header) if newline else None
        except ValueError:
            meta = None
        if not isinstance(meta, dict):
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return failed(f"crashed (exit code {done.exit_code})" + (f": {lines[-1][:200]}" if lines else ""))
        if "usage" in meta:
            raise UsageError(f"python:{self.spec}: {meta['usage']}", slug="bad-python-spec")
        if "error" in meta:
            return failed(str(meta["error"]), f"Error: {meta['error']}")
        text, reason = capped(body.decode("utf-8", "replace"), self.sandbox.max_output_bytes, done.capped)
        return Outcome(text, images=int(meta.get("images", 0)), image_bytes=int(meta.get("image_bytes", 0)),
                       reason=reason)
