"""The file changes recorded edit calls made, as each agent's edit tool made them: replayed into the session's
scratch state in order (replay.state), never re-run as tools.

Claude Code: Edit {file_path, old_string, new_string, replace_all}, MultiEdit {file_path, edits[]},
Write {file_path, content}, NotebookEdit (cells: not applied, the notebook becomes uncertain).
Codex: apply_patch (the `*** Begin Patch` format, as a custom tool's input, a function's `input`, or a
shell call `apply_patch <<'EOF'`). Gemini CLI: replace {file_path, old_string, new_string,
expected_replacements}, write_file {file_path, content}. OpenHands: str_replace_editor / file_editor
create, str_replace, insert (view and undo_edit change nothing here; undo is uncertain).
An edit whose recorded result was an error did not happen and is not applied.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any, Callable

from ..model import ToolCall
from .arguments import call_args
from .agents.codex_cell import patch as cell_patch

Transform = Callable[[str | None], str | None]  # the file's text before (None: absent) -> after (None: deleted)


@dataclass(frozen=True)
class Change:
    """One file's change: `transform` turns its text before into its text after."""

    path: str  # as recorded (absolute under the session's cwd, or relative)
    transform: Transform


class EditFailed(Exception):
    """A recorded edit does not apply to the file as replay has it (the state has drifted)."""


# agent -> tool names that change files (never re-run; their changes are applied)
MUTATING = {
    "claude-code": {"Edit", "MultiEdit", "Write", "NotebookEdit"},
    "codex": {"apply_patch"},
    "gemini-cli": {"replace", "write_file", "edit"},
    "openhands": {"str_replace_editor", "file_editor", "edit_file"},
}
COLLECTOR_AGENT = {"claude-code": "claude-code", "codex": "codex", "gemini-cli": "gemini-cli",
                   "openhands": "openhands", "openhands-v1": "openhands"}


def is_mutating(call: ToolCall) -> bool:
    """A call of an edit tool that changes files (an OpenHands editor's `view` does not)."""
    agent = COLLECTOR_AGENT.get(call.collector)
    if agent is None or call.tool not in MUTATING.get(agent, ()):
        return False
    if agent == "openhands":
        return call_args(call).get("command") not in ("view", None)
    return True


def changes_of(call: ToolCall) -> list[Change] | str | None:
    """The changes `call` made: a list, a reason they cannot be applied (the paths become uncertain), or None
    when the call changes no file (not an edit, or an edit that failed)."""
    if call.is_error or not call.output and call.status != "paired":
        return None
    agent = COLLECTOR_AGENT.get(call.collector)
    args = call_args(call)
    if agent == "claude-code":
        return _claude(call.tool, args)
    if agent == "gemini-cli":
        return _gemini(call.tool, args)
    if agent == "openhands":
        return _openhands(args)
    if agent == "codex":
        if call.tool == "exec" and not call.output.startswith("Script completed\n"):
            return None  # the cell failed: `apply_patch verification failed`, nothing written
        patch = _codex_patch(call.tool, args, call.args)
        return parse_patch(patch) if patch is not None else None
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def replace_text(old: str, new: str, count: int | None, eat_newline: bool = False) -> Transform:
    """Replace `old` by `new`: every occurrence (count None) or exactly `count` of them, which must be there.

    `eat_newline` (Claude Code's Edit): a deletion (`new` empty) of text that does not end with a newline takes the
    newline after it too wherever the file has one there, as Claude Code's edit function does (cli.js 2.0.0 to
    2.1.112: `!old.endsWith("\\n") && file.includes(old + "\\n") ? replace(old + "\\n", "") : replace(old, "")`)."""
    def apply(text: str | None) -> str | None:
        if text is None or not old or old not in text:
            raise EditFailed("the text to replace is not in the file")
        found = text.count(old)
        if count is not None and found != count:
            raise EditFailed(f"the text to replace occurs {found} times, the edit expected {count}")
        target = old
        if eat_newline and not new and not old.endswith("\n") and old + "\n" in text:
            target = old + "\n"
        return text.replace(target, new)
    return apply


def write_text(content: str) -> Transform:
    """Write the whole file."""
    def write(_text: str | None) -> str:
        return content
    write.whole = True  # type: ignore[attr-defined]  # the file's text is all known after it
    return write


def _claude(tool: str, args: dict) -> list[Change] | str | None:
    path = _text(args.get("file_path"))
    if not path:
        return None
    if tool == "Write":
        return [Change(path, write_text(_text(args.get("content"))))]
    if tool == "Edit":
        once = None if args.get("replace_all") is True else 1
        return [Change(path, replace_text(_text(args.get("old_string")), _text(args.get("new_string")), once,
                                          eat_newline=True))]
    if tool == "MultiEdit":
        edits = args.get("edits") if isinstance(args.get("edits"), list) else []
        steps = [replace_text(_text(e.get("old_string")), _text(e.get("new_string")),
                              None if e.get("replace_all") is True else 1, eat_newline=True)
                 for e in edits if isinstance(e, dict)]
        return [Change(path, _chain(steps))]
    if tool == "NotebookEdit":
        return "NotebookEdit changes notebook cells: not applied"
    return None


def _gemini(tool: str, args: dict) -> list[Change] | str | None:
    path = _text(args.get("file_path") or args.get("absolute_path"))
    if not path:
        return None
    if tool == "write_file":
        return [Change(path, write_text(_text(args.get("content"))))]
    expected = args.get("expected_replacements")
    count = expected if isinstance(expected, int) and not isinstance(expected, bool) else 1
    old = _text(args.get("old_string"))
    if not old:  # an empty old_string creates the file
        return [Change(path, write_text(_text(args.get("new_string"))))]
    return [Change(path, replace_text(old, _text(args.get("new_string")), count))]


def _openhands(args: dict) -> list[Change] | str | None:
    path, command = _text(args.get("path")), args.get("command")
    if not path or command in ("view", None):
        return None
    if command == "create":
        return [Change(path, write_text(_text(args.get("file_text"))))]
    if command == "str_replace":
        return [Change(path, replace_text(_text(args.get("old_str")), _text(args.get("new_str")), 1))]
    if command == "insert":
        line = args.get("insert_line")
        if not isinstance(line, int) or isinstance(line, bool):
            return "insert without a line number"
        return [Change(path, _insert(line, _text(args.get("new_str"))))]
    return f"{command}: not applied"


def _insert(after: int, text: str) -> Transform:
    def apply(before: str | None) -> str | None:
        if before is None:
            raise EditFailed("the file to insert into does not exist")
        lines = before.split("\n")
        if not 0 <= after <= len(lines):
            raise EditFailed(f"line {after} is past the file's end")
        return "\n".join(lines[:after] + text.split("\n") + lines[after:])
    return apply


def _chain(steps: list[Transform]) -> Transform:
    def apply(text: str | None) -> str | None:
        for step in steps:
            text = step(text)
        return text
    return apply


# ------------------------------------------------------------------ Codex's apply_patch

_HEREDOC = re.compile(r"apply_patch\s*<<\s*['\"]?(\w+)['\"]?\n(.*)\n\1\s*$", re.S)


def _codex_patch(tool: str, args: dict, raw: str) -> str | None:
    """The patch text of an apply_patch call (a custom tool's raw input, `input`, a shell call's heredoc, or a
    code-mode cell that only applies one, agents.codex_cell)."""
    if tool == "exec":
        return cell_patch(raw)
    if tool == "apply_patch":
        for key in ("input", "patch"):
            if isinstance(args.get(key), str):
                return args[key]
        return raw if raw.lstrip().startswith("*** Begin Patch") else None
    command = args.get("command") or args.get("cmd")
    if isinstance(command, list):
        if len(command) >= 2 and command[0] in ("apply_patch", "applypatch"):
            return command[1]
        command = command[-1] if command and isinstance(command[-1], str) else ""
    if isinstance(command, str) and "apply_patch" in command:
        found = _HEREDOC.search(command.strip())
        if found:
            return found.group(2)
        try:
            words = shlex.split(command)
        except ValueError:
            return None
        if len(words) >= 2 and words[0] in ("apply_patch", "applypatch"):
            return words[1]
    return None


def is_patch_call(call: ToolCall) -> bool:
    """A Codex shell call that is really an apply_patch (an edit, not a command to run)."""
    return call.collector == "codex" and _codex_patch(call.tool, call_args(call), call.args) is not None


def patch_files(call: ToolCall) -> tuple[list[str], list[str]]:
    """The paths a Codex apply_patch call names, as written: (those it updates or deletes, those it adds)."""
    text = _codex_patch(call.tool, call_args(call), call.args) if call.collector == "codex" else None
    lines = (text or "").split("\n")
    added = [line[14:].strip() for line in lines if line.startswith("*** Add File: ")]
    return [line[17:].strip() for line in lines if line.startswith(("*** Update File: ", "*** Delete File: "))], added


def parse_patch(patch: str) -> list[Change] | str:
    """The changes of an apply_patch text (`*** Add File:`, `*** Delete File:`, `*** Update File:` with hunks
    and `*** Move to:`), or why it cannot be read."""
    lines = patch.strip("\n").split("\n")
    if not lines or lines[0].strip() != "*** Begin Patch":
        return "not an apply_patch text"
    changes: list[Change] = []
    i = 1
    while i < len(lines) and lines[i].strip() != "*** End Patch":
        line = lines[i]
        if line.startswith("*** Add File: "):
            body, i = _block(lines, i + 1)
            changes.append(Change(line[14:].strip(), write_text("\n".join(b[1:] for b in body) + "\n")))
        elif line.startswith("*** Delete File: "):
            changes.append(Change(line[17:].strip(), lambda _t: None))
            i += 1
        elif line.startswith("*** Update File: "):
            path = line[17:].strip()
            body, i = _block(lines, i + 1)
            moved = None
            if body and body[0].startswith("*** Move to: "):
                moved = body.pop(0)[13:].strip()
            hunks = _hunks(body)
            if moved:  # the new file first: it is made of the old one's text, which the delete then removes
                changes.append(Change(moved, _moved_update(path, hunks)))
                changes.append(Change(path, lambda _t: None))
            else:
                changes.append(Change(path, _update(hunks)))
        else:
            i += 1
    return changes


def _block(lines: list[str], i: int) -> tuple[list[str], int]:
    """The lines up to the next `*** ` header."""
    start = i
    while i < len(lines) and not (lines[i].startswith("*** ") and not lines[i].startswith("*** Move to: ")):
        i += 1
    return lines[start:i], i


def _hunks(body: list[str]) -> list[tuple[list[str], list[str]]]:
    """(old lines, new lines) per `@@` hunk."""
    hunks, old, new = [], [], []
    for line in body:
        if line.startswith("@@"):
            if old or new:
                hunks.append((old, new))
            old, new = [], []
        elif line.startswith("*** End of File"):
            continue
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith("-"):
            old.append(line[1:])
        else:
            text = line[1:] if line.startswith(" ") else line
            old.append(text)
            new.append(text)
    if old or new:
        hunks.append((old, new))
    return hunks


def _update(hunks: list[tuple[list[str], list[str]]]) -> Transform:
    def apply(text: str | None) -> str | None:
        if text is None:
            raise EditFailed("the file to update does not exist")
        lines, pos = text.split("\n"), 0
        for old, new in hunks:
            at = _find(lines, old, pos)
            if at is None:
                raise EditFailed("a hunk's lines are not in the file")
            lines[at:at + len(old)] = new
            pos = at + len(new)
        return "\n".join(lines)
    apply.partial = True  # type: ignore[attr-defined]  # its hunks say nothing of the file's other lines
    return apply


def _find(lines: list[str], old: list[str], start: int) -> int | None:
    """Where `old` stands in `lines` from `start` (exactly, else ignoring trailing spaces, as Codex does)."""
    if not old:
        return len(lines) - 1 if lines and lines[-1] == "" else len(lines)
    for same in (lambda a, b: a == b, lambda a, b: a.rstrip() == b.rstrip(), lambda a, b: a.strip() == b.strip()):
        for i in range(start, len(lines) - len(old) + 1):
            if all(same(lines[i + k], old[k]) for k in range(len(old))):
                return i
    return None


def _moved_update(source: str, hunks) -> Transform:
    """Marks a moved file: applied by the state with the source's text (see state.apply)."""
    update = _update(hunks)
    update.moved_from = source  # type: ignore[attr-defined]
    return update
