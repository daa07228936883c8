"""Gemini CLI's glob and list_directory."""

from __future__ import annotations

import os
import posixpath
import re
import time
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from ...base import Outcome
from ..base import Call, register
from .common import COMMON, COMMON_IGNORE, error_outcome, shown_answer
from .folder import Folder
from .read import GeminiTool, flag_of, matching_paths, relative_paths
from .text import icu_key


@register
class Glob(GeminiTool):
    """glob: the matching files, those modified in the last day first (newest first), then by path."""

    tool = "glob"
    params: ClassVar[dict[str, str]] = {**COMMON, "now": "the clock of the 24-hour cut, seconds since the epoch (default: when "
                                                           "the call was recorded, else now)"}

    def answer(self, call: Call, folder: Folder) -> Outcome:
        """The files a glob pattern names under the searched folder."""
        args = call.args
        pattern = args.get("pattern") if isinstance(args.get("pattern"), str) else ""
        given = args.get("dir_path", args.get("path"))
        shown, real = folder.locate(given if isinstance(given, str) and given else ".")
        if not real.exists():
            return error_outcome(f"Search path does not exist {shown}")
        if not real.is_dir():
            return error_outcome(f"Search path is not a directory: {shown}")
        if not pattern.strip():
            return error_outcome("The 'pattern' parameter cannot be empty.")
        nocase = not flag_of(args.get("case_sensitive"))
        found = matching_paths(folder, real, relative_paths(folder, shown, [pattern]), COMMON_IGNORE, nocase)
        if folder.v >= (0, 51):  # b5fc06ee33: entries are matched back by their real path, so symlinks drop out
            found = [p for p in found if not p.is_symlink()]
        git, gemini = flag_of(args.get("respect_git_ignore"), True), flag_of(args.get("respect_gemini_ignore"), True)
        kept = [p for p in found if not folder.ignored(p.relative_to(folder.root).as_posix(), git=git, gemini=gemini)]
        ignored = len(found) - len(kept)
        where = shown if given else folder.cwd
        if not kept:
            note = f" ({ignored} files were ignored)" if ignored else ""
            return shown_answer(f'No files found matching pattern "{pattern}" within {where}{note}', folder.v)
        now = float(call.params.get("now") or _recorded_at(call.ts) or time.time()) * 1000
        paths = [folder.show(p) for p in self._sorted(kept, now)]
        note = f" ({ignored} additional files were ignored)" if ignored else ""
        return shown_answer(f'Found {len(paths)} file(s) matching "{pattern}" within {where}{note}, sorted by '
                       f"modification time (newest first):\n" + "\n".join(paths), folder.v)

    @staticmethod
    def _sorted(paths: list[Path], now_ms: float) -> list[Path]:
        """sortFileEntries: recent files (under a day old) newest first, then the others by path (localeCompare)."""
        stamp = {p: p.lstat().st_mtime * 1000 for p in paths}
        recent = sorted((p for p in paths if now_ms - stamp[p] < 86_400_000), key=lambda p: -stamp[p])
        older = sorted((p for p in paths if now_ms - stamp[p] >= 86_400_000), key=lambda p: icu_key(str(p)))
        return recent + older


@register
class ListDirectory(GeminiTool):
    """list_directory: `[DIR] name` first, then files (with their size from 0.31), ignored entries counted."""

    tool = "list_directory"
    versions = "0.1.17-0.56 (Aug 2025 - Aug 2026)"

    def answer(self, call: Call, folder: Folder) -> Outcome:
        """One folder's entries as that release listed them."""
        args, v = call.args, folder.v
        arg = next((args[k] for k in ("dir_path", "path") if isinstance(args.get(k), str)), None)
        if arg is None:
            return error_outcome(f"params must have required property '{'dir_path' if v >= (0, 14) else 'path'}'")
        if v < (0, 14) and not arg.startswith("/"):
            return error_outcome(f"Path must be absolute: {arg}")
        shown, real = folder.locate(arg)
        shown = shown if v >= (0, 14) else arg  # before f05d937f39 the path as given
        if not real.exists():
            return error_outcome(f"Error listing directory: ENOENT: no such file or directory, stat '{shown}'")
        if not real.is_dir():
            return error_outcome(f"Error: Path is not a directory: {shown}")
        names = os.listdir(real)
        if not names:
            return shown_answer(f"Directory {shown} is empty.", v)
        opts = args.get("file_filtering_options") or {}
        git, gemini = flag_of(opts.get("respect_git_ignore"), True), flag_of(opts.get("respect_gemini_ignore"), True)
        rel = real.relative_to(folder.root).as_posix()
        kept = [n for n in names if not folder.ignored(posixpath.normpath(posixpath.join(rel, n)), git=git, gemini=gemini)]
        entries = self._entries(real, kept, args.get("ignore") or [])
        lines = [f"[DIR] {n}" if d else f"{n} ({size} bytes)" if v >= (0, 31) else n for n, d, size in entries]
        text = f"Directory listing for {shown}:\n" + "\n".join(lines)
        if len(names) > len(kept):
            text += f"\n\n({self._ignored(folder, rel, names, kept, v)})"
        return shown_answer(text, v)

    @staticmethod
    def _entries(real: Path, names: list[str], ignore: list) -> list[tuple[str, bool, int]]:
        """(name, is a folder, size) of each entry the `ignore` globs leave, folders first, then by name."""
        globs = [re.compile("^" + re.escape(g).replace(r"\*", ".*").replace(r"\?", ".") + "$")
                 for g in ignore if isinstance(g, str)]
        out = []
        for name in names:
            if any(g.match(name) for g in globs):
                continue
            try:
                st = (real / name).stat()
            except OSError:
                continue
            is_dir = (real / name).is_dir()
            out.append((name, is_dir, 0 if is_dir else st.st_size))
        return sorted(out, key=lambda e: (not e[1], icu_key(e[0])))

    @staticmethod
    def _ignored(folder: Folder, rel: str, names: list[str], kept: list[str], v: tuple) -> str:
        """`N ignored`, or before 0.12 (92d412e542) the git- and gemini-ignored counts apart."""
        if v >= (0, 12):
            return f"{len(names) - len(kept)} ignored"
        gone = [posixpath.normpath(posixpath.join(rel, n)) for n in names if n not in kept]
        gemini = sum(1 for r in gone if folder.ignored(r, git=False))
        said = [f"{len(gone) - gemini} git-ignored"] if len(gone) > gemini else []
        return ", ".join(said + ([f"{gemini} gemini-ignored"] if gemini else []))


def _recorded_at(ts: str | None) -> float | None:
    """The epoch second of a recorded ISO 8601 time, or None."""
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() if ts else None
    except ValueError:
        return None
