"""Claude Code's Grep: ripgrep with its flags, three output modes, pagination and path shortening."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

from ...base import REFUSED, Outcome
from ..base import register
from .common import (
    AGENT,
    COMMON_PARAMS,
    GREP_CONTEXT,
    OLD_GREP_CUT,
    PERSIST_ALWAYS,
    NEWEST,
    VERSIONS,
    Answer,
    Context,
    Persisting,
    failed_answer,
    finish,
    invalid_answer,
    persistence_flag,
    place_of,
    relativized,
    run_ripgrep,
    shown_path,
    truthy,
    vcs_folders,
)
from .versions import CWD_NOTE, GREP_COUNT_H, GREP_DEFAULT_HEAD, GREP_ONLY_MATCHING, GREP_TOTALS
from .js import MISSING, collation_key, js_len, js_slice, js_text, mtime_ms

# --- Grep --------------------------------------------------------------------------------------


@register
class Grep(Persisting):
    """Claude Code's Grep: ripgrep with its flags, its three output modes, pagination and path shortening."""

    agent = AGENT
    tool = "Grep"
    newest = NEWEST
    own = ("order",)
    _cut = False  # whether the last _window's limit cut (its pagination note says so from 2.1.84)
    versions = VERSIONS
    params: ClassVar[dict[str, str]] = {
        "pattern": "search this regex instead", "path": "search here instead", "glob": "glob filter",
        "type": "rg file type", "output_mode": "files_with_matches, content or count",
        "head_limit": "a ceiling on the entries kept (lines in content mode): never above the model's own "
                      "head_limit, and no pagination note where it cuts nothing", "offset": "skip this many entries first",
        "-i": "case-insensitive", "-n": "line numbers in content mode (default true)",
        "-A": "lines after", "-B": "lines before", "-C": "lines around", "multiline": "rg -U --multiline-dotall",
        "order": "path (default: stable) or rg (ripgrep's own order, as Claude Code kept it: varies run to run)",
        **COMMON_PARAMS,
    }

    def answer(self, ctx: Context) -> Outcome:
        """The text Claude Code showed for this Grep."""
        pattern = ctx.arg("pattern")
        path = ctx.arg("path")
        place = place_of(ctx, path if isinstance(path, str) and path else "")
        if isinstance(path, str) and path and not place.real.exists():
            note = f". Note: your current working directory is {ctx.show(ctx.here)}." if ctx.at_least(CWD_NOTE) else ""
            return invalid_answer(f"Path does not exist: {path}{note}")
        mode = ctx.arg("output_mode")
        mode = "files_with_matches" if mode is MISSING else mode
        lines, note = run_ripgrep(ctx, self._flags(ctx, pattern, mode), place.lexical, self._order(ctx))
        lines = [shown_path(ctx, line) for line in lines]
        if mode == "content":
            text = self._content(ctx, lines)
        elif mode == "count":
            text = self._count(ctx, lines)
        else:
            text = self._files(ctx, lines)
        if mode in ("content", "count") and self._cut and self._order(ctx) and _files_in(lines, mode) > 1:
            # Claude Code kept ripgrep's order (a parallel walk): which lines a cut kept was the recording machine's
            return Outcome("", status=REFUSED, reason="not replayable: head_limit cut ripgrep's output, whose order "
                                                      "is the recording machine's walk")
        outcome = finish(ctx, "Grep", text)
        return Outcome(output=outcome.output, reason=note) if note else outcome

    def _order(self, ctx: Context) -> tuple[str, ...]:
        """`--sort path` unless ?order=rg: Claude Code kept ripgrep's order, which its threads vary from run
        to run (content and count lines; files are sorted by mtime anyway). On the recordings neither
        order matched more often than the other, so the stable one is the default."""
        return () if ctx.call.params.get("order", "path") == "rg" else ("--sort", "path")

    def _flags(self, ctx: Context, pattern: str, mode: str) -> list[str]:
        """The arguments Claude Code gave rg, in its order."""
        flags = ["--hidden"]
        for folder in vcs_folders(ctx):
            flags += ["--glob", f"!{folder}"]
        flags += ["--max-columns", "500"]
        if truthy(ctx.arg("multiline")):
            flags += ["-U", "--multiline-dotall"]
        if truthy(ctx.arg("-i")):
            flags.append("-i")
        flags += {"files_with_matches": ["-l"], "count": ["-c", "-H"] if ctx.at_least(GREP_COUNT_H) else ["-c"]}.get(mode, [])
        number = ctx.arg("-n")
        if mode == "content" and (number is MISSING or truthy(number)):
            flags.append("-n")
        if mode == "content" and ctx.at_least(GREP_ONLY_MATCHING) and truthy(ctx.arg("-o")):
            flags.append("-o")
        if mode == "content":
            flags += self._context_flags(ctx)
        flags += ["-e", pattern] if pattern.startswith("-") else [pattern]
        if truthy(ctx.arg("type")):
            flags += ["--type", js_text(ctx.arg("type"))]
        for glob in _globs(ctx.arg("glob")):
            flags += ["--glob", glob]
        return flags

    def _context_flags(self, ctx: Context) -> list[str]:
        """-C (or `context`, 2.1.21 on) wins over -B and -A."""
        around = ctx.arg("context") if ctx.at_least(GREP_CONTEXT) else MISSING
        if around is MISSING:
            around = ctx.arg("-C")
        if around is not MISSING:
            return ["-C", js_text(around)]
        flags = []
        for name in ("-B", "-A"):
            if ctx.arg(name) is not MISSING:
                flags += [name, js_text(ctx.arg(name))]
        return flags

    def _window(self, ctx: Context, entries: list[str]) -> list[str]:
        """head_limit and offset as Claude Code sliced (JavaScript's slice: Python's, for whole numbers); from
        2.1.84 an unspecified head_limit is 250 and 0 is none. Notes whether the limit cut (`_cut`)."""
        offset, limit = ctx.arg("offset"), ctx.arg("head_limit")
        start = 0 if offset is MISSING else int(offset)
        if ctx.at_least(GREP_DEFAULT_HEAD):
            limit = default_head(ctx) if limit is MISSING else limit
            limit = MISSING if limit == 0 else limit
        self._cut = limit is not MISSING and len(entries) - start > int(limit)
        return entries[start:] if limit is MISSING else entries[start:start + int(limit)]

    def _pagination(self, ctx: Context) -> str:
        """Before 2.1.84: `limit: L, offset: O` when either was given (appliedLimit, and appliedOffset if above 0);
        from 2.1.84 `limit: L` only when the limit cut, and `offset: O` when above 0; else empty."""
        limit, offset = ctx.arg("head_limit"), ctx.arg("offset")
        applied = offset if offset is not MISSING and offset > 0 else MISSING
        if ctx.at_least(GREP_DEFAULT_HEAD):
            limit = default_head(ctx) if limit is MISSING else limit
            parts = [f"limit: {js_text(limit)}"] if self._cut else []
            return ", ".join(parts + ([f"offset: {js_text(applied)}"] if applied is not MISSING else []))
        if not truthy(limit) and not truthy(applied):
            return ""
        return f"limit: {js_text(limit)}, offset: {js_text(0 if applied is MISSING else applied)}"

    def _content(self, ctx: Context, lines: list[str]) -> str:
        """Content mode: the text before a line's first `:` shortened as a path; pagination noted."""
        kept = self._window(ctx, [self._shorten(ctx, line, line.find(":", 3 if _DRIVE.match(line) else 0))
                                  for line in lines])
        text = self._old_cut(ctx, "\n".join(kept) or self._nothing(ctx, bool(lines)))
        page = self._pagination(ctx)
        return f"{text}\n\n[Showing results with pagination = {page}]" if page else text

    @staticmethod
    def _nothing(ctx: Context, found: bool) -> str:
        """What an empty page says: from GREP_TOTALS, an offset past the results is told apart from no match."""
        offset = ctx.arg("offset")
        past = ctx.at_least(GREP_TOTALS) and found and offset is not MISSING and truthy(offset)
        return "No entries at this offset" if past else "No matches found"

    def _count(self, ctx: Context, lines: list[str]) -> str:
        """Count mode: `path:N` lines (the path before the last `:`), then the totals of what was kept."""
        kept = self._window(ctx, [self._shorten(ctx, line, line.rfind(":")) for line in lines])
        matches = files = 0
        for line in lines if ctx.at_least(GREP_TOTALS) else kept:  # from GREP_TOTALS the totals of every count
            cut = line.rfind(":")
            number = re.match(r"\s*[+-]?\d+", line[cut + 1:]) if cut > 0 else None
            if number:
                matches += int(number.group())
                files += 1
        page = self._pagination(ctx)
        totals = (f"\n\nFound {matches} total {'occurrence' if matches == 1 else 'occurrences'} across {files} "
                  f"{'file' if files == 1 else 'files'}.{f' with pagination = {page}' if page else ''}")
        nothing = "No entries at this offset" if ctx.at_least(GREP_TOTALS) and matches > 0 else "No matches found"
        return self._old_cut(ctx, "\n".join(kept) or nothing) + totals

    def _files(self, ctx: Context, paths: list[str]) -> str:
        """files_with_matches: newest first, ties in ICU order, then windowed and shortened."""
        try:
            stamped = [(path, mtime_ms(self._real(ctx, path))) for path in paths]
        except OSError as exc:  # a file gone between rg and the stat: Claude Code's Promise.all failed too
            raise Answer(failed_answer(f"stat of a matching file failed: {exc}")) from None
        stamped.sort(key=lambda item: (-item[1], collation_key(item[0])))
        kept = [self._printed(ctx, relativized(ctx, path)) for path in self._window(ctx, [path for path, _ in stamped])]
        page = self._pagination(ctx)
        if not kept:
            past = ctx.at_least(GREP_TOTALS) and truthy(ctx.arg("offset")) and bool(stamped)
            return f"No entries at this offset. [Showing results with pagination = {page}]" if past else "No files found"
        found = f"Found {len(kept)} file{'' if len(kept) == 1 else 's'}{f' {page}' if page else ''}\n"
        return self._old_cut(ctx, found + "\n".join(kept))

    def _real(self, ctx: Context, shown: str) -> str:
        """The replay-folder path of a path ripgrep printed (shown under the recorded folder)."""
        base = ctx.cwd.rstrip("/")
        if shown == ctx.cwd:
            return str(ctx.root)
        return str(ctx.root) + shown[len(base):] if shown.startswith(base + "/") else shown

    def _shorten(self, ctx: Context, line: str, cut: int) -> str:
        """`line` with its text before `cut` passed through the path shortening (none when cut <= 0)."""
        if cut <= 0:
            return self._unshortened(ctx, line)
        return self._printed(ctx, relativized(ctx, line[:cut])) + line[cut:]

    def _unshortened(self, ctx: Context, line: str) -> str:
        """A line with no `:` past its path (a context line `path-N-text` with no colon in its text), which
        Claude Code's shortening leaves whole: on Windows ripgrep printed its path as `D:\\repo\\src\\x.go`, so
        the path (the longest start of the line before a `-` that is a file) is printed so (JanDeDobbeleer/oh-my-posh
        2.1.209: `D:\\oh-my-posh\\src\\regex\\regex.go-97-\tif err != nil {`)."""
        if not ctx.windows or not _DRIVE.match(line):
            return line
        ends = [at for at in range(len(line)) if line[at] == "-" and Path(self._real(ctx, line[:at])).is_file()]
        return ctx.show(line[:ends[-1]]) + line[ends[-1]:] if ends else line

    @staticmethod
    def _printed(ctx: Context, path: str) -> str:
        """A path as the session's Claude Code printed it (Windows: backslashes, the drive letter)."""
        return ctx.show(path) if ctx.windows else path

    def _old_cut(self, ctx: Context, text: str) -> str:
        """Before 2.1.2, without persistence: a mode's text cut at 20,000 characters (before the notes added to it)."""
        if ctx.at_least(PERSIST_ALWAYS) or persistence_flag(ctx) or js_len(text) <= OLD_GREP_CUT:
            return text
        rest = js_slice(text, OLD_GREP_CUT)
        return f"{js_slice(text, 0, OLD_GREP_CUT)}\n\n... [{len(rest.split(chr(10)))} lines truncated] ..."




DEFAULT_HEAD = 250
_DRIVE = re.compile(r"^/[A-Z]:/")  # a Windows path in posix_form: its drive's colon is not the line's separator


def _files_in(lines: list[str], mode: str) -> int:
    """How many files ripgrep's lines came from (content: `path:N:` or `path-N-`; count: `path:N`); a line with no
    path (one file searched) counts none, so a single file's lines give 0 or 1."""
    pattern = re.compile(r"^(.+?)[:-]\d+[:-]" if mode == "content" else r"^(.+):\d+$")
    return len({found.group(1) for found in map(pattern.match, lines) if found})


def default_head(ctx: Context) -> int | None:
    """The head_limit a call without one had: 250 from 2.1.84, none before."""
    return DEFAULT_HEAD if ctx.at_least(GREP_DEFAULT_HEAD) else None


def _globs(value: Any) -> list[str]:
    """Grep's glob argument split as Claude Code split it: on whitespace, then on commas outside braces."""
    if not truthy(value):
        return []
    found: list[str] = []
    for piece in re.split(r"\s+", js_text(value)):
        if "{" in piece and "}" in piece:
            found.append(piece)
        else:
            found += [part for part in piece.split(",") if part]
    return [glob for glob in found if glob]
