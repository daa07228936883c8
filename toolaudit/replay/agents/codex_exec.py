"""Codex's code-mode `exec` (0.144+), emulated: a cell's read-only `tools.exec_command` calls re-run through Codex's
own shell emulation (agents.codex), the rest of the cell evaluated by replay (agents.codex_cell), never run.

Where each behaviour comes from (openai/codex `codex-rs`):
- the output: `core/src/tools/code_mode/mod.rs` `handle_runtime_response`: the cell's `text()` items, cut together
  by `formatted_truncate_text_content_items_with_policy` at `Tokens(resolve_max_tokens(max_output_tokens))` (the
  pragma's cap, else 10,000: texts joined with `\\n`, cut as one when over the budget), then `prepend_script_status`
  puts `Script completed\\nWall time X.X seconds\\nOutput:\\n` first (X: the cell's wall time, an f32 rounded to tenths);
  the rollout stores each item apart, which the collector joins with `\\n`;
- `text(v)`: `code-mode/src/runtime/callbacks.rs` `text_callback` / `value.rs` `serialize_output_text`: a string,
  number, boolean, null or undefined as JavaScript prints it; anything else `JSON.stringify`'d;
- a nested `tools.exec_command(args)`: `core/src/tools/context.rs` `ExecCommandToolOutput::code_mode_result`, the
  object `{chunk_id, wall_time_seconds, exit_code, original_token_count, output}` (serde's field order; a process
  still running has `session_id` instead of `exit_code`), `output` cut as exec_command cuts its own (agents.codex).

Noise: the cell's wall time, and each nested call's chunk id and `wall_time_seconds` (printed when the cell prints
the whole object), are read from the recording. Not replayable, each with its reason: a cell that yielded, failed or
was terminated when recorded; one that calls another tool (`write_stdin` reads a running process, whose output
depends on timing; `apply_patch` is an edit, applied to the session's state instead; MCP and web tools); a command
the shell rules do not know to be read-only; code beyond what agents.codex_cell reads.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from typing import Any, ClassVar

from ..base import REFUSED, Outcome
from .base import Call, Emulation, register
from .codex import ExecCommand, PARAMS, cut, rerun, with_session_cap
from .codex_cell import MAX_DEPTH, Undefined, parse
from .codex_values import (Arrow, Raw, js_json, js_number, js_string, member, method, number,  # noqa: F401
                           text_of, truthy)
from .codex_cuts import _warning, formatted_cut, token_count
from .entire_redaction import as_recorded
from .shell_words import NotReplayable

DEFAULT_TOKENS = 10_000  # unified_exec's resolve_max_tokens(None): the cell's cap without a pragma
MAX_STEPS = 10_000  # statements a cell may run here, loops counted: a real cell runs a few dozen
_HEAD = re.compile(r"^(Script \w+)(?: with cell ID \S+)?\nWall time ([\d.]+) seconds\n")
_NOISE = re.compile(r'"chunk_id":\s*"(\w*)",\s*"wall_time_seconds":\s*(-?[\d.eE+-]+)')
_WHY = {"write_stdin": "tools.write_stdin reads a running process's output, which depends on timing",
        "apply_patch": "tools.apply_patch is an edit: applied to the session's state instead",
        "wait": "a cell still running is waited for by timing"}


class Pending:
    """A tool's call or Promise.all before `await`: V8 prints it `{}` and reads no member of it (refused here)."""

    def __init__(self, value: Any):
        self.value = value


class _Result(dict):
    """A nested `tools.exec_command`'s answer. Its chunk id and wall time are the recording's, taken when it is first
    printed whole: the recording lists them in print order, which need not be the order the calls ran in."""

    run: int = 0
    seconds: float = 0.0
    noised: bool = False


class _Refused(Exception):
    """An inner call replay does not re-run: the Outcome that says why."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome.reason)
        self.outcome = outcome


class _Cell:
    """One cell evaluated: its statements in order, its tool calls answered by replay."""

    def __init__(self, call: Call, noise: list[tuple[str, str]]):
        self.call, self.noise, self.names, self.items, self.runs, self.steps = call, noise, {}, [], 0, 0
        self.used = 0  # the recorded chunk ids and wall times taken, in print order

    def run(self, body: tuple, block: bool = False) -> None:
        """Run statements in order; a block's (`if`, a loop's body) names end with it, as `const`/`let`'s do."""
        outer = dict(self.names) if block else None
        for stmt in body:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise NotReplayable(f"exec code runs more than {MAX_STEPS:,} statements")
            if stmt[0] == "decl":
                self.names[stmt[1]] = self.value(stmt[2])
            elif stmt[0] == "unpack":
                self.unpack(stmt[1], self.value(stmt[2]))
            elif stmt[0] == "for":
                items = self.value(stmt[2])
                if not isinstance(items, list):
                    raise NotReplayable("exec code loops over a value replay does not follow")
                for item in items:
                    before = dict(self.names)
                    if isinstance(stmt[1], str):
                        self.names[stmt[1]] = item
                    else:  # an array pattern: its names take the item's items
                        self.unpack(stmt[1], item)
                    self.run(stmt[3])
                    self.names = before  # the loop's names and its body's end with each turn
            elif stmt[0] == "count":
                self.count(*stmt[1:])
            elif stmt[0] == "if":
                self.run(stmt[2] if truthy(self.value(stmt[1])) else stmt[3], block=True)
            else:
                self.value(stmt[1])
        if outer is not None:
            self.names = outer

    def count(self, name: str, start: tuple, cond: tuple, step: tuple, body: tuple) -> None:
        """`for (let NAME = start; cond; NAME += step) body`: the counter is the loop's, each turn's names the turn's."""
        before = dict(self.names)
        self.names[name] = self.value(start)
        while truthy(self.value(cond)):
            if not number(self.names[name]):  # `i++` makes a string a number, `i += 1` adds to it: not followed
                raise NotReplayable("exec code counts with a value replay does not follow")
            self.steps += 1  # a turn counts, its body empty or not
            if self.steps > MAX_STEPS:
                raise NotReplayable(f"exec code runs more than {MAX_STEPS:,} statements")
            self.run(body, block=True)
            self.names[name] = self.binary("+", ("lit", self.names[name]), step)
        self.names = before

    def unpack(self, names: tuple[str, ...], items: Any) -> None:
        """`[a, b] = items`: each name its item, undefined past the end."""
        if not isinstance(items, list):
            raise NotReplayable("exec code unpacks a value replay does not follow")
        self.names.update((name, items[i] if i < len(items) else Undefined) for i, name in enumerate(names))

    def value(self, node: tuple) -> Any:
        kind = node[0]
        if kind == "lit":
            return node[1]
        if kind == "name":
            if node[1] not in self.names:
                raise NotReplayable(f"exec code reads {node[1]}, which replay does not follow")
            return self.names[node[1]]
        if kind == "await":  # a promise's value; any other value as it is
            done = self.value(node[1])
            return done.value if isinstance(done, Pending) else done
        if kind == "not":
            return not truthy(self.value(node[1]))
        if kind == "tmpl":
            return "".join(js_string(self.value(part)) for part in node[1])
        if kind == "obj":
            return {key: self.value(v) for key, v in node[1]}
        if kind == "arr":
            return [self.value(v) for v in node[1]]
        if kind in ("get", "idx"):
            owner = self.value(node[1])
            key = node[2] if kind == "get" else self.value(node[2])
            return member(owner, key)
        if kind == "arrow":  # kept, it would read its names where it is called, not where it was written
            raise NotReplayable("exec code keeps a function, which replay does not follow")
        if kind == "method":
            owner = self.value(node[1])
            if node[2] in ("forEach", "map"):  # an arrow written in the call: its names are the call's own
                if not node[3] or node[3][0][0] != "arrow":
                    raise NotReplayable(f"exec code calls .{node[2]}() with other than an arrow function")
                return self.each(owner, node[2], [Arrow(node[3][0])])
            return method(owner, node[2], [self.value(arg) for arg in node[3]])
        if kind == "bin":
            return self.binary(node[1], node[2], node[3])
        return self.invoke(node[1], [self.value(arg) for arg in node[2]])

    def each(self, items: Any, name: str, args: list) -> Any:
        """`items.forEach(fn)` (undefined) or `items.map(fn)` (fn's values): fn called with (item, index, items)."""
        if not isinstance(items, list) or not args or not isinstance(args[0], Arrow):
            raise NotReplayable(f"exec code calls .{name}() of a value replay does not follow")
        done = [self.apply(args[0], [item, at, items]) for at, item in enumerate(list(items))]
        return done if name == "map" else Undefined

    def apply(self, fn: Arrow, args: list) -> Any:
        """An arrow function called: its parameters bound for the call only (its `return`-less body: undefined)."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise NotReplayable(f"exec code runs more than {MAX_STEPS:,} statements")
        before = dict(self.names)
        self.names.update((name, args[i] if i < len(args) else Undefined) for i, name in enumerate(fn.params))
        try:
            if fn.expr is not None:
                return self.value(fn.expr)
            self.run(fn.body)
            return Undefined
        finally:
            self.names = before

    def binary(self, op: str, left: tuple, right: tuple) -> Any:
        a = self.value(left)
        if op == "&&":
            return self.value(right) if truthy(a) else a
        if op == "??":
            return self.value(right) if a is None or a is Undefined else a
        if op == "||":
            return a if truthy(a) else self.value(right)
        b = self.value(right)
        joined = op == "+" and any(isinstance(v, str) and not isinstance(v, Raw) for v in (a, b))
        if not joined and any(isinstance(v, (Raw, Pending)) for v in (a, b)):  # a recorded wall time, a promise
            raise NotReplayable("exec code computes with a value replay does not follow")
        if op in ("===", "!=="):  # numbers by value (1 === 1.0), objects and arrays by identity
            same = a == b if number(a) and number(b) else a is b if isinstance(a, (dict, list)) or isinstance(
                b, (dict, list)) else type(a) is type(b) and a == b
            return same if op == "===" else not same
        if op != "+" and number(a) and number(b):
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        if op != "+":  # strings compare by UTF-16 unit, objects by their primitive: not followed
            raise NotReplayable("exec code compares values replay does not follow")
        if isinstance(a, str) or isinstance(b, str):
            return js_string(a) + js_string(b)
        if number(a) and number(b):
            return a + b
        raise NotReplayable("exec code adds values replay does not follow")

    def invoke(self, name: str, args: list) -> Any:
        if name == "text":
            self.items.append(text_of(self.printed(args[0]) if args else Undefined))
            return Undefined
        if name == "JSON.stringify":
            if len(args) > 1 and args[1] not in (None, Undefined):
                raise NotReplayable("exec code's JSON.stringify has a replacer")
            space = args[2] if len(args) > 2 else ""  # a number: that many spaces (at most 10); a string: its start
            indent = " " * max(0, min(int(space), 10)) if number(space) and abs(space) < 1e15 else (
                space[:10] if isinstance(space, str) and not isinstance(space, Raw) else "")
            return Undefined if not args or args[0] is Undefined else js_json(self.printed(args[0]), indent)
        if name == "Promise.all":  # the calls ran, in order, as its array was built: their results, once awaited
            if len(args) != 1 or not isinstance(args[0], list):
                raise NotReplayable("exec code's Promise.all without an array")
            return Pending([item.value if isinstance(item, Pending) else item for item in args[0]])
        tool = name.removeprefix("tools.")
        if tool != "exec_command":
            raise NotReplayable(_WHY.get(tool, f"tools.{tool}: a tool replay does not emulate"))
        if len(args) != 1 or not isinstance(args[0], dict):
            raise NotReplayable("tools.exec_command without an object of arguments")
        return Pending(self.exec_command(args[0]))

    def exec_command(self, args: dict) -> dict:
        inner = replace(self.call, tool="exec_command", args=args)
        done = rerun(inner)
        if isinstance(done, Outcome):
            raise _Refused(done)
        body, result, seconds = done
        answer = _Result({"chunk_id": "", "wall_time_seconds": Raw(js_number(seconds)), "exit_code": result.code,
                          "original_token_count": token_count(body), "output": cut(inner, body)})
        answer.run, answer.seconds = self.runs, seconds
        self.runs += 1
        return answer

    def printed(self, value: Any, depth: int = 0) -> Any:
        """`value` about to be printed: each answer in it not printed before takes the recording's next chunk id and
        wall time (a made-up id when the recording has no more), in the order JSON.stringify walks it."""
        if depth > MAX_DEPTH:
            raise NotReplayable("exec code prints values nested deeper than replay follows")
        if isinstance(value, _Result) and not value.noised:
            chunk, wall = self.noise[self.used] if self.used < len(self.noise) else (
                hashlib.sha256(f"{self.call.session}/{self.call.call_id}/{value.run}".encode()).hexdigest()[:6],
                js_number(value.seconds))
            self.used += 1
            value.noised = True
            value.update(chunk_id=chunk, wall_time_seconds=Raw(wall))
            if not chunk:
                del value["chunk_id"]
        for item in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
            self.printed(item, depth + 1)
        return value


def items_cut(items: list[str], limit: int, warning: bool) -> list[str]:
    """The cell's text items as Codex cut them together (within the budget: as they are)."""
    combined = ""
    for text in items:
        combined = f"{combined}\n{text}" if combined else text  # an empty first item adds no separator
    kept = formatted_cut(combined, "tokens", limit, warning)
    return items if kept == combined else [kept]


@register
class Exec(Emulation):
    """`exec` (code mode, 0.144+): a JavaScript cell whose read-only shell commands are re-run."""

    agent: ClassVar[str] = "codex"
    tool: ClassVar[str] = "exec"
    versions: ClassVar[str] = "0.144-0.147"
    params: ClassVar[dict[str, str]] = {
        **{k: v for k, v in PARAMS.items() if k != "duration"},
        "duration": "the cell's wall time in seconds (the recorded one; default: measured)",
        "script": "the recorded cell's status line (`Script completed`; another: the cell is not replayable)",
        "chunks": "the nested exec_command calls' chunk ids and wall times, in order (the recorded ones, JSON)",
    }

    def from_recording(self, recorded: str, call: Call) -> dict[str, str]:
        """The cell's status and wall time, its nested calls' chunk ids and wall times, and the shell noise of
        what its commands printed (agents.codex: the branch `git status` named, git's abbreviation, …)."""
        head = _HEAD.match(recorded)
        if head is None:
            return {"script": recorded.partition("\n")[0][:80]}
        body = recorded[head.end():].removeprefix("Output:\n").removeprefix("\n")
        noise = {"script": head.group(1), "duration": head.group(2),
                 "chunks": json.dumps(_NOISE.findall(body))}
        try:
            commands = [args for tool, args in parse(_code(call)).calls
                        if tool == "exec_command" and args and isinstance(args.get("cmd"), str)]
        except NotReplayable:
            commands = []
        # what the commands printed, read as each one's own output would be (what each command is decides what is
        # looked for: jdx/hk's cells ran `rg` first, `git log` second, whose abbreviation the first alone never
        # showed); the first command to give a noise gives it
        for args in reversed(commands):
            shell = ExecCommand().from_recording(f"Wall time: 0 seconds\nOutput:\n{body}",
                                                 replace(call, tool="exec_command", args=args))
            noise.update({k: v for k, v in shell.items() if k not in ("duration", "chunk_id", "command_shell")})
        return noise

    def run(self, call: Call) -> Outcome:
        """The output Codex would have recorded for the cell, or why it cannot be replayed."""
        status = call.params.get("script", "Script completed")
        if status != "Script completed":
            return Outcome("", status=REFUSED, reason=f"not replayable: the recorded cell did not complete "
                                                      f"({status[:60]}): its output depends on timing or a failure")
        try:
            cell = parse(_code(call))
            noise = [tuple(pair) for pair in json.loads(call.params.get("chunks") or "[]")]
            inner = with_session_cap(replace(call, params={k: v for k, v in call.params.items()
                                                           if k not in ("duration", "chunks", "script")}))
            evaluated = _Cell(inner, noise)
            evaluated.run(cell.body)
        except NotReplayable as why:
            return Outcome("", status=REFUSED, reason=f"not replayable: {why}")
        except RecursionError:  # a value nested past Python's stack (`var a = [a]` in loops): printing it recurses
            return Outcome("", status=REFUSED, reason="not replayable: exec code builds values nested deeper than "
                                                      "replay follows")
        except _Refused as refused:
            return refused.outcome
        if not evaluated.runs:
            return Outcome("", status=REFUSED, reason="not replayable: the cell runs no shell command")
        items = items_cut(evaluated.items, cell.max_output_tokens or DEFAULT_TOKENS, _warning(call))
        seconds = float(call.params.get("duration") or 0.0)
        text = "\n".join([f"{status}\nWall time {seconds:.1f} seconds\nOutput:\n", *items])
        return Outcome(as_recorded(text, call.params.get("redacted", "")))


def _code(call: Call) -> str:
    """The cell's JavaScript, as recorded (replay.calls passes a freeform input as `code`)."""
    code = call.args.get("code") if isinstance(call.args, dict) else None
    if not isinstance(code, str):
        raise NotReplayable("no exec code")
    return code
