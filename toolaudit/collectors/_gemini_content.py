"""Gemini API `Content` and `Part` values as Gemini CLI stores them, and the `/chat save`
checkpoint, which is a list of Content turns and nothing else (formats.md §3).

Private to the gemini-cli collector, whose key its records carry: what a message says, what
a tool call's result measures, a TokensSummary as usage, and the checkpoint reader.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..model import SCAN_SCOPE, UNKNOWN_TOOL, ModelText, SessionEnd
from .base import Pairing, Record, count, dump_args, guarded

KEY = "gemini-cli"


def words(content: Any) -> str:
    """The text parts of a PartListUnion (function calls and images are not words)."""
    if isinstance(content, str):
        return content
    parts = [content] if isinstance(content, dict) else content if isinstance(content, list) else []
    return "\n".join(p if isinstance(p, str) else p["text"] for p in parts
                     if isinstance(p, str) or (isinstance(p, dict) and isinstance(p.get("text"), str)))


def result_parts(result: Any) -> tuple[list, bool]:
    """One call's result as parts `flatten` reads, and whether it reports an error."""
    parts = [] if result is None else result if isinstance(result, list) else [result]
    out: list = []
    error = False
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if not isinstance(response, dict):
            out.append(part)  # sibling text, inlineData and fileData parts, strings
            continue
        body = response.get("response")
        if isinstance(body, dict) and isinstance(body.get("output"), str):
            out.append(body["output"])
        elif body is not None:
            out.append(dump_args(body))  # `{error: ...}` and other shapes reach the model as JSON
        error = error or (isinstance(body, dict) and body.get("error") is not None)
        if isinstance(response.get("parts"), list):
            out.extend(response["parts"])  # multimodal function responses nest images here
    return out, error


def token_usage(tokens: Any) -> tuple[int, int, int, int, int] | None:
    """(uncached input, cache write, cache read, output, reasoning) from a TokensSummary.

    `input` is promptTokenCount, which includes `cached`; `tool` (toolUsePromptTokenCount)
    and `thoughts` are counted outside it and `output` (candidates) excludes thoughts.
    """
    if not isinstance(tokens, dict):
        return None
    prompt, cached, thoughts = count(tokens.get("input")), count(tokens.get("cached")), count(tokens.get("thoughts"))
    out, tool = count(tokens.get("output")), count(tokens.get("tool"))
    if not (prompt or cached or thoughts or out or tool):
        return None
    return max(prompt - cached, 0) + tool, 0, cached, out + thoughts, thoughts


def is_contents(turns: Any) -> bool:
    """A `/chat save` history: Content turns `{role: user|model, parts: [...]}`."""
    return isinstance(turns, list) and bool(turns) and all(
        isinstance(t, dict) and t.get("role") in ("user", "model") and isinstance(t.get("parts"), list) for t in turns)


def _responses(parts: list) -> list[tuple[dict, list]]:
    """Each functionResponse part with the parts after it up to the next one (its images)."""
    groups: list[tuple[dict, list]] = []
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            groups.append((response, []))
        elif groups:
            groups[-1][1].append(part)
    return groups


def _match(pairing: Pairing, response: dict) -> str:
    """The call a functionResponse answers: by id, else the oldest pending call of its name."""
    call_id = response.get("id") if isinstance(response.get("id"), str) else ""
    if call_id in pairing.pending:
        return call_id
    for key, call in pairing.pending.items():
        if call.tool == response.get("name"):
            return key
    return call_id or next(iter(pairing.pending), "")


def read_checkpoint(source: str, session: str, turns: list) -> Iterator[Record]:
    """A `/chat save` checkpoint: each model turn a request, its functionCalls paired to responses."""
    pairing = Pairing(source, KEY, session, id_scope=SCAN_SCOPE)
    requests = [0]  # model turns so far, shared with _turn
    for line, turn in enumerate(turns, 1):  # `line`: the turn's position
        yield from guarded(_turn(turn, line, source, session, pairing, requests), source, line)
    yield from pairing.unpaired()
    yield SessionEnd(source, session, (requests[0],))


def _turn(turn: dict, line: int, source: str, session: str, pairing: Pairing, requests: list[int]) -> Iterator[Record]:
    """One checkpoint turn: a model turn's calls (a request), or a user turn's functionResponses."""
    parts = turn["parts"]
    if turn["role"] == "model":
        requests[0] += 1
        if words(parts):
            yield ModelText(source, line, session, words(parts))
        for number, part in enumerate(parts):
            call = part.get("functionCall") if isinstance(part, dict) else None
            if isinstance(call, dict):
                call_id = call.get("id") if isinstance(call.get("id"), str) else ""
                call_id = call_id or f"{source}#{line}.{number}"  # unique across files, as ids are
                name = call["name"] if isinstance(call.get("name"), str) else UNKNOWN_TOOL
                pairing.call(call_id, name, call.get("args"), line)
        return
    for response, siblings in _responses(parts):
        seen, error = result_parts([{"functionResponse": response}, *siblings])
        yield pairing.result(_match(pairing, response), seen, line, is_error=error, request_index=requests[0])
