"""OpenHands' read-only tools, emulated as each release printed them [src OpenHands/openhands-aci,
OpenHands/software-agent-sdk].

- `str_replace_editor` `view` (V0 runtime, openhands-aci): measured is the observation's `content`: the
  editor's text, or `ERROR:\\n{message}` (a read observation: not flagged an error), a binary file the
  runtime's `ERROR_BINARY_FILE` error. `Call.version` is the OpenHands release, mapped to the aci it
  locked (poetry.lock): 0.23-0.32 aci 0.2.0-0.2.8, 0.33-0.35 0.2.10, 0.36-0.40 0.2.11-0.2.14, 0.41-0.48 0.3.0,
  0.49-0.54 0.3.1, from 0.55 0.3.2 (None: 0.3.2). Before aci 0.2.10 (bcd2da1) a view_range's last newline
  showed one more, empty, numbered line; before 0.2.11 (f0c73a0) tabs were expanded; before 0.3.2 (8fc0592)
  an end past the file was an error, since then a `NOTE:` line. Hidden entries counted from 0.1.7,
  folders sorted from 0.1.8, a `/` after folders from 0.1.9.
- `file_editor` `view` (V1, openhands-tools): measured as the openhands-v1 collector measures the
  observation (an error behind `[An error occurred during execution.]`). `Call.version` is the SDK's
  (None: 1.58.2): images shown from 1.1.0 (488806ed5); folders listed by Python, each folder's children
  after it, from 1.19.1 (87183e3f4, before: `find | sort`); from 1.54.0 a file's last newline no longer
  shows an empty numbered line.
- `terminal` / `execute_bash` (V1): a read-only command run by the allow-listed interpreter of
  shell_readonly, rendered with the exit-code suffix and the working-directory line; a V0 release
  (`Call.version` < 1) measures the output alone.
Line numbers are `{n:6}\\t{line}`; text over 16,000 characters is cut with the editor's notice. Not emulated:
PDF/Office files converted to Markdown (aci 0.3.0+), non-UTF-8 files (refused: the editor guesses their
encoding), binaryornot's chardet step (approximated), the terminal's tty (programs print as to a pipe: `ls` one name a line).
"""

from __future__ import annotations

import base64
import os
import posixpath
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import ClassVar

from ...collectors.base import flatten
from ...collectors.openhands_v1_seen import MAX_CMD_OUTPUT_SIZE, clip, observation_seen
from ..base import FAILED, REFUSED, Outcome
from ..sandbox import OutsideWorkspace, resolve
from .base import Call, Emulation, register, version_tuple

AGENT = "openhands"
MAX_CHARS = 16000
TEXT_NOTICE = ("<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. "
               "You should retry this tool after you have searched inside the file with `grep -n` in order to find "
               "the line numbers of what you are looking for.</NOTE>")
DIR_NOTICE = ("<response clipped><NOTE>Due to the max output limit, only part of this directory has been shown to "
              "you. You should use `ls -la` instead to view large directories incrementally.</NOTE>")
# OpenHands release -> the openhands-aci its poetry.lock held (OpenHands/OpenHands tags)
ACI_OF_RELEASE = (((0, 55), (0, 3, 2)), ((0, 49), (0, 3, 1)), ((0, 41), (0, 3, 0)), ((0, 36), (0, 2, 11)),
                  ((0, 33), (0, 2, 10)), ((0, 23), (0, 2, 0)), ((0, 22), (0, 1, 9)), ((0, 20), (0, 1, 8)),
                  ((0, 19), (0, 1, 6)), ((), (0, 1, 5)))
ACI_NEWEST, SDK_NEWEST = (0, 3, 2), (1, 58, 2)
IMAGES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}
CONVERTED = {".docx", ".xlsx", ".pptx", ".pdf", ".mp3", ".wav", ".m4a", ".flac"}  # aci 0.3.0+: to Markdown
MIMES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
         ".webp": "image/webp", ".bmp": "image/bmp"}


class ViewError(Exception):
    """The editor's ToolError: the message the model got."""


@dataclass(frozen=True)
class Style:
    """What differs between the editor's releases."""

    sdk: bool  # the V1 SDK's FileEditor (else openhands-aci in the V0 runtime)
    version: tuple  # the aci's or the SDK's version
    ranged: str  # a view_range's text before numbering: "raw" (aci <0.2.10), "splitlines", "split" (SDK 1.54)
    expand_tabs: bool
    clamp_end: bool  # an end past the file becomes a NOTE (aci 0.3.2, the SDK); before, an error
    grouped: bool  # SDK 1.19.1+: Python lists each folder's children after it; before, `find | sort`
    blank_last: bool  # a final newline shows an empty numbered line (all but SDK 1.54+)


def style_of(call: Call, sdk: bool) -> Style:
    """The editor release a call's version names (`?version=` overrides it)."""
    given = version_tuple(call.params.get("version") or call.version)
    if sdk:
        v = given if given >= (1,) else SDK_NEWEST
        return Style(True, v, "split" if v >= (1, 54) else "splitlines", False, True, v >= (1, 19, 1), v < (1, 54))
    aci = version_tuple(call.params.get("aci")) or (
        next(a for r, a in ACI_OF_RELEASE if given >= r) if given and given < (1,) else ACI_NEWEST)
    ranged = "splitlines" if aci >= (0, 2, 10) else "raw"
    return Style(False, aci, ranged, aci < (0, 2, 11), aci >= (0, 3, 2), False, True)


# ------------------------------------------------------------------ the view command

class _View:
    """One `view` call: the path as the agent named it, and the same file in the replay folder."""

    def __init__(self, call: Call, style: Style):
        self.call, self.style = call, style
        self.root = call.root.resolve()
        self.cwd = posixpath.normpath(call.cwd or str(self.root))

    def real(self, shown: str) -> Path:
        """The replay folder's file for an absolute path the agent printed; OutsideWorkspace when outside."""
        norm = posixpath.normpath(shown)
        if norm != self.cwd and not norm.startswith(self.cwd.rstrip("/") + "/"):
            raise OutsideWorkspace(shown)
        return resolve(self.root, posixpath.relpath(norm, self.cwd))

    def text(self) -> str:
        """The editor's output for the call; ViewError with its message."""
        path, span = self.call.args.get("path"), self.call.args.get("view_range")
        if not isinstance(path, str):
            raise ViewError(f"Parameter `path` is required for command: {self.call.args.get('command')}.")
        path = str(PurePosixPath(path))  # the editor prints Path(path): no trailing or doubled slash
        if not path.startswith("/"):
            raise ViewError(self._relative(path))
        real = self.real(path)
        if not real.exists():
            raise ViewError(f"Invalid `path` parameter: {path}. The path {path} does not exist. "
                            "Please provide a valid path.")
        if real.is_dir():
            if span:
                raise ViewError(f"Invalid `view_range` parameter: {span}. The `view_range` parameter is not "
                                "allowed when `path` points to a directory.")
            return self.listing(path)
        if real.suffix.lower() in CONVERTED and not self.style.sdk and self.style.version >= (0, 3, 0):
            raise _NotReplayable(f"{real.suffix} files are converted to Markdown: not replayable yet")
        size = real.stat().st_size
        if size > 10 * 1024 * 1024:
            raise ViewError(f"File validation failed for {path}: File is too large ({size / 1024 / 1024:.1f}MB). "
                            "Maximum allowed size is 10MB.")
        if is_binary(real):
            raise ViewError(f"File validation failed for {path}: File appears to be binary and this file type "
                            "cannot be read or edited by this tool.")
        return self.file(path, read_text(real), span)

    def _relative(self, path: str) -> str:
        hint = "The path should be an absolute path" + (
            "." if self.style.sdk and self.style.version >= (1, 19, 1) else ", starting with `/`.")
        guess = posixpath.join(self.cwd, path)
        try:
            if self.real(guess).exists():
                hint += f" Maybe you meant {guess}?"
        except OutsideWorkspace:
            pass
        return f"Invalid `path` parameter: {path}. {hint}"

    def file(self, path: str, text: str, span) -> str:
        """A file's numbered lines: all of them, or a view_range."""
        if not span:
            return make_output(text, path, 1, self.style)
        if not (isinstance(span, list) and len(span) == 2 and all(isinstance(i, int) for i in span)):
            raise ViewError(f"Invalid `view_range` parameter: {span}. It should be a list of two integers.")
        legacy = not self.style.sdk and self.style.version < (0, 2, 0)  # aci 0.1: split('\n'), joined back
        lines = text.split("\n") if legacy else _lines(text)
        count, (start, end) = len(lines), span
        if start < 1 or start > count:
            raise ViewError(f"Invalid `view_range` parameter: {span}. Its first element `{start}` should be within "
                            f"the range of lines of the file: {[1, count]}.")
        note = ""
        if end > count and not self.style.clamp_end:
            raise ViewError(f"Invalid `view_range` parameter: {span}. Its second element `{end}` should be smaller "
                            f"than the number of lines in the file: `{count}`.")
        if end == -1 or end > count:
            note = f"NOTE: We only show up to {count} since there're only {count} lines in this file.\n" \
                if end > count else ""
            end = count
        if end < start:
            raise ViewError(f"Invalid `view_range` parameter: {span}. Its second element `{end}` should be greater "
                            f"than or equal to the first element `{start}`.")
        chunk = ("\n" if legacy else "").join(lines[start - 1:end])
        if self.style.ranged == "splitlines":
            chunk = "\n".join(chunk.splitlines())
        return note + make_output(chunk, path, start, self.style)

    def listing(self, path: str) -> str:
        """A folder two levels deep, hidden entries left out and counted."""
        real = self.real(path)
        hidden = sum(1 for name in os.listdir(real) if name.startswith("."))
        head = f"Here's the files and directories up to 2 levels deep in {path}, excluding hidden items:\n"
        tail = f"\n\n{hidden} hidden files/directories in this directory are excluded. You can use 'ls -la " \
               f"{path}' to see them." if hidden else ""
        if self.style.grouped:  # SDK 1.19.1+: Python's listing, each folder's children right after it
            entries = [path.rstrip("/") + "/"] + [posixpath.join(path, rel) + ("/" if d else "") for rel, d in _tree(real)]
            return maybe_truncate(head + "\n".join(entries) + tail, DIR_NOTICE, True)
        # `find -L PATH -maxdepth 2 ... | sort` in C.UTF-8 (bytewise), cut at 16,000 characters before the slashes
        found = [path] + sorted(posixpath.join(path, rel) for rel, _ in _tree(real))
        found = maybe_truncate("\n".join(found) + "\n", DIR_NOTICE, self.style.sdk).strip().split("\n")
        return head + "\n".join(p + "/" if self._is_dir(p) else p for p in found) + tail

    def _is_dir(self, shown: str) -> bool:
        try:
            return self.real(shown).is_dir()
        except OutsideWorkspace:
            return False


class _NotReplayable(Exception):
    """A call the emulation cannot answer faithfully: nothing is run."""


def _tree(real: Path) -> list[tuple[str, bool]]:
    """(relative path, is a folder) of the visible entries one and two levels down (symlinks followed)."""
    out = []
    for name in sorted(os.listdir(real)):
        if name.startswith("."):
            continue
        child = real / name
        out.append((name, child.is_dir()))
        if child.is_dir():
            try:
                inner = sorted(n for n in os.listdir(child) if not n.startswith("."))
            except OSError:
                inner = []
            out += [(f"{name}/{n}", (child / n).is_dir()) for n in inner]
    return out


def _lines(text: str) -> list[str]:
    """The file's lines as Python's text-mode reader yields them (newlines already translated)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def read_text(real: Path) -> str:
    """The file as `open(path, encoding=...)` reads it: universal newlines. Not UTF-8: not replayable (the
    editor's encoding is charset_normalizer's guess, and aci's line count crashes on it)."""
    try:
        text = real.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise _NotReplayable("not replayable: the file is not UTF-8 (the editor guesses its encoding)") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def is_binary(real: Path) -> bool:
    """binaryornot 0.4.4's guess on the first 1 KB (chardet's verdict approximated: UTF-8 with four or more
    multibyte characters is text, as chardet is then over 90% sure of it)."""
    with open(real, "rb") as f:
        chunk = f.read(1024)
    if not chunk:
        return False
    low = sum(1 for b in chunk if not (32 <= b < 127 or b in b"\n\r\t\f\b")) / len(chunk)
    high = sum(1 for b in chunk if b >= 127) / len(chunk)
    try:
        decodable = sum(1 for b in chunk if b >= 0xC0) >= 4 and bool(chunk.decode("utf-8"))
    except UnicodeDecodeError:
        decodable = False
    if (low > 0.3 and high < 0.05) or (low > 0.8 and high > 0.8):
        return not decodable
    return not decodable and (b"\0" in chunk or b"\xff" in chunk)


def maybe_truncate(text: str, notice: str, sdk: bool) -> str:
    """The editor's cut at 16,000 characters: aci keeps the head and appends the notice; the SDK's
    (openhands.sdk.utils.truncate) keeps head and tail around it, the notice counted in the limit."""
    if len(text) <= MAX_CHARS:
        return text
    if not sdk:
        return text[:MAX_CHARS] + notice
    room = MAX_CHARS - len(notice)
    head = room // 2 + room % 2
    return text[:head] + notice + (text[-(room - head):] if room > head else "")


def make_output(content: str, described: str, start: int, style: Style) -> str:
    """_make_output: `Here's the result of running cat -n on …` and the numbered lines."""
    content = maybe_truncate(content, TEXT_NOTICE, style.sdk)
    if style.expand_tabs:
        content = content.expandtabs()
    lines = content.split("\n")
    if not style.blank_last and lines[-1] == "":
        lines.pop()
    numbered = "\n".join(f"{i + start:6}\t{line}" for i, line in enumerate(lines))
    head = f"Here's the result of running `cat -n` on {described}:\n"
    return head + numbered + "\n" if style.blank_last or numbered else head


# ------------------------------------------------------------------ the emulations

def _measure_v1(observation: dict) -> Outcome:
    """An ObservationEvent's observation, measured as the openhands-v1 collector measures it."""
    seen, is_error = observation_seen({"observation": observation})
    content = flatten(seen)
    return Outcome(content.text, is_error=is_error, images=content.images, image_bytes=content.image_bytes)


def _command(call: Call) -> str | None:
    command = call.args.get("command")
    return None if command == "view" else f"not read-only: command {command!r}"


@register
class StrReplaceEditor(Emulation):
    """str_replace_editor `view` in the V0 runtime (openhands-aci): `cat -n` numbering, two-level folder views."""

    agent, tool = AGENT, "str_replace_editor"
    versions = "OpenHands 0.23-0.62 (aci 0.2.0-0.3.2, Feb-Nov 2025)"
    params: ClassVar[dict[str, str]] = {"version": "the OpenHands release (default: the recording's, else the last V0, aci 0.3.2)",
              "aci": "the openhands-aci version itself, overriding the release's"}

    def run(self, call: Call) -> Outcome:
        """The observation content the V0 runtime recorded for a view."""
        if (why := _command(call)) is not None:
            return Outcome("", status=REFUSED, reason=why)
        view = _View(call, style_of(call, sdk=False))
        try:
            path = call.args.get("path")
            if isinstance(path, str) and path.startswith("/") and view.real(path).is_file() and \
                    is_binary(view.real(path)):
                return Outcome("ERROR_BINARY_FILE", is_error=True)  # the runtime's own check, before the editor
            return Outcome(view.text())
        except ViewError as exc:
            return Outcome(f"ERROR:\n{exc}")
        except OutsideWorkspace as exc:
            return Outcome("", status=REFUSED, reason=str(exc))
        except _NotReplayable as exc:
            return Outcome("", status=REFUSED, reason=str(exc))


@register
class FileEditor(Emulation):
    """file_editor `view` in the V1 SDK (openhands-tools): as str_replace_editor, images shown inline."""

    agent, tool = AGENT, "file_editor"
    versions = "openhands-tools 1.0-1.58 (Oct 2025 - Oct 2026)"
    params: ClassVar[dict[str, str]] = {"version": "the SDK (openhands-tools) version (default: the recording's, else 1.58.2)"}

    def run(self, call: Call) -> Outcome:
        """The FileEditorObservation the SDK would have sent."""
        if (why := _command(call)) is not None:
            return Outcome("", status=REFUSED, reason=why)
        view = _View(call, style_of(call, sdk=True))
        path = call.args.get("path")
        try:
            if isinstance(path, str) and path.startswith("/") and view.style.version >= (1, 1) and \
                    view.real(path).is_file() and view.real(path).suffix.lower() in IMAGES:
                return _measure_v1(self._image(path, view.real(path)))
            text, error = view.text(), False
        except ViewError as exc:
            text, error = str(exc), True
        except (OutsideWorkspace, _NotReplayable) as exc:
            return Outcome("", status=REFUSED, reason=str(exc))
        return _measure_v1({"kind": "FileEditorObservation", "is_error": error,
                            "content": [{"type": "text", "text": text}]})

    @staticmethod
    def _image(path: str, real: Path) -> dict:
        url = f"data:{MIMES[real.suffix.lower()]};base64,{base64.b64encode(real.read_bytes()).decode()}"
        return {"kind": "FileEditorObservation", "is_error": False, "content": [
            {"type": "text", "text": f"Image file {path} read successfully. Displaying image content."},
            {"type": "image", "image_urls": [url]}]}


@register
class Terminal(Emulation):
    """terminal: a read-only command through the allow-listed interpreter, rendered as the SDK renders it."""

    agent, tool = AGENT, "terminal"
    versions = "openhands-tools 1.0-1.58 (Nov 2025 - Oct 2026); V0 execute_bash (output only)"
    params: ClassVar[dict[str, str]] = {"version": "the SDK version, or an OpenHands V0 release (< 1: the output alone)",
              "python": "the `[Python interpreter: …]` path the session's terminal reported (default: none)"}

    def run(self, call: Call) -> Outcome:
        """The command's output with the exit-code suffix and the working-directory line."""
        command = call.args.get("command")
        if not isinstance(command, str) or not command.strip() or str(call.args.get("is_input")).lower() == "true":
            return Outcome("", status=REFUSED, reason="not replayable: input to a running command")
        try:
            from .shell_readonly import CannotRun, Workspace, run_script
            from .shell_words import NotReplayable
        except ImportError:
            return Outcome("", status=REFUSED, reason="not replayable yet")
        ws = Workspace(call.root, call.cwd)
        here = getattr(call, "here", None)  # the terminal's folder at this call (a `cd` persists between calls)
        if here:
            try:
                ws.cwd = resolve(ws.root, ws.inside(here))
            except NotReplayable as exc:
                return Outcome("", status=REFUSED, reason=f"not replayable: {exc}")
            if not ws.cwd.is_dir():
                return Outcome("", status=REFUSED, reason=f"not replayable: the terminal's folder {here} is gone")
        try:
            result = run_script(ws, call.sandbox, command)
        except NotReplayable as exc:
            return Outcome("", status=REFUSED, reason=f"not replayable: {exc}")
        except CannotRun as exc:
            return Outcome("", status=FAILED, reason=str(exc))
        output = (result.out + result.err).decode("utf-8", "replace").rstrip()
        version = version_tuple(call.params.get("version") or call.version)
        if version and version < (1,):  # V0: the collector measures the observation's content alone
            return Outcome(output, reason=result.note)
        meta = {"exit_code": result.code, "working_dir": ws.shown_cwd(), "prefix": "",
                "suffix": f"\n[The command completed with exit code {result.code}.]",
                "py_interpreter_path": call.params.get("python") or None}
        seen = _measure_v1({"kind": "TerminalObservation", "metadata": meta,
                            "content": [{"type": "text", "text": clip(output, MAX_CMD_OUTPUT_SIZE)}]})
        return Outcome(seen.output, is_error=seen.is_error, reason=result.note)


@register
class ExecuteBash(Terminal):
    """execute_bash: the terminal tool under its name before Nov 2025 (and V0's)."""

    tool = "execute_bash"
