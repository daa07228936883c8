"""What the model saw of an OpenHands V1 result: `to_llm_message` of each event answering a call.

- ObservationEvent: `observation.to_llm_content` + `extended_content`. By default the content
  parts after `[An error occurred during execution.]\\n` when `is_error`. Terminal observations
  (`TerminalObservation`, earlier `ExecuteBashObservation`) send one text: metadata `prefix` +
  output + `suffix` (`[The command completed with exit code N.]`), then
  `[Current working directory: …]`, `[Python interpreter: …]` and `[Command finished with exit
  code N]` lines, cut at 30,000 chars by `maybe_truncate` (its `<response clipped>` notice,
  naming the saved file when `full_output_save_dir` is set) [src openhands-tools/…/terminal/
  definition.py, openhands-sdk/…/utils/truncate.py]. Observations older than Nov 2025 kept the
  text in `output`: read as the content. Other observation kinds with their own rendering
  (browser screenshots, task info) are measured by the default rule;
- AgentErrorEvent: its `error`; UserRejectObservation: `Action rejected: <reason>`.
Errors: AgentErrorEvent, UserRejectObservation, `observation.is_error`, and a terminal exit code
other than 0 and -1 (-1: still running after the soft timeout).
The replay emulation of OpenHands cuts with the same `clip`.
"""

from __future__ import annotations

import hashlib
from pathlib import PurePosixPath
from typing import Any

from .base import dict_or_empty, list_or_empty, str_or_none

TERMINAL = frozenset({"TerminalObservation", "ExecuteBashObservation"})

ERROR_HEADER = "[An error occurred during execution.]\n"  # Observation.ERROR_MESSAGE_HEADER
OLD_ERROR = "[There was an error during command execution.]\n"  # ExecuteBashObservation, before Nov 2025
MAX_CMD_OUTPUT_SIZE = 30000
NOTICE = ("<response clipped><NOTE>Due to the max output limit, only part of the full "
          "response has been shown to you.</NOTE>")
NOTICE_SAVED = ("<response clipped><NOTE>Due to the max output limit, only part of the full "
                "response has been shown to you. The complete output has been saved to "
                "{file_path} - you can use other tools to view the full content (truncated "
                "part starts around line {line_num}).</NOTE>")


def int_or(value: Any, default: int) -> int:
    """`value` when it is an int (not a bool), else `default`."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def kind_of(obj: dict) -> str | None:
    """The `kind` tag, when it is a string (a list there must not reach a set lookup)."""
    kind = obj.get("kind")
    return kind if isinstance(kind, str) else None


def clip(content: str, limit: int, save_dir: str | None = None, prefix: str = "output") -> str:
    """The SDK's maybe_truncate: the middle cut out for its notice (naming the saved file, when saved)."""
    if len(content) <= limit:
        return content
    if len(NOTICE) >= limit:
        return NOTICE[:limit]
    available = limit - len(NOTICE)
    head = available // 2 + available % 2
    notice = NOTICE
    if save_dir:
        digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        saved = str(PurePosixPath(save_dir) / f"{prefix}_output_{digest}.txt")
        notice = NOTICE_SAVED.format(file_path=saved, line_num=len(content[:head].splitlines()) + 1)
    if len(notice) >= limit:
        return notice[:limit]
    remaining = limit - len(notice)
    head = min(head, remaining)
    tail = remaining - head
    return content[:head] + notice + (content[-tail:] if tail > 0 else "")


def _parts(content: Any) -> list:
    """Content parts as the LLM gets them: an ImageContent's URLs become one image part each."""
    if isinstance(content, str):
        return [content]
    out = []
    for part in list_or_empty(content):
        if isinstance(part, dict) and part.get("type") == "image" and isinstance(part.get("image_urls"), list):
            out.extend({"type": "image_url", "image_url": {"url": url}} for url in part["image_urls"])
        else:
            out.append(part)
    return out


def _text(content: Any) -> str:
    """Observation.text: the text parts joined with nothing."""
    if isinstance(content, str):
        return content
    return "".join(p["text"] for p in list_or_empty(content) if isinstance(p, dict) and isinstance(p.get("text"), str))


def exit_code(obs: dict) -> int:
    """The terminal exit code the SDK renders (metadata), else the observation's; -1 when unknown."""
    meta = dict_or_empty(obs.get("metadata"))
    return int_or(meta.get("exit_code"), int_or(obs.get("exit_code"), -1))


def _terminal(obs: dict, body: Any) -> list:
    """TerminalObservation.to_llm_content: one text with the metadata lines, cut at 30,000 chars."""
    meta = dict_or_empty(obs.get("metadata"))
    text = f"{meta.get('prefix') or ''}{_text(body)}{meta.get('suffix') or ''}"
    if str_or_none(meta.get("working_dir")):
        text += f"\n[Current working directory: {meta['working_dir']}]"
    if str_or_none(meta.get("py_interpreter_path")):
        text += f"\n[Python interpreter: {meta['py_interpreter_path']}]"
    code = int_or(meta.get("exit_code"), -1)
    if code != -1:
        text += f"\n[Command finished with exit code {code}]"
    if obs.get("error") is True:  # the pre-Nov 2025 flag, inside the one text
        text = OLD_ERROR + text
    return [clip(text, MAX_CMD_OUTPUT_SIZE, str_or_none(obs.get("full_output_save_dir")), "terminal")]


def observation_seen(event: dict) -> tuple[list, bool]:
    """(content parts the model got, is_error) for an ObservationEvent."""
    obs = dict_or_empty(event.get("observation"))
    body = obs["content"] if "content" in obs else obs.get("output")  # `output`: before Nov 2025
    header = [ERROR_HEADER] if obs.get("is_error") is True else []
    kind = kind_of(obs)
    parts = header + (_terminal(obs, body) if kind in TERMINAL else _parts(body)) + _parts(event.get("extended_content"))
    code = exit_code(obs) if kind in TERMINAL else -1
    return parts, bool(header) or obs.get("error") is True or code not in (0, -1)


def result_seen(event: dict) -> tuple[Any, bool]:
    """(what the model got, is_error) for any event answering a tool call."""
    kind = event["kind"]
    if kind == "AgentErrorEvent":
        return [event["error"]] if isinstance(event.get("error"), str) else [], True
    if kind == "UserRejectObservation":
        reason = event.get("rejection_reason", "User rejected the action")
        return [f"Action rejected: {reason}"], True
    return observation_seen(event)
