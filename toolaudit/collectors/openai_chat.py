"""OpenAI Chat Completions message lists: tau-bench runs, `{"messages": [...]}` logs, JSONL.

Shapes read (formats.md §4):
- a JSON list of messages, `{"messages": [...]}`, or one message per JSONL line: one session;
- a list of runs `{task_id, traj|messages, ...}` (tau-bench), or one run per JSONL line:
  a session per run, named `<file stem>#<task_id or id or index>`. A line whose messages
  extend (or repeat) an earlier line's is a request log re-sending the conversation: only its
  new messages are read, into the session of the longest such line (prefix digests, bounded
  memory). A conversation of one line is a run: its model requests are its assistant
  messages. A conversation of several lines is a request log: each line is one request,
  and a result is carried by exactly the lines whose messages hold it (SessionEnd.carried).
  A line's `tools` list is its request's tool menu (ToolMenu, one per distinct menu).
Calls are assistant `tool_calls` (paired by `tool_call_id`) and legacy `function_call`
(answered by the next `role:"function"` message, matched by name, else by position).
Calls without an id get `#1`, `#2`...; an id reused within a run becomes `<id>#2`.
In a JSON document `line` is the message's 1-based position in its run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from collections import OrderedDict

from ..model import UNPAIRED, ModelText, SessionEnd, Skipped, ToolCall
from ._request_log import MAX_OPEN, Carried, History, Menus, digest, prefix_digests
from .anthropic_messages import is_anthropic_body
from .base import Collector, Pairing, Record, collectors, flatten, guarded, each_line, file_stem

KEY = "openai-chat"
ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
# Other formats also keep a `messages` list next to these keys (formats.md §0):
# Gemini legacy (sessionId, projectHash), mini-swe-agent (trajectory_format).
_FOREIGN = ("sessionId", "projectHash", "trajectory_format")


def _is_message(obj: Any) -> bool:
    # Responses API items and Claude Code lines carry `type`, and a chat message says what
    # it holds in `content` or its calls; Codex drift lines put the text in `message`.
    return (isinstance(obj, dict) and _role(obj) in ROLES and "type" not in obj
            and "message" not in obj and any(k in obj for k in ("content", "tool_calls", "function_call")))


def _role(msg: dict) -> str | None:
    role = msg.get("role")
    return role if isinstance(role, str) else None


def _messages_of(run: dict) -> Any:
    return run["messages"] if "messages" in run else run.get("traj")


def _is_run(obj: Any) -> bool:
    """A dict holding a chat message list that no other format claims."""
    if not isinstance(obj, dict) or any(k in obj for k in _FOREIGN):
        return False
    if "session_id" in obj and "platform" in obj:  # hermes session log: its own collector
        return False
    messages = _messages_of(obj)
    return (isinstance(messages, list) and any(_is_message(m) for m in messages)
            and not is_anthropic_body({**obj, "messages": messages}))


def _has_tool_traffic(messages: list) -> bool:
    return any(isinstance(m, dict) and ("tool_calls" in m or "function_call" in m
               or m.get("role") in ("tool", "function")) for m in messages)


class _Session:
    """One run's pairing state: fed message by message, so JSONL is never held whole."""

    def __init__(self, source: str, session: str, model: str | None):
        self.source = source
        self.session = session
        self.model = model
        self.pairing = Pairing(source, KEY, session)
        self.assistants = 0
        self.synthetic = 0  # ids made up for legacy function_call / id-less tool_calls
        # GPT-4o reused ids within one tau-bench run (`call_HGn…` for two different tools):
        # a reused id gets a `#n` suffix, or the scan would drop the call as a duplicate.
        self.uses: dict[str, int] = {}
        self.lines = 0  # JSONL lines (requests) of this conversation
        self.request: int | None = None  # the line's request index, once the file shows it is a request log
        self.results: list[str] = []  # ids of the results read: their carried counts end a request log
        self.first_tools: Any = None  # the first line's menu: a run's, or a request's
        self.menus = Menus()
        self.closed = False
        self.order = 0
        # messages with call ids already read, by digest -> the result's key (a call: ()); a client
        # that prunes history re-sends them after a gap, where the prefix no longer matches
        self.read: dict[bytes, tuple] = {}

    def _call(self, call_id: Any, fn: Any, line: int, ts: str | None) -> Iterator[Skipped]:
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            yield Skipped(self.source, line, "tool call without a function name")
            return
        if not isinstance(call_id, str) or not call_id:
            self.synthetic += 1
            call_id = f"#{self.synthetic}"  # answered by name or position, see _match
        else:
            self.uses[call_id] = self.uses.get(call_id, 0) + 1
            if self.uses[call_id] > 1:
                call_id = f"{call_id}#{self.uses[call_id]}"
        self.pairing.call(call_id, fn["name"], fn.get("arguments"), line, ts=ts, model=self.model)

    def feed(self, msg: Any, line: int) -> Iterator[Record]:
        """The records one message completes."""
        if not isinstance(msg, dict):
            yield Skipped(self.source, line, f"expected a message object, got {type(msg).__name__}")
            return
        ts = msg["timestamp"] if isinstance(msg.get("timestamp"), str) else None
        role = msg.get("role")
        if role is not None and not isinstance(role, str):
            yield Skipped(self.source, line, f"message whose role is not a string: {type(role).__name__}")
            return
        if role == "assistant":
            self.assistants += 1
            said = flatten(msg.get("content")).text
            if said:  # the model's own words: evidence for simulate's later_used
                yield ModelText(self.source, line, self.session, said)
            calls = msg.get("tool_calls") or []
            if not isinstance(calls, list):
                yield Skipped(self.source, line, "tool_calls is not a list")
                calls = []
            for call in calls:
                call = call if isinstance(call, dict) else {}
                yield from self._call(call.get("id"), call.get("function"), line, ts)
            if msg.get("function_call") is not None:  # legacy single call, no id
                yield from self._call(None, msg["function_call"], line, ts)
        elif role in ("tool", "function"):
            index = self.assistants if self.request is None else self.request
            yield self.pairing.result(self._match(msg), msg.get("content"), line,
                                      request_index=index, ts=ts, model=self.model)

    def _match(self, msg: dict) -> str:
        """The call a result answers: its tool_call_id, else the oldest pending call of its name."""
        call_id = msg.get("tool_call_id")
        if isinstance(call_id, str) and call_id:
            uses = self.uses.get(call_id, 1)
            return call_id if uses < 2 else f"{call_id}#{uses}"  # the latest call with that id
        name = msg.get("name") or msg.get("tool_name")
        pending = self.pairing.pending
        for key, call in pending.items():
            if call.tool == name:
                return key
        return next(iter(pending), "")

    def end(self, carried: Carried | None = None) -> Iterator[Record]:
        """Calls never answered, the session's request count (and carried counts), its menus."""
        self.closed = True
        yield from self.pairing.unpaired()
        if self.lines > 1 and carried is not None:  # a request log: one request per line
            self.menus.add(self.first_tools)
            counts = tuple((cid, carried.count((self.session, cid))) for cid in self.results)
            yield SessionEnd(self.source, self.session, (self.lines,), carried=counts)
        else:  # a run: each assistant message took one model request, each with the run's menu
            self.menus.add(self.first_tools, self.assistants)
            yield SessionEnd(self.source, self.session, (self.assistants,))
        yield from self.menus.records(self.source, self.session)


@collectors.register
class OpenAIChatCollector(Collector):
    """OpenAI Chat Completions message lists (tau-bench, message logs), JSON or JSONL."""

    key = KEY
    description = "OpenAI Chat Completions messages: JSON list/{messages}, tau-bench runs, JSONL"
    jsonl = True
    document = True

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """A run `{messages|traj: [...]}` or a bare chat message per line."""
        return _is_run(first) or (_is_message(first) and not is_anthropic_body({"messages": [first]}))

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """A run, a list of runs, or a list of messages with tool traffic."""
        if isinstance(doc, dict):
            return _is_run(doc)
        if not isinstance(doc, list) or not doc:
            return False
        if all(_is_run(r) for r in doc):
            return True
        # A bare list without tool traffic is also mini-swe-agent's oldest shape: leave it.
        return (all(_is_message(m) for m in doc) and _has_tool_traffic(doc)
                and not is_anthropic_body({"messages": doc}))

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of a JSON document (`doc`) or, when `doc` is None, of a JSONL file."""
        source, stem = str(path), file_stem(path)
        if doc is None:
            yield from self._lines(path, source, stem)
            return
        model = doc.get("model") if isinstance(doc, dict) else None
        if isinstance(doc, dict) and "role" in doc:
            doc = [doc]  # a one-line message-per-line file, read as a document
        if isinstance(doc, list) and any(isinstance(r, dict) and _messages_of(r) is not None for r in doc):
            names: set[str] = set()
            for index, run in enumerate(doc):
                yield from self._run(run, source, _name(stem, run, index, names), model)
        elif isinstance(doc, list):
            yield from _one(_Session(source, stem, model), doc)
        elif isinstance(doc, dict):
            yield from self._run(doc, source, stem, model)
        else:
            yield Skipped(source, 1, f"expected a chat message list, got {type(doc).__name__}")

    def _run(self, run: Any, source: str, session: str, model: Any) -> Iterator[Record]:
        """One run of a document: a session of its own."""
        messages = _messages_of(run) if isinstance(run, dict) else None
        if not isinstance(messages, list):
            yield Skipped(source, 1, "run has no messages list")
            return
        model = run.get("model", model)  # a run's own model wins over the document's
        state = _Session(source, session, model if isinstance(model, str) else None)
        state.first_tools = run.get("tools")
        yield from _one(state, messages)

    def _lines(self, path: Path, source: str, stem: str) -> Iterator[Record]:
        state = _Lines()
        yield from each_line(path, lambda obj, line: self._line(obj, line, source, stem, state))
        for session in sorted(state.open.values(), key=lambda s: s.order):
            yield from session.end(state.carried)
        if state.loose:
            yield from state.loose.end()

    def _line(self, obj: Any, line: int, source: str, stem: str, state: "_Lines") -> Iterator[Record]:
        """One line: a run (new, or a request log extending the last one) or a bare message."""
        if isinstance(obj, dict) and ("messages" in obj or "traj" in obj):
            messages = _messages_of(obj)
            if not isinstance(messages, list):
                yield Skipped(source, line, "run has no messages list")
                return
            chain = prefix_digests("", messages)
            run, known = state.history.find(chain)  # a request log re-sends the conversation so far
            if run is None:
                if len(state.open) >= MAX_OPEN:  # bounded memory: the least recently used one ends
                    yield from state.open.popitem(last=False)[1].end(state.carried)
                model = obj["model"] if isinstance(obj.get("model"), str) else None
                run = _Session(source, _name(stem, obj, len(state.names), state.names), model)
                run.first_tools, run.order = obj.get("tools"), len(state.names)
            else:
                run.request = run.lines  # a second line: each line is one request
                run.menus.add(obj.get("tools"))
            state.open[run.session] = run
            state.open.move_to_end(run.session)
            state.history.remember(chain, run)
            run.lines += 1
            state.requests += 1
            for position, msg in enumerate(messages):
                ident = _ident(msg)
                key = run.read.get(ident) if ident else state.results.get(chain[position])
                if key is not None or position < known:  # re-sent: read before, carried again
                    if key:
                        state.carried.add(key, state.requests)
                    continue
                for record in guarded(run.feed(msg, line), source, line):
                    if isinstance(record, ToolCall) and record.status != UNPAIRED:
                        key = state.results[chain[position]] = (run.session, record.call_id)
                        state.carried.add(key, state.requests)
                        run.results.append(record.call_id)
                    yield record
                if ident:
                    run.read[ident] = key or ()
        elif isinstance(obj, dict) and "role" in obj:
            state.loose = state.loose or _Session(source, stem, None)
            yield from state.loose.feed(obj, line)
        else:
            yield Skipped(source, line, "neither a chat message nor a run with messages")


class _Lines:
    """What reading a JSONL file keeps between lines."""

    def __init__(self) -> None:
        self.loose: _Session | None = None  # the file's session when it holds one message per line
        self.open: OrderedDict[str, _Session] = OrderedDict()  # runs a later line may extend, least recent first
        self.history = History()
        self.carried = Carried()
        self.results: dict[bytes, tuple[str, str]] = {}  # digest of the messages up to a result -> (session, call id)
        self.requests = 0  # lines with messages: a serial for Carried
        self.names: set[str] = set()


def _ident(msg: Any) -> bytes | None:
    """A digest naming a message by its call ids (a tool result, an assistant's calls), else None."""
    if not isinstance(msg, dict):
        return None
    if msg.get("role") == "tool" and isinstance(msg.get("tool_call_id"), str) and msg["tool_call_id"]:
        return digest(msg)
    calls = msg.get("tool_calls") if msg.get("role") == "assistant" else None
    if isinstance(calls, list) and calls and all(isinstance(c, dict) and isinstance(c.get("id"), str) for c in calls):
        return digest(msg)
    return None


def _one(state: _Session, messages: list) -> Iterator[Record]:
    """Feed a whole run of a document, each message numbered by its position (and guarded)."""
    for position, msg in enumerate(messages, 1):
        yield from guarded(state.feed(msg, position), state.source, position)
    yield from state.end()


def _name(stem: str, run: Any, index: int, used: set[str]) -> str:
    """`<stem>#<task_id|id|index>`, with the trial when tau-bench repeats a task."""
    run = run if isinstance(run, dict) else {}
    ident = next((run[k] for k in ("task_id", "id") if isinstance(run.get(k), (str, int))), index)
    name = f"{stem}#{ident}"
    if run.get("trial"):
        name += f"/{run['trial']}"
    if name in used:  # two runs must never merge into one session
        name += f"@{index}"
    used.add(name)
    return name
