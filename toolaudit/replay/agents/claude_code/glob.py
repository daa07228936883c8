"""Claude Code's Glob: rg --files oldest first, absolute paths (relative to the working folder from 2.1.84), 100 of
them at most."""

from __future__ import annotations

import re
from typing import ClassVar

from ...base import Outcome
from ..base import register
from .common import (
    AGENT,
    COMMON_PARAMS,
    GLOB_ABSOLUTE,
    GLOB_LIMIT,
    TRUNCATED_GLOB,
    NEWEST,
    VERSIONS,
    Context,
    Persisting,
    finish,
    int_param,
    invalid_answer,
    place_of,
    relativized,
    run_ripgrep,
    shown_path,
)
from .js import node_basename, node_dirname, node_join
from .versions import GLOB_RELATIVE, GLOB_SHOWING

# --- Glob --------------------------------------------------------------------------------------


@register
class Glob(Persisting):
    """Claude Code's Glob: `rg --files --glob` oldest first, absolute paths, 100 of them at most."""

    agent = AGENT
    tool = "Glob"
    newest = NEWEST
    own = ("max_results",)
    versions = VERSIONS
    params: ClassVar[dict[str, str]] = {
        "pattern": "match this glob instead", "path": "search here instead",
        "max_results": f"results shown before the truncation note (default {GLOB_LIMIT})", **COMMON_PARAMS,
    }

    def answer(self, ctx: Context) -> Outcome:
        """The text Claude Code showed for this Glob."""
        pattern = ctx.arg("pattern")
        path = ctx.arg("path")
        given = isinstance(path, str) and bool(path)
        place = place_of(ctx, path if given else "")
        if given and not place.real.exists():
            return invalid_answer(f"Directory does not exist: {path}")
        if given and not place.real.is_dir():
            return invalid_answer(f"Path is not a directory: {path}")
        if ctx.at_least(GLOB_ABSOLUTE) and pattern.startswith("/"):
            base, pattern = _split_pattern(pattern)
            place = place_of(ctx, base) if base else place
        flags = ["--files", "--glob", pattern, "--sort=modified", "--no-ignore", "--hidden"]
        lines, note = run_ripgrep(ctx, flags, place.lexical)
        files = [shown_path(ctx, line) if line.startswith("/") else node_join(place.shown, line) for line in lines]
        if ctx.at_least(GLOB_RELATIVE):  # 2.1.84's `filenames.map(…)`: the shortening Grep's paths have
            files = [relativized(ctx, f) for f in files]
        limit = int_param(ctx, "max_results", GLOB_LIMIT)
        if not files:
            return Outcome(output="No files found", reason=note)
        shown = [ctx.show(f) for f in files[:limit]] + ([_truncated(ctx, limit, len(files), bool(note))]
                                                         if len(files) > limit else [])
        outcome = finish(ctx, "Glob", "\n".join(shown))
        return Outcome(output=outcome.output, reason=note) if note else outcome


def _truncated(ctx: Context, shown: int, total: int, capped: bool) -> str:
    """The note after a cut list: one sentence before GLOB_SHOWING, then the counts (a floor when rg's own output
    was cut)."""
    if not ctx.at_least(GLOB_SHOWING):
        return TRUNCATED_GLOB
    if capped:
        return (f"(Showing the first {shown} files; there are more than {total} matches. Narrow the pattern or path "
                "to see the rest.)")
    return (f"(Showing {shown} of {total} matching files; {total - shown} more are not listed. Narrow the pattern or "
            "path to see the rest.)")


def _split_pattern(pattern: str) -> tuple[str, str]:
    """An absolute glob as Claude Code split it: the folder before the first wildcard, and the rest."""
    wild = re.search(r"[*?[{]", pattern)
    if not wild:
        return node_dirname(pattern), node_basename(pattern)
    head = pattern[:wild.start()]
    cut = head.rfind("/")
    if cut == -1:
        return "", pattern
    base = head[:cut] or ("/" if cut == 0 else "")
    return base, pattern[cut + 1:]
