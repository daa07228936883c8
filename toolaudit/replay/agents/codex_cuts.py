"""How each Codex version cut a shell tool's output (the legacy 10 KiB / 256-line cut, the TruncationPolicy middle
cut, the warning line): see agents.codex for the versions and the openai/codex sources."""

from __future__ import annotations

import json
import math
import re

from ...simulate.policies import CodexLegacy, CodexMiddle
from ...simulate.policies.codex import rust_lines
from ...simulate.policies.base import cut_bytes, cut_bytes_tail, nbytes
from .base import Call, version_tuple

HINT_SINCE = (0, 45)
BYTES_MARKER_SINCE = (0, 48)
POLICY_SINCE = (0, 59)
WARNING_SINCE = (0, 141)
# the rollouts record turn_context.truncation_policy as null from here (entireio/entire-graph's 0.133 - 0.136,
# EntityProcess/agentv's 0.140 - 0.142), and cut exec_command within the model's catalog policy all the same
UNRECORDED_POLICY_SINCE = (0, 133)
LEGACY_BYTES, LEGACY_LINES = 10 * 1024, 256  # MODEL_FORMAT_MAX_BYTES, MODEL_FORMAT_MAX_LINES
DEFAULT_LIMIT = 10_000  # TruncationPolicy Bytes(10_000) / Tokens(10_000); unified exec's DEFAULT_MAX_OUTPUT_TOKENS


def _policy(call: Call) -> tuple[str, int] | None:
    """The recorded TruncationPolicy as (unit, limit), from `truncation_policy`; None when not given."""
    text = call.params.get("truncation_policy", "")
    if text.startswith("{"):
        try:
            doc = json.loads(text)
            text = f"{doc['mode']}:{doc['limit']}"
        except (ValueError, KeyError, TypeError):
            return None
    unit, _, limit = text.partition(":")
    return (unit, int(limit)) if unit in ("bytes", "tokens") and limit.isdigit() else None


# the model catalog's truncation_policy (codex-rs models.json), for a rollout that records none (turn_context's
# truncation_policy is null from 0.133 on): Tokens(10000) for the codex models and gpt-5.4 and later (the 0.121 - 0.125
# rollouts record {"mode": "tokens", "limit": 10000} for gpt-5.4 and gpt-5.5; the catalog lists gpt-5.5 and gpt-5.6-*
# so), Bytes(10000) for gpt-5 to gpt-5.2 (the catalog's gpt-5.2); other models: unknown
_TOKENS_MODEL = re.compile(r"codex|^gpt-5\.(?:[4-9]|[1-9]\d)(?:\D|$)")
_BYTES_MODEL = re.compile(r"^gpt-5(?:\.[012])?(?:-|$)")


def model_policy(model: str) -> tuple[str, int] | None:
    """The TruncationPolicy Codex's model catalog gives `model`, as (unit, limit); None for a model it does not list."""
    if _TOKENS_MODEL.search(model or ""):
        return "tokens", DEFAULT_LIMIT
    return ("bytes", DEFAULT_LIMIT) if _BYTES_MODEL.search(model or "") else None


def cut_kind(call: Call) -> tuple[str, int]:
    """The cut of this call: ("legacy"|"legacy-nohint", 0) or ("bytes"|"tokens", limit)."""
    chosen = call.params.get("truncation", "")
    if chosen in ("legacy", "legacy-nohint"):
        return chosen, 0
    unit, _, limit = chosen.partition(":")
    if unit in ("bytes", "tokens") and limit.isdigit():
        return unit, int(limit)
    version = version_tuple(call.version)
    if version and version < HINT_SINCE:
        return "legacy-nohint", 0
    if version and version < POLICY_SINCE:
        return "legacy", 0
    return _policy(call) or model_policy(call.params.get("model", "")) or ("bytes", DEFAULT_LIMIT)


def _warning(call: Call) -> bool:
    flag = call.params.get("warning")
    if flag in ("0", "1"):
        return flag == "1"
    version = version_tuple(call.version)
    return not version or version >= WARNING_SINCE


def plain_cut(text: str, unit: str, limit: int) -> str:
    """truncate_text: the 50/50 middle cut with `…N chars|tokens truncated…`, no header."""
    return CodexMiddle(limit, unit, header=False).apply(text)


def formatted_cut(text: str, unit: str, limit: int, warning: bool) -> str:
    """formatted_truncate_text: the middle cut under `[Warning …\\n]Total output lines: N\\n\\n`."""
    budget = limit * 4 if unit == "tokens" else limit
    if len(text.encode()) <= budget:
        return text
    head = f"Warning: truncated output (original token count: {token_count(text)})\n" if warning else ""
    return f"{head}Total output lines: {rust_lines(text)}\n\n{plain_cut(text, unit, limit)}"


def legacy_cut(text: str, hint: bool, joined: bool = False, bytes_marker: bool = True) -> str:
    """The ≤ 0.58 cut: 10 KiB and 256 lines, head and tail; `Total output lines: N\\n\\n` first when `hint`.

    `joined`: the first version's (before 0.45), head and tail lines read with `str::lines()` and joined with `\\n`;
    `bytes_marker`: a cut that omits no line says `output truncated to fit N bytes` (from 0.48), else `omitted 0`."""
    if not joined and bytes_marker:
        cut = CodexLegacy().apply(text)
        return cut if cut is text or hint else cut.split("\n\n", 1)[1]
    total = rust_lines(text)
    if nbytes(text) <= LEGACY_BYTES and total <= LEGACY_LINES:
        return text
    if joined:  # str::lines(): no line keeps its newline, nor the \r before it
        segments = text.split("\n")
        if segments[-1] == "":
            segments.pop()
        ended = len(segments) if text.endswith("\n") else len(segments) - 1  # the lines a \n ends
        segments = [line[:-1] if i < ended and line.endswith("\r") else line for i, line in enumerate(segments)]
        glue = "\n"
    else:  # split_inclusive('\n'): each line keeps its newline
        segments = [line + "\n" for line in text.split("\n")]
        segments[-1] = segments[-1][:-1]
        if not segments[-1]:
            segments.pop()
        glue = ""
    head_take = min(LEGACY_LINES // 2, len(segments))
    tail_take = min(LEGACY_LINES - LEGACY_LINES // 2, len(segments) - head_take)
    omitted = len(segments) - head_take - tail_take
    head = glue.join(segments[:head_take])
    tail = glue.join(segments[len(segments) - tail_take:]) if tail_take else ""
    marker = f"\n[... omitted {omitted} of {total} lines ...]\n\n"
    result = cut_bytes(head, min(LEGACY_BYTES // 2, max(LEGACY_BYTES - nbytes(marker), 0))) + marker
    result += cut_bytes_tail(tail, max(LEGACY_BYTES - nbytes(result), 0))
    return f"Total output lines: {total}\n\n{result}" if hint else result


def _legacy(call: Call, text: str, kind: str, hint: bool) -> str:
    """`legacy_cut` as the call's version made it (`kind` legacy-nohint: the first version's)."""
    version = version_tuple(call.version)
    return legacy_cut(text, hint, joined=kind == "legacy-nohint",
                      bytes_marker=kind == "legacy" and (not version or version >= BYTES_MARKER_SINCE))


def token_count(text: str) -> int:
    """approx_token_count: ceil(UTF-8 bytes / 4)."""
    return math.ceil(len(text.encode()) / 4)


def _structured_cut(call: Call, text: str) -> str:
    kind, limit = cut_kind(call)
    if kind.startswith("legacy"):
        return _legacy(call, text, kind, kind == "legacy")
    return formatted_cut(text, kind, limit, _warning(call))
