"""What a recorded Codex shell output holds that no re-run reproduces, read from it (agents.codex's noise): its
duration, wall time and chunk id; what the recording machine's login shell printed first (`preamble`); zsh's
refusal of a glob; git failing offline, or naming a commit the replay's repository lacks."""

from __future__ import annotations

import json
import re

from .codex_command import recorded_shell

_DURATION = re.compile(r'("duration_seconds":)(-?[\d.eE+-]+)(\}\}\s*)$')
_WALL = re.compile(r"^(Wall time: )([\d.]+)( seconds)$", re.MULTILINE)
_CHUNK = re.compile(r"^(Chunk ID: )(\S*)$", re.MULTILINE)


def _header(output: str) -> tuple[str, str]:
    """(the text header, the rest from its `Output:` line) of a freeform or unified exec output."""
    head, sep, body = output.partition("\nOutput:\n")
    return head, sep + body


# what a login shell's profile printed before the command's own output: a script complaining (`/path: line N: …`),
# or mise's activation hook warning of a missing tool (`mise WARN  missing: go@1.24.13`, once per hook it ran)
_PROFILE = re.compile(r"(?:(?:/[^\s:]+: line \d+: |mise (?:WARN|ERROR) )[^\n]*\n)+")


# zsh (the user's login shell, Codex's on macOS and here) refusing a glob that matched nothing: bash would pass it on
_ZSH_NOMATCH = re.compile(r"^zsh:\d+: no matches found: ", re.MULTILINE)


# a partial clone's git, offline, failing to fetch an object it lacks (entireio/git-sync's 0.120 sessions)
_OFFLINE = re.compile(r"^fatal: could not fetch [0-9a-f]+ from promisor remote$", re.MULTILINE)


# git naming a commit the repository lacks: a commit of the recording machine's that was never pushed (amended,
# rebased away), where the recording shows git answering (Real-s/mini-simclr-assignment 0.142: `git show 3ab9bbc`;
# chikachow/cyspbot 0.142: `git show c3f1dae^:PATH`, which git answers `fatal: invalid object name 'c3f1dae^'.`)
_UNKNOWN_REV = re.compile(r"^fatal: (?:ambiguous argument '([^']+)': unknown revision|bad object (\S+)|"
                          r"bad revision '([^']+)'|invalid object name '([^']+)')", re.MULTILINE)


def _body(output: str) -> str:
    """The command's output inside a recorded envelope (the JSON wrapper's `output`, or what follows `Output:`)."""
    if output.startswith('{"output":'):
        try:
            body = json.loads(output).get("output", "")
        except (ValueError, AttributeError, RecursionError):  # RecursionError: a recording nested past the stack
            body = ""
        return body if isinstance(body, str) else ""
    return _header(output)[1].removeprefix("\nOutput:\n")


def recorded_noise(output: str) -> dict[str, str]:
    """The `duration`, `chunk_id`, `preamble` and `command_shell` parameters that reproduce a recorded output's
    noise (the shell is the recording machine's login shell)."""
    if output.startswith('{"output":'):
        found = _DURATION.search(output[-200:])
        noise = {"duration": found.group(2)} if found else {}
    else:
        head = _header(output)[0]
        wall, chunk = _WALL.search(head), _CHUNK.search(head)
        noise = {**({"duration": wall.group(2)} if wall else {}), **({"chunk_id": chunk.group(2)} if chunk else {})}
        shell = recorded_shell(head)
        noise.update({"command_shell": shell} if shell else {})
    profile = _PROFILE.match(_body(output))
    return {**noise, "preamble": profile.group(0)} if profile else noise


def without_noise(output: str) -> str:
    """`output` with its duration, wall time and chunk id replaced by `_` (identity treats them as noise)."""
    if output.startswith('{"output":'):
        return _DURATION.sub(r"\1_\3", output)
    head, rest = _header(output)
    return _CHUNK.sub(r"\1_", _WALL.sub(r"\1_\3", head)) + rest
