"""builtin:grep: a dedicated search tool on ripgrep, its results capped by `simulate`'s match and byte limit.

Spec parameters: `builtin:grep?max_matches=100&max_bytes=10000` (the defaults: the
dedicated grep of the repository-search study). The response, notice included, is at
most `max_bytes` UTF-8 bytes, cut on a character boundary (MatchLimit, DEFAULT_NOTICE).

Canonical arguments (what `--translate shell-search` produces from `grep -rn` / `rg`):
    {"pattern": str, "path": str = ".", "include": [glob, ...], "ignore_case": bool,
     "fixed_strings": bool, "max_count": int | None}
`max_count` is ripgrep's `--max-count` (grep's `-m`): at most N matching lines per file.
A `| head -N` after the search is `head_limit: N` (at most N output lines in all).

Recorded aliases also read: pattern = query, regex; path = dir, directory, file_path,
absolute_path; include = glob, file_pattern, file_glob; ignore_case = `-i`,
case_insensitive; fixed_strings = literal; Claude Code Grep's `type` (rg --type),
`-A`/`-B`/`-C`/context, `multiline`, `output_mode` (content | files_with_matches | count;
default here: content; a recorded Claude Code Grep call without it arrives as files_with_matches,
runner.RECORDED_DEFAULTS), `head_limit` (alias limit) and `offset` (output lines skipped
first). `-n` is accepted and ignored: line numbers are always shown, so results stay
countable. Other arguments are ignored.

Output: `path:line:content` per matching line (context lines `path-line-content`, `--`
between groups), paths relative to the workspace, sorted by path (ripgrep's order:
component by component), then line. ripgrep's defaults hold: .gitignore'd and hidden
files are skipped, symlinks are never followed. No match: `No matches found` (not an
error). A bad regex: an error result with ripgrep's message.
"""

from __future__ import annotations

import base64
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import orjson

from ...simulate.policies import Chain
from ..base import Outcome, Sandbox
from ..sandbox import relative
from .common import BadArgument, as_bool, as_count, as_globs, as_text, search_caps, pick, required, target, window
from .ripgrep import finish, run_rg, scope

NEEDS_RG = True
SUMMARY = "search file contents with ripgrep; at most max_matches results and max_bytes bytes (100, 10000)"
NO_MATCHES = "No matches found"
MODES = ("content", "files_with_matches", "count")


@dataclass(frozen=True)
class Params:
    """builtin:grep's spec parameters."""

    max_matches: int | None = 100  # results shown at most (None: no limit)
    max_bytes: int | None = 10_000  # UTF-8 bytes of the whole response, notice included (None: no limit)
    hidden: bool = False  # search hidden files too (rg --hidden); .git never
    no_ignore: bool = False  # search .gitignore'd files too (rg --no-ignore)

    def __post_init__(self) -> None:
        self.chain()  # a bad value is a usage error when the spec is read, not at the first call

    def chain(self) -> Chain:
        """simulate's match and byte limit (MatchLimit)."""
        return search_caps(self.max_matches, self.max_bytes)


def call(params: Params, args: Mapping[str, Any], workspace: Path, sandbox: Sandbox) -> Outcome:
    """Search as the recorded call asks; results capped."""
    return search(args, workspace, sandbox, params.chain(), scope(params))


def search(args: Mapping[str, Any], workspace: Path, sandbox: Sandbox, chain: Chain, extra: list[str] = ()) -> Outcome:
    """Run the search `args` ask for and return its `chain`-capped text (shared with search_files)."""
    pattern = required(args, ("pattern", "query", "regex"))
    path, _ = target(workspace, args, must_exist=True)
    mode = as_text(pick(args, ("output_mode",), "content"), "output_mode")
    if mode not in MODES:
        raise BadArgument(f"argument 'output_mode' must be one of {', '.join(MODES)}, not {mode!r}")
    flags, context = _flags(args)
    result = run_rg(sandbox, workspace, [*flags, *extra], [pattern, relative(workspace, path)])
    entries, matches = _render(result.stdout, context, mode)
    return finish(result, window(args, entries), matches, NO_MATCHES, chain, sandbox)

def _flags(args: Mapping[str, Any]) -> tuple[list[str], bool]:
    """rg flags for the recorded options, and whether context lines were asked for."""
    flags = ["--json"]
    if as_bool(pick(args, ("ignore_case", "-i", "case_insensitive"), False), "ignore_case"):
        flags.append("--ignore-case")
    if as_bool(pick(args, ("fixed_strings", "literal"), False), "fixed_strings"):
        flags.append("--fixed-strings")
    if as_bool(pick(args, ("multiline",), False), "multiline"):
        flags += ["--multiline", "--multiline-dotall"]
    max_count = as_count(pick(args, ("max_count",)), "max_count")
    if max_count is not None:
        flags += ["--max-count", str(max_count)]
    for glob in as_globs(pick(args, ("include", "glob", "file_pattern", "file_glob")), "include"):
        flags += ["--glob", glob]
    kind = pick(args, ("type",))
    if kind is not None:
        flags += ["--type", as_text(kind, "type")]
    context = False
    for name, flag in (("-A", "--after-context"), ("-B", "--before-context"), ("-C", "--context"),
                       ("context", "--context")):
        lines = as_count(args.get(name), name)
        if lines:
            flags += [flag, str(lines)]
            context = True
    return flags, context


def _text(field: Mapping[str, Any]) -> str:
    """rg JSON's {"text": …} or, for bytes that are not UTF-8, {"bytes": base64}."""
    if "text" in field:
        return field["text"]
    return base64.b64decode(field.get("bytes", "")).decode("utf-8", "replace")


def _render(stdout: bytes, context: bool, mode: str) -> tuple[list[str], int]:
    """The output lines for `mode` from rg's JSON events, and how many match events there were."""
    lines: list[str] = []
    counts: dict[str, int] = {}  # per path, in rg's order
    matches, last = 0, None
    for raw in stdout.splitlines():
        try:
            event = orjson.loads(raw)
        except orjson.JSONDecodeError:  # the last line of a capped output
            continue
        kind = event.get("type")
        if kind not in ("match", "context"):
            continue
        data = event["data"]
        path = posixpath.normpath(_text(data["path"]))  # rg prints "./x" for the operand "."
        if kind == "match":
            matches += 1
            counts[path] = counts.get(path, 0) + 1
        if mode != "content":
            continue
        number = data.get("line_number") or 0
        sep = ":" if kind == "match" else "-"
        # a multiline match spans several lines: one output line each, numbered on
        for i, content in enumerate(_text(data["lines"]).removesuffix("\n").split("\n")):
            if context and last is not None and (last[0] != path or number + i != last[1] + 1):
                lines.append("--")
            lines.append(f"{path}{sep}{number + i}{sep}{content}")
            last = (path, number + i)
    if mode == "files_with_matches":
        return list(counts), matches
    if mode == "count":
        return [f"{path}:{n}" for path, n in counts.items()], matches
    return lines, matches
