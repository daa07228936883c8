"""mini-swe-agent `.traj.json` files: `mini-swe-agent-1` / `-1.1` objects and the earliest
bare list of `{role, content}` messages (formats.md §5).

Calls, in every mode mini-swe-agent has written:
- text mode (v1, v2 text-based models): the one ```bash / ```mswea_bash_command block of an
  assistant message (v2 also lists it in `extra.actions`), answered by the next
  `role:"user"` message, `<returncode>N</returncode>\\n<output>...` or the truncation
  template: pairing by position, tool `bash`, arguments the command. An assistant message
  with no block or several is a format error: no call;
- tool-call mode (v2): assistant `tool_calls` answered by `role:"tool"` by `tool_call_id`;
- Responses API mode (v2): a stored response object (`object:"response"`) with
  `function_call` items, answered by `function_call_output` items.
A non-zero return code (`extra.returncode`, else the `<returncode>` tag) is an error.

What the model never saw is not measured: v2 `role:"exit"` messages, and in v1 the
user message that ends the run after the submit command (the submission, the same text
as `info.submission`): the submit call stays unpaired, as in v2. `info.config` holds the
prompt templates, not output, and is not read for text.

Each assistant message (or stored response) is one model request, and so is a v2 format
error, whose billed response is kept in the error message's `extra`. Usage comes from
`extra.response.usage` (LiteLLM/OpenRouter, OpenAI style); its request id is the stored response's
id, else `<file>#<position>`. Usage is deduplicated within the file only (`Usage.global_id` False):
LiteLLM's cache and mock models hand the same response id to different runs.
A message whose values are not of the expected types is one Skipped record (`unexpected
shape: ...`); the messages after it are read as usual.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from ..model import UNKNOWN_TOOL, ModelText, SessionEnd, Skipped, Usage
from .base import Collector, Pairing, Record, collectors, flatten, guarded, openai_parts, read_document, plain_name

KEY = "mini-swe-agent"
# the action regexes of mini-swe-agent's configs (v1 default, and the older test data)
_ACTION = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
_RETURNCODE = re.compile(r"\s*<returncode>(-?\d+)</returncode>")
_SUBMIT = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")


def _text(msg: dict) -> str:
    content = msg.get("content")
    return content if isinstance(content, str) else flatten(content).text


def _is_bare_run(doc: Any) -> bool:
    """The earliest shape: a list of chat messages with bash blocks or `<returncode>` observations."""
    if not isinstance(doc, list) or not doc:
        return False
    if not all(isinstance(m, dict) and m.get("role") in ("system", "user", "assistant") and "content" in m
               for m in doc):
        return False
    return any(
        (m["role"] == "assistant" and _ACTION.search(_text(m)))
        or (m["role"] == "user" and _RETURNCODE.match(_text(m))) for m in doc)


def _extra(msg: dict) -> dict:
    extra = msg.get("extra")
    return extra if isinstance(extra, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _Run:
    """One trajectory's pairing and request count."""

    def __init__(self, source: str, session: str, model: str | None, last: int):
        self.source = source
        self.session = session
        self.model = model
        self.last = last  # position of the last message: v1's exit message
        self.pairing = Pairing(source, KEY, session)
        self.requests = 0
        self.actions = 0

    def message(self, msg: Any, line: int) -> Iterator[Record]:
        """The records one message completes."""
        if not isinstance(msg, dict):
            yield Skipped(self.source, line, f"expected a message object, got {type(msg).__name__}")
            return
        role, extra = msg.get("role"), _extra(msg)
        if role is not None and not isinstance(role, str):
            yield Skipped(self.source, line, f"message whose role is not a string: {type(role).__name__}")
            return
        if msg.get("object") == "response":
            yield from self._request(line, msg)
            for item in msg.get("output") if isinstance(msg.get("output"), list) else []:
                if isinstance(item, dict) and item.get("type") == "function_call":
                    self._call(item.get("call_id") or item.get("id"), item.get("name"), item.get("arguments"), line)
                elif isinstance(item, dict) and item.get("type") == "message":
                    yield from self._said(flatten(item.get("content")).text, line)
        elif msg.get("type") == "function_call_output":
            yield from self._answer(msg.get("call_id"), msg.get("output"), extra, line)
        elif role == "assistant":
            yield from self._request(line, extra.get("response"))
            yield from self._said(_text(msg), line)
            yield from self._calls(msg, extra, line)
        elif role == "tool":
            yield from self._answer(msg.get("tool_call_id"), msg.get("content"), extra, line)
        elif role == "user" and extra.get("interrupt_type") == "FormatError" and "response" in extra:
            yield from self._request(line, extra.get("response"))  # v2: a billed, rejected response
        elif role == "user" and self.pairing.pending:
            call_id = next(iter(self.pairing.pending))
            if line == self.last and any(m in self.pairing.pending[call_id].args for m in _SUBMIT):
                return  # v1's exit message: the run ended, the model never got it
            yield from self._answer(call_id, msg.get("content"), extra, line)
        # system, the task, format errors, v2 `exit` messages: no call output

    def _request(self, line: int, response: Any) -> Iterator[Record]:
        """A model request, and its usage when the stored response has it."""
        index = self.requests
        self.requests += 1
        response = response if isinstance(response, dict) else {}
        if isinstance(response.get("model"), str):
            self.model = response["model"]  # the provider's name beats the configured alias
        usage = response.get("usage")
        if isinstance(usage, dict):
            rid = response["id"] if isinstance(response.get("id"), str) and response["id"] else f"{self.source}#{line}"
            details = usage.get("completion_tokens_details") or usage.get("output_tokens_details")
            reasoning = _int(details.get("reasoning_tokens")) if isinstance(details, dict) else None
            yield Usage(self.source, line, KEY, self.session, rid, self.model, *openai_parts(usage),
                        request_index=index, reasoning=max(reasoning or 0, 0))

    def _said(self, text: str, line: int) -> Iterator[Record]:
        if text:  # the model's own words: evidence for simulate's later_used
            yield ModelText(self.source, line, self.session, text)

    def _call(self, call_id: Any, name: Any, args: Any, line: int) -> None:
        if not isinstance(call_id, str) or not call_id:
            self.actions += 1
            call_id = f"#{self.actions}"  # answered by position
        self.pairing.call(call_id, name if isinstance(name, str) else UNKNOWN_TOOL, args, line, model=self.model)

    def _calls(self, msg: dict, extra: dict, line: int) -> Iterator[Record]:
        calls, actions = msg.get("tool_calls"), extra.get("actions")
        if calls:
            if not isinstance(calls, list):
                yield Skipped(self.source, line, "tool_calls is not a list")
                return
            for call in calls:
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict):
                    yield Skipped(self.source, line, "tool call without a function")
                    continue
                self._call(call.get("id"), fn.get("name"), fn.get("arguments"), line)
        elif isinstance(actions, list) and actions:  # v2 text mode lists the parsed commands
            for action in actions:
                command = action.get("command") if isinstance(action, dict) else None
                self._call(None, "bash", command if isinstance(command, str) else action, line)
        else:
            commands = _ACTION.findall(_text(msg))
            if len(commands) == 1:  # mini-swe-agent runs exactly one block, else a format error
                self._call(None, "bash", commands[0].strip(), line)

    def _answer(self, call_id: Any, content: Any, extra: dict, line: int) -> Iterator[Record]:
        if not isinstance(call_id, str) or not call_id:
            call_id = next(iter(self.pairing.pending), "")  # no id: by position
        code = _int(extra.get("returncode"))
        if code is None:
            tag = _RETURNCODE.match(content) if isinstance(content, str) else None
            code = int(tag.group(1)) if tag else None
        yield self.pairing.result(call_id, content, line, is_error=bool(code), request_index=self.requests,
                                  model=self.model)

    def end(self) -> Iterator[Record]:
        """Calls never answered, then the run's request count."""
        yield from self.pairing.unpaired()
        yield SessionEnd(self.source, self.session, (self.requests,))


def _model(doc: dict) -> str | None:
    """`info.config.model.model_name`: the model name, the only part of the config read."""
    config = doc.get("info", {}).get("config") if isinstance(doc.get("info"), dict) else None
    model = config.get("model") if isinstance(config, dict) else None
    name = model.get("model_name") if isinstance(model, dict) else None
    return name if isinstance(name, str) else None


@collectors.register
class MiniSWEAgentCollector(Collector):
    """mini-swe-agent `.traj.json` trajectories, every version, text and tool-call modes."""

    key = KEY
    description = "mini-swe-agent .traj.json trajectories (all versions, incl. the bare message list)"
    jsonl = False
    document = True

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """`trajectory_format: mini-swe-agent-*`, `info.mini_version`, or the bare message list."""
        if isinstance(doc, dict):
            fmt, info = doc.get("trajectory_format"), doc.get("info")
            return isinstance(doc.get("messages"), list) and (
                (isinstance(fmt, str) and fmt.startswith("mini-swe-agent"))
                or (isinstance(info, dict) and "mini_version" in info))
        return _is_bare_run(doc)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of one trajectory, named by its `instance_id` or its file name."""
        source = str(path)
        doc = read_document(path, doc)
        if isinstance(doc, Skipped):
            yield doc
            return
        messages = doc.get("messages") if isinstance(doc, dict) else doc
        if not isinstance(messages, list):
            yield Skipped(source, 1, f"expected a messages list, got {type(messages).__name__}")
            return
        session = plain_name(path).removesuffix(".json").removesuffix(".traj")
        if isinstance(doc, dict) and isinstance(doc.get("instance_id"), str):
            session = doc["instance_id"]
        run = _Run(source, session, _model(doc) if isinstance(doc, dict) else None, len(messages))
        for line, msg in enumerate(messages, 1):  # `line`: the message's position
            yield from guarded(run.message(msg, line), source, line)
        yield from run.end()
