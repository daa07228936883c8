"""NousResearch hermes-agent: saved ShareGPT trajectories and session logs (formats.md §7).

ShareGPT trajectories (`trajectory_samples.jsonl`, `failed_trajectories.jsonl`, one
`{"conversations": [{from, value}], "timestamp", "model", "completed"}` per line, a session
per line named `<stem>#<line>`; a pretty-printed `sample_*.json` or a JSON list also reads):
- a `gpt` turn holds `<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>` blocks,
  with no ids; its text outside them (the `<think>` block included) is ModelText;
- the next `tool` turn holds one `<tool_response>\\n{"tool_call_id", "name", "content"}\\n
  </tool_response>` block per call, joined with "\\n". The k-th block answers the k-th call
  of the gpt turn before it, unless its tool_call_id names a call by the id that call carried.
  Measured is the block's inner JSON text: the model saw the whole block, and the tags and
  newlines are the same few characters every time; the content inside is hermes' re-dump
  of the tool's JSON (with spaces), not byte for byte the string the tool returned.
- LLaMA-Factory's variant (`function_call` turns with one call's JSON, `observation` turns
  with its raw output) reads the same way; a `tool` turn without blocks is one output.
Requests: one per gpt (or function_call) turn.

Session logs (`~/.hermes/sessions/session_<id>.json`: `{session_id, model, platform,
messages[]}`) hold OpenAI-style messages: assistant `tool_calls[{id, function{name,
arguments}}]` (its `content` and `reasoning` are ModelText), `role: "tool"` results with
`tool_call_id` (else matched by `tool_name`, else the oldest open call). One request per
assistant message; other roles (`session_meta`) are passed over.
In a document `line` is the turn's or message's 1-based position. A turn or message whose
values are not of the expected types is one Skipped record (`unexpected shape: ...`); the
rest of the conversation is read as usual.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from ..model import ModelText, SessionEnd, Skipped, ToolCall
from .base import Collector, Pairing, Record, collectors, dump_args, flatten, guarded, each_line, file_stem

KEY = "hermes"
_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_OPEN, _CLOSE = "<tool_response>", "</tool_response>"
_NAME = re.compile(r"""["']name["']\s*:\s*["']([^"']+)["']""")
_THINK = re.compile(r"</?think>")
_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()


def _is_sharegpt(obj: Any) -> bool:
    turns = obj.get("conversations") if isinstance(obj, dict) else None
    return isinstance(turns, list) and all(isinstance(t, dict) and "from" in t for t in turns[:3])


def _is_session_log(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("messages"), list) and "session_id" in obj \
        and ("platform" in obj or "model" in obj)


def _parse_call(text: str) -> tuple[str, Any, Any]:
    """(tool name, arguments, id) of one `<tool_call>` block; the name by regex when not JSON."""
    try:
        call = json.loads(text)
    except (ValueError, RecursionError):
        call = None
    if isinstance(call, dict) and isinstance(call.get("name"), str) and call["name"]:
        return call["name"], call.get("arguments", call.get("parameters")), call.get("id")
    found = _NAME.search(text)
    return (found.group(1) if found else "unknown"), text, None


def _function_calls(value: str) -> list[str]:
    """The calls of a LLaMA-Factory `function_call` turn: one JSON call, or a JSON list of them."""
    try:
        calls = json.loads(value)
    except (ValueError, RecursionError):
        return [value]
    return [json.dumps(c) for c in calls] if isinstance(calls, list) else [value]


def _responses(value: str) -> list[tuple[str, Any]]:
    """(inner text, tool_call_id) of each `<tool_response>` block, in order.

    The JSON inside is decoded to find its end, so a `</tool_response>` inside the content
    does not cut the block short; a block that is not JSON ends at the next closing tag.
    """
    out, at = [], value.find(_OPEN)
    while at >= 0:
        start = _SPACE.match(value, at + len(_OPEN)).end()
        try:
            obj, end = _DECODER.raw_decode(value, start)
        except (ValueError, RecursionError):
            obj, end = None, value.find(_CLOSE, start)
            end = len(value) if end < 0 else end
        out.append((value[start:end].rstrip(), obj.get("tool_call_id") if isinstance(obj, dict) else None))
        at = value.find(_OPEN, end)
    return out


class _ShareGPT:
    """One conversation's pairing: calls of the last gpt turn, answered by position."""

    def __init__(self, source: str, session: str, model: str | None):
        self.source, self.session, self.model = source, session, model
        self.pairing = Pairing(source, KEY, session)
        self.turn: list[str] = []  # pending keys of the last gpt turn's calls, in order
        self.answered = 0
        self.requests = 0

    def feed(self, turn: Any, line: int) -> Iterator[Record]:
        """The records one turn completes."""
        if not isinstance(turn, dict) or not isinstance(turn.get("value"), str):
            yield Skipped(self.source, line, "turn without a string value")
            return
        who, value = turn.get("from"), turn["value"]
        if who is not None and not isinstance(who, str):
            yield Skipped(self.source, line, f"turn whose `from` is not a string: {type(who).__name__}")
            return
        if who in ("gpt", "function_call"):
            self.requests += 1
            self.turn, self.answered = [], 0
            blocks = _CALL.findall(value) if who == "gpt" else _function_calls(value)
            said = _THINK.sub("", _CALL.sub("", value)).strip() if who == "gpt" else ""
            if said:
                yield ModelText(self.source, line, self.session, said)
            for block in blocks:
                tool, args, ident = _parse_call(block)
                key = ident if isinstance(ident, str) and ident else f"#{self.pairing.calls + 1}"
                self.pairing.call(key, tool, args if isinstance(args, str) else dump_args(args), line, model=self.model)
                self.turn.append(key)
        elif who in ("tool", "observation"):
            blocks = _responses(value) if who == "tool" and _OPEN in value else [(value, None)]
            for inner, call_id in blocks:
                yield self._result(inner, call_id, line)

    def _result(self, inner: str, call_id: Any, line: int) -> ToolCall:
        """The call one result answers: by the id its call carried, else by position."""
        pending = self.pairing.pending
        if isinstance(call_id, str) and call_id in pending:
            key = call_id
        else:  # by position within the gpt turn before
            key = self.turn[self.answered] if self.answered < len(self.turn) else ""
            if key in pending and isinstance(call_id, str) and call_id:
                pending[call_id] = pending.pop(key)  # report the id hermes gave the result
                key = call_id
            elif key not in pending:
                key = call_id if isinstance(call_id, str) else ""  # more results than calls: an orphan
        self.answered += 1
        return self.pairing.result(key, inner, line, request_index=self.requests, model=self.model)

    def end(self) -> Iterator[Record]:
        """Calls never answered, then the session's request count."""
        yield from self.pairing.unpaired()
        yield SessionEnd(self.source, self.session, (self.requests,))


class _Log:
    """A session log's pairing and request count, fed message by message."""

    def __init__(self, source: str, session: str, model: str | None):
        self.source, self.session, self.model = source, session, model
        self.pairing = Pairing(source, KEY, session)
        self.requests = 0

    def feed(self, msg: Any, line: int) -> Iterator[Record]:
        """The records one message completes."""
        if not isinstance(msg, dict):
            yield Skipped(self.source, line, f"expected a message object, got {type(msg).__name__}")
            return
        role = msg.get("role")
        if role is not None and not isinstance(role, str):
            yield Skipped(self.source, line, f"message whose role is not a string: {type(role).__name__}")
            return
        ts = msg["timestamp"] if isinstance(msg.get("timestamp"), str) else None
        pairing, model = self.pairing, self.model
        if role == "assistant":
            self.requests += 1
            said = [flatten(msg.get("content")).text, msg.get("reasoning") or msg.get("reasoning_content")]
            text = "\n".join(s for s in said if isinstance(s, str) and s.strip())
            if text:
                yield ModelText(self.source, line, self.session, text)
            calls = msg.get("tool_calls") or []
            for call in calls if isinstance(calls, list) else [None]:
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                    yield Skipped(self.source, line, "tool call without a function name")
                    continue
                ident = call.get("id") or call.get("call_id")
                key = ident if isinstance(ident, str) and ident else f"#{pairing.calls + 1}"
                pairing.call(key, fn["name"], fn.get("arguments"), line, ts=ts, model=model)
        elif role == "tool":
            key = msg.get("tool_call_id")
            if not isinstance(key, str) or not key:  # no id: the open call of its name, else the oldest
                name = msg.get("tool_name") or msg.get("name")
                key = next((k for k, c in pairing.pending.items() if c.tool == name), None) \
                    or next(iter(pairing.pending), "")
            yield pairing.result(key, msg.get("content"), line, request_index=self.requests, ts=ts, model=model)

    def end(self) -> Iterator[Record]:
        """Calls never answered, then the session's request count."""
        yield from self.pairing.unpaired()
        yield SessionEnd(self.source, self.session, (self.requests,))


def _session_log(doc: dict, source: str, stem: str) -> Iterator[Record]:
    """A session log: OpenAI-style messages paired by tool_call_id, each message guarded."""
    session = doc["session_id"] if isinstance(doc.get("session_id"), str) and doc["session_id"] else stem
    log = _Log(source, session, doc["model"] if isinstance(doc.get("model"), str) else None)
    for line, msg in enumerate(doc["messages"], 1):
        yield from guarded(log.feed(msg, line), source, line)
    yield from log.end()


@collectors.register
class HermesCollector(Collector):
    """hermes-agent ShareGPT trajectories (JSONL or JSON) and session logs."""

    key = KEY
    description = "hermes-agent ShareGPT trajectories (<tool_call>/<tool_response>) and session logs"
    jsonl = True
    document = True
    lenient_text = True  # the JSON inside <tool_call> and <tool_response> is read by the standard library

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """A ShareGPT conversation per line, or a one-line session log."""
        return _is_sharegpt(first) or _is_session_log(first)

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """A conversation, a list of conversations, or a session log."""
        if isinstance(doc, list):
            return bool(doc) and all(_is_sharegpt(c) for c in doc)
        return _is_sharegpt(doc) or _is_session_log(doc)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of a JSON document (`doc`) or, when `doc` is None, of a JSONL file."""
        source, stem = str(path), file_stem(path)
        if doc is None:
            def one(obj: Any, line: int) -> Iterator[Record]:
                if _is_session_log(obj):
                    yield from _session_log(obj, source, stem)
                else:
                    yield from _conversation(obj, source, f"{stem}#{line}", line)

            yield from each_line(path, one)
        elif _is_session_log(doc):
            yield from _session_log(doc, source, stem)
        elif isinstance(doc, list):
            for index, item in enumerate(doc, 1):
                yield from _conversation(item, source, f"{stem}#{index}", None, index)
        else:
            yield from _conversation(doc, source, stem, None)


def _conversation(obj: Any, source: str, session: str, line: int | None, index: int = 1) -> Iterator[Record]:
    """One ShareGPT conversation; each turn reports `line` (JSONL) or its position (a document)."""
    if not _is_sharegpt(obj):
        yield Skipped(source, line or index, "neither a ShareGPT conversation nor a hermes session log")
        return
    model = obj["model"] if isinstance(obj.get("model"), str) else None
    state = _ShareGPT(source, session, model)
    for position, turn in enumerate(obj["conversations"], 1):
        yield from guarded(state.feed(turn, line or position), source, line or position)
    yield from state.end()
