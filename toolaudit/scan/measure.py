"""Measure one ToolCall: chars, UTF-8 bytes, lines, exact tokens, truncation flag."""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from functools import cache

from ..model import Measurement, MenuMeasurement, SessionEnd, ToolCall, ToolMenu
from ..tokenizers import Tokenizer, sanitize, sanitized_size
from .markers import truncated_by

ARGS_PREVIEW = 60
CONTENT_PREVIEW = 200


def preview(text: str, width: int) -> str:
    """secrets.redact.preview, imported on first use: its 90 secret patterns cost a scan served from the
    cache, or one without previews, nothing."""
    from ..secrets.redact import preview as redacted_preview

    return redacted_preview(text, width)


# an absolute path (POSIX, or Windows with a drive) as a JSON string value, long enough to be cut
_LONG_PATH = re.compile(r'"((?:[A-Za-z]:)?(?:/|\\\\)[^"\s]{24,})"')


def _keep_file_names(args: str, width: int = ARGS_PREVIEW) -> str:
    """`args` with its long paths shortened from the left (`"…/handlers/order.py"`) until it fits `width`, or
    each is down to its last two parts: the file a call read is what `--top` is asked for, and a cut at
    `width` kept only its folders. Arguments that fit are left whole."""
    over = len(args) - width
    if over <= 0:
        return args

    def tail(match: re.Match) -> str:
        nonlocal over
        whole = shorter = match.group(0)
        parts = [p for p in re.split(r"/|\\\\", match.group(1)) if p]
        keep = len(parts)
        while keep > 2 and over - (len(whole) - len(shorter)) > 0:
            keep -= 1
            shorter = f'"…/{"/".join(parts[-keep:])}"'
        if len(shorter) >= len(whole):
            return whole
        over -= len(whole) - len(shorter)
        return shorter

    return _LONG_PATH.sub(tail, args)


def args_preview(args: str) -> str:
    """The redacted one-line preview of a call's (sanitized) arguments, file names kept."""
    return preview(_keep_file_names(args), ARGS_PREVIEW)


@cache
def _reach(width: int) -> int:
    from ..secrets.redact import preview_reach

    return preview_reach(width)


def known_key(session: str, call_id: str, line: int, chars: int, size: int, model: str | None) -> tuple:
    """What identifies one call's output in an earlier scan of the same file (measure's `known`)."""
    return session, call_id, line, chars, size, model


def measure(call: ToolCall, tokenizer: Tokenizer, *, show_content: bool = False, previews: bool = True,
            text: str | None = None, size: int | None = None, known: dict | None = None) -> Measurement:
    """The numbers of one call. chars = code points, bytes = UTF-8 length.

    `previews` computes what only `--top` and `--records` show: the redacted argument preview, and the
    line count (None without: a pass over every output that nothing else reads);
    `text` and `size` pass an output already sanitized and sized (sanitized_size); `known` holds the
    token counts of an earlier scan of this file when only lines were added since (known_key: the same
    line, call and length is the same output, so its count is not made again).
    """
    if text is None or size is None:
        text, size = sanitized_size(call.output)
    cut_by = truncated_by(text)
    tokens = None
    if known:
        tokens = known.get(known_key(call.session, call.call_id, call.line, len(text), size, call.model))
    if tokens is None:
        tokens = tokenizer.count_for(text, call.model)
    return Measurement(
        source=call.source,
        line=call.line,
        collector=call.collector,
        session=call.session,
        agent=call.agent,
        tool=call.tool,
        call_id=call.call_id,
        model=call.model,
        ts=call.ts,
        status=call.status,
        is_error=call.is_error,
        agent_truncated=cut_by is not None,
        chars=len(text),
        bytes=size,
        lines=(text.count("\n") + 1 if text else 0) if previews else None,
        tokens=tokens,
        images=call.images,
        image_bytes=call.image_bytes,
        call_index=call.call_index,
        request_index=call.request_index,
        segment=call.segment,
        residency=None,
        args_preview=args_preview(sanitize(call.args)) if previews else "",
        output_preview=preview(text, CONTENT_PREVIEW) if show_content else None,
        id_scope=call.id_scope,
        truncated_by=cut_by,
        tool_refs=call.tool_refs,
    )


def head_of(call: ToolCall, text: str, show_content: bool) -> tuple[str, str | None]:
    """What `call`'s previews read (FileResult.heads): its sanitized arguments' and output's (`text`, sanitized)
    first chars; the output's only with `show_content`."""
    return sanitize(call.args)[:_reach(ARGS_PREVIEW)], text[:_reach(CONTENT_PREVIEW)] if show_content else None


def previewed(row: Measurement, head: tuple[str, str | None]) -> Measurement:
    """`row` with the previews measure() would have made, made from its head (see head_of)."""
    args, output = head
    return replace(row, args_preview=args_preview(args),
                   output_preview=None if output is None else preview(output, CONTENT_PREVIEW))


def with_residency(rows: list[Measurement], ends: list[SessionEnd]) -> list[Measurement]:
    """Fill each call's residency in place: how many model requests carried its output; returns `rows`.

    The output is carried from its first request until its context's segment ends
    (the session ends or is compacted), unless the session end says exactly how many
    requests carried it (`SessionEnd.carried`, from request logs).
    """
    limits = {(end.session, end.agent): end.requests for end in ends}
    exact = {(end.session, end.agent, call_id): n for end in ends for call_id, n in end.carried}
    for row in rows:
        requests = limits.get((row.session, row.agent))
        carried = exact.get((row.session, row.agent, row.call_id)) if exact else None
        if carried is None and row.request_index is not None and requests and row.segment < len(requests):
            carried = max(0, requests[row.segment] - row.request_index)
        if carried is not None:
            # in place: the rows were just made by measure() and nobody else holds them yet
            # (a dataclasses.replace per call cost more than the rest of this loop)
            object.__setattr__(row, "residency", carried)
    return rows


def measure_menu(menu: ToolMenu, tokenizer: Tokenizer, collector: str) -> MenuMeasurement:
    """Each definition's tokens (its compact JSON, as a client sends it) and the menu's key."""
    tools = []
    whole = hashlib.blake2b(digest_size=16)
    for name, definition in menu.tools:
        text = sanitize(definition)
        key = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
        whole.update(key.encode())
        tools.append((sanitize(name), key, tokenizer.count(text)))
    return MenuMeasurement(menu.source, collector, menu.session, menu.agent, menu.requests,
                           whole.hexdigest(), tuple(tools), menu.global_id)
