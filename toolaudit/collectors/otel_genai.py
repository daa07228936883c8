"""OpenTelemetry GenAI spans in OTLP/JSON (formats.md §8): one document, or JSONL of documents.

`{"resourceSpans": [{"scopeSpans": [{"spans": [{traceId, spanId, parentSpanId, name,
startTimeUnixNano, attributes: [{key, value: {stringValue|intValue|...}}], status}]}]}]}`
(the collector's file exporter writes one such document per line; intValue is a string).
Spans are read by `gen_ai.operation.name` (GenAI semantic conventions, Development status):
- `execute_tool`: one call. gen_ai.tool.name, gen_ai.tool.call.id (else the span id) and
  gen_ai.tool.call.arguments; gen_ai.tool.call.result is opt-in, and a span without it is
  reported unpaired (its output was not captured), never as an empty output. Status ERROR
  (code 2) or an `error.type` attribute marks an error.
- `chat` (`text_completion`, `generate_content`): one model request. gen_ai.usage.input_tokens
  (which SHOULD include cache reads and writes), cache_read.input_tokens, cache_creation
  (newer: cache_write).input_tokens, output_tokens and reasoning.output_tokens give its Usage
  (the old names prompt_tokens / completion_tokens are read too); request_id is
  gen_ai.response.id (the provider's, deduplicated scan-wide), else the span id (within the file).
A session is gen_ai.conversation.id when a span of the trace has one (several traces may
share it), else the traceId. Requests are ordered by start time; a tool's output is first
carried by the first request that starts after the tool span does.
A trace can be spread over lines (exporters write batches), so slim records of the GenAI
spans are kept to the end of the file; nothing else of it is held. `line` is the span's line.
A span whose values are not of the expected types is one Skipped record (`unexpected shape: ...`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ..model import SessionEnd, Skipped, Usage
from .base import Collector, Pairing, Record, collectors, guarded, openai_parts, each_line

KEY = "otel-genai"
_TOOL = "execute_tool"
_REQUESTS = frozenset({"chat", "text_completion", "generate_content"})


@dataclass
class _Span:
    """What toolaudit needs of one GenAI span."""

    trace: str
    span: str
    op: str
    start: int
    line: int
    attrs: dict
    error: bool


def _value(value: Any) -> Any:
    """An OTLP AnyValue as Python; intValue arrives as a string in OTLP/JSON."""
    if not isinstance(value, dict):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return None
    values = value["arrayValue"].get("values") if isinstance(value.get("arrayValue"), dict) else None
    return [_value(v) for v in values] if isinstance(values, list) else None


def _attributes(items: Any) -> dict:
    """The gen_ai.* and error.type attributes of a span."""
    out = {}
    for item in items if isinstance(items, list) else []:
        key = item.get("key") if isinstance(item, dict) else None
        if isinstance(key, str) and (key.startswith("gen_ai.") or key == "error.type"):
            out[key] = _value(item.get("value"))
    return out


def _nanos(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: Infinity (the stdlib parser reads it)
        return 0


def _iso(nanos: int) -> str | None:
    try:
        return datetime.fromtimestamp(nanos / 1e9, timezone.utc).isoformat() if nanos > 0 else None
    except (OverflowError, OSError, ValueError):  # a time no clock can show
        return None


def _int(attrs: dict, *keys: str) -> int:
    return next((attrs[k] for k in keys if isinstance(attrs.get(k), int) and not isinstance(attrs[k], bool)), 0)


def _model(attrs: dict) -> str | None:
    model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
    return model if isinstance(model, str) and model else None


def _is_otlp(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("resourceSpans"), list)


class _File:
    """The GenAI spans of one file and which conversation each trace belongs to."""

    def __init__(self, source: str):
        self.source = source
        self.spans: list[_Span] = []
        self.conversation: dict[str, str] = {}

    def read(self, doc: Any, line: int) -> Iterator[Skipped]:
        """Keep the GenAI spans of one OTLP document; report what cannot be read."""
        if not _is_otlp(doc):
            yield Skipped(self.source, line, "not an OTLP/JSON document: no resourceSpans list")
            return
        for resource in doc["resourceSpans"]:
            scopes = resource.get("scopeSpans") if isinstance(resource, dict) else None
            for scope in scopes if isinstance(scopes, list) else []:
                spans = scope.get("spans") if isinstance(scope, dict) else None
                if not isinstance(spans, list):
                    yield Skipped(self.source, line, "scopeSpans entry without a spans list")
                    continue
                for span in spans:
                    yield from guarded(self._span(span, line), self.source, line)

    def _span(self, span: Any, line: int) -> Iterator[Skipped]:
        if not isinstance(span, dict):
            yield Skipped(self.source, line, f"expected a span object, got {type(span).__name__}")
            return
        attrs = _attributes(span.get("attributes"))
        op, trace = attrs.get("gen_ai.operation.name"), span.get("traceId")
        op = op if isinstance(op, str) else None
        if not attrs:
            return  # not a GenAI span
        if not isinstance(trace, str) or not trace:
            yield Skipped(self.source, line, "GenAI span without a traceId")
            return
        if isinstance(attrs.get("gen_ai.conversation.id"), str) and attrs["gen_ai.conversation.id"]:
            self.conversation.setdefault(trace, attrs["gen_ai.conversation.id"])
        if op == _TOOL or op in _REQUESTS:
            status = span.get("status")
            code = status.get("code") if isinstance(status, dict) else None
            error = code in (2, "STATUS_CODE_ERROR") or "error.type" in attrs
            ident = span["spanId"] if isinstance(span.get("spanId"), str) else ""
            self.spans.append(_Span(trace, ident, op, _nanos(span.get("startTimeUnixNano")), line, attrs, error))

    def records(self) -> Iterator[Record]:
        """Every session's calls, usage and request count, in start-time order."""
        sessions: dict[str, list[_Span]] = {}
        for span in self.spans:
            sessions.setdefault(self.conversation.get(span.trace, span.trace), []).append(span)
        for session, spans in sessions.items():
            spans.sort(key=lambda s: (s.start, s.line))
            starts = [s.start for s in spans if s.op in _REQUESTS]
            pairing = Pairing(self.source, KEY, session)
            requests, model = 0, None
            for span in spans:
                if span.op in _REQUESTS:
                    model = _model(span.attrs) or model  # the model that asked for the next tools
                    yield from guarded(self._usage(span, session, requests), self.source, span.line)
                    requests += 1
                else:
                    yield from guarded(self._call(span, pairing, bisect_right(starts, span.start), model),
                                       self.source, span.line)
            yield from pairing.unpaired()
            yield SessionEnd(self.source, session, (requests,))

    def _usage(self, span: _Span, session: str, index: int) -> Iterator[Usage]:
        a = span.attrs
        parts = openai_parts({
            "input_tokens": _int(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
            "output_tokens": _int(a, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
            "cached_input_tokens": _int(a, "gen_ai.usage.cache_read.input_tokens"),
            "cache_creation_input_tokens": _int(a, "gen_ai.usage.cache_creation.input_tokens",
                                                "gen_ai.usage.cache_write.input_tokens"),
        })
        if any(parts):
            rid = a.get("gen_ai.response.id")
            rid = rid if isinstance(rid, str) and rid else None
            # the provider's response id is unique across files; a span id is only known unique in its trace
            yield Usage(self.source, span.line, KEY, session, rid or span.span,
                        _model(a), *parts, ts=_iso(span.start), request_index=index,
                        reasoning=_int(a, "gen_ai.usage.reasoning.output_tokens"), global_id=rid is not None)

    def _call(self, span: _Span, pairing: Pairing, index: int, model: str | None) -> Iterator[Record]:
        a = span.attrs
        name = a.get("gen_ai.tool.name")
        call_id = a.get("gen_ai.tool.call.id")
        call_id = call_id if isinstance(call_id, str) and call_id else span.span
        pairing.call(call_id, name if isinstance(name, str) and name else "unknown",
                     a.get("gen_ai.tool.call.arguments"), span.line, ts=_iso(span.start), model=model)
        if "gen_ai.tool.call.result" in a:  # opt-in: without it the call stays unpaired
            yield pairing.result(call_id, a["gen_ai.tool.call.result"], span.line, is_error=span.error,
                                 request_index=index)


@collectors.register
class OtelGenAICollector(Collector):
    """OpenTelemetry GenAI spans (execute_tool, chat) in OTLP/JSON, one document or JSONL."""

    key = KEY
    description = "OpenTelemetry GenAI spans in OTLP/JSON (execute_tool, chat usage), document or JSONL"
    jsonl = True
    document = True

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """An OTLP/JSON traces document per line."""
        return _is_otlp(first)

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """An OTLP/JSON traces document."""
        return _is_otlp(doc)

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Records of the file, once every span has been read."""
        state = _File(str(path))
        if doc is not None:
            yield from state.read(doc, 1)
        else:
            yield from each_line(path, state.read)
        yield from state.records()
