"""OpenAI Chat Completions message lists: tau-bench runs, `{"messages": [...]}` logs, JSONL.

Shapes read (formats.md §4):
- a JSON list of messages, `{"messages": [...]}`, or one message per JSONL line: one session;
- a list of runs `{task_id, traj|messages, ...}` (tau-bench), or one run per JSONL line:
  a session per run, named `<file stem>#<task_id or id or index>`. A line whose messages
  begin with all of the previous line's is a request log re-sending the conversation:
  only its new messages are read, into the same session.
Calls are assistant `tool_calls` (paired by `tool_call_id`) and legacy `function_call`
(answered by the next `role:"function"` message, matched by name, else by position).
Calls without an id get `#1`, `#2`...; an id reused within a run becomes `<id>#2`.
In a JSON document `line` is the message's 1-based position in its run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ..model import ModelText, SessionEnd, Skipped
from .anthropic_messages import is_anthropic_body
from .base import Collector, Pairing, Record, collectors, flatten, guarded, each_line

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
            yield self.pairing.result(self._match(msg), msg.get("content"), line,
                                      request_index=self.assistants, ts=ts, model=self.model)

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

    def end(self) -> Iterator[Record]:
        """Calls never answered, then the session's request count."""
        yield from self.pairing.unpaired()
        yield SessionEnd(self.source, self.session, (self.assistants,))


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
        source, stem = str(path), path.stem
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
        yield from _one(state, messages)

    def _lines(self, path: Path, source: str, stem: str) -> Iterator[Record]:
        state = _Lines()
        yield from each_line(path, lambda obj, line: self._line(obj, line, source, stem, state))
        for session in (state.run, state.loose):
            if session:
                yield from session.end()

    def _line(self, obj: Any, line: int, source: str, stem: str, state: "_Lines") -> Iterator[Record]:
        """One line: a run (new, or a request log extending the last one) or a bare message."""
        if isinstance(obj, dict) and ("messages" in obj or "traj" in obj):
            messages = _messages_of(obj)
            if not isinstance(messages, list):
                yield Skipped(source, line, "run has no messages list")
                return
            run, seen = state.run, state.seen
            if run and seen and len(messages) > len(seen) and messages[:len(seen)] == seen:
                # a request log re-sends the conversation so far: only the rest is new
                new = messages[len(seen):]
            else:
                if run:
                    yield from run.end()
                model = obj["model"] if isinstance(obj.get("model"), str) else None
                run = state.run = _Session(source, _name(stem, obj, len(state.names), state.names), model)
                new = messages
            state.seen = messages
            for msg in new:
                yield from guarded(run.feed(msg, line), source, line)
        elif isinstance(obj, dict) and "role" in obj:
            state.loose = state.loose or _Session(source, stem, None)
            yield from state.loose.feed(obj, line)
        else:
            yield Skipped(source, line, "neither a chat message nor a run with messages")


class _Lines:
    """What reading a JSONL file keeps between lines."""

    def __init__(self) -> None:
        self.loose: _Session | None = None  # the file's session when it holds one message per line
        self.run: _Session | None = None  # the last run: the next line may extend it
        self.seen: list = []  # its messages so far
        self.names: set[str] = set()


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
