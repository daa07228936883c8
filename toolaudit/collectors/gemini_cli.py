"""Gemini CLI sessions (~/.gemini/tmp/<project>/chats): the JSONL session (April 2026 on),
the legacy single-JSON session, and `/chat save` checkpoints (formats.md §3).

What the model saw is each `toolCalls[].result`: functionResponse parts, measured as the
response's `output` string, else the response as JSON, plus sibling text and images.
`resultDisplay` (the UI's rendering) and the user records newer builds write with the same
functionResponse parts are not read. A `gemini` record is one model request, unless it has
no model, tokens or calls (turns written into history by compression); its calls' outputs
are first carried by the next request; its `tokens` are a Usage.

In the JSONL file a message is re-appended in full whenever it changes (tokens arrived,
tool calls added) and the last record of an id wins, in first-seen order. So messages are
held, reduced to what is measured, until they leave the context:
- `{"$rewindTo": id}` drops that message and all after it. The model saw them until then,
  so they are measured and their segment ends there; earlier messages stay in context;
- `{"$set": {"messages": [...]}}` is a checkpoint that replaces the history (compression,
  output masking, rollback). Like a compaction, messages it drops, or re-lists with other
  outputs (masked), leave and their segment ends; messages it keeps stay as first
  recorded. A request, a call id or a usage is counted once per file.
Call ids (`<tool>-<epoch ms>-<hex>`) and message ids (uuids) are unique across files, so a
legacy `.json` converted to `.jsonl` on resume is counted once in a scan, its usage too.
A record (a line, a message) whose values are not of the expected types is one Skipped
record (`unexpected shape: ...`); the rest is read as usual.

What a Content or Part holds, and the `/chat save` reader, are in `_gemini_content`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator

from ..model import (MAIN_AGENT, PAIRED, SCAN_SCOPE, UNKNOWN_TOOL, UNPAIRED, ModelText, SessionEnd, SessionInfo, Skipped,
                     ToolCall, Usage)
from ._gemini_content import KEY, is_contents, read_checkpoint, result_parts, token_usage, words
from . import base
from .base import (Collector, Record, collectors, dump_args, flatten, each_line,
                   pretty_document, shape_problem, file_stem)

_MODEL_TYPES = ("gemini", "model")  # `model` with `parts`: a third-party fixture's spelling
_ANSWERED = ("success", "error", "cancelled")
_HASH = re.compile(r"^[0-9a-f]{64}$")  # ~/.gemini/tmp/<sha256 of the project root>: the folder names no project


def _outputs(msg: "_Message") -> list:
    return [(c.call_id, c.output, c.images) for c in msg.calls]


@dataclass
class _Message:
    """What one message record holds that gets measured; the rest is not kept."""

    order: int  # first seen: the message's place in the session
    line: int
    ts: str | None
    model: str | None
    said: str
    usage: tuple[int, int, int, int, int] | None
    calls: list[ToolCall]  # still without their place in the session (request, segment)


class _Session:
    """One session file: the messages held by id, the requests, the segments."""

    def __init__(self, source: str, session: str):
        self.source, self.session, self.agent = source, session, MAIN_AGENT
        self.named = False
        self.project: str | None = None  # where the session worked (SessionInfo), when the file or its folder says
        self.held: dict[str, _Message] = {}  # the live history: last record per id, first-seen order
        self.left: list[tuple[_Message, str, int]] = []  # out of context, waiting for older ones: (msg, id, segment)
        self.order: dict[str, int] = {}  # message id -> first seen
        self.requests: dict[str, int] = {}  # gemini message id -> its request index
        self.index: dict[str, int] = {}  # call id -> call_index, in first-seen order
        self.done: set[str] = set()  # message and call ids already reported
        self.ends: list[int] = []

    def meta(self, obj: dict, path: Path) -> None:
        """The metadata line (the first one wins); a subagent is named after its own session."""
        if self.named:
            return
        self.named = True
        self.project = _project(obj, path)
        if isinstance(obj.get("sessionId"), str) and obj["sessionId"]:
            self.session = obj["sessionId"]
            if obj.get("kind") == "subagent":
                self.agent = self.session
                if path.parent.name and path.parent.name != "chats":
                    self.session = path.parent.name  # chats/<parent session id>/<session id>.jsonl

    def parse(self, rec: dict, line: int, problems: list[Skipped]) -> _Message:
        """The measured parts of one message record; a model message is a request."""
        msg_id, kind = rec["id"], rec.get("type")
        model = rec["model"] if isinstance(rec.get("model"), str) else None
        ts = rec["timestamp"] if isinstance(rec.get("timestamp"), str) else None
        msg = _Message(self.order.setdefault(msg_id, len(self.order)), line, ts, model, "", None, [])
        calls = rec.get("toolCalls")
        if kind is not None and not isinstance(kind, str):
            problems.append(Skipped(self.source, line, f"message whose type is not a string: {type(kind).__name__}"))
        if kind not in _MODEL_TYPES:
            return msg
        # Turns written for history (compression summaries, acks) have no model, tokens or calls
        if model or isinstance(rec.get("tokens"), dict) or calls:
            self.requests.setdefault(msg_id, len(self.requests))
        thoughts = rec.get("thoughts") if isinstance(rec.get("thoughts"), list) else []
        said = [words(rec.get("content", rec.get("parts")))]
        said += [t["description"] for t in thoughts if isinstance(t, dict) and isinstance(t.get("description"), str)]
        msg.said, msg.usage = "\n".join(s for s in said if s), token_usage(rec.get("tokens"))
        if calls is not None and not isinstance(calls, list):
            problems.append(Skipped(self.source, line, "toolCalls is not a list"))
        for number, call in enumerate(calls if isinstance(calls, list) else []):
            if isinstance(call, dict):
                msg.calls.append(self._call(call, f"{msg_id}#{number}", line))
            else:
                problems.append(Skipped(self.source, line, "a tool call that is not an object"))
        return msg

    def _call(self, call: dict, fallback_id: str, line: int) -> ToolCall:
        call_id = call["id"] if isinstance(call.get("id"), str) and call["id"] else fallback_id
        self.index.setdefault(call_id, len(self.index))
        parts, error = result_parts(call.get("result"))
        seen, status = flatten(parts), call.get("status")
        answered = call.get("result") is not None or status in _ANSWERED
        return ToolCall(
            source=self.source, line=line, collector=KEY, session=self.session, output=seen.text, call_id=call_id,
            tool=call["name"] if isinstance(call.get("name"), str) else UNKNOWN_TOOL, args=dump_args(call.get("args")),
            images=seen.images, image_bytes=seen.image_bytes, is_error=error or status == "error",
            ts=call["timestamp"] if isinstance(call.get("timestamp"), str) else None,
            status=PAIRED if answered else UNPAIRED, call_index=self.index[call_id], id_scope=SCAN_SCOPE,
            call_line=line)

    def messages(self, recs: list, line: int | None = None) -> tuple[dict[str, _Message], list[Skipped]]:
        """Parse a list of messages (`line`: theirs, else each one's 1-based position)."""
        parsed: dict[str, _Message] = {}
        problems: list[Skipped] = []
        for position, rec in enumerate(recs, 1):
            if isinstance(rec, dict) and isinstance(rec.get("id"), str):
                try:
                    parsed[rec["id"]] = self.parse(rec, line or position, problems)
                except Exception as exc:  # noqa: BLE001 -- odd data in one message, as base.guarded does
                    if base.DEBUG:
                        raise
                    problems.append(shape_problem(self.source, line or position, exc))
            else:
                problems.append(Skipped(self.source, line or position, "a message without an id"))
        return parsed, problems

    def hold(self, recs: list, line: int | None = None) -> Iterator[Skipped]:
        """Hold messages, each replacing the earlier record of its id: the last one wins."""
        parsed, problems = self.messages(recs, line)
        self.held.update(parsed)
        yield from problems

    def leave(self, ids: list[str]) -> None:
        """Messages leave the context in the segment under way."""
        self.left.extend((self.held.pop(msg_id), msg_id, len(self.ends)) for msg_id in ids)

    def cut(self, ids: list[str]) -> Iterator[Record]:
        """Messages leave before the session ends: their segment ends, when one was a request."""
        self.leave(ids)
        if any(msg_id in self.requests for msg_id in ids):
            self.ends.append(len(self.requests))
        yield from self.flush()

    def flush(self) -> Iterator[Record]:
        """Report what left, in session order (the model's later words follow the outputs they
        used): a message waits while an older one is still held (rewound ones wait for survivors)."""
        oldest = min((msg.order for msg in self.held.values()), default=None)
        self.left.sort(key=lambda item: item[0].order)
        while self.left and (oldest is None or self.left[0][0].order < oldest):
            msg, msg_id, segment = self.left.pop(0)
            yield from self._report(msg_id, msg, segment)

    def rewind(self, target: str) -> Iterator[Record]:
        """`$rewindTo`: the message and all after it leave; an unknown id clears all (as the loader does)."""
        ids = list(self.held)
        yield from self.cut(ids[ids.index(target):] if target in self.held else ids)

    def checkpoint(self, recs: list, line: int) -> Iterator[Record]:
        """`$set.messages` replaces the history: what it drops, or re-lists with other outputs
        (masked), leaves; what it keeps stays as first recorded, the output the model got."""
        fresh, problems = self.messages(recs, line)
        yield from problems
        gone = [i for i, msg in self.held.items() if i not in fresh or _outputs(msg) != _outputs(fresh[i])]
        yield from self.cut(gone)
        self.held = {i: self.held.get(i, msg) for i, msg in fresh.items()}

    def _report(self, msg_id: str, msg: _Message, segment: int) -> Iterator[Record]:
        index = self.requests.get(msg_id)
        if index is None:
            return  # user, info, error, warning: no request, no call
        if msg_id not in self.done:
            self.done.add(msg_id)
            if msg.said:  # the model's own words and thoughts: evidence for simulate's later_used
                yield ModelText(self.source, msg.line, self.session, msg.said, self.agent)
            if msg.usage:
                yield Usage(self.source, msg.line, KEY, self.session, msg_id, msg.model, *msg.usage[:4],
                            agent=self.agent, ts=msg.ts, request_index=index, reasoning=msg.usage[4],
                            global_id=True)
        for call in msg.calls:
            if call.call_id not in self.done:
                self.done.add(call.call_id)
                yield replace(call, session=self.session, agent=self.agent, ts=call.ts or msg.ts, model=msg.model,
                              request_index=index + 1 if call.status == PAIRED else None, segment=segment)

    def end(self) -> Iterator[Record]:
        """Everything still held, then the requests made when each segment ended."""
        self.leave(list(self.held))
        yield from self.flush()
        yield SessionEnd(self.source, self.session, (*self.ends, len(self.requests)), agent=self.agent)
        if self.project:
            yield SessionInfo(self.source, self.session, agent=self.agent, project=self.project)


def _project(meta: dict, path: Path) -> str | None:
    """The session's project: the first of its `directories` (the workspace's folders), else the name of its
    folder under ~/.gemini/tmp (<project>/chats/…), unless that is the sha256 of the project's root (a hash
    names nothing a reader knows)."""
    folders = meta.get("directories")
    if isinstance(folders, list) and folders and isinstance(folders[0], str) and folders[0].strip():
        return folders[0]
    parent = path.parent  # walked one step at a time: an object-storage path's `parents` does not slice
    for _ in range(3):
        if parent.name == "chats":
            name = parent.parent.name
            return None if not name or _HASH.match(name) else name
        parent = parent.parent
    return None


@collectors.register
class GeminiCLICollector(Collector):
    """Gemini CLI chat sessions, JSONL and legacy JSON, and `/chat save` checkpoints."""

    key = KEY
    description = "Gemini CLI sessions (~/.gemini/tmp/*/chats): JSONL, legacy JSON, /chat save checkpoints"
    jsonl = True
    document = True

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """The metadata line: `sessionId` and `projectHash` strings, as Gemini CLI's loader tests; read
        past a moved or new first line, its other own lines also tell: a `$set` update, a rewind, a
        model message (`type: "gemini"` with an id)."""
        return cls._is_meta(first) or isinstance(first.get("$set"), dict) or isinstance(first.get("$rewindTo"), str) \
            or (first.get("type") == "gemini" and isinstance(first.get("id"), str) and "content" in first)

    @staticmethod
    def _is_meta(obj: dict) -> bool:
        """The session's metadata line (or a legacy session as one object)."""
        return isinstance(obj.get("sessionId"), str) and isinstance(obj.get("projectHash"), str)

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """A legacy session `{sessionId, projectHash, messages}` or a checkpoint's Content turns."""
        if isinstance(doc, dict):
            if cls._is_meta(doc) and isinstance(doc.get("messages"), list):
                return True
            doc = doc.get("history")  # checkpoints since mid-2025: {history, authType?}
        return is_contents(doc)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of a JSON document (`doc`) or, when `doc` is None, of a JSONL session."""
        source = str(path)
        doc = pretty_document(path, doc)
        if isinstance(doc, Skipped):
            yield doc
            return
        if doc is None:
            yield from self._lines(path)
            return
        turns = doc.get("history") if isinstance(doc, dict) and "history" in doc else doc
        if is_contents(turns):
            yield from read_checkpoint(source, file_stem(path), turns)
        elif isinstance(doc, dict) and isinstance(doc.get("messages"), list):
            state = _Session(source, file_stem(path))
            state.meta(doc, path)
            yield from state.hold(doc["messages"])
            yield from state.end()
        else:
            yield Skipped(source, 1, "neither a Gemini CLI session nor a checkpoint")

    def _lines(self, path: Path) -> Iterator[Record]:
        state = _Session(str(path), file_stem(path))
        empty = yield from each_line(path, lambda obj, number: self._line(obj, number, state, path))
        if not empty:  # a session just created has not ended
            yield from state.end()

    def _line(self, obj: Any, number: int, state: _Session, path: Path) -> Iterator[Record]:
        """One line: a rewind, a message record, a checkpoint ($set) or the metadata."""
        if not isinstance(obj, dict):
            yield Skipped(state.source, number, f"expected a JSON object, got {type(obj).__name__}")
        elif "$rewindTo" in obj:  # the loader's order: rewind, message, $set, metadata
            if isinstance(obj["$rewindTo"], str):
                yield from state.rewind(obj["$rewindTo"])
            else:
                yield Skipped(state.source, number, "$rewindTo without a message id")
        elif isinstance(obj.get("id"), str):
            yield from state.hold([obj], number)
        elif "$set" in obj:
            update = obj["$set"]
            if not isinstance(update, dict):
                yield Skipped(state.source, number, "$set without an object")
            elif isinstance(update.get("messages"), list):
                yield from state.checkpoint(update["messages"], number)
        elif self._is_meta(obj):
            state.meta(obj, path)
            if isinstance(obj.get("messages"), list):  # a whole legacy record on one line
                yield from state.hold(obj["messages"], number)
        else:
            yield Skipped(state.source, number, "not a Gemini CLI session record")
