"""Gemini CLI's search_file_content and grep_search."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import ClassVar

from ...base import Outcome
from ..base import Call, register
from .common import (
    COMMON,
    COMMON_IGNORE,
    DIR_EXCLUDES,
    JS_SPACE,
    MAX_LINE,
    error_outcome,
    shown_answer,
)
from .folder import Folder
from .read import GeminiTool, flag_of, int_of
from .text import run_search


@register
class SearchFileContent(GeminiTool):
    """search_file_content (ripgrep): matches grouped by file, `File: path` then `L12: text` lines."""

    tool = "search_file_content"
    params: ClassVar[dict[str, str]] = {**COMMON, "max_matches": "the total match cap (default 100 from 0.28, 20000 before)"}

    def answer(self, call: Call, folder: Folder) -> Outcome:
        """ripgrep's matches in the release's format."""
        args, v = call.args, folder.v
        pattern = args.get("pattern") if isinstance(args.get("pattern"), str) else ""
        given = next((args[k] for k in ("dir_path", "path") if isinstance(args.get(k), str) and args[k]), None)
        shown, real = folder.locate(given or ".")
        if not real.exists():
            cwd = f" (CWD: {folder.cwd})" if (0, 16) <= v < (0, 27) else ""
            return error_outcome(f"Path does not exist: {shown}{cwd}")
        include = args.get("include_pattern", args.get("include"))
        limit = int_of(call.params.get("max_matches")) or int_of(args.get("total_max_matches") if v >= (0, 30) else None) \
            or (100 if v >= (0, 28) else 20000)
        search = _Search(call, folder, real, args, limit)
        found = search.run([search.operand], None)
        if 1 <= search.count(found) <= 3 and v >= (0, 31) and not flag_of(args.get("names_only")) and all(
                args.get(k) is None for k in ("context", "before", "after")):  # 5d98ed5820: auto-context
            files = list(dict.fromkeys(m["rel"] for m in found))
            found = search.run(files, 50 if search.count(found) == 1 else 15)
        where = f'in path "{given or "."}"' if given or v >= (0, 16) else "in the workspace directory"
        return shown_answer(_format(found, pattern, where, include, limit, flag_of(args.get("names_only")) and v >= (0, 30),
                               v), v)


@register
class GrepSearch(SearchFileContent):
    """grep_search: search_file_content under its newer name."""

    tool = "grep_search"


class _Search:
    """One ripgrep run of a grep call: its flags, the cap, the filters Gemini applies after it."""

    def __init__(self, call: Call, folder: Folder, real: Path, args: dict, limit: int):
        self.call, self.folder, self.args, self.limit, self.v = call, folder, args, limit, folder.v
        self.base = real if real.is_dir() else real.parent
        self.file = None if real.is_dir() else real.name
        self.operand = real.relative_to(folder.root).as_posix()
        self.base_rel = self.base.relative_to(folder.root).as_posix()
        self.no_ignore = flag_of(args.get("no_ignore")) and self.v >= (0, 16)

    def flags(self, context: int | None) -> list[str]:
        """The arguments performRipgrepSearch passes, as that release passed them."""
        args, v = self.args, self.v
        new = v >= (0, 16)  # before, --ignore-case always and no options
        flags = ["--json"] + ([] if new and flag_of(args.get("case_sensitive")) else ["--ignore-case"])
        flags += ["--fixed-strings"] if new and flag_of(args.get("fixed_strings")) else []
        flags += ["--regexp", str(args.get("pattern") or "")]
        for name, flag in (("context", "--context"), ("after", "--after-context"), ("before", "--before-context")):
            value = context if name == "context" and context else int_of(args.get(name)) if new else None
            flags += [flag, str(value)] if value else []
        flags += ["--no-ignore"] if self.no_ignore else []
        per_file = int_of(args.get("max_matches_per_file")) if v >= (0, 30) else None
        flags += ["--max-count", str(per_file)] if per_file else []
        include = args.get("include_pattern", args.get("include"))
        flags += ["--glob", include] if isinstance(include, str) and include else []
        if not self.no_ignore:
            excludes = COMMON_IGNORE + DIR_EXCLUDES + ["*.log", "*.tmp"] if new else \
                [".git", "node_modules", "bower_components", "*.log", "*.tmp", "build", "dist", "coverage"]
            flags += [f for e in excludes for f in ("--glob", f"!{e}")]
            if v >= (0, 23) and (self.folder.root / ".geminiignore").is_file():
                flags += ["--ignore-file", str(self.folder.root / ".geminiignore")]
        return flags

    def run(self, operands: list[str], context: int | None) -> list[dict]:
        """The matches (and context lines) up to the cap, less excluded lines and ignored files."""
        exclude = self.args.get("exclude_pattern") if self.v >= (0, 30) else None
        rx = re.compile(exclude, 0 if flag_of(self.args.get("case_sensitive")) else re.IGNORECASE) if exclude else None
        out, count = [], 0
        for rec in run_search(self.call, self.folder, self.flags(context), operands):
            if rec["context"] and self.v < (0, 29):
                continue  # before 0.29 context records were not read
            rel = posixpath.normpath(rec["path"])
            text = rec["text"].rstrip(JS_SPACE)
            if rx is not None and rx.search(text):
                continue
            out.append({"rel": rel, "file": self.file or posixpath.relpath(rel, self.base_rel), "line": rec["line"], "text": text, "context": rec["context"]})
            count += not rec["context"]
            if count >= self.limit:
                break
        if self.v >= (0, 27) and not self.no_ignore:  # adc8e11bb1: FileDiscoveryService filters too
            out = [m for m in out if not self.folder.ignored(m["rel"])]
        return out

    @staticmethod
    def count(found: list[dict]) -> int:
        """The matches among the lines found (context lines are not matches)."""
        return sum(1 for m in found if not m["context"])


def _format(found: list[dict], pattern: str, where: str, include, limit: int, names_only: bool, v: tuple) -> str:
    """formatGrepResults (and the earlier inline formatting): header, then each file's lines."""
    filt = f' (filter: "{include}")' if isinstance(include, str) and include else ""
    if not found:
        return f'No matches found for pattern "{pattern}" {where}{filt}.'
    groups: dict[str, list[dict]] = {}
    for m in found:
        groups.setdefault(m["file"], []).append(m)
    count = sum(1 for m in found if not m["context"])
    capped = f" (results limited to {limit} matches for performance)" if count >= limit else ""
    if names_only:
        return (f'Found {len(groups)} files with matches for pattern "{pattern}" {where}{filt}{capped}:\n'
                + "\n".join(sorted(groups))).strip(JS_SPACE)
    text = f'Found {count} {"match" if count == 1 else "matches"} for pattern "{pattern}" {where}{filt}{capped}:\n---\n'
    for name, matches in groups.items():
        text += f"File: {name}\n"
        for m in sorted(matches, key=lambda m: m["line"]):
            line = m["text"] if v >= (0, 29) else m["text"].strip(JS_SPACE)
            if v >= (0, 34) and len(line) > MAX_LINE:  # c5112cde46: Array.from counts code points
                line = line[:MAX_LINE] + "... [truncated]"
            text += f"L{m['line']}{'-' if m['context'] else ':'} {line}\n"
        text += "---\n"
    return text.strip(JS_SPACE)
