"""Anthropic Messages API logs: request bodies, claude-trace request/response pairs, responses.

Each JSONL line (or the one JSON document, or each item of a JSON list) is one of:
- a request body `{model, system?, messages: [{role, content}], tools?, ...}`;
- a claude-trace pair `{request: {url, body}, response: {status_code, body | body_raw (SSE)}, logged_at}`;
- a response `{type: "message", role: "assistant", content: [...], stop_reason, usage}`.
A request log re-sends the whole conversation each time, so every tool_use and tool_result
is taken once per file (by id), at the first request that carried it, and the log shows
exactly which requests carried each result: those whose messages held it as first sent
(`SessionEnd.carried`). Each logged request counts as one model request; count_tokens calls,
other endpoints and requests the API refused (HTTP status >= 400) are not model requests.

Sessions are conversations, found by message history: a request whose messages extend an
earlier request's messages (cache_control marks aside, tool results by id) continues that
conversation; any other request (a side call such as a title or quota check, a second
conversation, a history the client pruned) starts one. Its name: a `session`/`session_id`
field, the session id in `metadata.user_id` (Claude Code), else the file stem; later
conversations under the same name get `#2`, `#3`... Usage is read from response bodies and
from SSE `message_start`/`message_delta` events, once per response id; each request's `tools`
list is the session's tool menu (ToolMenu, one per distinct menu).
A line, or a message of a request, whose values are not of the expected types is one Skipped
record (`unexpected shape: ...`), once however many later requests repeat it.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterator

from ..model import SessionEnd, Skipped, Usage
from . import base
from ._request_log import Carried, History, MAX_OPEN, Menus, digest, prefix_digests
from .base import (Collector, Pairing, Record, anthropic_1h, anthropic_parts, collectors, guarded, loads, read_lines,
                   shape_problem, file_stem)

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
    """Rebuild a streamed (SSE) response: its id, model, usage and tool_use blocks.

    Usage starts from `message_start` and takes what each `message_delta` reports: its counts
    are cumulative (the output tokens, and in newer streams the input parts too).
    """
    blocks: dict[Any, dict] = {}
    message: dict = {}
    usage: dict = {}
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
            message = event["message"]
            if isinstance(message.get("usage"), dict):
                usage.update(message["usage"])
        elif kind == "message_delta" and isinstance(event.get("usage"), dict):
            usage.update({k: v for k, v in event["usage"].items() if v is not None})
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
    out = {"id": message.get("id"), "model": message.get("model"), "content": list(blocks.values())}
    return {**out, "usage": usage} if usage else out


def _index(event: dict) -> int | None:
    index = event.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else None


def _skeleton(msg: Any) -> Any:
    """What identifies a message in its conversation: cache_control marks move from request to
    request (Claude Code turns the last message's string content into a marked text block),
    and a tool result is named by its id (a client may clear its content later)."""
    if isinstance(msg, dict) and isinstance(msg.get("content"), str):
        return {**msg, "content": [{"type": "text", "text": msg["content"]}]}
    if not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
        return msg
    blocks = []
    for block in msg["content"]:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            block = {"type": "tool_result", "tool_use_id": block.get("tool_use_id")}
        elif isinstance(block, dict) and "cache_control" in block:
            block = {k: v for k, v in block.items() if k != "cache_control"}
        blocks.append(block)
    return {**msg, "content": blocks}


# Claude Code: `user_<hash>_account_<uuid>_session_<uuid>`; newer versions a JSON object
_SESSION_IN_USER_ID = re.compile(r"_session_([0-9A-Za-z][0-9A-Za-z-]{7,})$")


def _user_session(user_id: Any) -> str | None:
    """The session id Claude Code puts in `metadata.user_id`; the user part is shared by sessions."""
    if not isinstance(user_id, str):
        return None
    if user_id.startswith("{"):
        try:
            user = loads(user_id)
        except ValueError:
            return None
        value = user.get("session_id") if isinstance(user, dict) else None
        return value if isinstance(value, str) and value else None
    found = _SESSION_IN_USER_ID.search(user_id)
    return found.group(1) if found else None


def _failed(response: Any) -> bool:
    """A response with an HTTP error status: the request reached no model (retried, if at all)."""
    status = response.get("status_code") if isinstance(response, dict) else None
    return isinstance(status, int) and status >= 400


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
        log = _Log(str(path), file_stem(path))
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
    """One conversation: its pairing, logged requests, results first seen in it, tool menus."""

    def __init__(self, source: str, name: str, order: int):
        self.name, self.order = name, order
        self.pairing = Pairing(source, KEY, name)
        self.requests = 0
        self.results: list[str] = []  # ids of the results it yielded: their carried counts end it
        self.menus = Menus()
        self.closed = False


class _Log:
    """The state of one file: its conversations and the call, result and response ids taken."""

    def __init__(self, source: str, stem: str):
        self.source, self.stem = source, stem
        self.sessions: OrderedDict[str, _Session] = OrderedDict()  # open ones, least recently used first
        self.names: dict[str, int] = {}  # conversations so far under each name
        self.used: set[str] = set()
        self.history = History()
        self.carried = Carried()
        self.requests = 0  # logged requests in the file: a serial for Carried
        self.calls: set[str] = set()
        self.responses: set[str] = set()
        self.broken: set[tuple[str, int, int]] = set()  # (session, message, block) reported
        self.last: _Session | None = None

    def _name(self, body: dict, obj: dict) -> str:
        """What the conversations of a request are named after: a session field, else the file."""
        meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
        explicit = next((v for v in (obj.get("session"), obj.get("session_id")) if isinstance(v, str) and v), None)
        return explicit or _user_session(meta.get("user_id")) or self.stem

    def session(self, body: dict, obj: dict) -> Iterator[Record]:
        """The conversation a request belongs to (returned); yields what ending an old one gives."""
        base = self._name(body, obj)
        messages = body.get("messages") if isinstance(body.get("messages"), list) else []
        chain = prefix_digests(base, messages, _skeleton)
        state, _ = self.history.find(chain)
        if state is None:
            state = yield from self._new(base)
        self.history.remember(chain, state)
        self.sessions.move_to_end(state.name)
        self.last = state
        return state

    def _new(self, base: str) -> Iterator[Record]:
        count = self.names[base] = self.names.get(base, 0) + 1
        name = base if count == 1 else f"{base}#{count}"
        while name in self.used:
            name += "'"  # a session field that itself ends in #n: names never merge
        self.used.add(name)
        if len(self.sessions) >= MAX_OPEN:  # bounded memory: the least recently used one ends
            yield from self._close(next(iter(self.sessions.values())))
        state = self.sessions[name] = _Session(self.source, name, len(self.used))
        return state

    def _current(self, obj: dict) -> Iterator[Record]:
        """The conversation a bare response belongs to: the last request's, else a new one."""
        if self.last is None or self.last.closed:
            self.last = yield from self._new(self._name({}, obj))
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
            if not isinstance(body.get("messages"), list) or _failed(response):
                return  # another endpoint (claude-trace --include-all-requests), or refused
            yield from self.request(body, obj, line, ts)
            if isinstance(response, dict):
                resp = response.get("body")
                if not isinstance(resp, dict) and isinstance(response.get("body_raw"), str):
                    resp = _sse_message(response["body_raw"])
                if isinstance(resp, dict):
                    yield from self.response(resp, self.last, line, ts)
        elif isinstance(obj.get("messages"), list):
            yield from self.request(obj, obj, line, ts)
        elif obj.get("type") == "message":
            # A bare response belongs with the request logged before it.
            state = yield from self._current(obj)
            yield from self.response(obj, state, line, ts)
        else:
            yield Skipped(self.source, line, "not an Anthropic request body, response or trace pair")

    def request(self, body: dict, obj: dict, line: int, ts: str | None) -> Iterator[Record]:
        """Calls and first-seen results of one logged request."""
        state = yield from self.session(body, obj)
        index = state.requests
        state.requests += 1
        self.requests += 1
        state.menus.add(body.get("tools"))
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
                elif self.carried.add(call_id, self.requests, digest(block.get("content"))):
                    state.results.append(call_id)  # re-sent by later requests: read once, counted each time
                    yield state.pairing.result(call_id, block.get("content"), line,
                                               is_error=block.get("is_error") is True,
                                               request_index=index, ts=ts, model=model)

    def bad(self, state: _Session, m: int, b: int, line: int, reason: str) -> Iterator[Skipped]:
        """Report a broken block once, though every later request repeats it at the same place."""
        if (state.name, m, b) not in self.broken:
            self.broken.add((state.name, m, b))
            yield Skipped(self.source, line, reason)

    def response(self, resp: dict, state: _Session, line: int, ts: str | None) -> Iterator[Usage]:
        """Register the calls a response made (its results come in a later request); its usage once."""
        model = resp.get("model") if isinstance(resp.get("model"), str) else None
        for block in _blocks(resp):
            if block.get("type") == "tool_use":
                self.call(state, block, line, ts, model)
        usage = resp.get("usage")
        if not isinstance(usage, dict):
            return
        rid = resp.get("id") if isinstance(resp.get("id"), str) and resp.get("id") else f"line {line}"
        if rid not in self.responses:  # a proxy may log a response twice
            self.responses.add(rid)
            yield Usage(self.source, line, KEY, state.name, rid, model, *anthropic_parts(usage), ts=ts,
                        request_index=state.requests - 1 if state.requests else None,
                        cache_write_1h=anthropic_1h(usage))

    def call(self, state: _Session, block: dict, line: int, ts: str | None, model: str | None) -> bool:
        """Remember a tool_use the first time it is seen; False when it has no id or name."""
        call_id, name = block.get("id"), block.get("name")
        if not (isinstance(call_id, str) and isinstance(name, str)):
            return False
        if call_id not in self.calls:
            self.calls.add(call_id)  # the response and every later request repeat it
            state.pairing.call(call_id, name, block.get("input"), line, ts=ts, model=model)
        return True

    def _close(self, state: _Session) -> Iterator[Record]:
        """Unanswered calls, the request count and carried counts, the tool menus of one session."""
        state.closed = True
        self.sessions.pop(state.name, None)
        yield from state.pairing.unpaired()
        carried = tuple((cid, self.carried.count(cid)) for cid in state.results)
        yield SessionEnd(self.source, state.name, (state.requests,), carried=carried)
        yield from state.menus.records(self.source, state.name)

    def end(self) -> Iterator[Record]:
        """Every open session ended, oldest first."""
        for state in sorted(self.sessions.values(), key=lambda s: s.order):
            yield from self._close(state)
