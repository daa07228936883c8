"""SWE-agent `.traj` files (0.x and 1.x): one JSON object per instance (formats.md §5).

What the model saw is `history`: observations after SWE-agent's templating and its
100,000-char clip. `trajectory[].observation` holds the raw output and is read only when
a file has no `history`; `trajectory[].query` (or `messages`) re-sends the whole
conversation at every step and is never read. `is_demo` items are demonstrations in the
prompt, not calls of this run. A RetryAgent file keeps every attempt in `attempts[]` and
copies the chosen one to the top level: each attempt is then a session of its own and
the copy is not read again.

Calls and their outputs in `history`:
- function-calling configs: assistant `tool_calls`, answered by `role:"tool"` items
  through `tool_call_ids`; the tool is the function name;
- text configs: an assistant `action`, answered by the next `role:"user"` item (pairing
  by position); the tool is the first word of the action (`open`, `edit`, `python`,
  `find_file`, `submit`...), because SWE-agent runs it as a command line.
An item that answers no pending call (the task, a demonstration) is no output. A final
`submit` ends the run before an observation is added, so it stays unpaired.
Each assistant item is one model request. `info.model_stats` has run totals only, so
no per-request Usage is reported. An item or step whose values are not of the expected types
is one Skipped record (`unexpected shape: ...`); the ones after it are read as usual.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ..model import UNKNOWN_TOOL, ModelText, SessionEnd, Skipped
from .base import Collector, Pairing, Record, collectors, flatten, guarded, loads, read_document, plain_name

KEY = "swe-agent"


def _is_history(items: Any) -> bool:
    # SWE-agent items carry `agent` or `message_type`; OpenHands events carry `source`,
    # Gemini checkpoints `parts`: both also keep a `history` list.
    return isinstance(items, list) and any(
        isinstance(m, dict) and "role" in m and ("agent" in m or "message_type" in m) and "parts" not in m
        for m in items)


def _is_run(doc: Any) -> bool:
    if not isinstance(doc, dict):
        return False
    steps = doc.get("trajectory")
    if isinstance(steps, list) and steps and all(isinstance(s, dict) and "action" in s for s in steps):
        return any(k in doc for k in ("info", "history", "environment"))
    return _is_history(doc.get("history"))


def _tool(action: str) -> str:
    """The first word of a text-config action: the command SWE-agent runs."""
    words = action.split(maxsplit=1)
    return words[0] if words else UNKNOWN_TOOL


def _model(doc: dict) -> str | None:
    """The model name from `replay_config` (a dict, or JSON text in 1.x files)."""
    config = doc.get("replay_config")
    if isinstance(config, str):
        try:
            config = loads(config)
        except ValueError:
            return None
    agent = config.get("agent") if isinstance(config, dict) else None
    model = agent.get("model") if isinstance(agent, dict) else None
    name = model.get("name") if isinstance(model, dict) else None
    return name if isinstance(name, str) else None


class _Run:
    """One run (or attempt): history items in, ToolCall records out."""

    def __init__(self, source: str, session: str, model: str | None):
        self.source = source
        self.session = session
        self.model = model
        self.pairing = Pairing(source, KEY, session)
        self.requests = 0
        self.actions = 0  # ids made up for text actions, answered by position

    def item(self, m: Any, line: int) -> Iterator[Record]:
        """The records one history item completes."""
        if not isinstance(m, dict):
            yield Skipped(self.source, line, f"expected a history item, got {type(m).__name__}")
            return
        if m.get("is_demo"):
            return
        role = m.get("role")
        if role is not None and not isinstance(role, str):
            yield Skipped(self.source, line, f"history item whose role is not a string: {type(role).__name__}")
            return
        if role == "assistant":
            self.requests += 1
            said = flatten(m.get("content")).text
            if said:  # the model's own words: evidence for simulate's later_used
                yield ModelText(self.source, line, self.session, said)
            yield from self._calls(m, line)
        elif role == "tool" or (role == "user" and self.pairing.pending):
            ids = m.get("tool_call_ids")
            call_id = next(iter(self.pairing.pending), "")  # by position, unless an id says otherwise
            if isinstance(ids, list) and ids and isinstance(ids[0], str):
                call_id = ids[0]  # one call per step: SWE-agent refuses parallel calls
            yield self.pairing.result(call_id, m.get("content"), line, request_index=self.requests,
                                      model=self.model)

    def _calls(self, m: dict, line: int) -> Iterator[Record]:
        calls = m.get("tool_calls")
        if calls:
            if not isinstance(calls, list):
                yield Skipped(self.source, line, "tool_calls is not a list")
                return
            for call in calls:
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict) or not isinstance(call.get("id"), str):
                    yield Skipped(self.source, line, "tool call without an id or a function")
                    continue
                name = fn.get("name") if isinstance(fn.get("name"), str) else UNKNOWN_TOOL
                self.pairing.call(call["id"], name, fn.get("arguments"), line, model=self.model)
            return
        action = m.get("action")
        if isinstance(action, str) and action.strip():
            self.actions += 1
            self.pairing.call(f"#{self.actions}", _tool(action), action.strip(), line, model=self.model)

    def steps(self, steps: list) -> Iterator[Record]:
        """Old files without `history`: each trajectory step is a request and its raw observation."""
        for line, step in enumerate(steps, 1):
            yield from guarded(self._step(step, line), self.source, line)

    def _step(self, step: Any, line: int) -> Iterator[Record]:
        if not isinstance(step, dict) or not isinstance(step.get("action"), str):
            yield Skipped(self.source, line, "trajectory step without an action")
            return
        self.requests += 1
        self.actions += 1
        call_id = f"#{self.actions}"
        self.pairing.call(call_id, _tool(step["action"]), step["action"].strip(), line, model=self.model)
        yield self.pairing.result(call_id, step.get("observation"), line, request_index=self.requests,
                                  model=self.model)

    def end(self) -> Iterator[Record]:
        """Calls never answered, then the run's request count."""
        yield from self.pairing.unpaired()
        yield SessionEnd(self.source, self.session, (self.requests,))


@collectors.register
class SWEAgentCollector(Collector):
    """SWE-agent `.traj` trajectories: the history the model saw, demonstrations left out."""

    key = KEY
    description = "SWE-agent .traj trajectories (0.x and 1.x, function-calling and text configs)"
    jsonl = False
    document = True

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """A run object, or a RetryAgent file whose attempts are runs."""
        if isinstance(doc, dict) and isinstance(doc.get("attempts"), list) and doc["attempts"]:
            return _is_run(doc["attempts"][0])
        return _is_run(doc)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of one `.traj` file: a session per run, or per RetryAgent attempt."""
        source = str(path)
        doc = read_document(path, doc)
        if isinstance(doc, Skipped):
            yield doc
            return
        if not isinstance(doc, dict):
            yield Skipped(source, 1, f"expected a .traj object, got {type(doc).__name__}")
            return
        stem = plain_name(path).removesuffix(".traj")
        attempts = doc.get("attempts")
        if isinstance(attempts, list) and attempts:
            for number, attempt in enumerate(attempts, 1):
                yield from guarded(self._run(attempt, source, f"{stem}#attempt{number}"), source, 1)
        else:
            yield from self._run(doc, source, stem)

    def _run(self, doc: Any, source: str, session: str) -> Iterator[Record]:
        if not isinstance(doc, dict):
            yield Skipped(source, 1, f"expected a run object, got {type(doc).__name__}")
            return
        run = _Run(source, session, _model(doc))
        history, steps = doc.get("history"), doc.get("trajectory")
        if isinstance(history, list):
            for line, item in enumerate(history, 1):  # `line`: the item's position in history
                yield from guarded(run.item(item, line), source, line)
        elif isinstance(steps, list):
            # 0.x files written before `history` existed: the raw observations, as stored
            yield from run.steps(steps)
        else:
            yield Skipped(source, 1, "neither a history nor a trajectory list")
            return
        yield from run.end()
