"""An MCP server with a call that hangs: `sleep()` blocks for 60 s; `ping()` answers at once."""

from __future__ import annotations

import time

from _server import Server

app = Server("slow")


@app.tool()
def sleep(seconds: float = 60) -> str:
    """Block (a synchronous handler, like a wedged server) for `seconds`."""
    time.sleep(seconds)
    return "woke up"


@app.tool()
def ping() -> str:
    """Answer at once."""
    return "pong"


if __name__ == "__main__":
    app.run()
