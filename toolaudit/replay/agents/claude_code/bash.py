"""Claude Code's Bash for read-only commands: run by `shell_readonly` (never a shell), shown as 2.0.64 to 2.1.42 did.

The truth is the Bash tool of the npm package's `cli.js` (its `call`, `mapToolResultToToolResultBlockParam`, the
command semantics and the tool-error formatter, the same in every version common.py lists but for the cut), checked
against the Bash results of Entire's recorded sessions (a call whose re-run differs differs by its state: git refs,
files outside git, the recording machine's `ls -l`, `wc` and git abbreviations):

- The output: stdout with its trailing whitespace trimmed, a newline, then stderr likewise (Claude Code appends
  stderr to stdout when the command did not fail), blank lines at both ends dropped, trailing whitespace trimmed.
  No output is an empty content (the `(No content)` of the terminal is the UI's, never the model's).
- A failure is a non-zero exit, except exit 1 when the last command is `grep`, `rg`, `find`, `diff`, `test` or `[`
  (no match, files differ: the text is shown as a success). A failure is thrown and shown as the tool error:
  `Exit code N`, stderr and stdout as they came, joined by newlines and trimmed, cut in the middle when over 10,000
  characters (`... [N characters truncated] ...`), `is_error`; it is never persisted.
- Before 2.1.2 an output over BASH_MAX_OUTPUT_LENGTH (30,000) keeps its head and `... [N lines truncated] ...`;
  from 2.1.2 an output over 30,000 characters becomes the `<persisted-output>` preview (common.finish).
- The shell keeps its folder across calls: a call runs in the session's working folder, or where the `cwd`
  parameter says an earlier `cd` left it (the folder Claude Code logged on the call's transcript line).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from ...base import FAILED, REFUSED, Outcome
from ..base import Call, register
from ..shell_readonly import CannotRun, Workspace, run_script
from ..shell_words import NotReplayable, Result, parse
from .versions import is_windows
from .common import (
    AGENT,
    COMMON_PARAMS,
    PERSIST_ALWAYS,
    NEWEST,
    VERSIONS,
    Answer,
    Context,
    Persisting,
    finish,
    here_of,
    int_param,
    refuse,
    version_of,
)
from .js import _JS_SPACE, js_len, js_slice, js_trim

BASH_MAX_OUTPUT = 30000  # BASH_MAX_OUTPUT_LENGTH's default (the environment variable may raise it to 150,000)
BASH_MAX_OUTPUT_LIMIT = 150000
BASH_RESULT_CHARS = 30000  # the Bash tool's persistence size from 2.1.2 (a table in 2.1.2-2.1.5, maxResultSizeChars on)
ERROR_CHARS = 10000  # the tool-error formatter keeps 5,000 characters at each end of a longer error
# the commands whose exit 1 is no failure (Claude Code's command semantics; `isError: code >= 2`)
EXIT_ONE_IS_FINE = frozenset({"grep", "rg", "find", "diff", "test", "["})
_LEADING_BLANK = re.compile(f"^(?:[{re.escape(_JS_SPACE)}\n]*\n)+")  # JavaScript's /^(\s*\n)+/
_IMAGE = re.compile(r"^data:image/[a-z0-9.+_-]+;base64,", re.IGNORECASE)

PARAMS = {
    "cwd": "the shell's folder at this call (absolute as recorded, or relative to the session's working folder): "
           "where an earlier call's `cd` left it",
    "max_output": f"BASH_MAX_OUTPUT_LENGTH: before 2.1.2, outputs longer than this are cut (default {BASH_MAX_OUTPUT})",
    **COMMON_PARAMS,
}


def js_trim_end(text: str) -> str:
    """`String.prototype.trimEnd`: JavaScript's whitespace, not Python's."""
    return text.rstrip(_JS_SPACE)


def strip_blank_lines(text: str) -> str:
    """Claude Code's cleanup of a command's output: whitespace-only lines dropped at both ends."""
    lines = text.split("\n")
    start, end = 0, len(lines) - 1
    while start < len(lines) and not js_trim(lines[start]):
        start += 1
    while end >= 0 and not js_trim(lines[end]):
        end -= 1
    return "\n".join(lines[start:end + 1]) if start <= end else ""


def head_cut(text: str, limit: int) -> str:
    """Before 2.1.2: the first `limit` characters and how many lines the rest had."""
    if _IMAGE.match(text) or js_len(text) <= limit:
        return text
    rest = js_slice(text, limit).count("\n") + 1
    return f"{js_slice(text, 0, limit)}\n\n... [{rest} lines truncated] ..."


def error_text(code: int, stdout: str, stderr: str) -> str:
    """The tool error of a failed command: `Exit code N`, stderr, stdout; long ones cut in the middle."""
    text = js_trim("\n".join(part for part in (f"Exit code {code}", stderr, stdout) if part))
    size = js_len(text)
    if size <= ERROR_CHARS:
        return text
    half = ERROR_CHARS // 2
    return (f"{js_slice(text, 0, half)}\n\n... [{size - ERROR_CHARS} characters truncated] ...\n\n"
            f"{js_slice(text, size - half)}")


def last_program(command: str) -> str:
    """The first word of the script's last command: what Claude Code's command semantics look at."""
    try:
        lists = parse(command)
    except NotReplayable:
        return ""
    words = lists[-1][1][-1].words
    return words[0].text if words else ""


def is_failure(command: str, code: int) -> bool:
    """Whether Claude Code took the exit code for a failure (grep's 1 is "No matches found", not one)."""
    if code == 0:
        return False
    return code >= 2 or last_program(command) not in EXIT_ONE_IS_FINE


@register
class Bash(Persisting):
    """Claude Code's Bash for read-only commands: allow-listed programs run without a shell, the output as shown."""

    agent = AGENT
    tool = "Bash"
    versions = VERSIONS
    newest = NEWEST
    params: ClassVar[dict[str, str]] = PARAMS

    def cut(self, output: str, call: Call) -> str:
        """`output` cut as the version cut Bash output: the head before 2.1.2, the persisted preview after."""
        try:
            ctx = self._context(call)
            if not ctx.at_least(PERSIST_ALWAYS):
                return head_cut(output, self._max_output(ctx))
            return self._persisted(ctx, output)
        except Answer:  # an unknown version or a bad parameter: nothing to cut by
            return output

    def _run(self, call: Call) -> Outcome:
        """The `tool_result` content Claude Code showed for this Bash call, or why it cannot be replayed (Entire's
        redaction put back by Persisting.run)."""
        try:
            ctx = self._context(call)
            if is_windows(call.cwd):  # Git Bash's drive paths, Windows programs: not what a POSIX re-run prints
                raise NotReplayable("a shell on Windows")
            command = self._command(ctx)
            result = run_script(self._workspace(ctx), call.sandbox, command)
            return self._shown(ctx, command, result)
        except Answer as answer:
            return answer.outcome
        except NotReplayable as why:
            return Outcome("", status=REFUSED, reason=f"not replayable: {why}")
        except CannotRun as why:
            return Outcome("", status=FAILED, reason=str(why))

    # --- the call ---------------------------------------------------------------------------------

    @staticmethod
    def _context(call: Call) -> Context:
        version = version_of(call)
        if version >= PERSIST_ALWAYS and "max_result_chars" not in call.params:
            # common.finish reads the size from the parameter: Bash's is its own, not a Read/Grep/Glob one
            call = replace(call, params={**call.params, "max_result_chars": str(BASH_RESULT_CHARS)})
        root = Path(call.root).resolve()
        cwd = (call.cwd or str(root)).rstrip("/") or "/"
        return Context(version, dict(call.args), cwd, root, call, here_of(call, cwd))

    @staticmethod
    def _command(ctx: Context) -> str:
        command = ctx.args.get("command")
        if not isinstance(command, str) or not command.strip():
            raise NotReplayable("no command")
        if ctx.args.get("run_in_background") is True:
            raise NotReplayable("run in the background: its output went to a file")
        if ctx.args.get("_simulatedSedEdit") is not None:
            raise NotReplayable("a sed edit Claude Code applied itself")
        return command

    @staticmethod
    def _workspace(ctx: Context) -> Workspace:
        """The replay folder, the current folder at the shell's (the `cwd` parameter) when one is given."""
        ws = Workspace(ctx.root, ctx.cwd)
        shell_cwd = ctx.call.params.get("cwd", "").strip() or ctx.here
        if shell_cwd and shell_cwd != ctx.cwd:
            ws.enter(shell_cwd, "the shell's folder")
        return ws

    @staticmethod
    def _max_output(ctx: Context) -> int:
        limit = int_param(ctx, "max_output", BASH_MAX_OUTPUT)  # Claude Code's check: bad -> default, capped
        return BASH_MAX_OUTPUT if limit <= 0 else min(limit, BASH_MAX_OUTPUT_LIMIT)

    # --- the output -------------------------------------------------------------------------------

    def _shown(self, ctx: Context, command: str, result: Result) -> Outcome:
        stdout = result.out.decode("utf-8", "replace")  # Node decodes the pipes as UTF-8, U+FFFD for bad bytes
        stderr = result.err.decode("utf-8", "replace")
        if is_failure(command, result.code):
            return Outcome(error_text(result.code, stdout, stderr), is_error=True, reason=result.note)
        text = strip_blank_lines(f"{js_trim_end(stdout)}\n{js_trim_end(stderr)}\n")
        if _IMAGE.match(text):
            raise Answer(refuse("the command printed an image (data:image/…): Claude Code sent it as an image block"))
        if not ctx.at_least(PERSIST_ALWAYS):
            text = head_cut(text, self._max_output(ctx))
        text = js_trim_end(_LEADING_BLANK.sub("", text, count=1))
        return Outcome(self._persisted(ctx, text), reason=result.note)

    @staticmethod
    def _persisted(ctx: Context, text: str) -> str:
        """`text`, or the <persisted-output> preview when over the version's size (naming `saved_path` if given)."""
        return finish(ctx, "Bash", text).output
