"""Harbor ATIF trajectories (`trajectory.json`, formats.md §8): one JSON document, one session.

`{schema_version: "ATIF-v1.x", session_id, agent{name, model_name}, steps[{step_id, source:
system|user|agent, message, reasoning_content?, model_name?, tool_calls?[{tool_call_id,
function_name, arguments}], observation?{results[{source_call_id, content}]}, metrics?},
final_metrics}`, as the Harbor RFC 0001 defines it.
- Calls are the agent steps' tool_calls; a result answers the call its source_call_id names.
  A result without one answers the step's next unanswered call: Harbor's mini-swe-agent
  converter writes `call_<step>_1` on the call and no source_call_id on the command output.
  Left over, it is the output of a non-tool action, an orphan. A call with no result (an
  OpenHands `finish`, an interrupted run) is unpaired: ATIF does not say which calls expect one.
- Measured is the result's `content` (a string; a list of text/image parts is flattened).
- Each agent step is one model request; its outputs are first carried by the next one.
- Usage: each agent step's metrics. `prompt_tokens` includes `cached_tokens` (the OpenAI
  convention, stated by the RFC); a cache write, when a converter keeps one, is in
  metrics.extra.cache_creation_input_tokens; `final_metrics` only sums the steps, not read.
  request_id is `<session_id>#<step_id>`: ATIF keeps no provider response id.
`line` is the step's 1-based position in `steps`; `session_id` names the session. A step whose
values are not of the expected types is one Skipped record (`unexpected shape: ...`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ..model import ModelText, SessionEnd, Skipped, Usage
from .base import (Collector, Pairing, Record, collectors, dict_or_empty, guarded, openai_parts, file_stem,
                   str_or_none)

KEY = "atif"


def _usage(metrics: dict, source: str, line: int, session: str, step: Any, model: str | None,
           ts: str | None, index: int) -> Iterator[Usage]:
    """The step's metrics as one request's usage, when it reports tokens."""
    extra = dict_or_empty(metrics.get("extra"))
    parts = openai_parts({
        "prompt_tokens": metrics.get("prompt_tokens"), "completion_tokens": metrics.get("completion_tokens"),
        "prompt_tokens_details": {"cached_tokens": metrics.get("cached_tokens")},
        "cache_creation_input_tokens": extra.get("cache_creation_input_tokens"),
    })
    if any(parts):
        reasoning = extra.get("reasoning_tokens")
        yield Usage(source, line, KEY, session, f"{session}#{step}", model, *parts, ts=ts, request_index=index,
                    reasoning=reasoning if isinstance(reasoning, int) and not isinstance(reasoning, bool) else 0)


@collectors.register
class AtifCollector(Collector):
    """Harbor ATIF trajectory JSON: steps with tool_calls, observation results and metrics."""

    key = KEY
    description = "Harbor ATIF trajectory JSON (schema_version ATIF-v1.x): steps, tool_calls, observations"
    jsonl = False
    document = True

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """`schema_version` + `steps[]` + `agent`."""
        return isinstance(doc, dict) and isinstance(doc.get("steps"), list) and isinstance(doc.get("agent"), dict) \
            and isinstance(doc.get("schema_version"), str)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """The trajectory's records, step by step."""
        source = str(path)
        if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list):
            yield Skipped(source, 1, "not an ATIF trajectory: no steps list")
            return
        session = str_or_none(doc.get("session_id")) or file_stem(path)
        trajectory = _Trajectory(source, session, str_or_none(dict_or_empty(doc.get("agent")).get("model_name")))
        for line, step in enumerate(doc["steps"], 1):
            yield from guarded(trajectory.step(step, line), source, line)
        yield from trajectory.pairing.unpaired()
        yield SessionEnd(source, session, (trajectory.requests,))


class _Trajectory:
    """One trajectory's pairing and request count, fed step by step."""

    def __init__(self, source: str, session: str, model: str | None):
        self.source, self.session, self.model = source, session, model
        self.pairing = Pairing(source, KEY, session)
        self.requests = 0

    def step(self, step: Any, line: int) -> Iterator[Record]:
        """The records one step completes."""
        source, session, pairing = self.source, self.session, self.pairing
        if not isinstance(step, dict):
            yield Skipped(source, line, f"expected a step object, got {type(step).__name__}")
            return
        ts, model = str_or_none(step.get("timestamp")), str_or_none(step.get("model_name")) or self.model
        opened: list[str] = []  # this step's calls, for results without a source_call_id
        if step.get("source") == "agent":
            said = "\n".join(s for s in (step.get("reasoning_content"), step.get("message"))
                             if isinstance(s, str) and s.strip())
            if said:
                yield ModelText(source, line, session, said)
            yield from _usage(dict_or_empty(step.get("metrics")), source, line, session, step.get("step_id", line),
                              model, ts, self.requests)
            self.requests += 1
            calls = step.get("tool_calls") or []
            for call in calls if isinstance(calls, list) else [None]:
                call = dict_or_empty(call)
                call_id, name = str_or_none(call.get("tool_call_id")), str_or_none(call.get("function_name"))
                if call_id is None or name is None:
                    yield Skipped(source, line, "tool call without a tool_call_id or function_name")
                    continue
                pairing.call(call_id, name, call.get("arguments"), line, ts=ts, model=model)
                opened.append(call_id)
        results = dict_or_empty(step.get("observation")).get("results") or []
        if not isinstance(results, list):
            yield Skipped(source, line, "observation results is not a list")
            return
        for result in results:
            if not isinstance(result, dict):
                yield Skipped(source, line, "observation result is not an object")
                continue
            key = str_or_none(result.get("source_call_id"))
            if key is None:  # the step's next unanswered call, else an orphan
                key = next((k for k in opened if k in pairing.pending), "")
            yield pairing.result(key, result.get("content"), line, is_error=result.get("is_error") is True,
                                 request_index=self.requests, ts=ts, model=model)
