"""Anthropic Messages API logs: request bodies, claude-trace request/response pairs, responses.

Each JSONL line (or the one JSON document, or each item of a JSON list) is one of:
- a request body `{model, system?, messages: [{role, content}], tools?, ...}`;
- a claude-trace pair `{request: {url, body}, response: {body | body_raw (SSE)}, logged_at}`;
- a response `{type: "message", role: "assistant", content: [...], stop_reason}`.
A request log re-sends the whole conversation each time, so every tool_use and
tool_result is taken once per file (by id), at the first request that carried it;
each logged request counts as one model request. Session: `metadata.user_id`, a
`session`/`session_id` field, else the file stem. A line, or a message of a request, whose
values are not of the expected types is one Skipped record (`unexpected shape: ...`), once
however many later requests repeat it; the rest is read as usual.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ..model import SessionEnd, Skipped
from . import base
from .base import Collector, Pairing, Record, collectors, guarded, loads, read_lines, shape_problem

KEY = "anthropic-messages"
# Block types only the Anthropic API uses; OpenAI chat has `text` and `image_url` parts.
_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "document",
                     "server_tool_use", "web_search_tool_result"})
_OPENAI_ROLES = frozenset({"system", "developer", "tool", "function"})


def _kind(obj: dict, key: str = "type") -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None


def _blocks(msg: Any) -> list:
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def is_anthropic_body(body: Any) -> bool:
    """True for a request body with Anthropic marks and no OpenAI chat marks.

    Shared with openai-chat so the two never claim the same file, whatever the order.
    """
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return False
    messages = [m for m in body["messages"] if isinstance(m, dict)]
    if any(_kind(m, "role") in _OPENAI_ROLES or "tool_calls" in m or "function_call" in m for m in messages):
        return False
    tools = body.get("tools") if isinstance(body.get("tools"), list) else []
    return ("system" in body or "anthropic_version" in body
            or any(isinstance(t, dict) and "input_schema" in t for t in tools)
            or any(_kind(b) in _BLOCKS or (b.get("type") == "image" and "source" in b)
                   for m in messages for b in _blocks(m)))


def _is_response(obj: Any) -> bool:
    return (isinstance(obj, dict) and obj.get("type") == "message" and obj.get("role") == "assistant"
            and isinstance(obj.get("content"), list) and "stop_reason" in obj)


def _trace_request(obj: Any) -> dict | None:
    """The request of a claude-trace pair, or None."""
    req = obj.get("request") if isinstance(obj, dict) else None
    return req if isinstance(req, dict) and ("body" in req or "url" in req) else None


def _sse_message(raw: str) -> dict:
    """Rebuild the tool_use blocks of a streamed (SSE) response: enough to register calls."""
    blocks: dict[Any, dict] = {}
    model = None
    for line in raw.splitlines():
        if not line.startswith("data:"):
            continue
        try:
            event = loads(line[5:].strip())
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        if kind == "message_start" and isinstance(event.get("message"), dict):
            model = event["message"].get("model")
        elif kind == "content_block_start" and isinstance(event.get("content_block"), dict):
            if _index(event) is not None:
                blocks[_index(event)] = {**event["content_block"], "_json": ""}
        elif kind == "content_block_delta" and isinstance(event.get("delta"), dict):
            block = blocks.get(_index(event))
            if block is not None and isinstance(event["delta"].get("partial_json"), str):
                block["_json"] += event["delta"]["partial_json"]
    for block in blocks.values():
        text = block.pop("_json")
        if text:
            block["input"] = text  # the arguments exactly as the model streamed them
    return {"model": model, "content": list(blocks.values())}


def _index(event: dict) -> int | None:
    index = event.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else None


@collectors.register
class AnthropicMessagesCollector(Collector):
    """Anthropic Messages API request/response logs (including claude-trace), JSON or JSONL."""

    key = KEY
    description = "Anthropic Messages API request logs (claude-trace, proxies), deduplicated"
    jsonl = True
    document = True

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """A request body, a claude-trace pair or a response, with Anthropic marks."""
        req = _trace_request(first)
        if req is not None:
            url = req.get("url")
            return (isinstance(url, str) and ("anthropic.com" in url or "/v1/messages" in url)) \
                or is_anthropic_body(req.get("body"))
        return is_anthropic_body(first) or _is_response(first)

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """One entry, or a list of entries, as sniff_line judges them."""
        if isinstance(doc, list):
            return bool(doc) and cls.sniff_line(doc[0]) and all(isinstance(e, dict) for e in doc)
        return cls.sniff_line(doc)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of the file, each tool_use and tool_result taken once."""
        log = _Log(str(path), path.stem)
        if doc is None:
            entries: Any = read_lines(path)
        else:
            entries = enumerate(doc if isinstance(doc, list) else [doc], 1)
        empty = True
        for line, obj in entries:
            empty = False
            yield from [obj] if isinstance(obj, Skipped) else guarded(log.entry(obj, line), log.source, line)
        if empty:
            yield Skipped(log.source, 0, "empty file", benign=True)  # a log just created
        yield from log.end()


class _Session:
    """Per-session pairing and the count of logged requests."""

    def __init__(self, source: str, name: str):
        self.name = name
        self.pairing = Pairing(source, KEY, name)
        self.requests = 0


class _Log:
    """The state of one file: its sessions and the call and result ids already taken."""

    def __init__(self, source: str, stem: str):
        self.source, self.stem = source, stem
        self.sessions: dict[str, _Session] = {}
        self.calls: set[str] = set()
        self.results: set[str] = set()
        self.broken: set[tuple[str, int, int]] = set()  # (session, message, block) reported
        self.last: _Session | None = None

    def session(self, body: dict, obj: dict) -> _Session:
        """The session a request belongs to: metadata.user_id, session field, else the file."""
        meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
        name = next((v for v in (meta.get("user_id"), obj.get("session"), obj.get("session_id"))
                     if isinstance(v, str) and v), self.stem)
        if name not in self.sessions:
            self.sessions[name] = _Session(self.source, name)
        self.last = self.sessions[name]
        return self.last

    def entry(self, obj: Any, line: int) -> Iterator[Record]:
        """The records one line (or document item) completes."""
        if not isinstance(obj, dict):
            yield Skipped(self.source, line, f"expected a JSON object, got {type(obj).__name__}")
            return
        ts = obj.get("logged_at") if isinstance(obj.get("logged_at"), str) else None
        req = _trace_request(obj)
        if req is not None:
            url = req.get("url")
            if isinstance(url, str) and "count_tokens" in url:
                return  # token counting is not a model request
            body, response = req.get("body"), obj.get("response")
            body = body if isinstance(body, dict) else {}
            if not isinstance(body.get("messages"), list):
                return  # another endpoint (claude-trace --include-all-requests)
            yield from self.request(body, obj, line, ts)
            if isinstance(response, dict):
                resp = response.get("body")
                if not isinstance(resp, dict) and isinstance(response.get("body_raw"), str):
                    resp = _sse_message(response["body_raw"])
                if isinstance(resp, dict):
                    self.response(resp, self.session(body, obj), line, ts)
        elif isinstance(obj.get("messages"), list):
            yield from self.request(obj, obj, line, ts)
        elif obj.get("type") == "message":
            # A bare response belongs with the request logged before it.
            self.response(obj, self.last or self.session({}, obj), line, ts)
        else:
            yield Skipped(self.source, line, "not an Anthropic request body, response or trace pair")

    def request(self, body: dict, obj: dict, line: int, ts: str | None) -> Iterator[Record]:
        """Calls and first-seen results of one logged request."""
        state = self.session(body, obj)
        index = state.requests
        state.requests += 1
        model = body.get("model") if isinstance(body.get("model"), str) else None
        for m, msg in enumerate(body["messages"]):
            try:
                yield from self.message(state, m, msg, index, line, ts, model)
            except Exception as exc:  # noqa: BLE001 -- odd data in one message, as base.guarded does
                if base.DEBUG:
                    raise
                yield from self.bad(state, m, -1, line, shape_problem(self.source, line, exc).reason)

    def message(self, state: _Session, m: int, msg: Any, index: int, line: int, ts: str | None,
                model: str | None) -> Iterator[Record]:
        """The calls and first-seen results of one message (the m-th) of a request."""
        role = msg.get("role") if isinstance(msg, dict) else None
        for b, block in enumerate(_blocks(msg)):
            kind = block.get("type")
            if role == "assistant" and kind == "tool_use":
                if not self.call(state, block, line, ts, model):
                    yield from self.bad(state, m, b, line, "tool_use block without a string id and name")
            elif role == "user" and kind == "tool_result":
                call_id = block.get("tool_use_id")
                if not isinstance(call_id, str):
                    yield from self.bad(state, m, b, line, "tool_result block without a tool_use_id")
                elif call_id not in self.results:  # re-sent by every later request: counted once
                    self.results.add(call_id)
                    yield state.pairing.result(call_id, block.get("content"), line,
                                               is_error=block.get("is_error") is True,
                                               request_index=index, ts=ts, model=model)

    def bad(self, state: _Session, m: int, b: int, line: int, reason: str) -> Iterator[Skipped]:
        """Report a broken block once, though every later request repeats it at the same place."""
        if (state.name, m, b) not in self.broken:
            self.broken.add((state.name, m, b))
            yield Skipped(self.source, line, reason)

    def response(self, resp: dict, state: _Session, line: int, ts: str | None) -> None:
        """Register the calls a response made (its results come in a later request)."""
        model = resp.get("model") if isinstance(resp.get("model"), str) else None
        for block in _blocks(resp):
            if block.get("type") == "tool_use":
                self.call(state, block, line, ts, model)

    def call(self, state: _Session, block: dict, line: int, ts: str | None, model: str | None) -> bool:
        """Remember a tool_use the first time it is seen; False when it has no id or name."""
        call_id, name = block.get("id"), block.get("name")
        if not (isinstance(call_id, str) and isinstance(name, str)):
            return False
        if call_id not in self.calls:
            self.calls.add(call_id)  # the response and every later request repeat it
            state.pairing.call(call_id, name, block.get("input"), line, ts=ts, model=model)
        return True

    def end(self) -> Iterator[Record]:
        """Unanswered calls and each session's request count."""
        for state in self.sessions.values():
            yield from state.pairing.unpaired()
            yield SessionEnd(self.source, state.name, (state.requests,))
