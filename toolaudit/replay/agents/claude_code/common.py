"""What Claude Code's Read, Grep and Glob share: versions, limits, the call's context, refusals, persisted outputs, ripgrep."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from ....errors import ToolauditError
from ...base import FAILED, REFUSED, REPLAYED, Outcome
from ...builtin.ripgrep import rg_path
from ...sandbox import OutsideWorkspace, RunResult, resolve, run_in
from ..base import Call, Emulation, version_tuple
from ..entire_redaction import MARK, as_recorded, hidden, recorded_lines
from .js import (
    MISSING,
    js_len,
    js_slice,
    js_trim,
    node_relative,
    node_resolve,
    size_text,
)

from .versions import (MORE_VCS, NEWEST, OLDEST, PERSIST_CAP, PERSIST_CAP_CHARS, READ_UNBOUNDED, RG_USAGE,  # noqa: F401
                       RG_USAGE_ERROR, RG_USAGE_TEXT, VERSIONS, is_windows, posix_form, windows_form)

AGENT = "claude-code"

# version gates: the first version with the behaviour
STREAM_READ = (2, 1, 41)  # Read streams the file, strips a BOM; missing file / EISDIR / size errors are thrown
MODEL_REMINDER = (2, 1, 39)  # the malware reminder is left out for claude-opus-4-6
JSON_TOKENS = (2, 1, 38)  # the rough token estimate counts 2 chars a token for .json/.jsonl/.jsonc
GREP_CONTEXT = (2, 1, 21)  # Grep takes `context` as an alias of -C
READ_PAGES = (2, 1, 30)  # Read takes `pages` (for PDFs)
PERSIST_ALWAYS = (2, 1, 2)  # outputs over a per-tool size are persisted without a feature flag
PERSIST_PER_TOOL = (2, 1, 6)  # ...the size is the tool's maxResultSizeChars
GLOB_ABSOLUTE = (2, 0, 74)  # an absolute Glob pattern is split into a base folder and a relative pattern

MAX_READ_BYTES = 262144  # "exceeds maximum allowed size (256KB)"
MAX_READ_TOKENS = 25000  # CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS' default
STREAM_THRESHOLD = 10485760  # files this big are read as a stream, 512 KiB a chunk
STREAM_CHUNK = 524288
GLOB_LIMIT = 100
PREVIEW_CHARS = 2000
OLD_GREP_CUT = 20000  # before 2.1.2: Grep output cut here unless persistence was on
OLD_PERSIST = 400000  # before 2.1.6: the persistence threshold of every tool but Grep (and Bash, WebFetch)
RESULT_CHARS = {"Read": 100000, "Grep": 20000, "Glob": 100000}  # maxResultSizeChars, 2.1.6 on
VCS_FOLDERS = (".git", ".svn", ".hg", ".bzr")


def vcs_folders(ctx: "Context") -> tuple[str, ...]:
    """The version-control folders Grep excluded (.jj and .sl from MORE_VCS)."""
    return VCS_FOLDERS + ((".jj", ".sl") if ctx.at_least(MORE_VCS) else ())
IMAGE_EXTENSIONS = frozenset({"png", "jpg", "jpeg", "gif", "webp"})
BINARY_EXTENSIONS = frozenset({  # Read refused these by extension (the same set in every version read)
    "mp3", "wav", "flac", "ogg", "aac", "m4a", "wma", "aiff", "opus", "mp4", "avi", "mov", "wmv", "flv", "mkv",
    "webm", "m4v", "mpeg", "mpg", "zip", "rar", "tar", "gz", "bz2", "7z", "xz", "z", "tgz", "iso", "exe", "dll",
    "so", "dylib", "app", "msi", "deb", "rpm", "bin", "dat", "db", "sqlite", "sqlite3", "mdb", "idx", "doc", "docx",
    "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "ttf", "otf", "woff", "woff2", "eot", "psd", "ai", "eps",
    "sketch", "fig", "xd", "blend", "obj", "3ds", "max", "class", "jar", "war", "pyc", "pyo", "rlib", "swf", "fla",
})
NO_REMINDER_MODELS = frozenset({"claude-opus-4-6"})
MALWARE_REMINDER = (
    "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware. "
    "You CAN and SHOULD provide analysis of malware, what it is doing. But you MUST refuse to improve or augment the "
    "code. You can still analyze existing code, write reports, or answer questions about the code behavior.\n"
    "</system-reminder>\n")
TOO_BIG_HINT = ("Please use offset and limit parameters to read specific portions of the file, "
                "or use the GrepTool to search for specific content.")
ESTIMATED = "token count estimated offline (Claude Code asked the count_tokens API): the number may differ"
TRUNCATED_GLOB = "(Results are truncated. Consider using a more specific path or pattern.)"

COMMON_PARAMS = {
    "version": "emulate this Claude Code version instead of the recorded one (needed when none was recorded)",
    "max_result_chars": "persist outputs longer than this many characters (default: the version's size for the tool)",
    "persistence": "on/off: versions before 2.1.2 persisted large outputs only under a server flag (default off)",
    "home": "the home folder the <persisted-output> path is under (default: guessed from the working folder)",
    "model": "the session's model (Read's reminder depends on it from 2.1.39; the other tools ignore it)",
    "saved_path": "the path a <persisted-output> preview names (identity takes the recorded one: the recordings "
                  "redact it, and it names the recording machine)",
    "redacted": "the recorded lines Entire redacted (`REDACTED` for a value its secret scan flagged): a replayed line "
                "that such a line matches is printed as recorded (identity takes them from the recording)",
}
SAVED = re.compile(r"^<persisted-output>\nOutput too large \([^)\n]*\)\. Full output saved to: ([^\n]*)\n")


class Persisting(Emulation):
    """What every Claude Code tool shares: an output over its size becomes a <persisted-output> preview."""

    own: ClassVar[tuple[str, ...]] = ()  # the parameters of its own beside the input schema's and COMMON_PARAMS

    def from_recording(self, recorded: str, call: Call) -> dict[str, str]:
        """The path a persisted output names, as recorded (no re-run can know it), and the lines Entire redacted
        in the stored transcript (the recorder's doing, not Claude Code's: agents.entire_redaction)."""
        found = SAVED.match(recorded)
        # the saved path (redacted in the recordings) is the saved_path parameter's: only the output's own lines
        redacted = recorded_lines(recorded[found.end():] if found else recorded)
        return {**({"saved_path": found.group(1)} if found else {}), **({"redacted": redacted} if redacted else {})}

    def run(self, call: Call) -> Outcome:
        """The text Claude Code showed for this call (an error text or a refusal when it could not answer).

        A cap parameter (CEILINGS: Read's `limit`, Grep's `head_limit`) is a ceiling: the call is answered with
        the model's own arguments, then with the cap where it is lower; the capped answer is kept only when it is
        shorter, so a cap never raises the model's own limit nor adds a note to an output it did not cut."""
        done = self._run(call)
        redacted = call.params.get("redacted", "")
        if redacted and done.status == REPLAYED:  # Entire redacted the stored text after Claude Code had printed it
            head = SAVED.match(done.output)
            cut = head.end() if head else 0
            return replace(done, output=done.output[:cut] + as_recorded(done.output[cut:], redacted))
        return done

    def _run(self, call: Call) -> Outcome:
        try:
            ctx = context_of(call, self.tool, self.own)
            plain = self._answer(ctx)
            from .inputs import ceilings

            caps = ceilings(ctx, self.tool)
            if not caps or plain.is_error or plain.status != REPLAYED:
                return plain
            capped = self._answer(replace(ctx, args={**ctx.args, **caps}))
            return capped if capped.status == REPLAYED and js_len(capped.output) < js_len(plain.output) else plain
        except Answer as answer:
            return answer.outcome

    def _answer(self, ctx: Context) -> Outcome:
        try:
            return self.answer(ctx)
        except Answer as answer:
            return answer.outcome

    def answer(self, ctx: Context) -> Outcome:
        """The tool's answer for a call whose version and arguments were checked."""
        raise NotImplementedError

    def cut(self, output: str, call: Call) -> str:
        """`output` as this version shows an output of this tool: persisted when over its size."""
        try:
            return finish(context_of(call, self.tool, self.own), self.tool, output).output
        except Answer:  # an unknown version or a bad parameter: nothing to cut by
            return output


class Answer(Exception):
    """Raised inside an emulation to answer at once with `outcome` (an error text or a refusal)."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome.output or outcome.reason)
        self.outcome = outcome





# --- the call: version, arguments, places -------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """What every emulated tool needs from a call: its version, arguments (params applied) and folders."""

    version: tuple[int, ...]
    args: dict[str, Any]
    cwd: str  # the recorded working folder: where absolute paths are shown
    root: Path  # the replay folder, resolved: where they are read
    call: Call
    here: str = ""  # the folder Claude Code was in at this call (a Bash `cd` moves it): relative paths start there
    windows: bool = False  # the session ran on Windows: paths are worked on in posix_form, printed in windows_form

    def __post_init__(self) -> None:
        if not self.here:
            object.__setattr__(self, "here", self.cwd)

    def at_least(self, gate: tuple[int, ...]) -> bool:
        """Whether the emulated version has the behaviour that began at `gate`."""
        return self.version >= gate

    def arg(self, name: str) -> Any:
        """The argument `name`, or `MISSING` when the call has none."""
        return self.args.get(name, MISSING)

    def show(self, path: str) -> str:
        """A path as this session's Claude Code printed it (backslashes and a drive letter on Windows)."""
        return windows_form(path) if self.windows else path


def version_of(call: Call) -> tuple[int, ...]:
    """The Claude Code version the call is replayed as (`?version=`, else the recorded one); raises Answer
    when none is known. A version newer than NEWEST replays as the newest (the report flags it), one older
    than OLDEST as the oldest: the gates compare with `>=`."""
    version = version_tuple(call.params.get("version") or call.version)
    if not version:
        raise Answer(refuse(f"no Claude Code version recorded; name one with ?version={'.'.join(map(str, NEWEST))}"))
    return version


def context_of(call: Call, tool: str, own: tuple[str, ...]) -> Context:
    """The call's version and arguments, `?k=v` parameters applied and checked as the tool's input schema
    checked them; raises Answer when out of range or invalid."""
    from .inputs import CEILINGS, check_input, param_value, schema_of

    version = version_of(call)
    schema = schema_of(tool, version)
    args = dict(call.args)
    capped = CEILINGS.get(tool, ("",))[0]
    for key, value in call.params.items():
        if key == capped:
            continue  # a ceiling, not an argument (ceilings)
        if key in schema:
            args[key] = value if schema[key] == "string" else param_value(value)
        elif key not in COMMON_PARAMS and key not in own:
            known = ", ".join([*schema, *own, *COMMON_PARAMS])
            raise Answer(failed_answer(f"{tool} has no parameter {key!r}; it takes: {known}"))
    root = Path(call.root).resolve()
    cwd = posix_form(call.cwd or str(root)).rstrip("/") or "/"
    check_input(tool, schema, args, version)
    return Context(version, args, cwd, root, call, here_of(call, cwd), windows=is_windows(call.cwd))


def here_of(call: Call, cwd: str) -> str:
    """The folder the call was made from: the one the transcript logged on its line, else the session's."""
    here = posix_form(call.here or "").rstrip("/")
    return here if here.startswith("/") else cwd


def int_param(ctx: Context, name: str, default: int) -> int:
    """An emulation parameter that is a whole number (a bad one fails the call, naming it)."""
    text = ctx.call.params.get(name)
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise Answer(failed_answer(f"parameter {name} must be a whole number, not {text!r}")) from None


def refuse(reason: str) -> Outcome:
    """Nothing ran: the call is outside what the emulation can reproduce."""
    return Outcome(output=f"Error: {reason}", is_error=True, status=REFUSED, reason=reason)


def failed_answer(reason: str) -> Outcome:
    """The emulation could not answer (a timeout, no ripgrep)."""
    return Outcome(output=f"Error: {reason}", is_error=True, status=FAILED, reason=reason)


def error_answer(text: str) -> Outcome:
    """An error result Claude Code showed the model as it was thrown."""
    return Outcome(output=text, is_error=True)


def invalid_answer(message: str) -> Outcome:
    """An error result of a tool's validateInput: Claude Code wraps those in <tool_use_error>."""
    return Outcome(output=f"<tool_use_error>{message}</tool_use_error>", is_error=True)


@dataclass(frozen=True)
class Place:
    """One path of a call: as Claude Code resolved it (under the recorded folder) and in the replay folder."""

    shown: str  # absolute, under `Context.cwd`
    lexical: Path  # the same place under the replay folder, symlinks not followed (what rg is given)
    real: Path  # `lexical` with symlinks followed (what is read); inside the replay folder


def place_of(ctx: Context, raw: str) -> Place:
    """Where `raw` (a recorded path) is, as Claude Code's path resolution finds it; raises Answer outside."""
    text = raw.strip()
    if ctx.windows:
        text = posix_form(text).replace("\\", "/")
    if text == "~" or text.startswith("~/"):
        raise Answer(refuse(f"path {raw!r} is under the home folder, outside the replay folder"))
    shown = node_resolve(ctx.here, text) if text else ctx.here
    shown = unicodedata.normalize("NFC", shown)
    if shown == ctx.cwd:
        rel = ""
    elif shown.startswith(ctx.cwd.rstrip("/") + "/"):
        rel = shown[len(ctx.cwd.rstrip("/")) + 1:]
    else:
        raise Answer(refuse(f"path {raw!r} is outside the recorded working folder {ctx.cwd}"))
    try:
        real = resolve(ctx.root, rel or ".")
    except OutsideWorkspace as exc:
        raise Answer(refuse(f"path {raw!r} is {exc.reason}")) from None
    if hidden(ctx.root, rel):
        raise Answer(refuse(f"path {raw!r} holds Entire's {MARK}: the recording hid part of it"))
    return Place(shown, ctx.root / rel if rel else ctx.root, real)


def shown_path(ctx: Context, path: str) -> str:
    """A path ripgrep printed under the replay folder, as it would have printed it under the recorded one."""
    root = str(ctx.root)
    if path == root:
        return ctx.cwd
    if path.startswith(root + "/"):
        return ctx.cwd.rstrip("/") + path[len(root):]
    return path


def relativized(ctx: Context, path: str) -> str:
    """Grep's path shortening: relative to the working folder unless that starts with `..`."""
    rel = node_relative(ctx.here, ctx.here, path)
    return path if rel.startswith("..") else rel


# --- outputs too large --------------------------------------------------------------------------


def _persist_limit(ctx: Context, tool: str) -> int | None:
    """The size over which the version saved `tool`'s output to a file (None: never)."""
    if "max_result_chars" in ctx.call.params:
        return int_param(ctx, "max_result_chars", 0)
    if ctx.at_least(PERSIST_PER_TOOL):
        if tool == "Read" and ctx.at_least(READ_UNBOUNDED):
            return None
        return min(RESULT_CHARS[tool], PERSIST_CAP_CHARS) if ctx.at_least(PERSIST_CAP) else RESULT_CHARS[tool]
    if ctx.at_least(PERSIST_ALWAYS):
        return RESULT_CHARS["Grep"] if tool == "Grep" else OLD_PERSIST
    return OLD_PERSIST if persistence_flag(ctx) else None


def persistence_flag(ctx: Context) -> bool:
    """Before 2.1.2 the server flag tengu_tool_result_persistence decided; the recordings show it off."""
    return ctx.call.params.get("persistence", "off").strip().lower() in ("on", "true", "1", "yes")


def _saved_path(ctx: Context) -> str:
    """Where Claude Code saved a persisted output: ~/.claude/projects/<folder>/<session>/tool-results/<id>.txt."""
    if ctx.call.params.get("saved_path"):
        return ctx.call.params["saved_path"]
    home = ctx.call.params.get("home") or _guess_home(ctx.cwd)
    folder = re.sub(r"[^a-zA-Z0-9]", "-", ctx.cwd)
    return f"{home}/.claude/projects/{folder}/{ctx.call.session}/tool-results/{ctx.call.call_id}.txt"


def _guess_home(cwd: str) -> str:
    """The home folder a working folder is probably under (/Users/NAME, /home/NAME, /root), else `~`."""
    found = re.match(r"^(/Users/[^/]+|/home/[^/]+|/root)(/|$)", cwd)
    return found.group(1) if found else "~"


def finish(ctx: Context, tool: str, text: str) -> Outcome:
    """A successful result as the model saw it: persisted (a preview) when over the version's limit."""
    limit = _persist_limit(ctx, tool)
    if not text or limit is None or js_len(text) <= limit:
        return Outcome(output=text)
    size = js_len(text)
    preview, more = text, False
    if size > PREVIEW_CHARS:
        cut = js_slice(text, 0, PREVIEW_CHARS).rfind("\n")
        preview = js_slice(text, 0, cut if cut > PREVIEW_CHARS * 0.5 else PREVIEW_CHARS)
        more = True
    return Outcome(output=(f"<persisted-output>\nOutput too large ({size_text(size)}). Full output saved to: "
                           f"{_saved_path(ctx)}\n\nPreview (first {size_text(PREVIEW_CHARS)}):\n{preview}"
                           f"{chr(10) + '...' + chr(10) if more else chr(10)}</persisted-output>"))


# --- ripgrep as Claude Code ran it ---------------------------------------------------------------


def run_ripgrep(ctx: Context, flags: list[str], operand: Path, ours: tuple[str, ...] = ()) -> tuple[list[str], str]:
    """ripgrep's output lines, as Claude Code kept them (trimmed, blank lines dropped), and a note.

    `ours` are flags Claude Code did not pass, put first: --no-config always (no local RIPGREP_CONFIG_PATH
    may change the answer), and what the caller adds (a stable order).
    """
    try:
        binary = rg_path()
    except ToolauditError as exc:
        raise Answer(failed_answer(exc.message)) from None
    argv = [binary, "--no-config", *ours, *flags, str(operand)]
    result: RunResult = run_in(ctx.call.sandbox, argv, cwd=ctx.root)
    if result.timed_out:
        raise Answer(failed_answer(f"rg timed out after {ctx.call.sandbox.timeout:g} s"))
    lines = [line for line in js_trim(result.stdout.decode("utf-8", "replace")).split("\n") if line]
    stderr = js_trim(result.stderr.decode("utf-8", "replace"))  # before RG_USAGE_ERROR an empty answer, as rg's
    if result.exit_code == 2 and not lines and ctx.at_least(RG_USAGE_ERROR) and re.search(RG_USAGE, stderr, re.M):
        raise Answer(error_answer(RG_USAGE_TEXT + js_slice(stderr, 0, 2000)))
    note = ""
    if result.capped:  # as when Claude Code's 20 MB buffer overflowed: the last, partial line is dropped
        lines = lines[:-1]
        note = f"rg output passed {ctx.call.sandbox.max_output_bytes} bytes: later results were not read"
    return lines, note


def truthy(value: Any) -> bool:
    """JavaScript truthiness of a recorded argument (missing and null are false)."""
    return value is not MISSING and bool(value)
