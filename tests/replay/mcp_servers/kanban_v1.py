"""Kanban MCP server, version 1: `list_tasks` returns every task WITH its body; `get_task(id)`."""

from __future__ import annotations

import json

from _server import Server
from kanban_data import tasks

app = Server("kanban")


@app.tool()
def list_tasks(status: str | None = None) -> str:
    """List the board's tasks, optionally only those with one status (todo, doing, done, blocked)."""
    rows = [t for t in tasks() if status in (None, t["status"])]
    return json.dumps(rows, ensure_ascii=False, indent=2)


@app.tool()
def get_task(id: str) -> str:
    """One task with its body, by id (e.g. T-3)."""
    for task in tasks():
        if task["id"] == id:
            return json.dumps(task, ensure_ascii=False, indent=2)
    raise ValueError(f"no task {id}")


if __name__ == "__main__":
    app.run()
