"""An MCP server that misbehaves while staying alive: a JSON-RPC error -32000, and one huge answer.

`busy()` answers the error a server sends for its own trouble (the code the SDK also uses for a
closed connection); `huge()` answers MEGABYTES million characters; `pid()` shows who answered.
"""

from __future__ import annotations

import os

from _server import Server

try:
    from mcp import MCPError
except ImportError:  # mcp < 2
    from mcp.shared.exceptions import McpError
    from mcp.types import ErrorData

    def MCPError(code: int, message: str):
        return McpError(ErrorData(code=code, message=message))

app = Server("unruly")
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2  # a token-shaped string the reason must not show


@app.tool()
def busy() -> str:
    """Answer with JSON-RPC error -32000 over two lines, a token among them."""
    raise MCPError(code=-32000, message=f"Server busy:\n  retry later (token={SECRET})")


@app.tool()
def huge(megabytes: int = 50) -> str:
    """One answer of `megabytes` million characters."""
    return "x" * (megabytes * 1_000_000)


@app.tool()
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


if __name__ == "__main__":
    app.run()
