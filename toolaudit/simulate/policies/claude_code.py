"""Claude Code's own caps, by version: Bash, Grep, Read, Glob, MCP and the persisted-output preview."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import ClassVar

from .base import ORDER_CAP, ORDER_MATCHES, ORDER_REFUSAL, CountTokens, Policy, approx_tokens, cut_chars, cut_chars_tail


# Read in the npm package's cli.js (2.0.64 - 2.1.42 for replay's emulation, replay/agents/claude_code;
# 2.0.67 - 2.0.77, 2.1.59 - 2.1.91 and 2.1.112 for the version gates of the presets). Lengths are
# JavaScript's (UTF-16 code units); a cut never splits a character.

CLAUDE_PREVIEW = 2000  # a <persisted-output> preview's size
READ_MAX_BYTES = 262_144  # Read's "exceeds maximum allowed size (256KB)"
READ_MAX_TOKENS = 25_000  # CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS' default
MCP_MAX_TOKENS = 25_000  # MAX_MCP_OUTPUT_TOKENS' default
READ_HINT_OLD = ("Please use offset and limit parameters to read specific portions of the file, "
                 "or use the GrepTool to search for specific content.")
READ_HINT = ("Use offset and limit parameters to read specific portions of the file, "
             "or search for specific content instead of reading the whole file.")  # 2.1.71 on
GLOB_NOTE = "(Results are truncated. Consider using a more specific path or pattern.)"
MCP_TRUNCATED = (
    "\n\n[OUTPUT TRUNCATED - exceeded {limit} token limit]\n\n"
    "The tool output was truncated. If this MCP server provides pagination or filtering tools, use them to "
    "retrieve specific portions of the data. If pagination is not available, inform the user that you are "
    "working with truncated output and results may be incomplete."
)
_MCP_SAVED = (
    "Error: result ({chars:,} characters) exceeds maximum allowed tokens. Output has been saved to <file>.\n"
    "Format: Plain text\n"
    "Use offset and limit parameters to read specific portions of the file, {search}, and jq to make structured "
    "queries.\n"
    "REQUIREMENTS FOR SUMMARIZATION/ANALYSIS/REVIEW:\n"
    "- You MUST read the content from the file at <file> in sequential chunks until 100% of the content has "
    "been read.\n"
    "- If you receive truncation warnings when reading the file, reduce the chunk size until you have read "
    "100% of the content without truncation.\n"
    "- Before producing ANY summary or analysis, you MUST explicitly describe what portion of the content you "
    "have read. ***If you did not read the entire content, you MUST explicitly state this.***\n"
)
MCP_SAVED_OLD = _MCP_SAVED.replace("{search}", "the Grep tool to search for specific content")  # 2.0.71 - 2.1.70
MCP_SAVED = _MCP_SAVED.replace("{search}", "search within it for specific content")  # 2.1.71 on


def js_len(text: str) -> int:
    """JavaScript's `length`: UTF-16 code units."""
    return len(text) if text.isascii() else len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def js_head(text: str, units: int) -> str:
    """The first `units` UTF-16 code units of `text`, one fewer rather than split a character."""
    if text.isascii() or units <= 0:
        return text[:max(units, 0)]
    used = 0
    for i, c in enumerate(text):
        used += 2 if ord(c) > 0xFFFF else 1
        if used > units:
            return cut_chars(text, i)
    return text


def js_tail(text: str, units: int) -> str:
    """The last `units` UTF-16 code units of `text`, one fewer rather than split a character."""
    if text.isascii() or units <= 0:
        return text[len(text) - units:] if units > 0 else ""
    used = 0
    for i in range(len(text) - 1, -1, -1):
        used += 2 if ord(text[i]) > 0xFFFF else 1
        if used > units:
            return cut_chars_tail(text, len(text) - i - 1)
    return text


def size_text(count: int) -> str:
    """Claude Code's size words: `512 bytes`, `20.5KB`, `3.1MB` (toFixed(1), `.0` dropped)."""
    def fixed(value: float) -> str:
        return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)).removesuffix(".0")

    kb = count / 1024
    if kb < 1:
        return f"{count} bytes"
    if kb < 1024:
        return f"{fixed(kb)}KB"
    mb = kb / 1024
    return f"{fixed(mb)}MB" if mb < 1024 else f"{fixed(mb / 1024)}GB"


def persisted(text: str, limit: int | None) -> str:
    """`text`, or the <persisted-output> preview Claude Code (2.1.2 on) showed for an output over `limit` chars."""
    size = js_len(text)
    if limit is None or not text or size <= limit or text.startswith("<persisted-output>"):
        return text
    preview, more = text, False
    if size > CLAUDE_PREVIEW:
        head = js_head(text, CLAUDE_PREVIEW)
        cut = head.rfind("\n")
        preview = head[:cut] if cut >= 0 and js_len(head[:cut]) > CLAUDE_PREVIEW * 0.5 else head
        more = True
    return (f"<persisted-output>\nOutput too large ({size_text(size)}). Full output saved to: <file>\n\n"
            f"Preview (first {size_text(CLAUDE_PREVIEW)}):\n{preview}{chr(10) + '...' + chr(10) if more else chr(10)}"
            "</persisted-output>")


def lines_cut(text: str, limit: int) -> str:
    """The cut before 2.1.2 (Bash over 30,000 chars, Grep over 20,000): the head and `... [N lines truncated] ...`."""
    if js_len(text) <= limit:
        return text
    head = js_head(text, limit)
    return f"{head}\n\n... [{text[len(head):].count(chr(10)) + 1} lines truncated] ..."


_EXIT = re.compile(r"Exit code -?\d+(?:\n|$)")


@dataclass(frozen=True)
class ClaudeBash(Policy):
    """Claude Code's Bash: a failure (`Exit code N` …) over 10,000 chars keeps 5,000 at each end (every version);
    a success over `max_chars` keeps its head with `... [N lines truncated] ...` (before 2.1.2) or becomes
    the <persisted-output> preview (2.1.2 on)."""

    key: ClassVar[str] = "claude-bash"
    summary: ClassVar[str] = "Claude Code's Bash cut of one version range (preset claude-code)"
    order: ClassVar[int] = ORDER_CAP
    family: ClassVar[str] = "cap"

    persist: bool = True
    max_chars: int = 30_000
    error_chars: int = 10_000

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The output as this version showed it, or `text` itself when within its limit."""
        if _EXIT.match(text):
            size = js_len(text)
            if size <= self.error_chars:
                return text
            half = self.error_chars // 2
            return (f"{js_head(text, half)}\n\n... [{size - self.error_chars} characters truncated] ...\n\n"
                    f"{js_tail(text, half)}")
        return persisted(text, self.max_chars) if self.persist else lines_cut(text, self.max_chars)


_GREP_NOTE = re.compile(r"\n\n(?:\[Showing results with pagination = [^\n]*\]|"
                        r"Found \d+ total occurrences? across \d+ files?\.[^\n]*)$")


@dataclass(frozen=True)
class ClaudeGrepCut(Policy):
    """Claude Code's Grep before 2.1.2: a mode's text over 20,000 chars keeps its head and
    `... [N lines truncated] ...`, the pagination or count note after it kept."""

    key: ClassVar[str] = "claude-grep-cut"
    summary: ClassVar[str] = "Claude Code's Grep cut before 2.1.2 (preset claude-code)"
    order: ClassVar[int] = ORDER_CAP
    family: ClassVar[str] = "cap"

    max_chars: int = 20_000

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The head and the line count, or `text` itself when within the limit."""
        note = _GREP_NOTE.search(text)
        body = text[:note.start()] if note else text
        cut = lines_cut(body, self.max_chars)
        return text if cut is body else cut + (note.group(0) if note else "")


@dataclass(frozen=True)
class ClaudePersisted(Policy):
    """Claude Code (2.1.2 on): a tool's output over its maxResultSizeChars becomes a <persisted-output> preview
    (the first 2,000 chars, to the last newline past 1,000), `<file>` standing for the saved file's path."""

    key: ClassVar[str] = "claude-persisted"
    summary: ClassVar[str] = "Claude Code's <persisted-output> preview over a tool's size (preset claude-code)"
    order: ClassVar[int] = ORDER_CAP
    family: ClassVar[str] = "cap"

    max_chars: int = 100_000

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The preview, or `text` itself when within the size."""
        return persisted(text, self.max_chars)


_NUMBERED = re.compile(r"^ *\d+→", re.MULTILINE)
_REMINDER = "\n\n<system-reminder>\n"


def read_content(text: str) -> str:
    """The file text of a Claude Code Read output: line numbers (`%6d→`) and a trailing reminder taken off
    (what Claude Code measured); any other text as it is."""
    body = text.split(_REMINDER, 1)[0] if text.endswith("</system-reminder>\n") else text
    lines = body.count("\n") + 1
    numbered = len(_NUMBERED.findall(body))
    return _NUMBERED.sub("", body) if numbered and numbered * 2 >= lines else body


@dataclass(frozen=True)
class ClaudeRead(Policy):
    """Claude Code's Read: the file text over 256 KB, or over 25,000 tokens, is refused with Claude Code's
    error (the text measured without its line numbers; tokens counted by the caller's tokenizer where
    Claude Code asked the API); else the output persisted over `persist` chars (2.1.2 - 2.1.78)."""

    key: ClassVar[str] = "claude-read"
    summary: ClassVar[str] = "Claude Code's Read refusals and persistence of one version range (preset claude-code)"
    order: ClassVar[int] = ORDER_REFUSAL
    family: ClassVar[str] = "refusal"

    persist: int | None = None
    hint: str = READ_HINT_OLD
    max_tokens: int = READ_MAX_TOKENS
    max_bytes: int = READ_MAX_BYTES

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The error, the preview, or `text` itself."""
        if text.startswith(("File content (", "<persisted-output>")):
            return text
        content = read_content(text)
        size = js_len(content)
        if size > self.max_bytes:
            return f"File content ({size_text(size)}) exceeds maximum allowed size ({size_text(self.max_bytes)}). {self.hint}"
        if round(size / 4) > self.max_tokens / 4:  # Claude Code's rough count, before it asks for the real one
            tokens = (count_tokens or approx_tokens)(content)
            if tokens > self.max_tokens:
                return f"File content ({tokens} tokens) exceeds maximum allowed tokens ({self.max_tokens}). {self.hint}"
        return persisted(text, self.persist)


@dataclass(frozen=True)
class ClaudeGlob(Policy):
    """Claude Code's Glob: at most 100 paths, then `(Results are truncated. …)`; persisted over `persist`."""

    key: ClassVar[str] = "claude-glob"
    summary: ClassVar[str] = "Claude Code's Glob: 100 paths and a note (preset claude-code)"
    order: ClassVar[int] = ORDER_MATCHES
    family: ClassVar[str] = "match-limit"

    limit: int = 100

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The first `limit` lines and the note, or `text` itself."""
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) <= self.limit or lines[-1] == GLOB_NOTE:
            return text
        return "\n".join(lines[:self.limit] + [GLOB_NOTE])


_FILES_HEAD = re.compile(r"Found \d+ files?(?: limit: \d+)?(?:,? offset: \d+)?\n")
_COUNT_NOTE = re.compile(r"\n\nFound \d+ total occurrences? across \d+ files?\.[^\n]*$")
_PAGINATION = re.compile(r"\n\n\[Showing results with pagination = [^\n]*\]$")


@dataclass(frozen=True)
class ClaudeHeadLimit(Policy):
    """Claude Code's Grep from 2.1.84: head_limit defaults to 250 entries (content lines, files, counts),
    with its pagination note; an output already paginated is left as it is."""

    key: ClassVar[str] = "claude-head-limit"
    summary: ClassVar[str] = "Claude Code's Grep default head_limit of 250 (preset claude-code)"
    order: ClassVar[int] = ORDER_MATCHES
    family: ClassVar[str] = "match-limit"

    limit: int = 250

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The first `limit` entries with the note, or `text` itself."""
        if not text or _PAGINATION.search(text):
            return text
        files = _FILES_HEAD.match(text)
        if files:
            if "limit:" in files.group(0):
                return text
            kept = _entries(text[files.end():], self.limit)
            return text if kept is None else f"Found {len(kept)} files limit: {self.limit}\n" + "\n".join(kept)
        count = _COUNT_NOTE.search(text)
        if count:
            if "pagination" in count.group(0):
                return text
            kept = _entries(text[:count.start()], self.limit)
            if kept is None:
                return text
            numbers = [re.match(r"\s*[+-]?\d+", line[line.rfind(":") + 1:]) for line in kept if line.rfind(":") > 0]
            matches, found = sum(int(n.group()) for n in numbers if n), sum(1 for n in numbers if n)
            return ("\n".join(kept) + f"\n\nFound {matches} total {'occurrence' if matches == 1 else 'occurrences'} "
                    f"across {found} {'file' if found == 1 else 'files'}. with pagination = limit: {self.limit}")
        kept = _entries(text, self.limit)
        return text if kept is None else "\n".join(kept) + f"\n\n[Showing results with pagination = limit: {self.limit}]"


def _entries(text: str, limit: int) -> list[str] | None:
    """The first `limit` lines of `text`, or None when it has no more (a final newline ends the last)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[:limit] if len(lines) > limit else None


@dataclass(frozen=True)
class ClaudeMcp(Policy):
    """Claude Code's MCP results over 25,000 tokens (a rough count over half of it, then Claude's own, here the
    caller's tokenizer): cut to 100,000 chars and a notice (before 2.0.71), or replaced by the error naming the
    saved file (2.0.71 on; `<file>` stands for its path, the format named `Plain text`)."""

    key: ClassVar[str] = "claude-mcp"
    summary: ClassVar[str] = "Claude Code's cap on MCP results of one version range (preset claude-code)"
    order: ClassVar[int] = ORDER_REFUSAL
    family: ClassVar[str] = "refusal"

    saved: str | None = MCP_SAVED
    max_tokens: int = MCP_MAX_TOKENS

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The cut or the error, or `text` itself when within the limit."""
        if round(js_len(text) / 4) <= self.max_tokens * 0.5 or text.startswith("Error: result ("):
            return text
        if (count_tokens or approx_tokens)(text) <= self.max_tokens:
            return text
        if self.saved is None:
            return js_head(text, self.max_tokens * 4) + MCP_TRUNCATED.format(limit=self.max_tokens)
        return self.saved.format(chars=js_len(text))

    def describe(self) -> str:
        """The limit and which of the two answers."""
        return f"max_tokens={self.max_tokens} {'saved to a file' if self.saved else 'truncated'}"
