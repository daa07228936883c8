"""An MCP server that dies: `crash()` ends the process at once, as a segfault or OOM kill would.

`pid()`, `env()` and `cwd()` show which process answered and what it was started with.
"""

from __future__ import annotations

import os

from _server import Server

app = Server("crashy")


@app.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


@app.tool()
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@app.tool()
def env() -> str:
    """The names of the server's environment variables, one a line."""
    return "\n".join(sorted(os.environ))


@app.tool()
def cwd() -> str:
    """The server's working folder."""
    return os.getcwd()


@app.tool()
def crash() -> str:
    """Kill the server process mid-call."""
    os._exit(1)


if __name__ == "__main__":
    app.run()
