"""`python:package.module:function`: replay recorded calls through the user's own tool function.

The function is called as `function(args: dict, workspace: pathlib.Path)` and returns a string,
or a list of parts: strings, `{"type": "text", "text": ...}`, `{"type": "image", ...}` (an
Anthropic `source`, an OpenAI `image_url`, or MCP's `data`). Parts are joined the way the
collectors join what the model saw (`collectors.base.flatten`): text with "\\n", images counted
with their decoded bytes, never turned into text.

The function runs in one long-lived child Python process per mapping (this interpreter), started on
the first call and fed one call at a time (a few ms a call, not an interpreter start and an import
each): module-level state lives as long as the worker. A call that hangs, crashes the interpreter or
writes too much costs that call and the worker (the next call starts a fresh one), never the run:
- import path: the folder toolaudit was started in comes first (the user's module lives there
  or is installed); the workspace is NOT on the path, so its files cannot shadow modules;
- working folder: the call's workspace; environment: the sandbox's scrubbed one, plus TOOLAUDIT_TOOL
  (`--env PYTHONPATH` passes an import path through);
- what the function prints goes to stderr (file descriptor 1 is pointed there), never into
  its output;
- an exception is FAILED "ExceptionType: message"; a timeout is FAILED "timed out after N s" (the
  worker and everything it started are ended); a return value that is neither a string nor a list of
  parts is FAILED too;
- the output is read up to `--max-output-bytes` and cut there ("output capped at N bytes");
- a module or function that does not exist is a usage error naming it (the spec is wrong).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .base import Implementation, Outcome, Sandbox, implementations
from .cmd import TOOL_ENV, capped, failed
from .sandbox import become_subreaper, children, end_orphans, scrubbed_env

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding `toolaudit`, for the child
HEADER_BYTES = 4096  # a header line: {"images", "image_bytes", "length"} or {"error"} or {"usage"}

# The worker: imports the function once, then answers one request line at a time with a JSON header line
# and `length` bytes of output text on what was its stdout. Kept in one string so no file of the package
# directory is ever run as a script (its folder on sys.path would shadow `cmd` and others).
WORKER = r"""
import importlib, json, os, sys
from pathlib import Path
spec, user_dir, package_root = sys.argv[1:4]
sys.path[:] = [user_dir] + [p for p in sys.path if p not in ("", os.getcwd())] + [package_root]
out, requests = os.fdopen(os.dup(1), "wb"), os.fdopen(os.dup(0), "rb")
os.dup2(2, 1)  # the function's prints go to stderr, never into its output
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # and it reads no request meant for the worker
def send(header, text=""):
    body = text.encode("utf-8", "replace")
    out.write(json.dumps({**header, "length": len(body)}).encode() + b"\n" + body)
    out.flush()
def problem(exc):
    return {"error": f"{type(exc).__name__}: {exc}"[:2000]}
module_name, _, function_name = spec.partition(":")
answer, function = None, None
try:
    module = importlib.import_module(module_name)
    function = getattr(module, function_name, None)
    if not callable(function):
        answer = {"usage": f"module {module_name!r} has no function {function_name!r}"}
except ModuleNotFoundError as exc:
    if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
        answer = {"usage": f"no module named {module_name!r} (looked in {user_dir} and the installed packages)"}
    else:
        answer = problem(exc)
except BaseException as exc:
    answer = problem(exc)
from toolaudit.collectors.base import flatten
for line in requests:
    if answer is not None:
        send(answer)
        continue
    request = json.loads(line)
    os.chdir(request["cwd"])
    os.environ["TOOLAUDIT_TOOL"] = request["tool"]
    try:
        result = function(request["args"], Path.cwd())
    except BaseException as exc:
        send(problem(exc))
        continue
    if isinstance(result, dict):
        result = [result]
    if not isinstance(result, (str, list)) or (isinstance(result, list) and not all(isinstance(p, (str, dict)) for p in result)):
        send({"error": f"returned {type(result).__name__}: expected a string or a list of text/image parts"})
        continue
    if isinstance(result, list):  # MCP's image part {"type": "image", "data": ...}: its bytes where flatten reads them
        result = [{**p, "source": {"data": p["data"]}} if isinstance(p, dict) and p.get("type") == "image"
                  and isinstance(p.get("data"), str) and "source" not in p else p for p in result]
    seen = flatten(result)
    send({"images": seen.images, "image_bytes": seen.image_bytes}, seen.text)
"""


class _Worker:
    """One running worker process and the calls it answers; ended (with all it started) on any trouble."""

    def __init__(self, argv: list[str], sandbox: Sandbox):
        become_subreaper()
        self._before = children()
        self._err = tempfile.TemporaryFile()  # its stderr (prints included): only the last line is ever read
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
                                     cwd=sandbox.workspace, env=scrubbed_env(sandbox.env, {TOOL_ENV: ""}),
                                     start_new_session=True)
        self._buf = bytearray()

    def ask(self, request: dict, timeout: float, cap: int) -> tuple[dict | None, bytes, str]:
        """(header, output bytes up to `cap`, trouble): trouble is "", "timeout", "capped" or "crashed"."""
        deadline = time.monotonic() + timeout
        try:
            self.proc.stdin.write(json.dumps(request).encode("ascii") + b"\n")  # \u escapes: any text is valid
            self.proc.stdin.flush()
        except OSError:
            return None, b"", "crashed"
        line = self._read_until(lambda: b"\n" in self._buf or len(self._buf) > HEADER_BYTES, deadline)
        if line != "":
            return None, b"", line
        head, _, rest = bytes(self._buf).partition(b"\n")
        try:
            header = json.loads(head)
        except ValueError:
            return None, b"", "crashed"
        length = int(header.get("length", 0))
        self._buf = bytearray(rest)
        trouble = self._read_until(lambda: len(self._buf) >= min(length, cap + 1), deadline)
        if trouble:
            return None, b"", trouble
        body = bytes(self._buf[:length])
        self._buf = self._buf[length:]
        if len(body) > cap or length > cap:
            return header, body[:cap], "capped"
        return header, body, ""

    def _read_until(self, enough, deadline: float) -> str:
        """Read stdout until `enough()`; "" then, else "timeout" or "crashed"."""
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while not enough():
                left = deadline - time.monotonic()
                if left <= 0:
                    return "timeout"
                if sel.select(left):
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        return "crashed"
                    self._buf += chunk
        return ""

    def stderr_tail(self) -> str:
        """The last line the worker wrote to stderr (for a crash's reason)."""
        self._err.seek(0, os.SEEK_END)
        size = self._err.tell()
        self._err.seek(max(size - 4000, 0))
        lines = [x.strip() for x in self._err.read().decode("utf-8", "replace").splitlines() if x.strip()]
        return lines[-1][:200] if lines else ""

    def end(self) -> int | None:
        """End the worker and everything it started; its exit code (None when it was killed)."""
        try:
            os.killpg(self.proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        code = self.proc.wait()
        end_orphans(self._before)
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        self._err.close()
        return code


@implementations.register
class PythonFunction(Implementation):
    """The user's function `package.module:function(args, workspace)`, run in one long-lived worker."""

    key = "python"
    summary = "your own function: python:package.module:function, called with (args: dict, workspace: Path)"

    def __init__(self, spec: str, sandbox: Sandbox) -> None:
        super().__init__(spec, sandbox)
        module, sep, function = spec.partition(":")
        if not (sep and function.isidentifier() and all(part.isidentifier() for part in module.split("."))):
            raise UsageError(f"python:{spec}: expected python:package.module:function", slug="bad-python-spec")
        self.user_dir = os.getcwd()
        self._worker: _Worker | None = None

    def call(self, tool: str, args: dict[str, Any], workspace: Path) -> Outcome:
        """Call the function once, in the worker (module docstring)."""
        if self._worker is None:
            # -P: the working folder (the workspace) is not put on the path, not even for our own imports
            argv = [sys.executable, "-P", "-c", WORKER, self.spec, self.user_dir, PACKAGE_ROOT]
            try:
                self._worker = _Worker(argv, self.sandbox)
            except OSError as exc:
                raise UsageError(f"python:{self.spec}: cannot start Python: {exc.strerror or exc}",
                                 slug="cannot-run") from exc
        worker = self._worker
        request = {"tool": tool, "args": args, "cwd": str(workspace)}
        header, body, trouble = worker.ask(request, self.sandbox.timeout, self.sandbox.max_output_bytes)
        if trouble and trouble != "capped":
            self._worker = None
            tail = worker.stderr_tail()
            code = worker.end()
            if trouble == "timeout":
                return failed(f"timed out after {self.sandbox.timeout:g} s")
            return failed(f"crashed (exit code {code})" + (f": {tail}" if tail else ""))
        if trouble == "capped":  # the worker is still writing what we will not read: start afresh next call
            self._worker = None
            worker.end()
        if "usage" in header:
            raise UsageError(f"python:{self.spec}: {header['usage']}", slug="bad-python-spec")
        if "error" in header:
            return failed(str(header["error"]), f"Error: {header['error']}")
        text, reason = capped(body.decode("utf-8", "replace"), self.sandbox.max_output_bytes, trouble == "capped")
        return Outcome(text, images=int(header.get("images", 0)), image_bytes=int(header.get("image_bytes", 0)),
                       reason=reason)

    def close(self) -> None:
        """End the worker and all it started."""
        if self._worker is not None:
            worker, self._worker = self._worker, None
            worker.end()
