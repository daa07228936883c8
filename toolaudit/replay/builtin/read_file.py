"""builtin:read_file: a file's text, optionally a range of its lines, capped by `simulate`'s head/tail cap.

Spec parameters: `builtin:read_file?max_chars=5000&head_ratio=0.4&tail_lines=200`. No cap
by default. `max_chars` keeps the first 40% and the last 60% of the budget (head_ratio
0.4) with HeadTail's DEFAULT_MARKER between; `tail_lines` keeps the last N lines (with
max_chars too, both apply as in `simulate`).

Arguments: path = file_path, absolute_path, target_file, file, filename, path; `offset`
is the 1-based line to start at (Claude Code's Read; 0 reads from the start; Gemini's
0-based offset therefore starts one line early) and `limit` the number of lines. Other
arguments are ignored. The output is the file's text as is (no line numbers), decoded as
UTF-8 with invalid bytes replaced. A missing file or a directory is an error result; a
file larger than the sandbox's output cap is not read (FAILED).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ...simulate.policies import Chain, HeadTail
from ..base import Outcome, Sandbox
from .common import CallFailed, as_count, error, pick, target

NEEDS_RG = False
SUMMARY = "a file's text (offset/limit lines); max_chars head/tail cap at head_ratio 0.4, tail_lines"
PATH_NAMES = ("file_path", "absolute_path", "target_file", "file", "filename", "path")


@dataclass(frozen=True)
class Params:
    """builtin:read_file's spec parameters."""

    max_chars: int | None = None  # characters kept at most, head and tail (None: no cap)
    head_ratio: float = 0.4  # the head's share of max_chars; the tail gets the rest
    tail_lines: int | None = None  # keep only the last N lines

    def __post_init__(self) -> None:
        self.chain()

    def chain(self) -> Chain:
        """simulate's head/tail cap (HeadTail, its default marker) when a limit is set."""
        if self.max_chars is None and self.tail_lines is None:
            return Chain()
        return Chain.of(HeadTail(max_chars=self.max_chars, tail_lines=self.tail_lines, head_ratio=self.head_ratio))


def call(params: Params, args: Mapping[str, Any], workspace: Path, sandbox: Sandbox) -> Outcome:
    """The file's text, or the asked range of its lines, capped."""
    path, given = target(workspace, args, PATH_NAMES, default="")
    if not given:
        return error("Error: missing required argument 'file_path'")
    if path.is_dir():
        return error(f"Error: {given} is a directory, not a file")
    if not path.is_file():
        return error(f"Error: file does not exist: {given}")
    size = path.stat().st_size
    if size > sandbox.max_output_bytes:
        raise CallFailed(f"{given} holds {size} bytes, over the output cap of {sandbox.max_output_bytes}")
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError as exc:
        return error(f"Error: cannot read {given}: {exc.strerror}")
    offset = as_count(pick(args, ("offset",)), "offset")
    limit = as_count(pick(args, ("limit",)), "limit")
    if offset or limit is not None:
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()  # the final newline ends the last line, it does not start one
        start = max((offset or 1) - 1, 0)
        if start >= len(lines) and lines:
            return Outcome(output=f"{given} has {len(lines)} lines; offset {offset} is past its end")
        chosen = lines[start:] if limit is None else lines[start : start + limit]
        text = "".join(line + "\n" for line in chosen)
    return Outcome(output=params.chain().apply(text))
