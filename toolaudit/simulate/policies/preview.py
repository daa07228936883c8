"""Per-match preview for search outputs, and per-line clipping.

Search outputs come as ripgrep/grep text (`path:line:content` matches, `path-line-content`
context lines, `--` separators), as JSON with per-match content
(`{"total_count": N, "matches": [{"path", "line", "content"}]}`), or as hermes-agent's
densified JSON (`"matches_text": "<path>\\n  <line>: <content>\\n…"`). Only the content
part of each match is cut; every other line is kept as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

from ...errors import UsageError
from .base import ORDER_PREVIEW, CountTokens, Policy, cut_chars, dump_json_like, load_json, policies

# Non-greedy: the first `:digits:` ends the path (paths rarely hold one, content often does).
# The path has no quotes or braces, does not start or end with a space and is not all digits, so a
# timestamp such as `12:30:45` or a JSON line is never taken for a match; a path with spaces in it
# (`docs/My Notes.md:3:`) must look like one: a folder or an extension (see parse_match).
_MATCH_LINE = re.compile(
    r"(?P<prefix>(?=[^:]*[^\d:])(?P<path>[^\s:\"'{}<>|](?:[^:\"'{}<>|\t]*?[^\s:\"'{}<>|])?):\d+)(?P<sep>:)(?P<content>.*)")
_PATHLIKE = re.compile(r"/|\.\w{1,8}$")
_DENSE_ROW = re.compile(r"(?P<prefix>  \d+)(?P<sep>: )(?P<content>.*)")
_CONTEXT_AT = re.compile(r"(?=(-\d+)-)")  # lookahead: every "-digits-", overlapping ones too

Parsed = tuple[str, str, str]  # prefix (path:line), separator, content


def parse_match(body: str) -> Parsed | None:
    """(`path:line`, `:`, content) of a `path:line:content` line, else None."""
    found = _MATCH_LINE.fullmatch(body)
    if not found or (" " in found["path"] and not _PATHLIKE.search(found["path"])):
        return None
    return found.group("prefix", "sep", "content")


def _parse_context(body: str, paths: set[str]) -> Parsed | None:
    # `path-12-content` is ambiguous when a path holds "-digits-", and dates look alike;
    # ripgrep prints context only for files that have a match, so the path must be one
    # already seen in a match line.
    for found in _CONTEXT_AT.finditer(body):
        if body[: found.start()] in paths:
            return body[: found.end(1)], "-", body[found.end(1) + 1 :]
    return None


def _split_eol(line: str) -> tuple[str, str]:
    body = line[:-1] if line.endswith("\r") else line
    return body, line[len(body):]


@policies.register
@dataclass(frozen=True)
class SearchPreview(Policy):
    """Cut each search match's content to its first N chars + "..." (N=0: `path:line` only)."""

    key: ClassVar[str] = "search-preview"
    summary: ClassVar[str] = (
        "--preview-chars N (default 100), --include-content: per search match, keep the first N chars "
        "of content + '...'; N=0 keeps path:line only"
    )
    order: ClassVar[int] = ORDER_PREVIEW

    preview_chars: int = 100
    include_content: bool = False
    ellipsis: str = "..."
    # instead of cutting, replace over-long content whole (ripgrep --max-columns: "[Omitted long matching line]")
    replacement: str | None = None

    def __post_init__(self) -> None:
        if self.preview_chars < 0:
            raise UsageError("--preview-chars must not be negative", slug="bad-policy")

    def _cut(self, content: str) -> str | None:
        """The new content, None to drop it (N=0), or the same object when short enough."""
        if len(content) <= self.preview_chars:
            return content
        if self.replacement is not None:
            return self.replacement
        if self.preview_chars == 0:
            return None
        return cut_chars(content, self.preview_chars) + self.ellipsis

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """Text with every match's content previewed, or `text` itself when none was longer."""
        if self.include_content or not text:
            return text
        doc = load_json(text)
        if isinstance(doc, dict) and (isinstance(doc.get("matches"), list) or isinstance(doc.get("matches_text"), str)):
            return self._apply_json(text, doc)
        return _map_lines(text, self._cut)

    def _apply_json(self, text: str, doc: dict[str, Any]) -> str:
        changed = False
        for match in doc.get("matches") or ():
            if isinstance(match, dict) and isinstance(match.get("content"), str):
                new = self._cut(match["content"])
                if new is not match["content"]:
                    changed = True
                    if new is None:
                        del match["content"]
                    else:
                        match["content"] = new
        dense = doc.get("matches_text")
        if isinstance(dense, str):
            new_dense = _map_lines(dense, self._cut, dense=True)
            if new_dense is not dense:
                doc["matches_text"], changed = new_dense, True
        return dump_json_like(doc, text) if changed else text


def _map_lines(text: str, cut: Callable[[str], str | None], dense: bool = False) -> str:
    """`text` with `cut` applied to the content of each match/context line; same object if none changed."""
    # split on "\n" only: str.splitlines would also split on \x0c, \u2028... inside content
    lines = [_split_eol(line) for line in text.split("\n")]
    if dense:
        parsed = [_DENSE_ROW.fullmatch(body) for body, _ in lines]
        parsed = [found.group("prefix", "sep", "content") if found else None for found in parsed]
    else:
        parsed = [parse_match(body) for body, _ in lines]
        paths = {p[0].rsplit(":", 1)[0] for p in parsed if p}
        if paths:
            parsed = [p or _parse_context(body, paths) for p, (body, _) in zip(parsed, lines)]
    out, changed = [], False
    for (body, eol), found in zip(lines, parsed):
        if found is not None:
            prefix, sep, content = found
            new = cut(content)
            if new is not content:
                changed = True
                body = prefix if new is None else prefix + sep + new
        out.append(body + eol)
    return "\n".join(out) if changed else text


@policies.register
@dataclass(frozen=True)
class LineClip(Policy):
    """Cut every line longer than N chars to its first N chars + a suffix (read tools' long-line cut)."""

    key: ClassVar[str] = "line-clip"
    summary: ClassVar[str] = "cut each line longer than N chars to N chars + a suffix (e.g. '... [truncated]')"
    order: ClassVar[int] = ORDER_PREVIEW

    max_chars: int = 2000
    suffix: str = "... [truncated]"

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """Text with long lines clipped, or `text` itself when no line was longer."""
        if len(text) <= self.max_chars:
            return text
        lines = text.split("\n")
        if all(len(line) <= self.max_chars for line in lines):
            return text
        return "\n".join(
            cut_chars(line, self.max_chars) + self.suffix if len(line) > self.max_chars else line for line in lines
        )
