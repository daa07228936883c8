"""OpenAI Responses API items: NeMo-Gym rollouts, `{input, output}` logs, Response objects, item lists.

Shapes read (formats.md §4), JSONL (a session per line) or one JSON document:
- NeMo-Gym rollouts `{responses_create_params: {input, model}, response: {id, output, usage}, ...}`,
  a session each, named `<response.id>/<_ng_rollout_index>` (NeMo-Gym gives every rollout of
  a task the same made-up response id); a document may also be a list of rollouts;
- `{"input": [...], "output": [...]}` (a request and its response) and Response objects
  `{"object": "response", "id", "output": [...]}`: a session each;
- a JSON list of items: one session named after the file.
The conversation is `input` then `output`, each call counted once: an output that starts by
repeating the input is read from where the input ends, and a call or result whose call_id
was already read is passed over.
Calls are `function_call` / `custom_tool_call` (answered by `*_output` with the same call_id;
the output is a string or a list of input_text/input_image parts) and `mcp_call` (its output
inline). Hosted tools (web_search_call, file_search_call...) keep no output to measure and
are not reported, but they are model output and mark a request like any model item.
Requests: a run of model items (assistant message, reasoning, calls) is one request; an
input item (a call output, a user/developer/system message) ends it.
Usage: `response.usage`, when present and not all zero (NeMo-Gym writes null or zeros), is one
Usage per run with no request index: in NeMo-Gym it is an aggregate over the whole rollout,
not one request. Its request_id is the session name, made up from the response id (NeMo-Gym
gives every rollout of a task the same one) or the file name: unique only within the file, so
usage is deduplicated within it. In a document `line` is the run's position.
An item or run whose values are not of the expected types is one Skipped record (`unexpected
shape: ...`); the items and runs after it are read as usual.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ..model import ModelText, SessionEnd, Skipped, Usage
from .base import (Collector, Pairing, Record, collectors, dump_args, flatten, guarded, openai_parts, each_line,
                   file_stem)

KEY = "openai-responses"
_CALLS = frozenset({"function_call", "custom_tool_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_HOSTED = frozenset({"web_search_call", "file_search_call", "image_generation_call", "code_interpreter_call",
                     "mcp_list_tools"})
_MODEL_ITEMS = _CALLS | _HOSTED | {"reasoning", "mcp_call"}
_TYPED = _CALLS | _OUTPUTS | _MODEL_ITEMS | {"message"}


def _is_item(obj: Any) -> bool:
    kind = obj.get("type") if isinstance(obj, dict) else None
    return isinstance(kind, str) and kind in _TYPED and ("role" in obj or kind != "message")


def _is_rollout(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("responses_create_params"), dict) \
        and isinstance(obj.get("response"), dict)


def _is_run(obj: Any) -> bool:
    """A NeMo-Gym rollout, an `{input, output}` exchange or a Response object."""
    if _is_rollout(obj):
        return True
    if not isinstance(obj, dict) or not isinstance(obj.get("output"), list):
        return False
    if obj.get("object") == "response":
        return True
    return isinstance(obj.get("input"), (list, str)) and any(
        _is_item(i) for i in obj["output"] + (obj["input"] if isinstance(obj["input"], list) else []))


def _parts(run: dict) -> tuple[Any, Any, dict, Any]:
    """(input, output, the response object, model) of a run."""
    if _is_rollout(run):
        params, response = run["responses_create_params"], run["response"]
        return params.get("input"), response.get("output"), response, response.get("model") or params.get("model")
    return run.get("input"), run.get("output"), run, run.get("model")


class _Run:
    """One conversation's pairing and request count, fed item by item."""

    def __init__(self, source: str, session: str, model: str | None):
        self.source, self.session, self.model = source, session, model
        self.pairing = Pairing(source, KEY, session)
        self.requests = 0
        self.in_response = False
        self.called: set[str] = set()
        self.answered: set[str] = set()

    def feed(self, item: Any, line: int) -> Iterator[Record]:
        """The records one item completes."""
        if not isinstance(item, dict):
            yield Skipped(self.source, line, f"expected an item object, got {type(item).__name__}")
            return
        kind = item.get("type") or ("message" if "role" in item else None)  # easy input messages
        kind = kind if isinstance(kind, str) else None
        if kind in _CALLS or kind in _OUTPUTS or kind == "mcp_call":
            call_id = item.get("id") if kind == "mcp_call" else item.get("call_id")
            if isinstance(call_id, str) and call_id in (self.answered if kind in _OUTPUTS else self.called):
                return  # the same item again: the conversation re-sent, nothing new
        if kind in _MODEL_ITEMS or (kind == "message" and item.get("role") == "assistant"):
            if not self.in_response:
                self.requests += 1
            self.in_response = True
            said = flatten(item.get("content")).text if kind == "message" else ""
            if kind == "reasoning":
                said = "\n".join(t for t in (flatten(item.get("summary")).text, flatten(item.get("content")).text) if t)
            if said:  # the model's own words: evidence for simulate's later_used
                yield ModelText(self.source, line, self.session, said)
        elif kind in _OUTPUTS or kind == "message":
            self.in_response = False
        if kind in _CALLS or kind in _OUTPUTS or kind == "mcp_call":
            yield from self._tool(kind, item, line)

    def _tool(self, kind: str, item: dict, line: int) -> Iterator[Record]:
        call_id = item.get("id") if kind == "mcp_call" else item.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            yield Skipped(self.source, line, f"{kind} without a call_id")
            return
        if kind in _OUTPUTS:
            self.answered.add(call_id)
            yield self.pairing.result(call_id, item.get("output"), line, request_index=self.requests, model=self.model)
            return
        self.called.add(call_id)
        name = item.get("name") if isinstance(item.get("name"), str) and item["name"] else "unknown"
        args = item.get("input") if kind == "custom_tool_call" else item.get("arguments")
        self.pairing.call(call_id, name, args, line, model=self.model)
        if kind == "mcp_call":  # a remote MCP tool: run by the API, its output inline
            self.answered.add(call_id)
            error = item.get("error")
            yield self.pairing.result(call_id, item.get("output") if not error else dump_args(error), line,
                                      is_error=bool(error), request_index=self.requests, model=self.model)

    def end(self) -> Iterator[Record]:
        """Calls never answered, then the session's request count."""
        yield from self.pairing.unpaired()
        yield SessionEnd(self.source, self.session, (self.requests,))


def _items(value: Any) -> list | None:
    """A list of items; a bare string input is one user message; None when it is neither."""
    if value is None:
        return []
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    return value if isinstance(value, list) else None


def _usage(run: _Run, response: dict, line: int) -> Iterator[Record]:
    """The run's usage, when the response reports any."""
    usage = response.get("usage")
    parts = openai_parts(usage) if isinstance(usage, dict) else (0, 0, 0, 0)
    if not any(parts):
        return
    details = usage.get("output_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    created = response.get("created_at")
    ts = datetime.fromtimestamp(created, timezone.utc).isoformat() \
        if isinstance(created, (int, float)) and not isinstance(created, bool) and 0 < created < 1e11 else None
    yield Usage(run.source, line, KEY, run.session, run.session, run.model, *parts, ts=ts,
                reasoning=reasoning if isinstance(reasoning, int) and not isinstance(reasoning, bool) else 0)


def _name(run: dict, response: dict, fallback: str, line: int, used: set[str]) -> str:
    """response.id (+ `/<rollout index>`), else `fallback`; never the same twice in a file."""
    rid = response.get("id") if isinstance(response.get("id"), str) and response["id"] else None
    name = rid or fallback
    rollout = run.get("_ng_rollout_index")
    if rid and isinstance(rollout, int) and not isinstance(rollout, bool):
        name = f"{rid}/{rollout}"
    if name in used:
        name = f"{name}@{line}"
    used.add(name)
    return name


@collectors.register
class OpenAIResponsesCollector(Collector):
    """OpenAI Responses API items: NeMo-Gym rollouts, {input, output} logs, item lists."""

    key = KEY
    description = "OpenAI Responses API items: NeMo-Gym rollouts, {input, output}, Response objects, item lists"
    jsonl = True
    document = True

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """A rollout, an exchange or a Response object per line."""
        return _is_run(first)

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """One run, a list of runs, or a list of items with a message or a call."""
        if isinstance(doc, list):  # items: typed ones, or easy messages `{role, content}` among them
            items = all(_is_item(i) or (isinstance(i, dict) and "role" in i) for i in doc) and any(map(_is_item, doc))
            return bool(doc) and (all(_is_run(r) for r in doc) or items)
        return _is_run(doc)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of a JSON document (`doc`) or, when `doc` is None, of a JSONL file."""
        source, stem = str(path), file_stem(path)
        used: set[str] = set()
        if doc is None:
            yield from each_line(path, lambda obj, line: self._run(obj, source, f"{stem}#{line}", line, used))
        elif isinstance(doc, list) and doc and all(isinstance(r, dict) and "output" in r for r in doc):
            for position, run in enumerate(doc, 1):
                yield from guarded(self._run(run, source, f"{stem}#{position}", position, used), source, position)
        elif isinstance(doc, list):
            yield from self._run({"input": doc, "output": []}, source, stem, 1, used)
        else:
            yield from self._run(doc, source, stem, 1, used)

    def _run(self, run: Any, source: str, fallback: str, line: int, used: set[str]) -> Iterator[Record]:
        """One conversation: a session of its own."""
        if not isinstance(run, dict):
            yield Skipped(source, line, f"expected a run object, got {type(run).__name__}")
            return
        given, produced, response, model = _parts(run)
        given, produced = _items(given), _items(produced)
        if given is None or produced is None or not isinstance(response, dict):
            yield Skipped(source, line, "input or output is not a list of items")
            return
        if given and produced[:len(given)] == given:
            produced = produced[len(given):]  # the output re-sends the conversation first
        state = _Run(source, _name(run, response, fallback, line, used), model if isinstance(model, str) else None)
        for item in given + produced:
            yield from guarded(state.feed(item, line), source, line)
        yield from _usage(state, response, line)
        yield from state.end()
