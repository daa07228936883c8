"""Codex CLI rollout JSONL (~/.codex/sessions): the `{timestamp, type, payload}` envelope
and the mid-2025 legacy lines (a bare header, `record_type` markers, bare ResponseItems).

What the model saw is the `output` of `function_call_output` / `custom_tool_call_output`
items, measured as stored: a JSON-encoded string inside the string (0.4x-0.5x `shell`)
is what the model got, and Codex stores it after its own truncation. `event_msg` lines
(exec_command_end, mcp_tool_call_end, ...) mirror those items and are never counted;
`compacted.replacement_history` re-sends old items and holds no new output.

Model requests are counted two ways and the larger count wins:
- each change of `total_token_usage` in `event_msg` token_count (Codex writes every
  event twice with the same figures; `info: null` and all-zero totals are no request);
- each run of model-produced items (reasoning, assistant message, tool calls), a run
  ending at a model input (tool output, user/developer message) or a `turn_context`.
In the real rollouts of the corpus (0.58, 0.104) both give the same index at every
output, because a request's token_count is written before the outputs of its calls.
Token counts also see a request whose items were cut off; item runs see requests in
files without usage (legacy, other providers). A `compacted` line ends a segment.

Codex stores no error flag (`success` is never serialised), so a call is an error when the
exit code its output reports is not zero: `metadata.exit_code` of the 0.4x-0.5x JSON
wrapper, the `Exit code: N` header of freeform shell output, or unified exec's
`Process exited with code N` section (exec_command_end mirrors are never read).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..model import (MAIN_AGENT, SCAN_SCOPE, UNKNOWN_TOOL, ModelText, OutputCap, SessionEnd, SessionInfo, Skipped,
                     Usage)
from .base import (Collector, Pairing, Record, collectors, count, dump_args, flatten, guarded, openai_parts, read_lines,
                   file_stem)

# RolloutItem types; newer builds add the last two, which hold no tool data
ROLLOUT_TYPES = frozenset({
    "session_meta", "response_item", "compacted", "turn_context", "event_msg",
    "world_state", "inter_agent_communication_metadata",
})
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
# web_search_call and image_generation_call are hosted tools: the results never reach
# the rollout, so there is nothing to measure. They are not reported as calls at all
# (an empty output would be a false figure, an unpaired call a false alarm), but they
# are model output and so still mark a model request.
_MODEL_ITEMS = _CALLS | {"reasoning", "web_search_call", "image_generation_call"}

# Where each Codex output shape states its exit code (codex-rs: the 0.5x ExecToolCallOutput
# JSON, format_exec_output_for_model_freeform, unified exec's format_response). All are
# anchored at the start or end of the output, so text that merely quotes one never counts.
_WRAPPED_EXIT = re.compile(r'"metadata":\{"exit_code":(-?\d{1,12}),"duration_seconds":[-+.\deE]+\}\}\s*$')
# unified exec output may begin with the `Command: …` line of the command it ran (later versions)
_HEADER_EXIT = re.compile(r"(?:Command: [^\n]*\n)?(?:Exit code: (-?\d{1,12})\nWall time: |(?:Chunk ID: [^\n]*\n)?"
                          r"Wall time: [^\n]*\nProcess exited with code (-?\d{1,12})\n)")


def _failed(output: Any) -> bool:
    """True when a stored output reports a non-zero exit code (module docstring)."""
    if not isinstance(output, str):
        return False
    if output.startswith('{"output":'):
        found = _WRAPPED_EXIT.search(output[-120:])
    else:
        found = _HEADER_EXIT.match(output)
    return found is not None and int(found.group(found.lastindex)) != 0


@dataclass
class _Requests:
    """The model requests of the session so far, counted two ways (module docstring)."""

    by_usage: int = 0
    by_items: int = 0
    last_usage: Any = None
    in_response: bool = False
    segments: list[int] = field(default_factory=list)

    @property
    def count(self) -> int:
        """Requests made so far: the index of the next one."""
        return max(self.by_usage, self.by_items)

    def usage(self, info: Any) -> bool:
        """A token_count event: True (a new request) when the cumulative total changed."""
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if isinstance(total, dict) and any(total.values()) and total != self.last_usage:
            self.by_usage += 1
            self.last_usage = total
            return True
        return False

    def item(self, from_model: bool) -> None:
        """A response item: model output starts a request unless one is under way."""
        if from_model and not self.in_response:
            self.by_items += 1
        self.in_response = from_model

    def boundary(self) -> None:
        """A turn_context line: Codex writes it before a request, never inside one."""
        self.in_response = False

    def compact(self) -> None:
        """A compaction: the segment ends with the requests made so far."""
        self.in_response = False
        self.segments.append(self.count)


@dataclass
class _Session:
    """What one rollout file has told so far."""

    source: str
    session: str
    agent: str = MAIN_AGENT
    model: str | None = None
    named: bool = False
    seen: bool = False
    pairing: Pairing | None = None
    requests: _Requests = field(default_factory=_Requests)
    cap: tuple[str, int] | None = None  # the last recorded truncation_policy
    lineage: str | None = None  # whose rollout this file's first requests are (a fork's: its parent's; see _lineage)
    wanted: str | None = None  # the parent whose copied session_meta comes next in a fork
    spoke: bool = True  # a user message since the last request: the next one starts a turn (the first does)

    def name(self, session_id: Any, agent: str = MAIN_AGENT) -> None:
        """Adopt the first session id (later session_meta lines come from resume or fork)."""
        if self.named:
            return
        self.named = True
        if isinstance(session_id, str) and session_id and self.pairing is None:
            self.session, self.agent = session_id, agent

    def lineage_of(self, payload: dict) -> None:
        """Follow a fork to the rollout it copies: a fork (`forked_from_id`) begins with its parent's whole rollout,
        the parent's session_meta first, so a request's position from the file's start and its cumulative totals
        are those it has in the parent's file (and in the grandparent's, for a fork of a fork)."""
        sid, parent = payload.get("id"), payload.get("forked_from_id")
        if self.requests.by_usage or not isinstance(sid, str) or (self.lineage is not None and sid != self.wanted):
            return  # a resume's session_meta, or one after the copied header
        self.lineage, self.wanted = sid, parent if isinstance(parent, str) and parent else None

    def pairs(self) -> Pairing:
        """The pairing of this session, created once its id is known."""
        if self.pairing is None:
            self.pairing = Pairing(self.source, CodexCollector.key, self.session, id_scope=SCAN_SCOPE)
        return self.pairing


def _agent(source: Any) -> str:
    """`main`, or a short id of the subagent a session_meta `source` object describes."""
    sub = source.get("subagent") if isinstance(source, dict) else None
    if isinstance(sub, str) and sub:
        return sub  # "review", "compact"
    if not isinstance(sub, dict) or not sub:
        return MAIN_AGENT
    kind, detail = next(iter(sub.items()))
    if isinstance(detail, str) and detail:
        return detail  # {"other": "<name>"}
    if isinstance(detail, dict):  # {"thread_spawn": {agent_nickname, agent_path, ...}}
        for key in ("agent_nickname", "agent_path", "agent_role"):
            if isinstance(detail.get(key), str) and detail[key]:
                return detail[key]
    return str(kind)


def _usage(state: _Session, info: dict, number: int, ts: Any) -> Iterator[Usage]:
    """The request's own figures (`last_token_usage`; Codex's input includes cached tokens)."""
    last = info.get("last_token_usage")
    if not isinstance(last, dict):
        return
    uncached, write, read, output = openai_parts(last)
    index = state.requests.by_usage - 1
    started, state.spoke = state.spoke, False
    # known by the rollout it was made in, its position and its cumulative totals: a forked rollout repeats its
    # parent's requests (git-sync's 8 review forks, up to 165 each), which the parent's file bills already
    total = info.get("total_token_usage") or {}
    made = f"{state.lineage or state.session}#{index}:" + ",".join(f"{k}={total[k]}" for k in sorted(total))
    yield Usage(state.source, number, CodexCollector.key, state.session, made, state.model,
                uncached, write, read, output, agent=state.agent, ts=ts if isinstance(ts, str) else None,
                request_index=index, reasoning=count(last.get("reasoning_output_tokens")), global_id=True,
                turn_start=started, context_window=_window(info.get("model_context_window")))


def _window(recorded: Any) -> int:
    """The model's context window from the one a token_count records: codex-rs records the effective window,
    95% of the model's (`effective_context_window_percent`: 258,400 for the gpt-5 family's 272,000)."""
    return recorded * 100 // 95 if type(recorded) is int and recorded > 0 else 0


def _cap(policy: Any) -> tuple[str, int] | None:
    """(unit, limit) of a `truncation_policy` (serde: `{"mode": "bytes"|"tokens", "limit": N}`), or None."""
    if not isinstance(policy, dict) or policy.get("mode") not in ("bytes", "tokens"):
        return None
    limit = policy.get("limit")
    return (policy["mode"], limit) if type(limit) is int and limit >= 0 else None


def _session_info(state: _Session, payload: dict) -> Iterator[SessionInfo]:
    """Where the session worked (`cwd`, `git.commit_hash` and `git.branch`), for replay; nothing when neither the
    folder nor the commit is recorded."""
    git = payload.get("git")
    cwd = payload.get("cwd")
    commit = git.get("commit_hash") if isinstance(git, dict) else None
    branch = git.get("branch") if isinstance(git, dict) else None
    cwd = cwd if isinstance(cwd, str) and cwd else None
    commit = commit if isinstance(commit, str) and commit else None
    version = payload.get("cli_version") if isinstance(payload.get("cli_version"), str) else None
    if cwd or commit:
        yield SessionInfo(state.source, state.session, cwd, commit, agent=state.agent, version=version,
                          branch=branch if isinstance(branch, str) and branch else None)


def _kind(obj: dict) -> str | None:
    """The `type` of a line or item, when it is a string (a list or an object is no type)."""
    kind = obj.get("type")
    return kind if isinstance(kind, str) else None


def _call(kind: str, item: dict) -> tuple[str, Any]:
    """The tool name and the arguments the model wrote, for each call item type."""
    if kind == "local_shell_call":
        return "local_shell", item.get("action")
    if kind == "tool_search_call":
        return "tool_search", item.get("arguments")
    name = item.get("name")
    args = item.get("input" if kind == "custom_tool_call" else "arguments")
    return (name if isinstance(name, str) and name else UNKNOWN_TOOL), args


@collectors.register
class CodexCollector(Collector):
    """Codex CLI `~/.codex/sessions/**/rollout-*.jsonl` files, envelope and legacy."""

    key = "codex"
    description = "Codex CLI rollout JSONL (~/.codex/sessions), current and mid-2025 legacy"
    jsonl = True

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        if _kind(first) in ROLLOUT_TYPES and isinstance(first.get("payload"), dict):
            return True
        legacy_header = {"id", "timestamp", "instructions"} <= first.keys() and "type" not in first
        return legacy_header or first.get("record_type") == "state"

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        state = _Session(str(path), file_stem(path))
        for number, obj in read_lines(path):
            if isinstance(obj, Skipped):
                yield obj
                continue
            if not isinstance(obj, dict):
                yield Skipped(state.source, number, f"expected a JSON object, got {type(obj).__name__}")
                continue
            state.seen = True
            yield from guarded(self._line(obj, number, state), state.source, number)
        if state.pairing is not None:
            yield from state.pairing.unpaired()
        if state.seen:
            ends = tuple(state.requests.segments) + (state.requests.count,)
            yield SessionEnd(state.source, state.session, ends, agent=state.agent)

    def _line(self, obj: dict, number: int, state: _Session) -> Iterator[Record]:
        """One line: an envelope, a legacy header, or a legacy bare ResponseItem."""
        kind = obj.get("type")
        if isinstance(kind, str) and kind in ROLLOUT_TYPES:
            yield from self._envelope(obj, kind, number, state)
        elif kind is None and "instructions" in obj:
            state.name(obj.get("id"))  # legacy header line
        elif kind is None or isinstance(kind, str):
            # legacy bare ResponseItem; `record_type` markers and unknown types pass
            yield from self._item(obj, number, None, state)
        else:
            yield Skipped(state.source, number, f"line whose type is not a string: {type(kind).__name__}")

    def _envelope(self, obj: dict, kind: str, number: int, state: _Session) -> Iterator[Record]:
        """One `{timestamp, type, payload}` line."""
        if kind in ("world_state", "inter_agent_communication_metadata"):
            return
        payload = obj.get("payload")
        if not isinstance(payload, dict):
            yield Skipped(state.source, number, f"{kind} line whose payload is not an object")
            return
        if kind == "response_item":
            ts = obj.get("timestamp")
            yield from self._item(payload, number, ts if isinstance(ts, str) else None, state)
        elif kind == "event_msg":
            # only usage is read here: the other events duplicate response items
            info = payload.get("info")
            if payload.get("type") == "token_count" and state.requests.usage(info):
                yield from _usage(state, info, number, obj.get("timestamp"))
        elif kind == "turn_context":
            state.requests.boundary()
            if isinstance(payload.get("model"), str):
                state.model = payload["model"]
            cap = _cap(payload.get("truncation_policy"))
            if cap is not None and cap != state.cap:
                state.cap = cap
                yield OutputCap(state.source, number, state.session, cap[0], cap[1], agent=state.agent)
        elif kind == "session_meta":
            first = not state.named  # later session_meta lines come from resume or fork
            state.name(payload.get("id"), _agent(payload.get("source")))
            state.lineage_of(payload)
            if first:
                yield from _session_info(state, payload)
        elif kind == "compacted":
            state.requests.compact()

    def _item(self, item: dict, number: int, ts: str | None, state: _Session) -> Iterator[Record]:
        """One ResponseItem: a call to remember, an output to report, or request bookkeeping."""
        kind = _kind(item)
        if kind is None and item.get("type") is not None:
            yield Skipped(state.source, number, f"item whose type is not a string: {type(item['type']).__name__}")
            return
        requests = state.requests
        if kind in _MODEL_ITEMS or (kind == "message" and item.get("role") == "assistant"):
            requests.item(from_model=True)
            said = flatten(item.get("content") if kind == "message" else item.get("summary")).text
            if said:  # the model's own words: evidence for simulate's later_used
                yield ModelText(state.source, number, state.session, said, state.agent)
        elif kind in _OUTPUTS or kind == "message":
            requests.item(from_model=False)
            # the user spoke (the instructions and environment items of a session's start are user messages
            # too, before its first request): the turns before this one are earlier turns
            state.spoke = state.spoke or (kind == "message" and item.get("role") == "user")
        if kind not in _CALLS and kind not in _OUTPUTS:
            return
        call_id = item.get("call_id")
        if kind == "local_shell_call" and not isinstance(call_id, str):
            call_id = item.get("id")  # Codex answers a local_shell_call by its id when call_id is absent
        if not isinstance(call_id, str):
            yield Skipped(state.source, number, f"{kind} without a call_id")
            return
        if kind in _CALLS:
            tool, args = _call(kind, item)
            state.pairs().call(call_id, tool, args, number, agent=state.agent, ts=ts, model=state.model)
            return
        # a tool search answers with tool definitions, which the model gets as JSON
        content = dump_args(item.get("tools")) if kind == "tool_search_output" else item.get("output")
        yield state.pairs().result(
            call_id, content, number, is_error=_failed(content), request_index=requests.count,
            segment=len(requests.segments), ts=ts, agent=state.agent, model=state.model,
        )
