"""Gemini CLI's headless output, `gemini -p … --output-format stream-json`: one event per line.

Events (packages/core/src/output/types.ts): `init {session_id, model}`, `message {role, content,
delta?}`, `tool_use {tool_name, tool_id, parameters}`, `tool_result {tool_id, status, output?,
error?: {type, message}}`, `error {severity, message}`, `result {status, stats?}`; each with
`timestamp`. People keep these from CI runs.

What a `tool_result` holds is the tool's *display* text (`resultDisplay` when it is a string), not
what the model read (`llmContent`): a shell command's display is its output, but read_file's is
empty. So these outputs are a lower bound of what the model saw; scan says so in a note (NOTE).
A failed call's text is its display, else its error message.

Requests: a model turn starts at the first assistant message or tool_use after the prompt or
after a batch of tool results; the results of a batch are first carried by the next turn.
Usage is left out: `result.stats` sums the whole run per model, not per request.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ..model import MAIN_AGENT, UNKNOWN_TOOL, ModelText, SessionEnd, Skipped
from .base import Collector, Pairing, Record, collectors, each_line, file_stem, str_or_none

KEY = "gemini-stream-json"
EVENTS = {"init", "message", "tool_use", "tool_result", "error", "result"}
NOTE = ("outputs are Gemini CLI's display text (resultDisplay), not what the model read "
        "(read_file displays nothing): a lower bound")


class _Run:
    """One headless run: its pairing and the model turns seen so far."""

    def __init__(self, source: str, session: str):
        self.source = source
        self.pairing = Pairing(source, KEY, session)
        self.model: str | None = None
        self.requests = 0
        self.in_turn = False  # inside a model turn (its text or calls), not yet answered by results


@collectors.register
class GeminiStreamCollector(Collector):
    """Gemini CLI headless `--output-format stream-json` event lines."""

    key = KEY
    description = "Gemini CLI headless output (--output-format stream-json): display text, a lower bound"
    note = NOTE
    jsonl = True
    document = False

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """An event: a known `type` with a `timestamp`, and the fields of its kind."""
        kind = first.get("type")
        if not isinstance(kind, str) or kind not in EVENTS or not isinstance(first.get("timestamp"), str):
            return False
        if kind == "init":
            return isinstance(first.get("session_id"), str) and "model" in first
        if kind == "tool_use":
            return isinstance(first.get("tool_id"), str) and isinstance(first.get("tool_name"), str)
        if kind == "tool_result":
            return isinstance(first.get("tool_id"), str) and first.get("status") in ("success", "error")
        if kind == "message":
            return first.get("role") in ("user", "assistant") and "uuid" not in first and "sessionId" not in first
        return kind == "result" and isinstance(first.get("stats"), dict)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Calls paired by tool id, the model's text, then the run's end."""
        run = _Run(str(path), file_stem(path))
        empty = yield from each_line(path, lambda obj, number: self._event(obj, number, run))
        if empty:
            return
        yield from run.pairing.unpaired()
        yield SessionEnd(run.source, run.pairing.session, (run.requests,))

    def _event(self, obj: Any, number: int, run: _Run) -> Iterator[Record]:
        if not isinstance(obj, dict):
            yield Skipped(run.source, number, f"expected a JSON object, got {type(obj).__name__}")
            return
        kind, ts = obj.get("type"), str_or_none(obj.get("timestamp"))
        if kind == "init":
            if run.pairing.calls == 0 and str_or_none(obj.get("session_id")):
                run.pairing.session = obj["session_id"]
            run.model = str_or_none(obj.get("model")) or run.model
        elif kind == "message":
            if obj.get("role") == "user":
                run.in_turn = False
            elif obj.get("role") == "assistant":
                self._turn(run)
                if isinstance(obj.get("content"), str) and obj["content"]:
                    yield ModelText(run.source, number, run.pairing.session, obj["content"], MAIN_AGENT)
        elif kind == "tool_use":
            self._turn(run)
            if not isinstance(obj.get("tool_id"), str):
                yield Skipped(run.source, number, "tool_use event without a tool_id")
                return
            run.pairing.call(obj["tool_id"], str_or_none(obj.get("tool_name")) or UNKNOWN_TOOL,
                             obj.get("parameters"), number, ts=ts, model=run.model)
        elif kind == "tool_result":
            if not isinstance(obj.get("tool_id"), str):
                yield Skipped(run.source, number, "tool_result event without a tool_id")
                return
            run.in_turn = False
            failed = obj.get("status") == "error"
            text = obj.get("output")
            if not isinstance(text, str) or (failed and not text):
                error = obj.get("error")
                text = error.get("message") if isinstance(error, dict) and isinstance(error.get("message"), str) else ""
            yield run.pairing.result(obj["tool_id"], text, number, is_error=failed,
                                     request_index=run.requests, ts=ts, model=run.model)
        elif kind is not None and not isinstance(kind, str):
            yield Skipped(run.source, number, f"event whose type is not a string: {type(kind).__name__}")

    @staticmethod
    def _turn(run: _Run) -> None:
        """A model turn begins unless one is under way."""
        if not run.in_turn:
            run.requests += 1
            run.in_turn = True
