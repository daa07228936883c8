"""Frozen records shared by every layer: what collectors yield, what the jobs measure."""

from __future__ import annotations

from dataclasses import dataclass, field

from .results import Exportable

SCHEMA_VERSION = 1

# ToolCall.status values
PAIRED = "paired"  # a call and its result
UNPAIRED = "unpaired"  # a call whose result never came (interrupt, end of file)
ORPHAN = "orphan"  # a result whose call is not in the transcript; tool is "unknown"

UNKNOWN_TOOL = "unknown"


def mcp_name(tool: str) -> tuple[str, str] | None:
    """(SERVER, TOOL) of a Claude Code MCP tool name `mcp__SERVER__TOOL`, else None."""
    if not tool.startswith("mcp__"):
        return None
    server, sep, name = tool[len("mcp__"):].partition("__")
    return (server, name) if sep else None


def strip_mcp_prefix(tool: str) -> str:
    """`mcp__SERVER__TOOL` (Claude Code's name) -> `TOOL`, the server's own; any other name as it is."""
    parts = mcp_name(tool)
    return parts[1] if parts and parts[1] else tool
MAIN_AGENT = "main"

# How far a call id names one call (ToolCall.id_scope), hence which copies a scan counts once:
FILE_SCOPE = "file"  # within its file and session: ids a format only keeps unique there
SESSION_SCOPE = "session"  # within its session, across files: the session id is the writer's own (toolaudit-jsonl)
SCAN_SCOPE = "scan"  # everywhere: ids unique across files (Claude Code, Codex, Gemini CLI)


def call_key(source: str, session: str, call_id: str, scope: str) -> tuple | None:
    """Identity of a call across the scan, by its id's scope; None when the format gives no call id."""
    if not call_id:
        return None
    if scope == SCAN_SCOPE:
        return (call_id,)
    if scope == SESSION_SCOPE:
        return (SESSION_SCOPE, session, call_id)
    return (source, session, call_id)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call and the output the model saw for it.

    `output` is the text as it was sent to the model (text parts joined with "\\n");
    images are never text: they are counted in `images` and `image_bytes`.
    `request_index` is the 0-based index, within the session, of the first model
    request that carried the output; `segment` counts compactions before it, so
    the output stays in context until the session's last request of that segment.
    """

    source: str
    line: int
    collector: str
    session: str
    tool: str
    output: str
    call_id: str = ""
    agent: str = MAIN_AGENT
    args: str = ""
    images: int = 0
    image_bytes: int = 0
    is_error: bool = False
    ts: str | None = None
    model: str | None = None
    status: str = PAIRED
    call_index: int = 0
    request_index: int | None = None
    segment: int = 0
    id_scope: str = FILE_SCOPE  # where call_id is unique: which copies count once (see call_key)
    call_line: int = 0  # the line where the call (its arguments) was written; `line` is the result's
    # tools whose definitions the result loaded into the context (Claude Code ToolSearch's tool_reference
    # blocks): not in `output`, their size is only known where a request log records the definitions
    tool_refs: tuple[str, ...] = ()
    # the folder the agent was in when it made the call, where its transcript logs one per line (Claude Code):
    # replay resolves relative paths and shortens printed ones from there
    cwd: str | None = None

    @property
    def dedupe_key(self) -> tuple | None:
        """Identity of the call across the scan (call_key)."""
        return call_key(self.source, self.session, self.call_id, self.id_scope)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line or file that could not be read, with the reason: `file:line: reason`."""

    source: str
    line: int
    reason: str
    # a truncated last line of a live session: normal, shown, never an error under --strict
    benign: bool = False

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


@dataclass(frozen=True, slots=True)
class SessionEnd:
    """Marks the end of a session in a file: how many model requests each segment had.

    `requests[s]` is how many model requests the context of `agent` had made when
    segment `s` (compaction count) ended; a call's residency is then
    `requests[segment] - request_index`: the requests that carried its output.
    """

    source: str
    session: str
    requests: tuple[int, ...] = ()
    agent: str = MAIN_AGENT
    # (call_id, requests) where the transcript shows exactly which requests carried an output
    # (request logs: those whose messages held it); it overrides the segment rule for that call
    carried: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class OutputCap:
    """The output cap an agent recorded for a session (Codex `turn_context.truncation_policy`).

    `unit` is "bytes" or "tokens"; a collector yields one when the session first records a
    cap and again when it changes, so each call is governed by the latest one before it.
    """

    source: str
    line: int
    session: str
    unit: str
    limit: int
    agent: str = MAIN_AGENT


@dataclass(frozen=True, slots=True)
class ModelText:
    """What the model wrote (text, thinking) in a session: evidence that it used a tool's output."""

    source: str
    line: int
    session: str
    text: str
    agent: str = MAIN_AGENT


@dataclass(frozen=True, slots=True)
class Usage:
    """Provider-reported usage of one model request, normalised to four disjoint parts.

    input = uncached input + cache write + cache read (Anthropic's `input_tokens` excludes
    the cache parts; OpenAI's includes cached tokens: collectors convert). `request_id`
    deduplicates across the scan (a message id, a response id); `request_index` is the
    request's 0-based position in its context, as ToolCall.request_index counts.
    """

    source: str
    line: int
    collector: str
    session: str
    request_id: str
    model: str | None
    input_uncached: int
    cache_write: int
    cache_read: int
    output: int
    agent: str = MAIN_AGENT
    ts: str | None = None
    request_index: int | None = None
    reasoning: int = 0  # part of `output`, when the provider says
    cache_write_1h: int = 0  # part of `cache_write`: 1-hour cache writes (Anthropic's ephemeral_1h_input_tokens)
    # request ids unique across files (Claude Code message ids, Codex session uuids): a resumed
    # copy is dropped scan-wide; other ids are only unique within their file
    global_id: bool = False
    # the request starts a turn: the user spoke since the request before (None: the format does not say)
    turn_start: bool | None = None
    context_window: int = 0  # the model's context window the recording names (0: none named)

    @property
    def input_total(self) -> int:
        """Everything the request sent: uncached + cache write + cache read."""
        return self.input_uncached + self.cache_write + self.cache_read


@dataclass(frozen=True, slots=True)
class ContextEvent:
    """A line's effect on one model context beyond tool results (Claude Code, only when asked: calibrate).

    `kind` REQUEST: a line the model wrote; `message_id` names its request (split lines share it),
    `thinking` says whether this line held thinking, `visible` its texts as the model wrote them (each
    text block, each tool_use as name + input JSON), for the reader to count with its own tokenizer.
    Any other `kind` is why more than tool results entered: "compaction", "attachment", "user text",
    "image", OTHER (a reply no API call wrote) or UNREADABLE (odd values: the turn is passed over).
    """

    REQUEST = "request"
    OTHER = "other message"
    UNREADABLE = "unreadable line"

    source: str
    line: int
    agent: str
    kind: str
    message_id: str | None = None
    thinking: bool = False
    visible: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Measurement:
    """The numbers of one call: what every summary, report and gate is built from."""

    source: str
    line: int
    collector: str
    session: str
    agent: str
    tool: str
    call_id: str
    model: str | None
    ts: str | None
    status: str
    is_error: bool
    agent_truncated: bool
    chars: int
    bytes: int
    lines: int | None  # None: not counted (only --records writes it)
    tokens: int
    images: int
    image_bytes: int
    call_index: int
    request_index: int | None
    segment: int
    residency: int | None
    args_preview: str
    output_preview: str | None = None
    id_scope: str = FILE_SCOPE
    truncated_by: str | None = None  # the agent whose truncation marker the output carries
    tool_refs: tuple[str, ...] = ()  # ToolCall.tool_refs

    @property
    def dedupe_key(self) -> tuple | None:
        """Identity of the call across the scan (call_key)."""
        return call_key(self.source, self.session, self.call_id, self.id_scope)


@dataclass(frozen=True, slots=True)
class FileResult:
    """What scanning one file produced; returned by worker processes."""

    source: str
    collector: str | None
    measurements: tuple[Measurement, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    error: str | None = None  # unreadable, or no collector recognised it
    usage: tuple[Usage, ...] = ()
    menus: tuple["MenuMeasurement", ...] = ()
    # With late previews (FileOptions.late_previews), per measurement: the first chars of its sanitized
    # arguments and output (None without --show-content) that its previews read. Unredacted: never
    # shown, and never sent off this machine (see scan.measure.previewed).
    heads: tuple[tuple[str, str | None], ...] = ()
    # where a resumable collector may read on when the file grows (Collector.checkpoint): numbers, ids, names
    checkpoint: tuple | None = None
    # (session, project) of the sessions whose SessionInfo says where they worked: the project's folder name,
    # masked (scan.sessions.project_of); `scan --by session` and `watch` name a session by it
    sessions: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ScanMeta:
    """Who measured, with what: stated in every result."""

    version: str
    tokenizer: str
    engine: str
    estimated: bool
    created: str
    inputs: tuple[str, ...]
    by: str = "tool"
    schema_version: int = SCHEMA_VERSION
    tokenizer_label: str = ""  # how the tokenizer names itself, e.g. "claude = o200k_base × 1.25, estimated (…)"


@dataclass(frozen=True, slots=True)
class GroupRow:
    """One row of a summary table: a tool (or session, file, agent...) and its numbers."""

    key: str
    calls: int
    tokens: int
    share: float
    tokens_mean: float
    tokens_p50: int
    tokens_p95: int
    tokens_max: int
    chars: int
    bytes: int
    error_calls: int
    agent_truncated_calls: int
    # --by session only: the session's project (its folder's name), agent (the format that wrote it: claude-code,
    # codex…) and start (its first call's or request's time, ISO 8601 in UTC); None where unknown
    project: str | None = None
    agent: str | None = None
    start: str | None = None


def _scan_calls(result: "ScanResult"):
    if not result.calls:
        from .errors import UsageError

        raise UsageError("no calls kept: scan with calls=True for one row per call", slug="frame")
    from .results import rows_frame

    return rows_frame(result.calls)


def _rows(name: str, key: str | None = None):
    """A frame of the dataclass rows in attribute `name`; GroupRow's `key` column named `key` (default: --by's)."""
    def frame(result):
        from .results import rows_frame

        df = rows_frame(getattr(result, name))
        if key is not None or result.meta.by != "session":  # a GroupRow's session columns hold nothing else
            df = df.drop(columns=[c for c in ("project", "agent", "start") if c in df.columns])
        return df.rename(columns={"key": key or result.meta.by}) if "key" in df.columns else df
    return frame


@dataclass(frozen=True, slots=True)
class ScanResult(Exportable):
    """The whole answer of `scan`: meta, totals, rows, skipped lines, top calls.

    `.to_pandas()`: one row per tool; `"groups"` per --by group, `"days"`, `"calls"` (scan with calls=True).
    """

    frames = {"tools": _rows("tools", "tool"), "groups": _rows("rows"), "days": _rows("days"), "calls": _scan_calls}

    meta: ScanMeta
    totals: GroupRow
    rows: tuple[GroupRow, ...]  # grouped by meta.by
    tools: tuple[GroupRow, ...]  # always per tool: the JSON contract's tools[]
    files: int
    sessions: int
    duplicates_dropped: int
    unpaired_calls: int
    orphan_results: int
    images: int
    image_bytes: int
    skipped_count: int
    skipped: tuple[Skipped, ...] = ()
    unrecognised: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    collectors: dict = field(default_factory=dict)
    top: tuple[Measurement, ...] = ()
    # tokens x residency: what re-sending the outputs with every later request cost
    carried_tokens: int = 0
    residency_known_calls: int = 0
    bill: object = None  # scan.billing.Bill: provider usage and dollars, when known
    undated: int = 0  # calls and requests left out by --since/--until for want of a timestamp
    outside: int = 0  # dated calls and requests left out by --since/--until
    newest: str | None = None  # with `outside`: the newest timestamp seen, so an empty window says where the data is
    menu: object = None  # scan.summary.Menu: the tool definitions requests carried, when recorded
    # per run (compare's rule: a session of a transcript, its subagents joined): steadier than totals
    runs: int = 0
    tokens_per_run_median: float = 0.0
    tokens_per_run_p90: int = 0
    days: tuple = ()  # scan.summary.DayRow: tool-output tokens per UTC day and tool (charts over time)
    tool_refs: object = None  # scan.summary.ToolReferences: definitions results loaded (ToolSearch), when any
    notes: tuple[str, ...] = ()  # what the formats read say of their numbers (Collector.note), one per format
    calls: tuple = ()  # every kept call's Measurement, when the caller asked for them (the API's calls=True)


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Where a session worked: its recorded working folder and git commit, when the transcript says.

    Replay maps recorded absolute paths under `cwd` into the workspace, and replays a session
    at `commit` (in a temporary git worktree) when that commit exists there.
    """

    source: str
    session: str
    cwd: str | None = None
    commit: str | None = None
    agent: str = MAIN_AGENT
    version: str | None = None  # the agent's version, where the transcript records it (replay's emulations)
    branch: str | None = None  # the git branch the session worked on (Claude Code's gitBranch): --at-session-start
    # (time, branch) each time the recorded branch changed after the first (Claude Code logs gitBranch on every line)
    branches: tuple[tuple[str, str], ...] = ()
    project: str | None = None  # the project's name where no cwd says it (Gemini CLI's directories or tmp folder)


@dataclass(frozen=True, slots=True)
class ToolMenu:
    """The tool definitions one session sent with its model requests: the menu the model chose from.

    `tools` holds (name, definition) pairs, the definition as the compact JSON a client sends
    (name, description, input schema); `requests` counts the requests that carried this very
    menu. A collector yields one record per distinct menu per session, never one per request.
    """

    source: str
    session: str
    tools: tuple[tuple[str, str], ...]
    requests: int
    agent: str = MAIN_AGENT
    # session ids unique across files (OpenHands conversation ids): a copy elsewhere counts once
    global_id: bool = False


@dataclass(frozen=True, slots=True)
class MenuMeasurement:
    """A ToolMenu measured: each definition's tokens, and how many requests carried the menu.

    `key` names the menu (a digest of its definitions), so a copy of the same session's menu
    in another file is recognised; `tools` holds (name, definition digest, tokens).
    """

    source: str
    collector: str
    session: str
    agent: str
    requests: int
    key: str
    tools: tuple[tuple[str, str, int], ...]
    global_id: bool = False
