"""Claude Code's Read: numbered lines, the malware reminder, the size and token errors."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ...base import Outcome
from ..base import Call, register, version_tuple
from .common import (
    AGENT,
    BINARY_EXTENSIONS,
    COMMON_PARAMS,
    ESTIMATED,
    IMAGE_EXTENSIONS,
    JSON_TOKENS,
    MALWARE_REMINDER,
    MAX_READ_BYTES,
    MAX_READ_TOKENS,
    MODEL_REMINDER,
    NEWEST,
    NO_REMINDER_MODELS,
    STREAM_CHUNK,
    STREAM_READ,
    STREAM_THRESHOLD,
    TOO_BIG_HINT,
    VERSIONS,
    Answer,
    Context,
    Persisting,
    Place,
    error_answer,
    failed_answer,
    finish,
    int_param,
    invalid_answer,
    place_of,
    refuse,
    truthy,
)
from .versions import CWD_NOTE, FILE_UNCHANGED, NEW_HINT, NEW_TOO_BIG_HINT, NO_REMINDER, REMINDER_ALLOWLIST, REMINDER_MODELS, TAB_PREFIX, \
    BLANK_WINDOW, PARTIAL_VIEW, is_unchanged_stub
from .js import (
    MISSING,
    js_len,
    js_round,
    js_text,
    node_basename,
    node_extname,
    size_text,
)

# --- Read --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Lines:
    """The lines a Read selected: their text joined by `\\n` (None past the keep limit), its length, how many
    lines were selected and how many the file has."""

    content: str | None
    length: int  # in UTF-16 code units, as the size check counted
    count: int
    total: int  # -1 when not counted: only the empty-window warnings print it


def read_window(path: Path, first: int, limit: int | None, streamed: bool, keep: int) -> _Lines:
    """Lines `first` to `first + limit` (0-based) of a file as Claude Code split it, read line by line.

    Both readers decode UTF-8 with U+FFFD and drop one `\\r` before each `\\n`; the streaming reader (2.1.41
    on) also drops a leading BOM and a `\\r` ending the last line. Text past `keep` characters is only counted;
    reading stops after the window once its text is known not to be empty.
    """
    end = math.inf if limit is None else first + limit
    parts: list[str] = []
    length = count = 0
    index, complete = -1, True
    with path.open("rb") as handle:
        for index, raw in enumerate(handle):
            complete = raw.endswith(b"\n")
            line = raw[:-1] if complete else raw
            if line.endswith(b"\r") and (complete or streamed):
                line = line[:-1]
            if index == 0 and streamed and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if first <= index < end:
                text = line.decode("utf-8", "replace")
                length += js_len(text) + (1 if count else 0)
                count += 1
                if length <= keep:
                    parts.append(text)
            elif index >= end and (count > 1 or any(parts)):
                return _Lines("\n".join(parts) if length <= keep else None, length, count, -1)
    if complete:  # the empty piece after a final newline (the only piece of an empty file)
        index += 1
        if first <= index < end:
            length += 1 if count else 0
            count += 1
            parts.append("")
    return _Lines("\n".join(parts) if length <= keep else None, length, count, index + 1)


def numbered(content: str, start: int, tab: bool = False) -> str:
    """Read's numbering: the line number right-aligned in 6 columns and `→` (before TAB_PREFIX), else the
    number and a tab (`N\\t`, what 2.1.86 on print unless their killswitch flag is on)."""
    lines = enumerate(re.split(r"\r?\n", content), start)
    if tab:
        return "\n".join(f"{number}\t{line}" for number, line in lines)
    return "\n".join(f"{number:>6}→{line}" for number, line in lines)


_TOKEN_CAP = re.compile(r"File content \(\d+ tokens\) exceeds maximum allowed tokens \((\d+)\)")
_NUMBERED = re.compile(r" *(\d+)[→\t](.*)")
LEARN_LINES = 2000  # a Read of this many lines may have been cut by an older version's default limit
LEARN_WIDTH = 2000  # a line this long may have been clipped


def whole_text(output: str, args: dict) -> str | None:
    """The file's text as a recorded Read of all of it shows it, or None when the output is not that (a range,
    an error, a preview, a listing that may have been cut). The inverse of `numbered` and the reminder: a last
    newline is there as an empty last line; `\r\n` endings are not shown."""
    if args.get("offset") not in (None, 1, "1") or args.get("limit") is not None:  # offset 0 numbers from 0
        return None
    body = output.removesuffix(MALWARE_REMINDER)
    if body.startswith("<") or not body:
        return None
    lines = []
    for number, line in enumerate(body.split("\n"), 1):
        found = _NUMBERED.fullmatch(line)
        if found is None or int(found.group(1)) != number or len(found.group(2)) >= LEARN_WIDTH:
            return None
        lines.append(found.group(2))
    return None if len(lines) >= LEARN_LINES else "\n".join(lines)


def reminder_seen(recorded: str, version: str | None) -> str | None:
    """"on"/"off": whether a recorded listing ends with the malware reminder, for the versions that decide it by the
    main loop's model *setting* (MODEL_REMINDER to NO_REMINDER: `--model`, `/model`, settings' `model` or the
    account's default, resolved by cli.js's own alias table), which no transcript records: the responses' model
    differs from it (an alias, `opusplan`, an SDK's override). None: not a listing, or a version whose rule is
    known without it."""
    if not MODEL_REMINDER <= version_tuple(version) < NO_REMINDER:
        return None
    first = recorded.split("\n", 1)[0]
    if not first or first.startswith("<") or _NUMBERED.fullmatch(first) is None:
        return None
    return "on" if recorded.endswith(MALWARE_REMINDER) else "off"


def estimated_tokens(text: str, model: str | None) -> int:
    """Claude's count of `text` as the count_tokens API gave it, estimated offline (o200k x the model's factor)."""
    from ....tokenizers import get_tokenizer

    return get_tokenizer("claude").count_for(text, model)


@register
class Read(Persisting):
    """Claude Code's Read: a text file numbered line by line, with the version's errors and reminders."""

    agent = AGENT
    tool = "Read"
    newest = NEWEST
    own = ("reminder", "max_tokens", "max_bytes", "start_cwd", "unchanged", "prefix")
    versions = VERSIONS
    params: ClassVar[dict[str, str]] = {
        "file_path": "read this file instead of the recorded one", "offset": "first line (1-based)",
        "limit": "number of lines",
        "reminder": "on/off: force the malware <system-reminder> (default: the version's rule)",
        "max_tokens": f"the token limit (default {MAX_READ_TOKENS}; identity takes the one a recorded token error "
                      "names: an environment variable or a remote flag set it, not the version)",
        "max_bytes": f"the size limit (default {MAX_READ_BYTES})",
        "start_cwd": "the session's first working folder (a missing file's error names the current one when they differ)",
        "unchanged": "the stub an unchanged re-read printed (2.1.86 on; identity takes the recorded one: which reads "
                     "Claude Code remembered is not in the transcript)",
        "prefix": "arrow or tab: the line numbering (default: the version's, tab from 2.1.86)",
        **COMMON_PARAMS,
    }

    def from_recording(self, recorded: str, call: Call) -> dict[str, str]:
        """The saved path of a persisted output, the stub of an unchanged re-read (2.1.86 on), and whether a
        listing ended with the malware reminder where the version decides it by the main loop's model setting."""
        found = super().from_recording(recorded, call)
        if is_unchanged_stub(recorded):
            return {**found, "unchanged": recorded}
        seen = reminder_seen(recorded, call.version)
        found = {**found, "reminder": seen} if seen else found
        cap = _TOKEN_CAP.search(recorded[:200])  # CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS or a remote flag set it
        return {**found, "max_tokens": cap.group(1)} if cap else found

    def answer(self, ctx: Context) -> Outcome:
        """The text Claude Code showed for this Read."""
        place = place_of(ctx, ctx.arg("file_path"))
        stub = ctx.call.params.get("unchanged")
        if stub and is_unchanged_stub(stub) and ctx.at_least(FILE_UNCHANGED) and place.real.is_file():
            return Outcome(output=stub)
        if ctx.arg("pages") is not MISSING:
            return refuse("Read with pages (PDF pages as images) is not emulated")
        extension = node_extname(place.shown).lower()
        if not ctx.at_least(STREAM_READ):
            self._validate_legacy(ctx, place, extension)
        elif extension[1:] in BINARY_EXTENSIONS:
            return invalid_answer(_binary_message(extension))
        elif not place.real.exists() and not _not_a_folder(place):  # 2.1.41 on: thrown while reading, not wrapped
            return error_answer(_missing_message(ctx, place))
        self._refuse_media(extension)
        lines = self._lines(ctx, place)
        self._check_tokens(ctx, lines.content, extension)
        return finish(ctx, "Read", self._text(ctx, lines))

    def _validate_legacy(self, ctx: Context, place: Place, extension: str) -> None:
        """Before 2.1.41 validateInput checked existence, binary extensions and the size (wrapped errors)."""
        if not place.real.exists():
            raise Answer(invalid_answer(_missing_message(ctx, place)))
        if extension[1:] in BINARY_EXTENSIONS:
            raise Answer(invalid_answer(_binary_message(extension)))
        size = place.real.stat().st_size
        if size == 0 and extension[1:] in IMAGE_EXTENSIONS:
            raise Answer(invalid_answer("Empty image files cannot be processed."))
        ranged = truthy(ctx.arg("offset")) or truthy(ctx.arg("limit"))
        if extension[1:] not in IMAGE_EXTENSIONS | {"ipynb", "pdf"} and size > _max_bytes(ctx) and not ranged:
            raise Answer(invalid_answer(f"File content ({size_text(size)}) exceeds maximum allowed size "
                                   f"({size_text(_max_bytes(ctx))}). {_hint(ctx)}"))

    def _refuse_media(self, extension: str) -> None:
        """Images, PDFs and notebooks became image, document or cell blocks: not emulated."""
        if extension[1:] in IMAGE_EXTENSIONS or extension in (".pdf", ".ipynb"):
            raise Answer(refuse(f"Read of a {extension} file (image, PDF or notebook blocks) is not emulated"))

    def _lines(self, ctx: Context, place: Place) -> _Lines:
        """The selected lines, or the error the version raised reading them (thrown: not wrapped)."""
        limit = _whole_number(ctx.arg("limit"), "limit")
        offset = _whole_number(_start_line(ctx), "offset")
        streamed = ctx.at_least(STREAM_READ)
        if _not_a_folder(place):
            raise Answer(error_answer(f"ENOTDIR: not a directory, {'stat' if streamed else 'open'} '{ctx.show(place.shown)}'"))
        if place.real.is_dir():
            where = f" '{ctx.show(place.shown)}'" if streamed else ""  # the 2.1.41 reader names the folder (Windows: D:\\…)
            raise Answer(error_answer(f"EISDIR: illegal operation on a directory, read{where}"))
        if streamed and limit is None and place.real.stat().st_size > _max_bytes(ctx):
            # only without a limit; a file read as a stream fails at its first 512 KiB chunk, reporting that
            size = place.real.stat().st_size
            seen = size if size < STREAM_THRESHOLD else STREAM_CHUNK
            raise Answer(error_answer(f"File content ({size_text(seen)}) exceeds maximum allowed size "
                                 f"({size_text(_max_bytes(ctx))}). {_hint(ctx)}"))
        keep = max(_max_bytes(ctx), ctx.call.sandbox.max_output_bytes)
        lines = read_window(place.real, 0 if offset == 0 else offset - 1, limit, streamed, keep)
        if not streamed and lines.length > _max_bytes(ctx):  # before 2.1.41 the selected text was measured
            raise Answer(error_answer(f"File content ({size_text(lines.length)}) exceeds maximum allowed "
                                 f"size ({size_text(_max_bytes(ctx))}). {_hint(ctx)}"))
        if lines.content is None:
            raise Answer(failed_answer(f"the lines read pass {keep} characters: too large to emulate"))
        return lines

    def _check_tokens(self, ctx: Context, content: str, extension: str) -> None:
        """The token limit: a rough count (chars / 4) decides whether Claude's real count is asked for."""
        limit = int_param(ctx, "max_tokens", MAX_READ_TOKENS)
        per_token = 2 if ctx.at_least(JSON_TOKENS) and extension in (".json", ".jsonl", ".jsonc") else 4
        rough = js_round(js_len(content) / per_token)
        if not rough or rough <= limit / 4:
            return
        tokens = estimated_tokens(content, _model(ctx))
        whole = ctx.arg("limit") is MISSING and _start_line(ctx) in (0, 1)
        if tokens > limit and ctx.at_least(PARTIAL_VIEW) and whole:
            raise Answer(refuse("a whole-file Read over the token cap (a partial view from 2.1.162, cut by the "
                                "API's count) is not emulated"))
        if tokens > limit:
            text = f"File content ({tokens} tokens) exceeds maximum allowed tokens ({limit}). {_hint(ctx)}"
            raise Answer(Outcome(output=text, is_error=True, reason=ESTIMATED))

    def _text(self, ctx: Context, lines: _Lines) -> str:
        """mapToolResultToToolResultBlockParam of a text file."""
        start = _start_line(ctx)
        if lines.content:
            return numbered(lines.content, int(start), _tab(ctx)) + (MALWARE_REMINDER if _reminder(ctx) else "")
        empty = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
        if ctx.at_least(BLANK_WINDOW):  # numLines >= 1 && totalLines > 1: the blank lines numbered
            if lines.count >= 1 and lines.total > 1:
                return f"{js_text(start)}\t"
            if lines.count >= 1 or lines.total == 0:
                return empty
        elif lines.total == 0:
            return empty
        return (f"<system-reminder>Warning: the file exists but is shorter than the provided offset "
                f"({js_text(start)}). The file has {lines.total} lines.</system-reminder>")


def _start_line(ctx: Context) -> Any:
    """The offset as recorded (1 when absent): the first line's number, even when it is 0."""
    offset = ctx.arg("offset")
    return 1 if offset is MISSING else offset


def _whole_number(value: Any, name: str) -> int | None:
    """A recorded offset or limit: None when absent; a fraction or a negative number is not emulated (JS's
    slice and its numbering of such lines were never seen in a recording)."""
    if value is MISSING:
        return None
    if value < 0 or value != int(value):
        raise Answer(refuse(f"Read with {name} {js_text(value)} (negative or fractional) is not emulated"))
    return int(value)


def _not_a_folder(place: Place) -> bool:
    """Whether a folder on the path is a file (Node's ENOTDIR)."""
    parent = place.real.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return parent.exists() and not parent.is_dir()


def _hint(ctx: Context) -> str:
    """What the size and token errors advise, as the version worded it."""
    return NEW_TOO_BIG_HINT if ctx.at_least(NEW_HINT) else TOO_BIG_HINT


def _max_bytes(ctx: Context) -> int:
    return int_param(ctx, "max_bytes", MAX_READ_BYTES)


def _model(ctx: Context) -> str | None:
    """The session's model: ?model=, else the call's own when the seam records one."""
    return ctx.call.params.get("model") or getattr(ctx.call, "model", None)


def _tab(ctx: Context) -> bool:
    """Whether lines are numbered `N\\t` (TAB_PREFIX on, or ?prefix=tab) rather than `%6d→`."""
    forced = ctx.call.params.get("prefix", "").strip().lower()
    return forced == "tab" if forced in ("tab", "arrow") else ctx.at_least(TAB_PREFIX)


def _reminder(ctx: Context) -> bool:
    """Whether the malware reminder follows the file: always before 2.1.39, then unless the main loop's model is
    Opus 4.6 (a subagent's Read follows the session's model, not its own: cli.js tests the main loop model); from
    2.1.92 only for the older models of REMINDER_MODELS; never from NO_REMINDER."""
    forced = ctx.call.params.get("reminder", "").strip().lower()
    if forced:
        return forced in ("on", "true", "1", "yes")
    if not ctx.at_least(MODEL_REMINDER):
        return True
    if ctx.at_least(NO_REMINDER):
        return False
    model = ctx.call.params.get("model") or getattr(ctx.call, "main_model", None) or _model(ctx)
    if ctx.at_least(REMINDER_ALLOWLIST):
        return _model_family(model or "") in REMINDER_MODELS
    return _model_family(model or "") not in NO_REMINDER_MODELS


def _model_family(model: str) -> str:
    """Claude Code's model name normalisation (a date or `[1m]` suffix dropped)."""
    for family in ("claude-opus-4-7", "claude-opus-4-6", "claude-opus-4-5", "claude-opus-4-1", "claude-opus-4",
                   "claude-sonnet-4-6", "claude-sonnet-4-5", "claude-sonnet-4", "claude-haiku-4-5"):
        if family in model:
            return family
    found = re.search(r"(claude-(\d+-\d+-)?\w+)", model)
    return found.group(1) if found else model


def _binary_message(extension: str) -> str:
    return (f"This tool cannot read binary files. The file appears to be a binary {extension} file. "
            "Please use appropriate tools for binary file analysis.")


def _missing_message(ctx: Context, place: Place) -> str:
    """"File does not exist.", the working folder when the session had left its first one (?start_cwd=),
    and a sibling of the same stem suggested, as Claude Code looked one up."""
    text = "File does not exist."
    start = ctx.call.params.get("start_cwd") or ctx.cwd
    if ctx.at_least(CWD_NOTE):  # always, and with a full stop
        text += f" Note: your current working directory is {ctx.show(ctx.here)}."
    elif start.rstrip("/") != ctx.here:
        text += f" Current working directory: {ctx.here}"
    suggestion = _similar_file(place)
    return text + (f" Did you mean {suggestion}?" if suggestion else "")


def _similar_file(place: Place) -> str | None:
    """The first entry of the file's folder with the same name but another extension (readdir order: sorted)."""
    folder = place.real.parent
    stem = node_basename(place.shown, node_extname(place.shown))
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    for name in names:
        if node_basename(name, node_extname(name)) == stem and name != place.real.name:
            return name
    return None
