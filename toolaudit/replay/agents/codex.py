"""Codex CLI's shell tools, emulated: the read-only command run by `shell_readonly`, then the output cut
and wrapped as the recording's Codex version did it (openai/codex `codex-rs/core/src/tools/mod.rs`,
`tools/handlers/unified_exec.rs`, `utils/output-truncation/src/lib.rs`, legacy `core/src/truncate.rs`).

Envelope, by tool (each output is stdout then stderr, as `aggregate_output` joins them):
- `shell`, `local_shell`: `format_exec_output_for_model_structured`, the JSON wrapper
  `{"output":"…","metadata":{"exit_code":N,"duration_seconds":X}}` (X rounded to 0.1 s, an f32 as serde prints it);
- `shell_command`: `format_exec_output_for_model_freeform`, `Exit code: N\\nWall time: X seconds\\n`
  [`Total output lines: N\\n`] `Output:\\n…` (X as Rust prints an f32: `0`, `0.1`, `2`);
- `exec_command`: unified exec's `Chunk ID: …\\nWall time: X.XXXX seconds\\nProcess exited with code N\\n
  Original token count: T\\nOutput:\\n…` (T = ceil(bytes / 4) of the whole output).
  0.118.x print `Command: SHELL -lc CMD\\n` first (agents.codex_command).

Cut, by version (`Call.version`, session_meta.cli_version; unknown means the newest):
- < 0.45: the first legacy cut (10 KiB and 256 lines, 128 + 128 lines, `[... omitted k of N lines ...]`, even
  `omitted 0` for a cut by bytes alone), head and tail read with `str::lines()` and joined with `\\n` (neither ends
  with a newline; a `\\r` before one is dropped), without the `Total output lines: N` hint that openai/codex#4740
  (2025-10-04) added (the 0.34.0 and 0.36.0 recordings; 0.45 is an estimate from that PR's date, the 0.46.0
  recordings have the hint and whole lines);
- 0.45 - 0.58: the legacy cut with the hint, lines kept whole (`split_inclusive`); a cut by bytes alone says
  `[... omitted 0 of N lines ...]` before 0.48 (the 0.46.0 and 0.47.0 recordings), then
  `[... output truncated to fit 10240 bytes ...]` (openai/codex#5451, 2025-10-21; `CodexLegacy`, which the 0.48.0 -
  0.58.0 recordings of the corpus match);
- >= 0.59 (openai/codex#6842, 2025-11-18): the session's TruncationPolicy, `truncation_policy=bytes:N|tokens:N`
  (turn_context.truncation_policy), else Tokens(10000) for a `*codex*` `model`, else Bytes(10000): a 50/50 middle cut
  (`CodexMiddle`), with formatted_truncate_text's `Total output lines: N\\n\\n` header for `shell` and exec_command,
  and from 0.141 (openai/codex#28467, 2026-06-16) `Warning: truncated output (original token count: T)\\n` before it;
  exec_command cuts to `max_output_tokens` (default 10000), at most the policy's token budget when one is given.

Noise. Durations, wall times and chunk ids are not reproducible: `duration` and `chunk_id` parameters print the
recorded ones (`recorded_noise(output)` reads them from a recorded output); without them the measured duration
is printed (a fast command rounds to Codex's usual 0.0) and a chunk id derived from the call id. Nor is what the
recording machine's login shell printed before the command's own output (`bash -lc` reads the user's profile):
a first line `/path/to/script: line N: …` (Homebrew's shellenv.sh saying `/bin/ps: Operation not permitted`
under Codex's macOS sandbox, before every 0.63-0.66 `shell_command` output), or mise's activation hook's
`mise WARN  missing: go@1.24.13` lines (before every output of entireio/entire-graph's 0.135 sessions), is read from
the recording as `preamble` and printed first.
Entire's `REDACTED` (its secret scan, run on the stored transcript) is put back where a recorded line shows it
(agents.entire_redaction).
`without_noise(output)` blanks those fields, for an identity comparison that treats them as noise.
"""

from __future__ import annotations

from dataclasses import replace

import hashlib
import json
import math
import re
import time
from typing import Any, ClassVar

from ...simulate.policies.codex import rust_lines
from ..base import FAILED, REFUSED, Outcome
from .base import Call, Emulation, register, version_tuple
from .codex_command import command_line
from .codex_noise import (  # noqa: F401  (recorded_noise, without_noise: the noise's names, used by tests)
    _OFFLINE, _UNKNOWN_REV, _ZSH_NOMATCH, _body, recorded_noise, without_noise)
from .codex_homes import recorded_homes, with_homes
from .codex_listing import recorded_settings, run_powershell
from .codex_local import local_state
from .codex_userland import as_userland, recorded_userland
from .codex_windows import as_windows
from .codex_reads import git_here, shell_reads
from .entire_redaction import as_recorded, recorded_lines
from .git_branch import recorded_branch, with_branch
from .codex_cuts import (  # noqa: F401  (the cut's names, used by tests and benchmarks through this module)
    BYTES_MARKER_SINCE, DEFAULT_LIMIT, HINT_SINCE, LEGACY_BYTES, LEGACY_LINES, POLICY_SINCE, UNRECORDED_POLICY_SINCE,
    WARNING_SINCE, _legacy, _policy, _structured_cut, _warning, cut_kind, formatted_cut, legacy_cut, model_policy,
    plain_cut, token_count)
from .shell_argv import abbrev
from .shell_readonly import CannotRun, Workspace, run_argv, run_script
from .shell_words import NotReplayable, Result
from ..inline_powershell import located
from ..winpath import is_windows

_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})

PARAMS = {
    "duration": "seconds printed as the duration or wall time (the recorded value; default: measured)",
    "truncation": "legacy (0.45-0.58), legacy-nohint (before 0.45), bytes:N or tokens:N: the cut, instead of "
                  "the version's",
    "truncation_policy": "the recording's turn_context truncation_policy (bytes:N, tokens:N or its JSON)",
    "model": "the session's model: with no recorded policy, its policy in Codex's catalog (codex models and "
             "gpt-5.4+ tokens:10000, gpt-5 - gpt-5.2 bytes:10000; others bytes, and exec_command by its own cap)",
    "glob": "zsh: a glob matching nothing stops the script with zsh's `no matches found` (the recording shows it; "
            "default: bash's, which passes the word on)",
    "abbrev": "git's abbreviated commit id length (the recorded one; default: git's, which grows with the objects)",
    "warning": "1 or 0: print the `Warning: truncated output` line (default: version >= 0.141)",
    "preamble": "lines the recording machine's login shell printed before every output (the recorded ones, e.g. "
                "Homebrew's shellenv.sh under Codex's sandbox; default: none)",
    "status_branch": "`git status -sb`'s branch line (`## main...origin/main`, the recorded one) in place of the "
                     "detached worktree's `## HEAD (no branch)`",
    "status_head": "`git status`'s `On branch …` header (the recorded one) in place of `HEAD detached at …`",
    "status_homes": "`git status --short`'s `?? .codex/` lines of the agents' own folders, which replay leaves out "
                    "of the start state (the recorded ones, JSON [[line before, line, line after], …])",
    "redacted": "the recorded lines Entire redacted (`REDACTED` for a value its secret scan flagged): a replayed "
                "line they match is printed as recorded",
    "absent": "1: the recording says a path it named was missing (an agent's own folder is then read as any path)",
    "unknown_revision": "1: the recording shows git refusing a revision it did not know, as a replay may (default: "
                        "such a refusal in the replay alone makes the call not replayable)",
    "offline": "the recorded line saying git failed to fetch from its promisor remote (a partial clone offline): "
               "the call is not replayable",
    "ansi": "Windows: the code page PowerShell's Get-Content read a file without -Encoding in (cp1252, cp936 or "
            "utf-8, from the recorded text; default cp1252)",
    "crlf": "1: Windows: the recording machine's git checked files out with \\r\\n (core.autocrlf; from the "
            "recorded Get-Content output)",
    "userland": "bsd: the recording machine's ls, sed, find, head, tail and du were macOS's, which word a missing "
                "path otherwise (from the recorded output; default: GNU's, as replay runs them)",
}


# ------------------------------------------------------------------ the recorded command

def command_of(tool: str, args: Any) -> tuple[str | list[str], str | None]:
    """(a script, or an argv list run without a shell; the recorded workdir) of a recorded call."""
    if isinstance(args, str):  # arguments as the model wrote them (a JSON text)
        try:
            args = json.loads(args)
        except ValueError:
            raise NotReplayable("arguments not JSON") from None
    if not isinstance(args, dict):
        raise NotReplayable("arguments not an object")
    if tool == "exec_command":
        if args.get("tty") is True:
            raise NotReplayable("exec_command in a terminal (tty)")
        shell = args.get("shell")
        if shell and str(shell).rsplit("/", 1)[-1] not in _SHELLS:
            raise NotReplayable(f"shell {shell}")
        command = args.get("cmd")
    else:
        command = args.get("command")
    workdir = args.get("working_directory" if tool == "local_shell" else "workdir")
    workdir = workdir if isinstance(workdir, str) and workdir else None
    while isinstance(command, str) and (moved := located(command)) is not None:
        folder, command = moved  # PowerShell's `Set-Location X; …`: the rest runs in X, as in a workdir
        absolute = is_windows(folder) or folder.startswith(("/", "\\"))
        folder = folder if absolute else folder.replace("\\", "/")
        workdir = folder if absolute or not workdir else workdir.rstrip("\\/") + "/" + folder
    if isinstance(command, str) and command.strip():
        return command, workdir
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        shell, flags = command[0].rsplit("/", 1)[-1], command[1:-1]
        if shell in _SHELLS and len(command) >= 3 and flags and all(f in ("-c", "-lc", "-l", "-cl") for f in flags):
            return command[-1], workdir
        return command, workdir
    raise NotReplayable("no command")


def _workspace(call: Call, command: str | list[str], workdir: str | None) -> Workspace:
    """The workspace with the current folder at the recorded workdir (inside the replay folder)."""
    ws = Workspace(call.root, call.cwd)
    ws.abbrev = int(call.params["abbrev"]) if call.params.get("abbrev", "").isdigit() else None
    ws.nomatch = call.params.get("glob") == "zsh"
    if workdir:
        ws.enter(workdir, "workdir", above=True)
    if ws.above:  # a session started above its repository (replay.nested_repo): only what it reads inside
        read = shell_reads(call.tool, call.args if isinstance(call.args, dict) else {}, call.cwd)
        shown = ws.shown.rstrip("/")
        outside = "what it cannot name" if read is None else next(
            (p for p in read if p != shown and not p.startswith(shown + "/")), None)
        if outside is None and (not isinstance(command, str) or git_here(command)):
            outside = "its git repository"  # git without -C: the folder above's repository, if any
        if outside:
            raise NotReplayable(f"workdir {ws.above} is above the repository, and the command reads {outside} "
                                "there (the recording machine's)")
    return ws


def execute(call: Call) -> tuple[Result, float]:
    """Run the recorded command; (what it printed, seconds). Raises NotReplayable or CannotRun."""
    command, workdir = command_of(call.tool, call.args)
    ws = _workspace(call, command, workdir)
    start = time.monotonic()
    shown = run_powershell(ws, command, call.params) if isinstance(command, str) and is_windows(call.cwd) else None
    if shown is not None:  # PowerShell's Get-Content and Get-ChildItem, on Windows (agents.codex_listing)
        result = shown
    elif isinstance(command, list):
        result = run_argv(ws, call.sandbox, command)
    else:
        result = run_script(ws, call.sandbox, command)
    return result, time.monotonic() - start


# ------------------------------------------------------------------ envelopes

def _tenths(call: Call, seconds: float) -> int:
    """Duration in tenths of a second, as Codex rounds it (`(secs * 10).round() / 10`, half away from 0)."""
    return math.floor(_seconds(call, seconds) * 10 + 0.5)


def _seconds(call: Call, measured: float) -> float:
    """The `duration` parameter (the recorded value) when it is a number, else the measured seconds."""
    try:
        return float(call.params.get("duration") or measured)
    except ValueError:
        return measured


def json_wrapper(body: str, exit_code: int, tenths: int) -> str:
    """The 0.4x-0.5x `shell` output as serde_json writes it (compact, non-ASCII unescaped, f32 `0.0`)."""
    return (f'{{"output":{json.dumps(body, ensure_ascii=False)},"metadata":{{"exit_code":{exit_code},'
            f'"duration_seconds":{tenths / 10:.1f}}}}}')


def freeform(body: str, cut: str, exit_code: int, tenths: int) -> str:
    """shell_command's text: exit code, wall time (Rust's f32 Display), the line total when cut, output."""
    seconds = str(tenths // 10) if tenths % 10 == 0 else f"{tenths / 10:.1f}"
    sections = [f"Exit code: {exit_code}", f"Wall time: {seconds} seconds"]
    if rust_lines(body) != rust_lines(cut):
        sections.append(f"Total output lines: {rust_lines(body)}")
    return "\n".join([*sections, "Output:", cut])


def unified(body: str, cut: str, exit_code: int, seconds: float, chunk_id: str, command: str | None = None) -> str:
    """exec_command's text for a command that has exited (`command`: 0.118's `Command: …` line, first)."""
    sections = [command] if command else []
    sections += [f"Chunk ID: {chunk_id}"] if chunk_id else []
    sections += [f"Wall time: {seconds:.4f} seconds", f"Process exited with code {exit_code}",
                 f"Original token count: {token_count(body)}", "Output:", cut]
    return "\n".join(sections)


def _unified_tokens(call: Call) -> int:
    """max_output_tokens (parameter, else argument, else 10000), within the policy's token budget (the recorded one,
    else the model's in Codex's catalog: `resolve_max_tokens(max_output_tokens).min(truncation_policy.token_budget())`,
    so a model's `max_output_tokens: 70000` still cuts at 10,000 tokens)."""
    args = call.args if isinstance(call.args, dict) else {}
    own = args.get("max_output_tokens")
    tokens = int(own) if str(own or "").isdigit() else DEFAULT_LIMIT
    cap = call.params.get("max_output_tokens")
    if str(cap or "").isdigit():  # a ceiling: never above the model's own argument (or the default)
        tokens = min(tokens, int(cap))
    version = version_tuple(call.version)
    policy = _policy(call) or (model_policy(call.params.get("model", ""))
                               if not version or version >= UNRECORDED_POLICY_SINCE else None)
    if policy is not None:
        unit, limit = policy
        tokens = min(tokens, limit if unit == "tokens" else math.ceil(limit / 4))
    return tokens


def cut(call: Call, body: str) -> str:
    """`body` as the recorded tool's own output cap left it (the whole of it when it fits)."""
    if call.tool == "exec_command":
        return formatted_cut(body, "tokens", _unified_tokens(call), _warning(call))
    if call.tool == "shell_command":
        kind, limit = cut_kind(call)
        return _legacy(call, body, kind, False) if kind.startswith("legacy") else plain_cut(body, kind, limit)
    return _structured_cut(call, body)


def envelope(call: Call, body: str, exit_code: int, seconds: float) -> str:
    """The recorded tool's output for `body` (the command's whole output)."""
    kept = cut(call, body)
    if call.tool == "exec_command":
        chunk = call.params.get("chunk_id")
        if chunk is None:
            chunk = hashlib.sha256(f"{call.session}/{call.call_id}".encode()).hexdigest()[:6]
        wall = _seconds(call, seconds)
        return unified(body, kept, exit_code, wall, chunk, command_line(call, command_of(call.tool, call.args)[0]))
    if call.tool == "shell_command":
        return freeform(body, kept, exit_code, _tenths(call, seconds))
    return json_wrapper(kept, exit_code, _tenths(call, seconds))


# ------------------------------------------------------------------ the emulations (noise: agents.codex_noise)

class _CodexShell(Emulation):
    """A Codex shell tool: run the recorded command read-only, then cut and wrap as that version did."""

    agent: ClassVar[str] = "codex"
    versions: ClassVar[str] = "0.4x-0.141"
    newest: ClassVar[tuple[int, ...]] = WARNING_SINCE  # the newest version whose code was read: later ones replay as it
    params: ClassVar[dict[str, str]] = PARAMS

    def from_recording(self, recorded: str, call: Call) -> dict[str, str]:
        """The recorded duration (wall time) and chunk id: noise no re-run reproduces; and the branch a recorded
        `git status` named (the replay's worktree is detached: agents.git_branch)."""
        noise = recorded_noise(recorded)
        try:
            script = command_of(call.tool, call.args)[0]
        except NotReplayable:
            return noise
        text = script if isinstance(script, str) else " ".join(script)
        if re.search(r"\bgit\b[^|;&\n]*\bstatus\b", text):
            noise.update({**recorded_branch(_body(recorded)), **recorded_homes(_body(recorded))})
        length = abbrev(_body(recorded)) if re.search(r"\bgit\b", text) else None
        noise.update({"abbrev": str(length)} if length else {})
        noise.update({"glob": "zsh"} if _ZSH_NOMATCH.search(_body(recorded)) else {})
        redacted = recorded_lines(recorded)
        noise.update({"redacted": redacted} if redacted else {})
        noise.update({"unknown_revision": "1"} if _UNKNOWN_REV.search(_body(recorded)) else {})
        noise.update({"absent": "1"} if "No such file or directory" in _body(recorded) else {})
        noise.update(recorded_userland(_body(recorded)))
        if isinstance(script, str) and is_windows(call.cwd):  # the machine's settings (agents.codex_listing)
            noise.update(recorded_settings(script, _body(recorded)))
        offline = _OFFLINE.search(_body(recorded))
        return {**noise, "offline": offline.group(0)} if offline else noise

    def run(self, call: Call) -> Outcome:
        """The output Codex would have recorded for `call`, or why it cannot be replayed."""
        call = with_session_cap(call)
        done = rerun(call)
        if isinstance(done, Outcome):
            return done
        body, result, seconds = done
        # Entire redacted the stored text after Codex had counted and cut it
        text = as_recorded(envelope(call, body, result.code, seconds), call.params.get("redacted", ""))
        return Outcome(text, is_error=result.code != 0, reason=result.note)


def with_session_cap(call: Call) -> Call:
    """`call` with the session's model and recorded truncation policy as parameters (unless given)."""
    extra = {}
    if call.model and "model" not in call.params:
        extra["model"] = call.model
    if call.output_cap and "truncation_policy" not in call.params:
        extra["truncation_policy"] = f"{call.output_cap[0]}:{call.output_cap[1]}"
    return replace(call, params={**extra, **call.params}) if extra else call


def rerun(call: Call) -> tuple[str, Result, float] | Outcome:
    """Re-run a recorded shell call read-only: (its whole output as Codex read it, the run, seconds), or the
    Outcome that says why it cannot be replayed (agents.codex_exec runs code-mode's inner calls through it too)."""
    if call.params.get("offline"):  # the recording machine's failure: no re-run reproduces it
        return Outcome("", status=REFUSED, reason="not replayable: git failed on the recording machine, a partial "
                                                  "clone that could not reach its remote")
    local = local_state(call)
    if local:
        return Outcome("", status=REFUSED, reason=f"not replayable: {local}")
    try:
        result, seconds = execute(call)
    except NotReplayable as why:
        return Outcome("", status=REFUSED, reason=f"not replayable: {why}")
    except CannotRun as why:
        return Outcome("", status=FAILED, reason=str(why))
    body = call.params.get("preamble", "") + with_homes(with_branch(
        (result.out + result.err).decode("utf-8", "replace"), call.params), call.params)
    script = command_of(call.tool, call.args)[0]
    body, code = as_userland(body, result.code, script if isinstance(script, str) else " ".join(script), call.params)
    if isinstance(script, str) and is_windows(call.cwd):  # PowerShell's exit code, rg's `\` (agents.codex_windows)
        body, code = as_windows(body, code, script)
    result = replace(result, code=code)
    missing = _UNKNOWN_REV.search(body) if not call.params.get("unknown_revision") else None
    if missing:  # the recording shows git answering: the commit was the recording machine's alone
        rev = next(g for g in missing.groups() if g)
        return Outcome("", status=REFUSED, reason=f"not replayable: git names {rev}, which the replay's "
                                                  "repository lacks (a commit never pushed)")
    if result.walked and cut(call, body) != body:
        # which lines Codex's cap kept (head and tail) depends on the order the recording machine's walk gave them
        return Outcome("", status=REFUSED, reason=f"not replayable: Codex's output cap cut {result.walked}'s "
                                                  "output, whose order is the recording machine's walk")
    return body, result, seconds


@register
class Shell(_CodexShell):
    """`shell`: an argv list (`["bash", "-lc", "…"]`), answered with the JSON wrapper."""

    tool: ClassVar[str] = "shell"


@register
class LocalShell(_CodexShell):
    """`local_shell` (the Responses API's local shell call): as `shell`."""

    tool: ClassVar[str] = "local_shell"


@register
class ShellCommand(_CodexShell):
    """`shell_command`: a script string, answered with the freeform `Exit code:` text."""

    tool: ClassVar[str] = "shell_command"


@register
class ExecCommand(_CodexShell):
    """`exec_command` (unified exec, without a terminal): answered with the `Chunk ID:` text."""

    tool: ClassVar[str] = "exec_command"
    params: ClassVar[dict[str, str]] = {  # the other tools have no output cap of their own, nor a chunk id
        **PARAMS,
        "chunk_id": "exec_command's chunk id (the recorded one; default: derived from the call id)",
        "max_output_tokens": "exec_command's output cap (a ceiling: never above the recorded argument)",
        "command_shell": "0.118's `Command:` line: the shell and flag it names (the recorded ones; default "
                         "/bin/bash -lc)",
    }


from . import codex_exec  # noqa: E402,F401  (registers `exec`, code mode's cell, which runs the tools above)
