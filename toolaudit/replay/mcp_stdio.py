"""The stdio transport `mcp:` servers are spoken to through: the SDK's `stdio_client`, bounded.

The SDK's own client reads each stdout line whole however long it is (a 200 MB answer is
held, joined chunk by chunk, before anyone can look at its size) and hands a line that is not
JSON-RPC to the session as an exception, logging its traceback each time. This one:
- reads stdout in chunks and stops at a line longer than `limit` bytes: the line is never
  held whole, the connection is ended (the call waiting for it fails at once) and
  `Link.oversized` says why;
- drops the lines that are not JSON-RPC messages, counting them (`Link.noise`, the first kept);
- sets `Link.closed` before the session hears that the connection ended, so an error with the
  SDK's closed-connection code (-32000) can be told from the same code sent by a live server.
Stopping follows the SDK (and the MCP spec): stdin closed, stdout drained so a server blocked
writing can see it, 2 s to exit, then SIGTERM to its process group and SIGKILL 2 s later.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio

GRACE = 2.0  # seconds a server gets to exit after its stdin closes, and after SIGTERM
FLUSH = 0.5  # seconds the writer gets to send what the session already handed it
_CHUNK = 64 * 1024
_POLL = 0.01


@dataclass
class Link:
    """What the transport saw of one server process (written by the loop thread, read by any)."""

    noise: int = 0  # stdout lines that were not JSON-RPC messages
    first_noise: str = ""
    oversized: bool = False  # a line passed the limit: reading stopped there
    closed: bool = False  # the connection ended (EOF, a broken pipe, or an oversized line)


@asynccontextmanager
async def stdio_transport(params, errlog, limit: int):
    """Start the server of `params` (StdioServerParameters); yield (read stream, write stream, Link)."""
    from mcp.client.stdio import get_default_environment

    process = await anyio.open_process(
        [params.command, *params.args], env=get_default_environment() | (params.env or {}), stderr=errlog,
        cwd=params.cwd, start_new_session=True)  # its own process group, to stop it whole
    link = Link()
    read_sink, read_stream = anyio.create_memory_object_stream(0)
    write_stream, write_source = anyio.create_memory_object_stream(0)
    writer_done = anyio.Event()

    async def reader() -> None:
        try:
            async with read_sink:
                try:
                    await _pump(process.stdout, read_sink, link, limit)
                finally:
                    link.closed = True  # before the sink closes: that is when the session hears of it
            await _drain(process.stdout)  # a server blocked writing could neither read nor exit
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass  # the session left, or our shutdown closed the pipe under the read

    async def writer() -> None:
        try:
            async with write_source:
                async for message in write_source:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    # "replace": a lone surrogate in recorded arguments must not end the session
                    await process.stdin.send(data.encode("utf-8", "replace"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            link.closed = True  # the server stopped reading: end the session's wait instead of hanging
            await read_sink.aclose()
        finally:
            writer_done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream, link
        finally:
            with anyio.CancelScope(shield=True):  # a cancelled caller must still not leak the server
                read_stream.close()  # the reader's sends fail: it goes on to drain
                write_stream.close()
                with anyio.move_on_after(FLUSH):
                    await writer_done.wait()
                await _stop(process)
            tg.cancel_scope.cancel()  # a straggler holding the pipe open must not keep the reader waiting


async def _pump(stdout, sink, link: Link, limit: int) -> None:
    """Hand each JSON-RPC line of stdout to the session until EOF or a line past `limit` bytes."""
    line = bytearray()
    while True:
        try:
            chunk = await stdout.receive(_CHUNK)
        except anyio.EndOfStream:
            return
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0 and len(line) + end - start <= limit:
            line += chunk[start:end]
            start = end + 1
            message = _parse(bytes(line), link)
            line.clear()
            if message is not None:
                await sink.send(message)
        line += chunk[start:]  # at most one chunk past the limit is ever held
        if len(line) > limit:
            link.oversized = True
            return


def _parse(line: bytes, link: Link):
    """One stdout line as a SessionMessage; None (and counted) when it is not a JSON-RPC message."""
    from mcp import types
    from mcp.shared.message import SessionMessage

    text = line.decode("utf-8", "replace")  # a stray byte must not lose a whole answer
    if not text.strip():
        return None  # an empty line frames nothing: not worth a note
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError:  # invalid JSON, or JSON that is no JSON-RPC message (pydantic's ValidationError)
        link.noise += 1
        link.first_noise = link.first_noise or text[:80]
        return None


async def _drain(stdout) -> None:
    """Read and drop the rest of stdout, until EOF."""
    try:
        while True:
            await stdout.receive(_CHUNK)
    except anyio.EndOfStream:
        return


async def _stop(process) -> None:
    """Close stdin, give the server GRACE seconds, then end its process group; reap it."""
    from mcp.os.posix.utilities import terminate_posix_process_tree

    try:
        await process.stdin.aclose()
    except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass
    if not await _exited(process, GRACE):
        await terminate_posix_process_tree(process, GRACE)  # SIGTERM to the group, SIGKILL after GRACE
    with anyio.move_on_after(GRACE):  # closes the pipes and reaps; cancelled, it kills first
        await process.aclose()


async def _exited(process, timeout: float) -> bool:
    """Whether the process ended within `timeout` (by its returncode: waiting would wait for pipe EOF too)."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_POLL)
        return True
    return False
