"""The Collector interface and the helpers every format shares: guarded lines, content, pairing, usage."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, ClassVar, Generator, Iterable, Iterator

import orjson

from ..model import (FILE_SCOPE, MAIN_AGENT, ORPHAN, PAIRED, UNKNOWN_TOOL, UNPAIRED, ModelText, OutputCap, SessionEnd,
                     SessionInfo, Skipped, ToolCall, ToolMenu, Usage)
from ..registry import Registry
from ..tokenizers import sanitize

# ModelText, Usage, OutputCap, SessionInfo and ToolMenu are optional: collectors yield them where
# the transcript has them
Record = ToolCall | Skipped | SessionEnd | ModelText | Usage | OutputCap | SessionInfo | ToolMenu

# the reading helpers, here too: every collector imports them from base
from . import reading
from .reading import (BOM, COMPRESSED, DECOMPRESS_ERRORS, MAX_DOCUMENT_BYTES, TooDeep, file_stem,  # noqa: F401
                      load_document, loads, open_source, plain_name, pretty_document, raw_lines, read_bytes,
                      read_document, read_lines, _short)


class Collector:
    """Turns one source file into ToolCall, Skipped and SessionEnd records.

    Subclasses set `key` and `description`, answer `sniff_line` (JSONL formats, from
    the first line) or `sniff_doc` (whole-file JSON formats, from the document), and
    implement `collect`. They stream: nothing holds a whole JSONL file in memory.
    `collect` gets `doc` (the parsed document) when the file is read as one document.
    """

    key: ClassVar[str] = ""
    description: ClassVar[str] = ""
    # which shapes it reads: JSON lines (sniffed by the first line), one JSON document
    jsonl: ClassVar[bool] = True
    document: ClassVar[bool] = False
    # True for a format whose texts are parsed again with the standard library (it lets lone
    # surrogates in, orjson does not): its records are always cleaned (see records)
    lenient_text: ClassVar[bool] = False
    # what every report says of this format's numbers, when they are not simply what the model saw
    note: ClassVar[str] = ""
    # True for a format that can go on reading a file that grew from where it stopped: its collect takes
    # `resume` (a checkpoint) and, after a read, sets `checkpoint` = (byte offset, line number, state as
    # plain data: numbers, ids and names, never a text) when the last line it read was whole
    resumable: ClassVar[bool] = False
    checkpoint: tuple | None = None

    @classmethod
    def sniff_line(cls, first: Any) -> bool:
        """True when the first JSON line of a file is in this format."""
        return False

    @classmethod
    def sniff_doc(cls, doc: Any) -> bool:
        """True when a whole-file JSON document is in this format."""
        return False

    @classmethod
    def owns_path(cls, path: Path) -> bool:
        """True when `path`'s place and name alone make it this format's (one piece of a layout the
        collector reads whole): detection then gives it this collector without reading it."""
        return False

    @classmethod
    def walked(cls, files: list[Path]) -> list[Path]:
        """The files a folder walk found, less those this format reads through another one (a
        conversation's other pieces) or that hold no transcript of it."""
        return files

    @classmethod
    def stands_for(cls, path: Path) -> bytes | None:
        """For a file `walked` keeps in the place of others: a digest of the names, sizes and mtimes of
        them all, so that the scan cache sees any of them change; None for a file that stands for itself."""
        return None

    def collect(self, path: Path, doc: Any = None) -> Iterator[Record]:
        """Yield the records of `path` (`doc`: the parsed document, when sniffing had it)."""
        raise NotImplementedError

    def records(self, path: Path, doc: Any = None, resume: tuple | None = None) -> Iterator[Record]:
        """`collect`'s records as they leave the collector: every text in them cleaned (see clean), the secrets in
        their names masked (secrets.redact.named: what every job, report and cache sees); `resume`:
        a checkpoint of this format's (resumable) to go on from."""
        name = str(path)
        # A document parsed before this call (sniffing's) may have been parsed leniently.
        dirty = self.lenient_text or (doc is not None and reading.LENIENT[0] > 0)
        dirty = dirty or (not name.isascii() and sanitize(name) is not name)  # a file name that is not UTF-8
        runs = reading.LENIENT[0]
        from ..secrets.redact import named  # names are data: a secret in a tool, session or model name is masked

        for record in self.collect(path, doc, resume=resume) if resume is not None else self.collect(path, doc):
            # Why only then: cleaning every field of every record was a tenth of a scan, and no
            # text can hold a lone surrogate until the lenient parser has run (see loads). A record
            # is built before it is yielded, so a parse behind it has counted by now; a count
            # moved by another thread only cleans more than needed.
            yield named(clean(record) if dirty or reading.LENIENT[0] != runs else record)


collectors: Registry[type[Collector]] = Registry("collector", "toolaudit.collectors")


def clean(record: Any) -> Any:
    """`record` with every text field, and the texts in its tuples, encodable as UTF-8 (lone surrogates
    become U+FFFD, as outputs are cleaned for counting: tokenizers.sanitize); the record itself when
    nothing needed it. A surrogate in a tool name or session id would otherwise end the run where
    the report is written."""
    changed = {}
    for name in _field_names(type(record)):
        value = getattr(record, name)
        done = _clean_value(value)
        if done is not value:
            changed[name] = done
    return replace(record, **changed) if changed else record


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The field names of a record class, looked up once per class (dataclasses.fields is slow)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(item.name for item in fields(cls))
    return names


def _clean_value(value: Any) -> Any:
    """`value` cleaned (clean); the very same object when it was clean already."""
    if isinstance(value, str):
        # ASCII has no surrogates: checked without encoding (a large output's copy) at all
        return value if value.isascii() else sanitize(value)  # sanitize: the same object when it encodes
    if isinstance(value, tuple):
        items = [_clean_value(v) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else tuple(items)
    return value


DEBUG = False


def shape_problem(source: str, line: int, exc: Exception) -> Skipped:
    """The record for a line or item whose values are not of the types the reader expects."""
    return Skipped(source, line, f"unexpected shape: {type(exc).__name__}: {_short(exc)}")


def guarded(records: Iterable[Record], source: str, line: int) -> Iterator[Record]:
    """`records` (a generator reading one line, item or message) as they come; when odd data
    makes it raise, one Skipped for `line` ends it and the caller goes on with the next one.

    Records yielded before the failure were read in full and are kept; the rest of that line
    or item is what the Skipped reports. State the reader changed stays changed: a call it
    registered is reported later (paired or unpaired), as with a line that is simply cut short.
    `records` must be lazy (a generator), or the failure happens before it gets here.
    """
    try:
        yield from records
    except Exception as exc:  # noqa: BLE001 -- any odd value: one line lost, not the file
        if DEBUG:
            raise
        yield shape_problem(source, line, exc)


def each_line(path: Path, handle: Callable[[Any, int], Iterable[Record]]) -> Generator[Record, None, bool]:
    """Every line of a JSONL file through `handle(obj, line)`, guarded so that one odd line is
    one Skipped; lines that do not parse are passed on as read_lines reports them, and an
    empty file is one benign Skipped (a session just created). Returns whether it was empty."""
    source = str(path)
    empty = True
    for line, obj in read_lines(path):
        empty = False
        if isinstance(obj, Skipped):
            yield obj
        else:
            yield from guarded(handle(obj, line), source, line)
    if empty:
        yield Skipped(source, 0, "empty file", benign=True)
    return empty


def dict_or_empty(value: Any) -> dict:
    """`value` when it is a dict, else {} (a missing or odd-typed object reads as an empty one)."""
    return value if isinstance(value, dict) else {}


def list_or_empty(value: Any) -> list:
    """`value` when it is a list, else []."""
    return value if isinstance(value, list) else []


def str_or_none(value: Any) -> str | None:
    """`value` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def dump_args(args: Any) -> str:
    """Arguments as the model wrote them: strings as-is, objects as compact JSON."""
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    try:
        text = orjson.dumps(args).decode()  # a tenth of json.dumps' time, once per call
    except TypeError:  # a lone surrogate, an int past 64 bits: orjson refuses them
        text = None
    # The two write floats differently (orjson 0.000015, json 1.5e-05) and NaN or infinities (orjson
    # null, json NaN; only the standard library's parse makes them): those go the long way. A float
    # follows `:`, `,` or `[` in compact JSON, so a text with none of those is orjson's to the letter.
    if text is None or text[:1] not in ("{", "[") or "null" in text or _FLOAT_AFTER.search(text):
        return json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    return text


_FLOAT_AFTER = re.compile(r"[:,\[]-?\d+[.eE]")


def image_size(data: str) -> int:
    """Decoded bytes of base64 image data (a data: URL is accepted)."""
    if data.startswith("data:") and "," in data:
        data = data.split(",", 1)[1]
    data = data.strip()
    return len(data) * 3 // 4 - data[-2:].count("=") if data else 0


@dataclass
class Content:
    """Text the model saw plus the images that came with it."""

    text: str = ""
    images: int = 0
    image_bytes: int = 0
    # the tools a `tool_reference` block loaded (Claude Code's ToolSearch): the API puts their
    # definitions into the context, which the transcript does not record; never measured as text
    tool_refs: tuple[str, ...] = ()


def flatten(content: Any) -> Content:
    """Join text parts with "\\n" and count image parts, for every block shape we know.

    Strings stay as they are; lists hold Anthropic blocks (`text`, `image`, `tool_reference`),
    OpenAI parts (`input_text`, `output_text`, `input_image`, `image_url`) or Gemini parts.
    Any other object is what the model got serialized, so it is measured as JSON. A
    `tool_reference` is not text the model read: it loads a tool's definition (`tool_refs`).
    """
    if content is None:
        return Content()
    if isinstance(content, str):
        return Content(content)
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return Content(dump_args(content))
    texts: list[str] = []
    refs: list[str] = []
    out = Content()
    for part in content:
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            texts.append(dump_args(part))
            continue
        kind = part.get("type")
        if kind in ("image", "input_image", "image_url") or "inlineData" in part:
            out.images += 1
            out.image_bytes += _image_part_bytes(part)
        elif kind == "tool_reference":
            name = part.get("tool_name")
            refs.append(name if isinstance(name, str) and name else UNKNOWN_TOOL)
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
        else:
            texts.append(dump_args(part))
    out.text = "\n".join(texts)
    out.tool_refs = tuple(refs)
    return out


def _image_part_bytes(part: dict) -> int:
    src = part.get("source") or part.get("image_url") or part.get("inlineData") or {}
    if isinstance(src, str):
        return image_size(src)
    if not isinstance(src, dict):
        return 0
    data = src.get("data") or src.get("url") or ""
    return image_size(data) if isinstance(data, str) else 0


@dataclass
class _Pending:
    tool: str
    args: str
    line: int
    call_index: int
    agent: str
    ts: str | None
    model: str | None
    cwd: str | None = None


@dataclass
class Pairing:
    """Pairs calls with results by id, within one session of one file.

    `call()` records a call; `result()` returns the finished ToolCall (an orphan
    when the id is unknown); `unpaired()` yields the calls left at the end.
    """

    source: str
    collector: str
    session: str
    id_scope: str = FILE_SCOPE
    pending: dict[str, _Pending] = field(default_factory=dict)
    calls: int = 0

    def call(self, call_id: str, tool: str, args: Any, line: int, *, agent: str = MAIN_AGENT,
             ts: str | None = None, model: str | None = None, cwd: str | None = None) -> None:
        """Remember a call until its result arrives."""
        self.pending[call_id] = _Pending(tool, dump_args(args), line, self.calls, agent, ts, model, cwd)
        self.calls += 1

    def result(self, call_id: str, content: Any, line: int, *, is_error: bool = False,
               request_index: int | None = None, segment: int = 0, ts: str | None = None,
               agent: str | None = None, model: str | None = None) -> ToolCall:
        """The ToolCall for a result; an orphan (tool `unknown`) when its call is missing."""
        seen = flatten(content)
        call = self.pending.pop(call_id, None)
        if call is None:
            index = self.calls
            self.calls += 1
            return ToolCall(
                source=self.source, line=line, collector=self.collector, session=self.session,
                tool=UNKNOWN_TOOL, output=seen.text, call_id=call_id, agent=agent or MAIN_AGENT,
                images=seen.images, image_bytes=seen.image_bytes, is_error=is_error, ts=ts,
                model=model, status=ORPHAN, call_index=index, request_index=request_index,
                segment=segment, id_scope=self.id_scope, tool_refs=seen.tool_refs,
            )
        return ToolCall(
            source=self.source, line=line, collector=self.collector, session=self.session,
            tool=call.tool, output=seen.text, call_id=call_id, agent=agent or call.agent,
            args=call.args, images=seen.images, image_bytes=seen.image_bytes, is_error=is_error,
            ts=ts or call.ts, model=model or call.model, status=PAIRED, call_index=call.call_index,
            request_index=request_index, segment=segment, id_scope=self.id_scope, call_line=call.line,
            tool_refs=seen.tool_refs, cwd=call.cwd,
        )

    def unpaired(self) -> Iterable[ToolCall]:
        """Calls whose result never came, as records with empty output."""
        for call_id, call in self.pending.items():
            yield ToolCall(
                source=self.source, line=call.line, collector=self.collector, session=self.session,
                tool=call.tool, output="", call_id=call_id, agent=call.agent, args=call.args,
                ts=call.ts, model=call.model, status=UNPAIRED, call_index=call.call_index,
                id_scope=self.id_scope, cwd=call.cwd,
            )
        self.pending.clear()


def count(value: Any) -> int:
    """A token count as recorded: a positive int, else 0 (missing, null, a bool, a string...)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _anthropic_one(usage: dict) -> tuple[int, int, int, int, int]:
    """(uncached input, cache write, cache read, output, 1-hour write) of one usage object or iteration.

    The cache write is the larger of `cache_creation_input_tokens` and its breakdown by lifetime
    (`cache_creation.ephemeral_5m/1h_input_tokens`): current Claude Code writes 0 beside a 1-hour breakdown.
    """
    creation = usage.get("cache_creation")
    five, hour = ((count(creation.get("ephemeral_5m_input_tokens")), count(creation.get("ephemeral_1h_input_tokens")))
                  if isinstance(creation, dict) else (0, 0))
    return (count(usage.get("input_tokens")), max(count(usage.get("cache_creation_input_tokens")), five + hour),
            count(usage.get("cache_read_input_tokens")), count(usage.get("output_tokens")), hour)


def anthropic_steps(usage: dict) -> list[tuple[str, tuple[int, int, int, int, int]]]:
    """Each sampling step billed for one Anthropic request: (step name, its numbers as _anthropic_one gives).

    The request's own step comes first, named "". A request that compacted lists its steps in
    `usage.iterations` (a "compaction", then the "message"), and its top-level numbers are the
    message's only: the message step stands for the request (its numbers, or the top level's when
    no step is the message), each other step is a step of its own (`compaction1`...), billed apart.
    """
    steps = usage.get("iterations")
    steps = [step for step in steps if isinstance(step, dict)] if isinstance(steps, list) else []
    message = next((step for step in steps if step.get("type") == "message"), None)
    out = [("", _anthropic_one(message if message is not None else usage))]
    for k, step in enumerate(steps):
        numbers = _anthropic_one(step)
        if step is not message and any(numbers):  # a step of nothing bills nothing
            kind = step.get("type") if isinstance(step.get("type"), str) else "step"
            out.append((f"{kind}{k}", numbers))
    return out


def anthropic_1h(usage: dict) -> int:
    """The 1-hour part of an Anthropic request's cache writes (`cache_creation.ephemeral_1h_input_tokens`)."""
    return anthropic_steps(usage)[0][1][4]


def anthropic_parts(usage: dict) -> tuple[int, int, int, int]:
    """(uncached input, cache write, cache read, output) of an Anthropic request (its message step).

    Anthropic's `input_tokens` already excludes cache reads and writes.
    """
    return anthropic_steps(usage)[0][1][:4]


def openai_parts(usage: dict) -> tuple[int, int, int, int]:
    """(uncached input, cache write, cache read, output) from an OpenAI-style usage object.

    OpenAI's prompt/input tokens include the cached ones (`prompt_tokens_details.cached_tokens`,
    `input_tokens_details.cached_tokens`, Codex `cached_input_tokens`); litellm's
    `cache_creation_input_tokens` for Anthropic models is a cache write.
    """
    total = count(usage.get("prompt_tokens")) or count(usage.get("input_tokens"))
    details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
    cached = count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    cached = cached or count(usage.get("cached_input_tokens")) or count(usage.get("cache_read_input_tokens"))
    write = count(usage.get("cache_creation_input_tokens"))
    output = count(usage.get("completion_tokens")) or count(usage.get("output_tokens"))
    return max(total - cached - write, 0), write, cached, output
