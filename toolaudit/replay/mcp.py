"""`mcp:COMMAND ARGS...`: replay recorded calls through an MCP server over stdio, with the official SDK.

The server is started on the first call (or `menu()`) with the workspace as its working folder
and a scrubbed environment, and one session is held open across calls by an event loop in a
background thread, so `call()` is synchronous for the runner. Decisions, in one place:

- Environment: what every external implementation gets (`sandbox.scrubbed_env`: PATH, HOME,
  the locale, TMPDIR and the `--env` names), plus the set the SDK always merges in
  (`get_default_environment()`: HOME, LOGNAME, PATH, SHELL, TERM, USER on POSIX; servers
  started by `npx`/`uvx` need them). Nothing else of ours (API keys, tokens) reaches the server.
- Tool names: an explicit rename (`tool_names`, from `--tool-name OLD=NEW`), else the recorded
  name when the server lists it, else the name without Claude Code's `mcp__SERVER__` prefix.
- Result: `content` parts joined like the collectors join parts (text with "\\n"; images,
  audio and binary resources counted in images/image_bytes, never tokenized; a text resource
  as its text). `structuredContent` is what clients send only when there is no content, so
  it is measured (compact JSON) only then. `isError` is the outcome's is_error. A JSON-RPC
  error answer is the new tool's answer too: `MCP error CODE: message`, as clients show it,
  except -32000, the implementation-defined "server error" a live server sends for its own
  trouble (busy, a backend down): that call is FAILED with it as reason, and the server kept.
  The SDK gives a closed connection the same code; the transport tells the two apart.
- Unknown tool: the call is still sent (a server may serve tools it does not list); when the
  server lists no such tool and answers with an error, the call is FAILED (output: the
  server's text, reason: "unknown tool ..."), because counting an error message as the new
  output would report a saving that is only a broken mapping.
- Timeout (`sandbox.timeout` per call): FAILED "timed out after N s"; the server is then
  stopped and started afresh for the next call (it may be wedged in a blocking handler).
  This restart is not a crash. Starting (initialize + tools/list) may take STARTUP_TIMEOUT.
- Crash (the process dies, the connection closes, the server cannot start): that call is
  FAILED "server crashed" and the server is started again at the next call, once; after a
  second crash every remaining call is FAILED with the same reason, and nothing is started.
  A call that crashed the server is not retried.
- Output cap: the text kept is cut to `sandbox.max_output_bytes` UTF-8 bytes (reason "output
  capped at N bytes"). A message is read only up to `message_limit` (twice the cap, for JSON's
  escapes, plus 1 MiB): a longer answer is never held whole; its call is FAILED ("answer over
  the output cap ...") at once and the server restarted for the next call (not a crash).
- Stdout lines that are not JSON-RPC (a stray `print`) are dropped and counted; `take_notes()`
  reports them once, as one line, instead of a traceback each.
- A call in a different workspace (a session replayed in its own worktree) restarts the
  server there, so its working folder is always the call's workspace. Relative paths in the
  command are therefore read from the workspace: `mcp:python /abs/path/server.py` names a
  server script kept elsewhere. A server that cannot start says why (its last stderr line).
"""

from __future__ import annotations

import json
import tempfile
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..collectors.base import Content, flatten
from ..secrets.redact import redact
from .base import REPLAYED, Implementation, Outcome, Sandbox, ToolDef, implementations
from .cmd import capped, failed, split_argv
from .mcp_stdio import Link, stdio_transport
from .menu import definition_json, resolve_tool_name
from .sandbox import scrubbed_env

STARTUP_TIMEOUT = 30.0  # initialize + tools/list: a cold `npx` or Python import can be slow
CRASHED = "server crashed"
MAX_CRASHES = 2  # the first crash restarts the server, the second ends it
CONNECTION_CLOSED = -32000  # the SDK's JSON-RPC code for a connection that closed under a request


@implementations.register
class McpServer(Implementation):
    """An MCP server over stdio: `tools/call` for each recorded call, `tools/list` for the menu.

    `tool_names` (keyword only) maps recorded tool names to the server's (`--tool-name OLD=NEW`),
    as a dict or (old, new) pairs.
    """

    key = "mcp"
    summary = "an MCP server over stdio: mcp:COMMAND ARGS... (split like a shell, never run by one)"

    def __init__(self, spec: str, sandbox: Sandbox, *,
                 tool_names: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        super().__init__(spec, sandbox)
        self.argv = split_argv(spec, self.key, "npx -y @scope/server", "bad-mcp-command")
        self.tool_names = dict(tool_names)
        self._lock = threading.Lock()
        self._portal_cm: Any = None
        self._portal: Any = None
        self._conn_cm: Any = None  # the open connection (stdio_transport + ClientSession)
        self._session: Any = None
        self._cwd: Path | None = None
        self._tools: dict[str, dict] = {}  # tools/list, by name, as the server listed them
        self._crashes = 0
        self._dead = ""  # once set, the reason every further call fails with
        self._link: Link | None = None  # what the transport saw of the running server
        self._noise = self._noise_told = 0  # stdout lines that were not JSON-RPC: of stopped servers, told
        self._first_noise = ""

    # --- the Implementation interface ------------------------------------------------

    def call(self, tool: str, args: dict[str, Any], workspace: Path) -> Outcome:
        """Send one recorded call to the server; never raises for a call that cannot be replayed."""
        with self._lock:
            if not isinstance(args, dict):
                return failed("arguments are not a JSON object")
            problem = self._ensure(Path(workspace))
            if problem:
                return failed(problem)
            name = resolve_tool_name(tool, self._tools, self.tool_names)
            return self._send(name, args)

    def menu(self) -> list[ToolDef] | None:
        """The server's tools as definitions in Anthropic's shape; None when the server cannot start."""
        with self._lock:
            if self._ensure(self._cwd or self.sandbox.workspace):
                return None
            return [ToolDef(name, definition_json(name, t.get("description"), t.get("inputSchema", {})))
                    for name, t in self._tools.items()]

    def take_notes(self) -> list[str]:
        """What to tell once about the server since the last time: lines on its stdout that are not JSON-RPC."""
        with self._lock:
            link = self._link or Link()
            seen = self._noise + link.noise
            new, self._noise_told = seen - self._noise_told, seen
            if not new:
                return []
            first = redact(self._first_noise or link.first_noise)
            lines = "1 line that is" if new == 1 else f"{new} lines that are"
            return [f"mcp:{self.spec} wrote {lines} not JSON-RPC to stdout (the first: {first!r}): ignored"]

    def close(self) -> None:
        """Stop the server (the transport closes its stdin, then ends its process group) and the loop thread."""
        with self._lock:
            try:
                self._disconnect()
            finally:
                if self._portal_cm is not None:
                    cm, portal, self._portal_cm, self._portal = self._portal_cm, self._portal, None, None
                    try:
                        # cancel whatever is left so the thread can end; the SDK's shutdown of a
                        # server is shielded from cancellation, so the server is still stopped
                        portal.call(portal.stop, True)
                    finally:
                        cm.__exit__(None, None, None)

    # --- the session -------------------------------------------------------------------

    def _ensure(self, cwd: Path) -> str:
        """Connect when not connected (or connected elsewhere); "" when ready, else why not."""
        if self._session is not None and cwd == self._cwd:
            return ""
        self._disconnect()
        if self._dead:
            return self._dead
        if self._portal is None:
            from anyio.from_thread import start_blocking_portal

            self._portal_cm = start_blocking_portal()
            self._portal = self._portal_cm.__enter__()
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            cm = self._portal.wrap_async_context_manager(
                _connect(self._params(cwd), errlog, max(STARTUP_TIMEOUT, self.sandbox.timeout),
                         message_limit(self.sandbox.max_output_bytes)))
            try:
                self._session, self._tools, self._link = cm.__enter__()
            except Exception as exc:  # noqa: BLE001 - a server that cannot start is a crash, not ours
                return self._crashed(f"server did not start: {_start_error(exc, errlog)}")
        self._conn_cm, self._cwd = cm, cwd
        return ""

    def _params(self, cwd: Path):
        from mcp import StdioServerParameters

        return StdioServerParameters(command=self.argv[0], args=self.argv[1:],
                                     env=scrubbed_env(self.sandbox.env), cwd=str(cwd))

    def _send(self, name: str, args: dict[str, Any]) -> Outcome:
        """tools/call on the open session, turned into an Outcome."""
        from mcp import MCPError

        timeout = self.sandbox.timeout
        try:
            result = self._portal.call(_call_tool, self._session, name, args, timeout)
        except TimeoutError:
            self._disconnect()  # it may be stuck in a blocking handler: start afresh next call
            return failed(f"timed out after {timeout:g} s", "")
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED and self._link.closed:
                return self._ended()
            text = f"MCP error {exc.code}: {exc.message}"
            if exc.code == CONNECTION_CLOSED:  # sent by the live server about its own trouble
                return failed(_line(text), text)
            return self._answer(name, Content(text), True)
        except Exception as exc:  # noqa: BLE001 - broken streams mean a dead server; the rest a bad result
            if _broken_stream(exc):
                return self._ended()
            return failed(f"unusable result: {_one_line(exc)}")
        return self._answer(name, result_content(result), result.get("isError") is True)

    def _ended(self) -> Outcome:
        """The call whose connection ended: an answer too long to read (a restart), else a crash."""
        if not self._link.oversized:
            return failed(self._crashed(CRASHED))
        self._disconnect()
        cap = self.sandbox.max_output_bytes
        return failed(f"answer over the output cap of {cap} bytes (its message passed "
                      f"{message_limit(cap)} bytes unread): server restarted")

    def _answer(self, name: str, seen: Content, is_error: bool) -> Outcome:
        """The outcome for what the server answered; an error about a tool it does not list fails."""
        if is_error and name not in self._tools:
            return failed(f"unknown tool {name!r} on the server", seen.text)
        text, reason = capped(seen.text, self.sandbox.max_output_bytes)
        return Outcome(text, is_error=is_error, images=seen.images, image_bytes=seen.image_bytes,
                       status=REPLAYED, reason=reason)

    def _crashed(self, reason: str) -> str:
        """Count a crash and drop the connection; returns the reason the call fails with."""
        self._disconnect()
        self._crashes += 1
        if self._crashes >= MAX_CRASHES:
            self._dead = reason
        return reason

    def _disconnect(self) -> None:
        """Leave the session and stop the server, whatever state the connection is in."""
        cm, self._conn_cm, self._session, self._cwd = self._conn_cm, None, None, None
        if cm is None:
            return
        try:
            cm.__exit__(None, None, None)
        except Exception:  # noqa: BLE001, S110 - a dead server's streams fail on the way out; it is gone either way
            pass
        link, self._link = self._link, None
        if link is not None:  # counted once it has stopped: nothing more can come
            self._noise += link.noise
            self._first_noise = self._first_noise or link.first_noise


# --- runs in the loop thread ---------------------------------------------------------------


@asynccontextmanager
async def _connect(params, errlog, timeout: float, limit: int):
    """A started, initialized session, the server's tools (all pages) by name, and its transport's Link."""
    import anyio
    from mcp import ClientSession

    async with stdio_transport(params, errlog, limit) as (read, write, link), ClientSession(read, write) as session:
        with anyio.fail_after(timeout):
            await session.initialize()
            tools = await _list_tools(session)
        yield session, tools, link


async def _list_tools(session) -> dict[str, dict]:
    """Every page of tools/list, each tool as the JSON the server sent."""
    from mcp import types

    tools: dict[str, dict] = {}
    cursor = None
    while True:
        page = await (session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                      if cursor else session.list_tools())
        for tool in page.tools:
            tools[tool.name] = _dump(tool)
        cursor = _dump(page).get("nextCursor")
        if not cursor:
            return tools


async def _call_tool(session, name: str, args: dict, timeout: float) -> dict:
    """tools/call within the timeout (TimeoutError past it; the SDK tells the server it gave up)."""
    import anyio

    with anyio.fail_after(timeout):
        return _dump(await session.call_tool(name, args))


# --- pure helpers ----------------------------------------------------------------------------


def message_limit(cap: int) -> int:
    """The longest JSON-RPC message read for a text cap of `cap` bytes: JSON escapes, and room for media."""
    return 2 * cap + 1024 * 1024


def _dump(model) -> dict:
    """An SDK object as the JSON it travels as (camelCase names, nothing unset)."""
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def result_content(result: dict) -> Content:
    """What a client hands the model for a tools/call result (see the module docstring)."""
    parts = result.get("content") or []
    if not parts and result.get("structuredContent") is not None:
        return Content(json.dumps(result["structuredContent"], ensure_ascii=False, separators=(",", ":")))
    return flatten([_part(p) for p in parts])


def _part(part: dict) -> dict:
    """One MCP content block in the shape `flatten` reads: media become Anthropic image blocks."""
    kind = part.get("type")
    if kind in ("image", "audio"):
        return _media(part.get("data"), part.get("mimeType"))
    if kind == "resource":
        inner = part.get("resource") or {}
        if isinstance(inner.get("text"), str):
            return {"type": "text", "text": inner["text"]}
        if isinstance(inner.get("blob"), str):
            return _media(inner["blob"], inner.get("mimeType"))
    return part  # text blocks as they are; anything else is measured as its JSON


def _media(data: Any, mime: Any) -> dict:
    """Base64 media as an Anthropic image block: counted with its bytes, never read as text."""
    return {"type": "image", "source": {"type": "base64", "media_type": mime or "", "data": data or ""}}


def _broken_stream(exc: BaseException) -> bool:
    """The streams to the server broke: it is gone."""
    import anyio

    return isinstance(exc, (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream))


def _one_line(exc: BaseException) -> str:
    """An exception as one redacted line; a task group's error as its first cause."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return _line(str(exc)) or type(exc).__name__


def _line(text: str) -> str:
    """Text as one redacted line of at most 300 characters."""
    return redact(" ".join(text.split())[:300])


def _start_error(exc: BaseException, errlog) -> str:
    """Why a server did not start: the exception, and the last line it wrote to stderr."""
    errlog.seek(0)
    lines = [line.strip() for line in errlog.read()[-4000:].splitlines() if line.strip()]
    return _one_line(exc) + (f" (stderr: {redact(lines[-1][:200])})" if lines else "")
