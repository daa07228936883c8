"""Claude Code session JSONL (1.0.x to 2.1.x), its subagent files and progress lines.

What the model saw is `tool_result.content`, never the `toolUseResult` side field.
Model requests are counted once per assistant `message.id` (split lines share it;
`<synthetic>` lines are not API calls); so is usage, keeping the largest `output_tokens`
of the split lines (it is a running value). A `compact_boundary` starts a new segment:
outputs before it leave the context.

Subagent calls nested in a parent's `agent_progress` lines (and their usage) are always
read, attributed to `data.agentId`: a scan of the session file alone then counts them.
They are copies of the subagent's own file (`<session>/subagents/agent-<id>.jsonl`, or
`agent-<id>.jsonl` beside the session) when it exists; call ids and message ids are unique
across files (`id_scope` scan, `Usage.global_id`), so a scan that reads both files counts each call and request once.
Which copy a scan keeps is the first one it reads (a folder walk reads `<session>/subagents/`
before `<session>.jsonl`); the progress copy may hold a shorter result and fewer requests.

A line whose values are not of the expected types (a list where a string belongs) is one
Skipped record, `unexpected shape: ...`; the lines after it are read as usual.

`ClaudeCodeCollector(context_events=True)` also yields, per line, the ContextEvent records
calibrate needs (claude_code_context): what entered each context besides tool results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..model import (MAIN_AGENT, SCAN_SCOPE, UNKNOWN_TOOL, ContextEvent, ModelText, SessionEnd, SessionInfo, Skipped,
                     Usage)
from .base import (Collector, Pairing, Record, _Pending, anthropic_steps, collectors, guarded,
                   read_lines, file_stem, str_or_none)
from .claude_code_context import line_events

# Line types that claim a file (with an envelope key). Detection reads past lines it does not know
# (discover._sniff), so a new type costs nothing; these are the ones whose lines may be all a window
# holds: 2.1.8x+ sessions begin with last-prompt / permission-mode / mode lines, an abandoned one has
# nothing else.
LINE_TYPES = {
    "user", "assistant", "summary", "system", "file-history-snapshot",
    "queue-operation", "progress", "attachment", "custom-title",
    "last-prompt", "permission-mode", "mode", "ai-title", "agent-name", "tag", "pr-link", "worktree-state",
}
_ENVELOPE = {"parentUuid", "sessionId", "uuid", "leafUuid", "messageId", "snapshot", "isSidechain"}


@dataclass
class _Context:
    """One model context (the main agent or one subagent): its requests, segments and usage."""

    message_ids: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    segments: list[int] = field(default_factory=list)
    usage: dict[str, Usage] = field(default_factory=dict)
    spoke: bool = True  # the user spoke since the last request: the next one starts a turn (the first does)
    started: bool = True  # whether the newest request started a turn

    def request(self, message_id: str | None) -> int:
        """The index of the request that wrote this line (split lines share their message id)."""
        if message_id is not None and message_id in self.message_ids:
            return self.message_ids[message_id]
        self.requests += 1
        self.started, self.spoke = self.spoke, False
        if message_id is not None:
            self.message_ids[message_id] = self.requests - 1
        return self.requests - 1

    def compact(self) -> None:
        self.segments.append(self.requests)


def _saved(pairing: Pairing | None, contexts: dict[str, _Context]) -> dict:
    """What a resumed read needs of the pairing and the contexts, as plain data: numbers, ids and names.
    Pending calls keep no arguments (a resumed read serves the scan cache, which shows none)."""
    return {
        "pairing": None if pairing is None else {
            "session": pairing.session, "calls": pairing.calls,
            "pending": [[call_id, p.tool, p.line, p.call_index, p.agent, p.ts, p.model, p.cwd]
                        for call_id, p in pairing.pending.items()]},
        "contexts": {agent: {"message_ids": ctx.message_ids, "requests": ctx.requests, "segments": ctx.segments,
                             "spoke": ctx.spoke, "started": ctx.started,
                             "usage": [[getattr(u, f) for f in Usage.__dataclass_fields__] for u in ctx.usage.values()]}
                     for agent, ctx in contexts.items()},
    }


def _restored(source: str, key: str, state: dict) -> tuple[Pairing | None, dict[str, _Context]]:
    """The pairing and contexts of a checkpoint (_saved)."""
    saved = state["pairing"]
    pairing = None
    if saved is not None:
        pairing = Pairing(source, key, saved["session"], id_scope=SCAN_SCOPE, calls=saved["calls"])
        for call_id, tool, line, index, agent, ts, model, cwd in saved["pending"]:
            pairing.pending[call_id] = _Pending(tool, "", line, index, agent, ts, model, cwd)
    contexts = {}
    for agent, ctx in state["contexts"].items():
        usage = [Usage(*fields) for fields in ctx["usage"]]
        contexts[agent] = _Context(dict(ctx["message_ids"]), ctx["requests"], list(ctx["segments"]),
                                   {u.request_id: u for u in usage}, ctx.get("spoke", True),
                                   ctx.get("started", True))
    return pairing, contexts


@collectors.register
class ClaudeCodeCollector(Collector):
    """Claude Code `~/.claude/projects/**/*.jsonl` sessions and subagent files."""

    key = "claude-code"
    description = "Claude Code session JSONL (~/.claude/projects), subagents included"
    resumable = True  # a grown session is read from its checkpoint (Collector.checkpoint)

    def __init__(self, context_events: bool = False) -> None:
        """`context_events`: also yield calibrate's ContextEvent records (a second look at every line)."""
        self.context_events = context_events

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        kind = first.get("type")
        return isinstance(kind, str) and kind in LINE_TYPES and bool(_ENVELOPE & first.keys())

    def collect(self, path: Path, doc: Any = None, resume: tuple | None = None) -> Iterator[Record | ContextEvent]:
        source = str(path)
        events = self.context_events
        session = file_stem(path)
        pairing: Pairing | None = None
        contexts: dict[str, _Context] = {}
        # results written before their call's line (Claude Code appends the two lines asynchronously: entireio/
        # git-sync's 2.1.101 session wrote 26 Edit/Write results first), held until the call comes
        self._early: dict[str, tuple] = {}
        own_agent = MAIN_AGENT
        cwd = None  # the first recorded working folder: where the session started, for replay
        version = None  # Claude Code's version (replay's emulations reproduce that version's tools)
        branch = None  # the git branch it worked on (replay --at-session-start reads its history)
        moves: list[tuple[str, str]] = []  # (time, branch) where the recorded branch changed (replay: unknown files)
        start, at = (0, 0), [0, 0, False]
        if resume is not None:
            start, state = (resume[0], resume[1]), resume[2]
            session, own_agent, cwd, version, branch = (state["session"], state["own_agent"], state["cwd"],
                                                        state["version"], state["branch"])
            moves = [tuple(move) for move in state.get("moves", ())]
            pairing, contexts = _restored(source, self.key, state)
            at = [start[0], start[1], True]
        for number, obj in read_lines(path, start, at):
            if isinstance(obj, Skipped):
                yield obj
                continue
            if not isinstance(obj, dict):
                yield Skipped(source, number, f"expected a JSON object, got {type(obj).__name__}")
                continue
            if pairing is None and isinstance(obj.get("sessionId"), str):
                session = obj["sessionId"]
            if isinstance(obj.get("agentId"), str) and obj.get("isSidechain"):
                own_agent = obj["agentId"]
            if cwd is None and isinstance(obj.get("cwd"), str) and obj["cwd"]:
                cwd = obj["cwd"]
            if version is None and isinstance(obj.get("version"), str) and obj["version"]:
                version = obj["version"]  # the first: a resumed session keeps the version it began with
            if isinstance(obj.get("gitBranch"), str) and obj["gitBranch"]:
                now = moves[-1][1] if moves else branch
                if branch is None:
                    branch = obj["gitBranch"]
                elif obj["gitBranch"] != now and isinstance(obj.get("timestamp"), str):
                    moves.append((obj["timestamp"], obj["gitBranch"]))
            if pairing is None:
                pairing = Pairing(source, self.key, session, id_scope=SCAN_SCOPE)
            yield from guarded(self._line(obj, number, own_agent, pairing, contexts, source), source, number)
            if events:  # apart from _line: a line it cannot read still tells calibrate its turn is spoilt
                yield from line_events(obj, number, own_agent, source)
        if at[2] and not events:  # the last line read was whole: the next read may start after it
            state = {"session": session, "own_agent": own_agent, "cwd": cwd, "version": version, "branch": branch,
                     "moves": moves}
            self.checkpoint = (at[0], at[1], {**state, **_saved(pairing, contexts)})
        if pairing is None:
            return
        for call_id, (content, line, more) in self._early.items():  # no call came: orphans, as before
            yield from guarded((pairing.result(call_id, content, line, **more) for _ in (1,)), source, line)
        self._early.clear()
        yield from pairing.unpaired()
        if cwd is not None:
            yield SessionInfo(source, session, cwd, agent=own_agent, version=version, branch=branch,
                              branches=tuple(moves))
        for agent, ctx in contexts.items():
            yield from ctx.usage.values()
            yield SessionEnd(source, session, tuple(ctx.segments) + (ctx.requests,), agent=agent)

    def _line(self, obj: dict, number: int, own_agent: str, pairing: Pairing,
              contexts: dict[str, _Context], source: str) -> Iterator[Record]:
        """One line: a compaction, a subagent's progress, or a user/assistant message."""
        kind = obj.get("type")
        if kind == "system" and obj.get("subtype") == "compact_boundary":
            contexts.setdefault(own_agent, _Context()).compact()
        elif kind == "progress":
            data = obj.get("data")
            if not (isinstance(data, dict) and data.get("type") == "agent_progress"):
                return
            # a copy of the subagent's own file, when there is one: the scan keeps one copy
            agent = str_or_none(data.get("agentId")) or str_or_none(obj.get("parentToolUseID")) or "subagent"
            inner = data.get("message")
            if isinstance(inner, dict):
                yield from self._message(inner, number, agent, pairing, contexts, source)
        elif kind in ("user", "assistant"):
            yield from self._message(obj, number, own_agent, pairing, contexts, source)
        elif kind is not None and not isinstance(kind, str):
            yield Skipped(source, number, f"line whose type is not a string: {type(kind).__name__}")

    def _message(self, obj: dict, number: int, agent: str, pairing: Pairing,
                 contexts: dict[str, _Context], source: str) -> Iterator[Record]:
        """The calls or results of one user/assistant line (top-level or nested in progress)."""
        message = obj.get("message")
        if not isinstance(message, dict):
            yield Skipped(source, number, f"{obj.get('type')} line without a message object")
            return
        content = message.get("content")
        ctx = contexts.setdefault(agent, _Context())
        ts = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        if obj.get("type") == "assistant":
            model = message.get("model")
            if model == "<synthetic>":
                return
            model = model if isinstance(model, str) else None
            message_id = message.get("id") if isinstance(message.get("id"), str) else None
            index = ctx.request(message_id)
            started = ctx.started if index == ctx.requests - 1 else None  # an older request's split line: unknown
            if message_id is not None and isinstance(message.get("usage"), dict):
                # one usage per message id: every split line repeats it, output_tokens growing, so the
                # largest output's numbers are kept at the first line's place (built only when kept).
                # A compaction step of the request is billed as a request of its own, outside the
                # context's sequence (no request_index): its input is the context before it was cut
                for step, (*parts, hour) in anthropic_steps(message["usage"]):
                    rid = f"{message_id}/{step}" if step else message_id
                    seen = ctx.usage.get(rid)
                    if seen is None or parts[3] > seen.output:
                        line, first_ts = (number, ts) if seen is None else (seen.line, seen.ts)
                        ctx.usage[rid] = Usage(source, line, self.key, pairing.session, rid, model, *parts,
                                               agent=agent, ts=first_ts, request_index=None if step else index,
                                               global_id=True, cache_write_1h=hour,
                                               turn_start=None if step else seen.turn_start if seen else started)
            if isinstance(content, str) and content:
                yield ModelText(source, number, pairing.session, content, agent)
            if not isinstance(content, list):
                return
            for block in content:
                if not isinstance(block, dict):
                    continue
                said = block.get("text") if block.get("type") == "text" else block.get("thinking")
                if isinstance(said, str) and said:
                    yield ModelText(source, number, pairing.session, said, agent)
                if block.get("type") == "tool_use":
                    call_id = block.get("id")
                    if not isinstance(call_id, str):
                        yield Skipped(source, number, "tool_use block without an id")
                        continue
                    pairing.call(call_id, str_or_none(block.get("name")) or UNKNOWN_TOOL, block.get("input"),
                                 number, agent=agent, ts=ts, model=model, cwd=str_or_none(obj.get("cwd")))
                    if call_id in self._early:
                        content, line, more = self._early.pop(call_id)
                        yield pairing.result(call_id, content, line, **more)
            return
        if _spoke(obj, content):
            ctx.spoke = True
        if not isinstance(content, list):
            return
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                call_id = block.get("tool_use_id")
                if not isinstance(call_id, str):
                    yield Skipped(source, number, "tool_result block without a tool_use_id")
                    continue
                result = (block.get("content"), number, {"is_error": block.get("is_error") is True, "ts": ts,
                          "request_index": ctx.requests, "segment": len(ctx.segments), "agent": agent})
                if call_id in pairing.pending:
                    yield pairing.result(call_id, result[0], result[1], **result[2])
                else:
                    self._early[call_id] = result


def _spoke(obj: dict, content: Any) -> bool:
    """Whether a user line is the user speaking (a prompt, an interruption), not tool results, a compaction's
    summary or a line Claude Code adds itself (`isMeta`: caveats, a skill's text)."""
    if obj.get("isMeta") is True or obj.get("isCompactSummary") is True:
        return False
    if isinstance(content, str):
        return bool(content)
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") not in ("tool_result", None)
                                             for b in content)
