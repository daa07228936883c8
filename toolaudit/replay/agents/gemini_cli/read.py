"""Gemini CLI's read_file and read_many_files, and what every tool shares (GeminiTool)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from ...base import FAILED, Outcome
from ...builtin.common import CallFailed
from ...sandbox import OutsideWorkspace
from ..base import Call, Emulation, register
from .common import (
    AGENT,
    COMMON,
    MANY_EXCLUDES,
    error_outcome,
    refused_outcome,
    shown_answer,
)
from .folder import Folder
from .text import file_type, matcher, read_one, walk_files

# ------------------------------------------------------------------ the tools

def flag_of(value, default: bool = False) -> bool:
    """A recorded boolean (models sometimes send "true")."""
    return value.lower() == "true" if isinstance(value, str) else default if value is None else bool(value)


def int_of(value) -> int | None:
    try:
        return None if value is None or isinstance(value, bool) else int(value)
    except (TypeError, ValueError):
        return None


class GeminiTool(Emulation):
    """What every Gemini CLI emulation shares: a refused path and a failed run become outcomes."""

    agent = AGENT
    versions = "0.8-0.56 (Sep 2025 - Aug 2026)"
    params: ClassVar[dict[str, str]] = COMMON

    def run(self, call: Call) -> Outcome:
        """The output Gemini CLI would have shown for `call`."""
        try:
            return self.answer(call, Folder(call))
        except OutsideWorkspace as exc:
            return refused_outcome(exc)
        except CallFailed as exc:
            return Outcome("", status=FAILED, reason=str(exc))
        except re.error as exc:  # a glob or an exclude_pattern Python cannot read as the agent's JS did
            return Outcome("", status=FAILED, reason=f"not replayable: pattern error ({exc})")

    def answer(self, call: Call, folder: Folder) -> Outcome:
        """The tool's own answer (subclasses)."""
        raise NotImplementedError


@register
class ReadFile(GeminiTool):
    """read_file: a text file's lines (2000 by default), with the truncation notice; images and PDFs inline."""

    tool = "read_file"
    versions = "0.1.17-0.56 (Aug 2025 - Aug 2026)"

    def answer(self, call: Call, folder: Folder) -> Outcome:
        """One file read as that release read it."""
        v, args = folder.v, call.args
        name = "file_path" if v >= (0, 14) else "absolute_path"
        arg = next((args[k] for k in ("file_path", "absolute_path", "path") if isinstance(args.get(k), str)), None)
        if arg is None:
            return error_outcome(f"params must have required property '{name}'")
        if not arg.strip():
            return error_outcome(f"The '{name}' parameter must be non-empty.")
        if v < (0, 14) and not arg.startswith("/"):
            return error_outcome(f"File path must be absolute, but was relative: {arg}. You must provide an absolute path.")
        shown, real = folder.locate(arg)
        span = self._span(args, v)
        if isinstance(span, str):
            return error_outcome(span)
        rel = real.relative_to(folder.root).as_posix()
        if v >= (0, 12) and folder.ignored(rel):
            return error_outcome(f"File path '{shown if v >= (0, 14) else arg}' is ignored by configured ignore patterns.")
        if v < (0, 12) and folder.ignored(rel, git=False):
            return error_outcome(f"File path '{arg}' is ignored by .geminiignore pattern(s).")
        result = read_one(folder, real, shown, *span[:2])
        if "error" in result:
            return error_outcome(result["error"])
        content = result["content"]
        if result.get("truncated"):
            content = self._notice(result, span[2], v) + content
        return shown_answer(content, v)

    @staticmethod
    def _span(args: dict, v: tuple) -> tuple | str:
        """(0-based first line, end line or None, the offset asked) or the validation error."""
        if v >= (0, 31):  # 547f5d45f5: 1-based start_line/end_line
            start, end = int_of(args.get("start_line")), int_of(args.get("end_line"))
            if v < (0, 43) and start is not None and start < 1:
                return "start_line must be at least 1"
            if v < (0, 43) and end is not None and end < 1:
                return "end_line must be at least 1"
            if start is not None and end is not None and start > end:
                return "start_line cannot be greater than end_line"
            return (start - 1 if start else 0), (end or None), None
        offset, limit = int_of(args.get("offset")), int_of(args.get("limit"))
        if offset is not None and offset < 0:
            return "Offset must be a non-negative number"
        if limit is not None and limit <= 0:
            return "Limit must be a positive number"
        first = offset or 0
        return first, (first + limit if limit is not None else None), offset

    @staticmethod
    def _notice(result: dict, offset: int | None, v: tuple) -> str:
        start, end = result["shown"]
        if v >= (0, 31):
            how, nxt = "'start_line' and 'end_line' parameters", f"start_line: {end + 1}"
        else:
            how, nxt = "'offset' and 'limit' parameters", f"offset: {offset + end - start + 1 if offset else end}"
        return (f"\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines {start}-{end} of "
                f"{result['total']} total lines.\nAction: To read more of the file, you can use the {how} in a "
                f"subsequent 'read_file' call. For example, to read the next section of the file, use {nxt}.\n\n"
                "--- FILE CONTENT (truncated) ---\n")


def matching_paths(folder: Folder, base: Path, patterns: list[str], skip: list[str], nocase: bool) -> list[Path]:
    """node-glob: the files under `base` a pattern names (a path that exists is taken literally)."""
    literal = [p for p in patterns if (base / p).is_file()]
    rx = matcher([p for p in patterns if p not in literal], nocase)
    exact = {p.removeprefix("./").lower() if nocase else p.removeprefix("./") for p in literal}
    found = []
    for rel in walk_files(base, matcher(skip, nocase)):
        if rx.fullmatch(rel) or (rel.lower() if nocase else rel) in exact:
            found.append(base / rel)
    return found


def relative_paths(folder: Folder, base_shown: str, patterns: list[str]) -> list[str]:
    """Absolute patterns under the searched folder, made relative to it (others match nothing)."""
    out = []
    for p in patterns:
        if p.startswith("/"):
            if not p.startswith(base_shown.rstrip("/") + "/"):
                continue
            p = p[len(base_shown.rstrip("/")) + 1:]
        out.append(p)
    return out


@register
class ReadManyFiles(GeminiTool):
    """read_many_files: every matching text file behind a `--- path ---` separator, then `--- End of content ---`."""

    tool = "read_many_files"

    def answer(self, call: Call, folder: Folder) -> Outcome:
        """The concatenation, sorted by path, of the files the patterns name."""
        args = call.args
        include = [p for p in (args.get("paths") or []) + (args.get("include") or []) if isinstance(p, str)]
        excludes = (MANY_EXCLUDES if args.get("useDefaultExcludes") is not False else []) + list(args.get("exclude") or [])
        opts = args.get("file_filtering_options") or {}
        git, gemini = flag_of(opts.get("respect_git_ignore"), True), flag_of(opts.get("respect_gemini_ignore"), True)
        found = matching_paths(folder, folder.root, relative_paths(folder, folder.cwd, [p.replace("\\", "/") for p in include]),
                         excludes, True)
        kept = [p for p in found if not folder.ignored(p.relative_to(folder.root).as_posix(), git=git, gemini=gemini)]
        parts: list = []
        for real in sorted(kept, key=lambda p: folder.show(p)):
            part = self._file(folder, real, include)
            if part is not None:
                parts.append(part)
        parts = parts + ["\n--- End of content ---"] if parts else \
            ["No files matching the criteria were found or all were skipped."]
        return shown_answer(parts, folder.v)

    @staticmethod
    def _file(folder: Folder, real: Path, include: list[str]) -> str | dict | None:
        """One file's part; None when it is skipped (an asset not asked for by name, a read error)."""
        kind = file_type(real)
        if kind in ("image", "pdf", "audio"):
            ext = real.suffix.lower()
            stem = real.name[:-len(ext)] if ext and real.name.endswith(ext) else real.name
            if not any(ext in p.lower() or stem in p for p in include):
                return None
        shown = folder.show(real)
        result = read_one(folder, real, shown)
        if "error" in result:
            return None
        if not isinstance(result["content"], str):
            return result["content"]
        warning = ("[WARNING: This file was truncated. To view the full content, use the 'read_file' tool on this "
                   "specific file.]\n\n") if result.get("truncated") else ""
        return f"--- {shown} ---\n\n{warning}{result['content']}\n\n"
