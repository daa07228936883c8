"""OpenHands trajectories, eval `output.jsonl` and the older resolver output (formats.md §6).

Shapes read:
- a trajectory file: a JSON list of events `{id, timestamp, source, action|observation, cause,
  tool_call_metadata, args | content + extras}`: one session named after the file;
- eval `output.jsonl`: one `{instance_id, history: [events], metrics, ...}` per line, a session
  per line named by its instance_id (a single one may also be a JSON document);
- the older resolver output: `history` holds action/observation dicts with no id, source or
  cause (`{"action": "run", "command": ..., "thought": ...}`), a session per line named
  `<owner>/<repo>#<issue number>`; pairs `[action, observation]` are read the same way.

Calls are the actions a tool answers. The conversational ones (`message`, `finish`, `reject`,
`system`, `recall`, `change_agent_state`, condensation...) never get an observation, so they
are not reported at all: an unpaired `finish` per session would be a false alarm. The tool is
tool_call_metadata.function_name (`execute_bash`, `str_replace_editor`), else the action type
(`run`, `read`, `edit`, `browse`); the arguments are the model's own, found in the response
by tool_call_id, else the action's args. An observation answers the action its `cause` names,
else its tool_call_id, else (no ids at all) the oldest open action.
Measured is the observation `content`: what the LLM got, already cut by OpenHands at 30,000
chars with `[... Observation truncated due to length ...]`; the short suffixes the prompt
builder adds (the exit-code line) are not stored and so not counted. Not tool output, passed
over: `agent_state_changed`, `null`, `recall` (microagent knowledge answering a user message:
context, not a call) and `condense`. `error` observations and `success: false` are errors.

Requests: one per distinct tool_call_metadata.model_response.id (the whole response is repeated
on every action it produced and on their observations), plus one per agent action without
one (a plain message; agents without function calling). Usage is read once per response id
from model_response.usage (litellm's prompt_tokens include Anthropic cache reads and writes).
`llm_metrics` is not read: it accumulates, and would count the same tokens again. Response
ids are the provider's (`chatcmpl-...`), unique across files: a scan counts a request once
(`Usage.global_id`), though an eval output and its trajectory both hold it.
An event whose values are not of the expected types is one Skipped record (`unexpected
shape: ...`); the events after it are read as usual.
In a trajectory document `line` is the event's 1-based position; in JSONL, the file line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ..model import ModelText, SessionEnd, Skipped, Usage
from .base import (Collector, Pairing, Record, collectors, dict_or_empty, guarded, list_or_empty, openai_parts,
                   each_line, file_stem, str_or_none)

KEY = "openhands"
# actions no tool answers; the first group are not model requests either
_NOT_REQUESTS = frozenset({"system", "start", "null", "pause", "resume", "stop", "change_agent_state",
                           "recall", "condensation", "condensation_request", "loop_recovery"})
_NOT_CALLS = _NOT_REQUESTS | {"message", "finish", "reject"}
_NOT_OUTPUTS = frozenset({"agent_state_changed", "null", "recall", "condense", "condensation"})
# keys of an old inline action that are bookkeeping, not arguments
_ENVELOPE = frozenset({"action", "thought", "keep_prompt", "is_confirmed", "action_risk", "security_risk",
                       "kernel_init_code", "blocking", "hidden", "confirmation_state"})


def _ident(value: Any) -> str | int | None:
    """An event id (or the cause naming one): a number or a string, else none."""
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _is_event(obj: Any) -> bool:
    return isinstance(obj, dict) and ("action" in obj or "observation" in obj)


def _is_output(obj: Any) -> bool:
    """An eval or resolver output: a history of events with the run's own keys."""
    if not isinstance(obj, dict) or not isinstance(obj.get("history"), list):
        return False
    if not ("instance_id" in obj or {"issue", "git_patch"} <= obj.keys()):
        return False
    first = obj["history"][0] if obj["history"] else None
    first = first[0] if isinstance(first, list) and first else first  # [action, observation] pairs
    return first is None or _is_event(first)


def _model_args(response: dict, call_id: str | None) -> str | None:
    """The arguments string the model wrote for `call_id`, from the litellm response."""
    for choice in list_or_empty(response.get("choices")):
        for call in list_or_empty(dict_or_empty(dict_or_empty(choice).get("message")).get("tool_calls")):
            call = dict_or_empty(call)
            if call_id and call.get("id") == call_id:
                return str_or_none(dict_or_empty(call.get("function")).get("arguments"))
    return None


class _Session:
    """One history's pairing and request count, fed event by event."""

    def __init__(self, source: str, session: str, model: str | None):
        self.source, self.session, self.model = source, session, model
        self.pairing = Pairing(source, KEY, session)
        self.by_action: dict[str, str] = {}  # event id -> the pending key of its call
        self.responses: set[str] = set()
        self.requests = 0

    def feed(self, event: Any, line: int) -> Iterator[Record]:
        """The records one event completes."""
        if isinstance(event, list):  # an old [action, observation] pair
            for part in event:
                yield from self.feed(part, line)
        elif not _is_event(event):
            yield Skipped(self.source, line, "neither an action nor an observation")
        elif "action" in event:
            yield from self._action(event, line)
        else:
            yield from self._observation(event, line)

    def _action(self, event: dict, line: int) -> Iterator[Record]:
        kind = event["action"]
        if not isinstance(kind, str):
            yield Skipped(self.source, line, "action type is not a string")
            return
        args = event["args"] if isinstance(event.get("args"), dict) else event  # old: inline
        meta = dict_or_empty(event.get("tool_call_metadata"))
        response = dict_or_empty(meta.get("model_response"))
        ts, model = str_or_none(event.get("timestamp")), str_or_none(response.get("model")) or self.model
        source = event.get("source")
        # old dicts have no source: only the agent's messages wait for an answer
        from_agent = source == "agent" if source is not None else (kind != "message" or args.get("wait_for_response"))
        if from_agent and kind not in _NOT_REQUESTS:
            yield from self._request(response, line, ts, model)
            said = [args.get("thought"), args.get("final_thought")]
            said += [args.get("content")] if kind == "message" else []
            text = "\n".join(s for s in said if isinstance(s, str) and s.strip())
            if text:
                yield ModelText(self.source, line, self.session, text)
        if kind in _NOT_CALLS:
            return
        call_id = str_or_none(meta.get("tool_call_id"))
        ident = _ident(event.get("id"))
        key = call_id or (str(ident) if ident is not None else f"#{self.pairing.calls + 1}")
        written = _model_args(response, call_id)
        if written is None:  # no response kept: the action's args, less OpenHands' own keys
            written = {k: v for k, v in args.items() if k not in _ENVELOPE}
        tool = str_or_none(meta.get("function_name")) or kind
        self.pairing.call(key, tool, written, line, ts=ts, model=model)
        if ident is not None:
            self.by_action[str(ident)] = key

    def _request(self, response: dict, line: int, ts: str | None, model: str | None) -> Iterator[Record]:
        """Count a model request once per response id, and read its usage then."""
        rid = str_or_none(response.get("id"))
        if rid is None:
            self.requests += 1
            return
        if rid in self.responses:
            return
        self.responses.add(rid)
        usage = response.get("usage")
        if isinstance(usage, dict):
            reasoning = dict_or_empty(usage.get("completion_tokens_details")).get("reasoning_tokens")
            reasoning = reasoning if isinstance(reasoning, int) and not isinstance(reasoning, bool) else 0
            yield Usage(self.source, line, KEY, self.session, rid, model, *openai_parts(usage), ts=ts,
                        request_index=self.requests, reasoning=reasoning, global_id=True)
        self.requests += 1

    def _observation(self, event: dict, line: int) -> Iterator[Record]:
        kind = event["observation"]
        if not isinstance(kind, str):
            yield Skipped(self.source, line, "observation type is not a string")
            return
        if kind in _NOT_OUTPUTS:
            return
        meta = dict_or_empty(event.get("tool_call_metadata"))
        call_id, cause = str_or_none(meta.get("tool_call_id")), _ident(event.get("cause"))
        pending = self.pairing.pending
        key = self.by_action.get(str(cause)) if cause is not None else None
        if key is None and call_id in pending:
            key = call_id
        if key is None and cause is None and call_id is None and "id" not in event and pending:
            key = next(iter(pending))  # old dicts carry no ids: the oldest open action
        if key is None:
            key = call_id or (str(cause) if cause is not None else "")  # an orphan
        is_error = kind == "error" or event.get("success") is False
        yield self.pairing.result(key, event.get("content"), line, is_error=is_error,
                                  request_index=self.requests, ts=str_or_none(event.get("timestamp")))

    def end(self) -> Iterator[Record]:
        """Actions never answered, then the session's request count."""
        yield from self.pairing.unpaired()
        yield SessionEnd(self.source, self.session, (self.requests,))


def _name(obj: dict, stem: str, line: int, used: set[str]) -> str:
    """instance_id, `<owner>/<repo>#<number>` for a resolver issue, else `<stem>#<line>`."""
    issue = dict_or_empty(obj.get("issue"))
    if str_or_none(obj.get("instance_id")):
        name = obj["instance_id"]
    elif isinstance(issue.get("number"), int) and str_or_none(issue.get("owner")) and str_or_none(issue.get("repo")):
        name = f"{issue['owner']}/{issue['repo']}#{issue['number']}"
    else:
        name = f"{stem}#{line}"
    if name in used:  # two runs must never merge into one session
        name = f"{name}@{line}"
    used.add(name)
    return name


@collectors.register
class OpenHandsCollector(Collector):
    """OpenHands trajectory JSON, eval output.jsonl and resolver output.jsonl."""

    key = KEY
    description = "OpenHands trajectories (JSON event list), eval and resolver output.jsonl"
    jsonl = True
    document = True

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """An eval or resolver output line."""
        return _is_output(first)

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """A list of events with ids and sources, or one output as a document."""
        if isinstance(doc, list):
            return bool(doc) and _is_event(doc[0]) and {"id", "source"} <= doc[0].keys()
        return _is_output(doc)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of a trajectory document or, when `doc` is None, of an output.jsonl."""
        source, stem = str(path), file_stem(path)
        if isinstance(doc, list):
            state = _Session(source, stem, None)
            for position, event in enumerate(doc, 1):
                yield from guarded(state.feed(event, position), source, position)
            yield from state.end()
            return
        if doc is not None:
            yield from self._run(doc, source, stem, 1, set())
            return
        used: set[str] = set()
        yield from each_line(path, lambda obj, line: self._run(obj, source, stem, line, used))

    def _run(self, obj: Any, source: str, stem: str, line: int, used: set[str]) -> Iterator[Record]:
        """One eval or resolver output: a session of its own."""
        if not isinstance(obj, dict) or not isinstance(obj.get("history"), list):
            yield Skipped(source, line, "not an OpenHands output with a history list")
            return
        model = str_or_none(dict_or_empty(dict_or_empty(obj.get("metadata")).get("llm_config")).get("model"))
        state = _Session(source, _name(obj, stem, line, used), model)
        for event in obj["history"]:
            yield from guarded(state.feed(event, line), source, line)
        yield from state.end()
