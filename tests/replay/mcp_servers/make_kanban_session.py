"""Write tests/fixtures/kanban_session.jsonl: a recorded Claude Code-style session with kanban v1.

The outputs are what v1's own tool functions return, exactly. Run it again only when the
board or the recorded calls change: `python tests/replay/mcp_servers/make_kanban_session.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

from kanban_v1 import get_task, list_tasks

OUT = Path(__file__).resolve().parents[2] / "fixtures" / "kanban_session.jsonl"
# (tool, arguments) in the order the agent made them
CALLS = [
    ("list_tasks", {}),
    ("list_tasks", {"status": "todo"}),
    ("get_task", {"id": "T-3"}),
    ("list_tasks", {"status": "doing"}),
    ("get_task", {"id": "T-12"}),
    ("list_tasks", {"status": "blocked"}),
    ("get_task", {"id": "T-20"}),
    ("list_tasks", {}),
]
FUNCTIONS = {"list_tasks": list_tasks, "get_task": get_task}


def main() -> None:
    """One line per call, request indices 1, 2, ... as the agent's model requests went."""
    lines = []
    for n, (tool, args) in enumerate(CALLS, start=1):
        lines.append(json.dumps({
            "tool": f"mcp__kanban__{tool}", "args": args, "output": FUNCTIONS[tool](**args),
            "session": "k1", "call_id": f"toolu_k1_{n:02d}", "request": n,
        }, ensure_ascii=False))
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
