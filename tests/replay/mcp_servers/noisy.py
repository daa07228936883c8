"""An MCP server that writes lines that are not JSON-RPC to stdout, before and among its answers.

Spoken by hand, one JSON message a line: the SDK's own server diverts stray prints to stderr, a
server in another language or on an older SDK does not. Tools: `echo(text)` and `pid()`.
"""

from __future__ import annotations

import json
import os
import sys

STARTUP_NOISE = ["debug: starting", "{not json"]
CALL_NOISE = ["Traceback (most recent call last):", '{"log": "JSON, but no JSON-RPC message"}', "\x00\x01"]
TOOLS = [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
         {"name": "pid", "inputSchema": {"type": "object", "properties": {}}}]


def write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def answer(request: dict) -> dict:
    """The result of one request."""
    method, params = request["method"], request.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "noisy", "version": "0"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    for line in CALL_NOISE:
        write(line)
    args = params.get("arguments") or {}
    text = args.get("text", "") if params["name"] == "echo" else str(os.getpid())
    return {"content": [{"type": "text", "text": text}], "isError": False}


def main() -> None:
    for line in STARTUP_NOISE:
        write(line)
    for line in sys.stdin:
        request = json.loads(line)
        if "id" in request and "method" in request:  # notifications need no answer
            write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": answer(request)}))


if __name__ == "__main__":
    main()
