"""An MCP server that dies: `crash()` ends the process at once, as a segfault or OOM kill would."""

from __future__ import annotations

import os

from _server import Server

app = Server("crashy")


@app.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


@app.tool()
def crash() -> str:
    """Kill the server process mid-call."""
    os._exit(1)


if __name__ == "__main__":
    app.run()
