"""toolaudit's own call list: one tool call per JSON line, for agents we have no collector for.

| field      | type                 | required | meaning                                                   |
|------------|----------------------|----------|-----------------------------------------------------------|
| `tool`     | string               | yes      | tool name                                                 |
| `output`   | string or parts list | yes*     | what the model saw (parts: see below)                     |
| `session`  | string               | no       | session id; default: the file name without its extension |
| `call_id`  | string               | no       | the call's id; a session's repeated id counts once        |
| `args`     | string or object     | no       | arguments as the model wrote them (objects: compact JSON) |
| `is_error` | boolean              | no       | the tool reported an error; default false                 |
| `ts`       | string               | no       | timestamp, ISO-8601                                       |
| `model`    | string               | no       | the model that received the output                        |
| `agent`    | string               | no       | agent or subagent id; default `main`                      |
| `request`  | integer >= 0         | no       | index of the session's first model request that carried the output |

A named session's call id names one call in every file: the same `session` + `call_id` read from
two files (a copy) counts once, as in the agents' own formats. Without `session`, the id is the
file's own (the same file name in two folders is two sessions).

Parts are strings, `{"type": "text", "text": ...}` or image parts (`{"type": "image", ...}`,
counted and never measured as text); text parts are joined with "\\n".

Example: `{"tool": "Grep", "output": "src/app.py:12:def main():", "session": "s1", "request": 3}`.

*A calls file for `toolaudit replay` leaves `output` out: `{"tool": "grep", "args": {"pattern": "x"}}`.
Such a line is a call whose result was never recorded (status `unpaired`): replay gives it
one, scan counts it among the unpaired calls.
Other keys are ignored. A line that breaks these rules is skipped with its reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ..model import FILE_SCOPE, MAIN_AGENT, PAIRED, SESSION_SCOPE, UNPAIRED, SessionEnd, Skipped, ToolCall
from .base import Collector, Record, collectors, dump_args, flatten, each_line, file_stem

KEY = "toolaudit-jsonl"
# Optional string fields and what else each may hold.
_TYPES: dict[str, tuple[type, ...]] = {
    "session": (str,), "call_id": (str,), "ts": (str,), "model": (str,), "agent": (str,),
    "args": (str, dict), "is_error": (bool,),
}
_NAMES = {str: "a string", dict: "an object", bool: "a boolean"}


def problem(obj: Any) -> str | None:
    """Why a line is not a valid call, or None when it is."""
    if not isinstance(obj, dict):
        return f"expected a JSON object, got {type(obj).__name__}"
    if not isinstance(obj.get("tool"), str) or not obj["tool"]:
        return "`tool` is missing or not a non-empty string"
    if "output" not in obj:
        if "args" not in obj:
            return "`output` is missing (a calls file for replay has `args` instead)"
    elif not isinstance(obj["output"], (str, list)):
        return "`output` is not a string or a list of parts"
    for name, types in _TYPES.items():
        if obj.get(name) is not None and not isinstance(obj[name], types):
            return f"`{name}` must be {' or '.join(_NAMES[t] for t in types)}"
    request = obj.get("request")
    # bool is an int subclass: `true` is not a request index
    if request is not None and (isinstance(request, bool) or not isinstance(request, int) or request < 0):
        return "`request` must be an integer >= 0"
    return None


@collectors.register
class ToolauditJsonlCollector(Collector):
    """toolaudit's documented call list: one `{tool, output, ...}` object per line."""

    key = KEY
    description = "toolaudit call list: one {tool, output, ...} JSON object per line"
    jsonl = True
    document = False

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """The first line has `tool` and `output` (a call list), or `tool` and `args` (a calls file)."""
        return isinstance(first, dict) and "tool" in first and ("output" in first or "args" in first)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """One ToolCall per valid line, then a SessionEnd per session."""
        source, stem = str(path), file_stem(path)
        calls: dict[str, int] = {}  # calls per session, for call_index
        last: dict[tuple[str, str], int] = {}  # highest request index per (session, agent)
        yield from each_line(path, lambda obj, line: _call(obj, line, source, stem, calls, last))
        for (session, agent), top in last.items():
            # without request indices nothing is known of the session's requests
            yield SessionEnd(source, session, (top + 1,) if top >= 0 else (), agent=agent)


def _call(obj: Any, line: int, source: str, stem: str, calls: dict[str, int],
          last: dict[tuple[str, str], int]) -> Iterator[Record]:
    """The call of one line, or why the line is not one."""
    reason = problem(obj)
    if reason:
        yield Skipped(source, line, reason)
        return
    session = obj.get("session") or stem
    agent = obj.get("agent") or MAIN_AGENT
    recorded = "output" in obj
    seen = flatten(obj["output"] if recorded else "")
    args = dump_args(obj.get("args"))
    index = calls.get(session, 0)
    calls[session] = index + 1
    request = obj.get("request")
    context = (session, agent)  # each agent has its own context and requests
    last[context] = max(-1 if request is None else request, last.get(context, -1))
    yield ToolCall(
        source=source, line=line, collector=KEY, session=session, tool=obj["tool"],
        output=seen.text, call_id=obj.get("call_id") or "", agent=agent,
        args=args, images=seen.images, image_bytes=seen.image_bytes,
        is_error=obj.get("is_error") is True, ts=obj.get("ts"), model=obj.get("model"),
        call_index=index, request_index=request, status=PAIRED if recorded else UNPAIRED,
        # a session the writer named is one session in every file: its call in another file is a copy;
        # one named after its file (run1.jsonl in each task folder) is not
        id_scope=SESSION_SCOPE if obj.get("session") else FILE_SCOPE,
    )
