"""OpenHands V1 events: the software-agent-sdk and the current OpenHands CLI (formats.md §6, V1).

Layouts read (one conversation = one session):
- a conversation folder, `~/.openhands/conversations/<id>/events/event-<index>-<event id>.json`,
  one event per file: discovery hands over the folder's first event file, which stands for the
  folder; the events are read one file at a time in index order, the session is named after
  the conversation folder, and every record but the problems names that folder as its source
  (`line` = the event's 1-based position; a problem names its own event file);
- the same events aggregated: a JSON list, an agent-server page `{"items": [...]}` or
  `{"events": [...]}`, or JSON lines; the session is named after the file.

Events are tagged by `kind` [src openhands-sdk/openhands/sdk/event/]. Calls are `ActionEvent`s
(`tool_name`, `tool_call_id`, `tool_call.arguments` as the model wrote them, else `action`);
results are the events that answer a `tool_call_id`: `ObservationEvent`, `AgentErrorEvent`,
`UserRejectObservation`. Measured is what each result's `to_llm_message` sends (openhands_v1_seen says
how, errors included).

Requests: one per distinct `llm_response_id` of the agent's ActionEvents and MessageEvents
(parallel calls share one). A `Condensation` forgets the events it names: an output forgotten
by the k-th condensation is carried until it (its `segment` is k), the others to the end.
Usage is not in the events: a conversation folder's `base_state.json` holds it per request
(`stats.usage_to_metrics.<llm>.token_usages[]`: `response_id`, `prompt_tokens` including cache
reads and writes, `cache_read_tokens`, `cache_write_tokens`, `completion_tokens`,
`reasoning_tokens`), read once per response id, condenser requests included.
Menus: each `SystemPromptEvent.tools` is one ToolMenu per distinct menu, counting the requests
made under it. The SDK stores a tool's name (`title`) and description but not its parameter
schema (since Dec 2025; earlier events held the OpenAI `{"type": "function", "function": …}`
definition, MCP tools keep `mcp_tool.inputSchema`): the menu holds what is stored.
Not read: the event tree's abandoned branches (`parent_id`): every event counts.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from ..model import ModelText, SessionEnd, Skipped, ToolMenu, Usage
from .base import (Collector, Pairing, Record, collectors, count, dict_or_empty, dump_args, each_line, guarded,
                   list_or_empty, loads, openai_parts, plain_name, pretty_document, raw_lines, read_bytes,
                   read_document, file_stem, str_or_none, COMPRESSED)
from .openhands_v1_seen import kind_of, result_seen

KEY = "openhands-v1"
EVENTS_DIR = "events"
BASE_STATE = "base_state.json"
# a conversation folder's own state (read for usage, or the task tracker's): no transcripts
STATE_FILES = (BASE_STATE, "TASKS.json")
# the SDK writes event-{index:05d}-{event id}.json (persistence_const.EVENT_NAME_RE)
EVENT_NAME = re.compile(r"^event-(\d{5,})-([0-9A-Za-z\-]{8,})\.json$")
# every event class the SDK persists or streams: enough to know the format by one event
KINDS = frozenset({
    "SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent", "AgentErrorEvent",
    "UserRejectObservation", "Condensation", "CondensationRequest", "CondensationSummaryEvent",
    "ConversationStateUpdateEvent", "ConversationErrorEvent", "PauseEvent", "InterruptEvent",
    "HookExecutionEvent", "LLMCompletionLogEvent", "TokenEvent", "StreamingDeltaEvent", "ACPToolCallEvent",
})
RESULTS = frozenset({"ObservationEvent", "AgentErrorEvent", "UserRejectObservation"})

def is_event(obj: Any) -> bool:
    """A V1 event: a dict whose `kind` names an SDK event class, with an id or a source."""
    return isinstance(obj, dict) and kind_of(obj) in KINDS and ("id" in obj or "source" in obj)


def event_file(path: Path) -> bool:
    """One file of a conversation's per-event layout: `events/event-<index>-<id>.json` (or .json.gz, .json.zst:
    an archived conversation is still one conversation)."""
    return path.parent.name == EVENTS_DIR and EVENT_NAME.match(plain_name(path)) is not None


def conversation_digest(path: Path) -> bytes | None:
    """For an event file that stands for its conversation folder (Collector.walked): a digest of the name,
    size and mtime of every file of the folder and of its events/, so that an event added, removed or
    rewritten changes the scan cache's stamp of the file standing for them; None for any other file."""
    if path.parent.name != EVENTS_DIR or not event_file(path):  # the cheap test first: it is asked of every file
        return None
    digest = hashlib.sha256()
    for folder in (path.parent.parent, path.parent):
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat()
            except OSError:
                continue
            digest.update(f"{entry.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
    return digest.digest()[:16]


def event_order(path: Path) -> tuple[int, str]:
    """Where an event file stands in its conversation: its index, then its name."""
    match = EVENT_NAME.match(plain_name(path))
    return (int(match.group(1)) if match else -1, plain_name(path))


def event_files(folder: Path) -> list[Path]:
    """The event files of an `events/` folder, in index order (names only: nothing is read)."""
    return sorted((child for child in folder.iterdir() if EVENT_NAME.match(plain_name(child))), key=event_order)


def _state_path(conversation: Path) -> Path:
    """The folder's base_state.json, or its compressed copy (an archived conversation)."""
    for suffix in ("",) + COMPRESSED:
        if (conversation / (BASE_STATE + suffix)).is_file():
            return conversation / (BASE_STATE + suffix)
    return conversation / BASE_STATE


def _listed(doc: Any) -> list | None:
    """The event list of an aggregated document, or None when it is not one."""
    if isinstance(doc, dict) and not is_event(doc):
        doc = next((doc[k] for k in ("items", "events") if isinstance(doc.get(k), list)), None)
    if isinstance(doc, list) and doc and is_event(doc[0]):
        return doc
    return None


# ------------------------------------------------------------------ the tool menu

def tool_entry(tool: Any) -> tuple[str, str] | None:
    """(name, compact JSON definition) of one stored tool: the current ToolDefinition dump
    (`title`, `description`, MCP `mcp_tool.inputSchema`) or the older OpenAI function shape."""
    tool = dict_or_empty(tool)
    function = dict_or_empty(tool.get("function"))
    if str_or_none(function.get("name")):
        name, description, schema = function["name"], function.get("description"), function.get("parameters")
    else:
        mcp = dict_or_empty(tool.get("mcp_tool"))
        name = str_or_none(tool.get("title")) or str_or_none(tool.get("name")) or str_or_none(mcp.get("name"))
        if name is None:
            return None
        description = tool.get("description", mcp.get("description"))
        schema = tool.get("parameters", mcp.get("inputSchema"))
    definition = {"name": name, "description": description}
    if schema is not None:
        definition["parameters"] = schema
    return name, dump_args({k: v for k, v in definition.items() if v is not None})


# ------------------------------------------------------------------ one conversation

class Condensations:
    """What the conversation's `Condensation` events forget, known before its calls are read:
    event id -> the 0-based number of the condensation that forgets it, and how many there are."""

    def __init__(self) -> None:
        self.forgets: dict[str, int] = {}
        self.count = 0

    def add(self, event: Any) -> None:
        """Note one event (only a Condensation matters)."""
        if isinstance(event, dict) and event.get("kind") == "Condensation":
            for ident in list_or_empty(event.get("forgotten_event_ids")):
                if isinstance(ident, str):
                    self.forgets.setdefault(ident, self.count)
            self.count += 1


class _Session:
    """One conversation's pairing, requests, segments and menus, fed event by event."""

    def __init__(self, source: str, session: str, condensations: Condensations, model: str | None = None,
                 global_id: bool = False):
        self.source, self.session, self.model = source, session, model
        self.global_id = global_id  # a conversation folder's id is unique: a copy elsewhere is the same session
        self.pairing = Pairing(source, KEY, session)
        self.condensations = condensations
        self.responses: dict[str, int] = {}  # llm_response_id -> request index
        self.requests = 0
        self.condensed: list[int] = []  # requests made when each condensation happened
        self.menu: tuple[tuple[str, str], ...] | None = None
        self.menus: dict[tuple[tuple[str, str], ...], int] = {}

    def feed(self, event: Any, line: int) -> Iterator[Record]:
        """The records one event completes."""
        if not isinstance(event, dict):
            yield Skipped(self.source, line, "not an event object")
            return
        kind = kind_of(event)
        if kind not in KINDS:
            yield Skipped(self.source, line, "not an OpenHands V1 event (no known `kind`)")
        elif kind == "SystemPromptEvent":
            entries = [tool_entry(t) for t in list_or_empty(event.get("tools"))]
            self.menu = tuple(e for e in entries if e is not None)
            self.menus.setdefault(self.menu, 0)
        elif kind == "Condensation":
            self.condensed.append(self.requests)
        elif kind == "ActionEvent":
            self._request(event)
            yield from self._said(event.get("thought"), event.get("reasoning_content"), line)
            self._call(event, line)
        elif kind == "MessageEvent" and event.get("source") == "agent":
            self._request(event)
            yield from self._said(dict_or_empty(event.get("llm_message")).get("content"), None, line)
        elif kind in RESULTS:
            yield self._result(event, line)

    def _request(self, event: dict) -> None:
        """Count the model request that wrote `event`, once per response id."""
        rid = str_or_none(event.get("llm_response_id"))
        if rid is not None:
            if rid in self.responses:
                return
            self.responses[rid] = self.requests
        if self.menu is not None:
            self.menus[self.menu] += 1
        self.requests += 1

    def _said(self, content: Any, reasoning: Any, line: int) -> Iterator[Record]:
        texts = _texts(content) + ([reasoning] if isinstance(reasoning, str) else [])
        said = "\n".join(t for t in texts if t.strip())
        if said:
            yield ModelText(self.source, line, self.session, said)

    def _call(self, event: dict, line: int) -> None:
        call = dict_or_empty(event.get("tool_call"))
        call_id = str_or_none(event.get("tool_call_id")) or str_or_none(call.get("id"))
        tool = str_or_none(event.get("tool_name")) or str_or_none(call.get("name")) or "unknown"
        written = call.get("arguments")
        if not isinstance(written, str):  # no tool_call kept: the parsed action, less its class tag
            written = {k: v for k, v in dict_or_empty(event.get("action")).items() if k != "kind"}
        self.pairing.call(call_id or f"#{self.pairing.calls + 1}", tool, written, line,
                          ts=str_or_none(event.get("timestamp")), model=self.model)

    def _result(self, event: dict, line: int) -> Record:
        seen, is_error = result_seen(event)
        ident = event.get("id")
        segment = self.condensations.forgets.get(ident, self.condensations.count) if isinstance(ident, str) \
            else self.condensations.count
        return self.pairing.result(
            str_or_none(event.get("tool_call_id")) or "", seen, line, is_error=is_error, request_index=self.requests,
            segment=segment, ts=str_or_none(event.get("timestamp")), model=self.model)

    def end(self) -> Iterator[Record]:
        """Calls never answered, the request count at each condensation and at the end, the menus."""
        yield from self.pairing.unpaired()
        cuts = self.condensations.count
        ends = (self.condensed + [self.requests] * cuts)[:cuts] + [self.requests]
        yield SessionEnd(self.source, self.session, tuple(ends))
        for menu, requests in self.menus.items():
            yield ToolMenu(self.source, self.session, menu, requests, global_id=self.global_id)


def _texts(content: Any) -> list[str]:
    """The text parts of a message content (a string, or TextContent parts)."""
    if isinstance(content, str):
        return [content]
    return [p["text"] for p in list_or_empty(content) if isinstance(p, dict) and isinstance(p.get("text"), str)]


def _maybe_condensation(raw: bytes) -> Any:
    """The parsed event when its bytes may hold a Condensation, else None (most are not parsed)."""
    if b"Condensation" not in raw:
        return None
    try:
        return loads(raw)
    except ValueError:
        return None


def _usage(state: Any, source: str, session: str, responses: dict[str, int]) -> Iterator[Usage]:
    """Usage per request from base_state.json's stats, once per response id."""
    seen: set[str] = set()
    for metrics in dict_or_empty(dict_or_empty(dict_or_empty(state).get("stats")).get("usage_to_metrics")).values():
        for usage in list_or_empty(dict_or_empty(metrics).get("token_usages")):
            usage = dict_or_empty(usage)
            rid = str_or_none(usage.get("response_id"))
            if rid is None or rid in seen:
                continue
            seen.add(rid)
            parts = openai_parts({"prompt_tokens": usage.get("prompt_tokens"),
                                  "cached_input_tokens": usage.get("cache_read_tokens"),
                                  "cache_creation_input_tokens": usage.get("cache_write_tokens"),
                                  "completion_tokens": usage.get("completion_tokens")})
            yield Usage(source, 0, KEY, session, rid, str_or_none(usage.get("model")), *parts,
                        request_index=responses.get(rid), global_id=True,
                        reasoning=count(usage.get("reasoning_tokens")))


@collectors.register
class OpenHandsV1Collector(Collector):
    """OpenHands V1 (software-agent-sdk) events: a conversation folder, or an aggregated event list."""

    key = KEY
    description = "OpenHands V1 / software-agent-sdk events (conversation folder, JSON list, JSONL)"
    jsonl = True
    document = True

    @classmethod
    def owns_path(cls, path: Path) -> bool:
        """An event file of a conversation folder: it stands for the folder."""
        return event_file(path)

    @classmethod
    def walked(cls, files: list[Path]) -> list[Path]:
        """A conversation's first event file stands for its folder (`collect` reads the others);
        the folder's state files are no transcripts."""
        firsts: dict[Path, Path] = {}
        rest = []
        for file in files:
            if file.parent.name == EVENTS_DIR and event_file(file):  # the cheap test first: most files are not
                known = firsts.get(file.parent)
                firsts[file.parent] = file if known is None else min(known, file, key=event_order)
            else:
                rest.append(file)
        if not firsts:  # no conversation folder: every file stands for itself (and 10k Paths are not rebuilt)
            return rest
        state = {events.parent / name for events in firsts for name in STATE_FILES}
        return [file for file in rest if file.parent / plain_name(file) not in state] + list(firsts.values())

    @classmethod
    def stands_for(cls, path: Path) -> bytes | None:
        """An event file standing for its conversation: the digest of the folder's files."""
        return conversation_digest(path)

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """One event per line (or a per-event file's one event)."""
        return is_event(first)

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """A list of events, an `{"items": [...]}` page, or one (pretty-printed) event."""
        return is_event(doc) or _listed(doc) is not None

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of the conversation folder `path` stands for, else of the file's events."""
        if event_file(path):
            yield from self._folder(path.parent)
            return
        source = str(path)
        doc = pretty_document(path, doc)
        if isinstance(doc, Skipped):
            yield doc
            return
        if doc is not None:
            events = _listed(doc) or (doc if isinstance(doc, list) else [doc])
            condensations = Condensations()
            for event in events:
                condensations.add(event)
            state = _Session(source, file_stem(path), condensations)
            for position, event in enumerate(events, 1):
                yield from guarded(state.feed(event, position), source, position)
            yield from state.end()
            return
        condensations = Condensations()
        for raw in raw_lines(path):
            condensations.add(_maybe_condensation(raw))
        state = _Session(source, file_stem(path), condensations)
        if not (yield from each_line(path, state.feed)):
            yield from state.end()

    def _folder(self, events: Path) -> Iterator[Record]:
        """A conversation folder: its event files one at a time, its base_state.json for usage and model."""
        conversation = events.parent
        source = str(conversation)
        files = event_files(events)
        condensations = Condensations()
        for file in files:
            try:
                condensations.add(_maybe_condensation(read_bytes(file)))
            except (OSError, ValueError):
                pass  # reported when the event is read
        state_doc = self._state(_state_path(conversation))
        if isinstance(state_doc, Skipped):
            yield state_doc
            state_doc = None
        model = str_or_none(dict_or_empty(dict_or_empty(dict_or_empty(state_doc).get("agent")).get("llm")).get("model"))
        state = _Session(source, conversation.name, condensations, model, global_id=True)
        for position, file in enumerate(files, 1):
            try:
                event = read_document(file, None)
            except OSError as exc:
                event = Skipped(str(file), 0, f"cannot read: {exc.strerror or exc}")
            if isinstance(event, Skipped):
                yield event
                continue
            for record in guarded(state.feed(event, position), str(file), 1):
                # a problem names the event's own file; the calls name the conversation
                yield replace(record, source=str(file), line=1) if isinstance(record, Skipped) else record
        yield from state.end()
        yield from _usage(state_doc, source, conversation.name, state.responses)

    @staticmethod
    def _state(path: Path) -> Any:
        """base_state.json parsed; None when there is none (a copied events folder); a Skipped when
        it cannot be read (the calls are still read, their usage is unknown)."""
        try:
            return read_document(path, None) if path.is_file() else None
        except OSError as exc:
            return Skipped(str(path), 0, f"cannot read: {exc.strerror or exc}")
