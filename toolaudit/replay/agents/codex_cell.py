"""Codex's code-mode `exec` cell (0.144+), read and never run: the small part of JavaScript that replay can follow.

A cell is JavaScript (openai/codex `codex-rs/code-mode`, run in V8) whose only way to the machine is `tools.NAME(…)`,
the agent's own tools; `text(value)` adds an item to what the model sees. Replay never runs the recorded code: it
reads the cell into a few statement forms and evaluates them itself (agents.codex_exec), the tool calls answered by
replay's own emulations. The forms read (agents.codex_js): `const|let|var NAME = EXPR` (or `[NAME, …] = EXPR`), `if
(EXPR) STMT [else STMT]`, `for (const NAME|[NAME, …] of EXPR) STMT`, `for (let NAME = EXPR; EXPR; NAME++|NAME += EXPR)
STMT`, an expression; expressions are literals (strings, numbers, template literals and their `${…}`), object
(`{cmd}` for `{cmd: cmd}`) and array literals, names, members (`r.output`, `.length`), indexes (`out[0]`, `r[i]`),
`await`, `!`, `+`, `===`, `!==`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `??` (JavaScript's precedence), parentheses, arrow
functions (`(r, i) => EXPR` or `=> { STMT… }`, no `return`), calls of `text`, `JSON.stringify`, `Promise.all` and
`tools.NAME`, a string's `trim()`, `trimStart()`, `trimEnd()`, `slice()`, and an array's `slice()`, `join()`,
`forEach(fn)`, `map(fn)` (agents.codex_values). Anything else (another loop, a function declaration, another method,
a regular expression) is refused with what it met: the cell is then not replayable, and its effect is judged as an
unknown program's.
The first line may be the `// @exec: {"yield_time_ms": N, "max_output_tokens": N}` pragma (`parse_exec_source`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .codex_js import Parser, Undefined, literal, tokens, unescape  # noqa: F401  (codex_exec, tests import them)
from .shell_words import NotReplayable

PRAGMA = "// @exec:"
MAX_DEPTH = 100  # nodes nested in nodes: a real cell has a dozen; a deeper one would exhaust Python's stack


@dataclass(frozen=True)
class Cell:
    """One exec cell, read: the pragma's output cap, its statements, and the tools it calls (name, literal
    arguments or None when they are computed)."""

    max_output_tokens: int | None
    body: tuple
    calls: tuple[tuple[str, dict | None], ...]


def parse(code: str) -> Cell:
    """The cell `code` holds (its pragma read); raises NotReplayable with what replay could not read."""
    limit = None
    first, _, rest = code.partition("\n")
    if first.lstrip().startswith(PRAGMA):
        try:
            pragma = json.loads(first.lstrip()[len(PRAGMA):])
        except ValueError:
            raise NotReplayable("exec's pragma is not JSON") from None
        limit = pragma.get("max_output_tokens") if isinstance(pragma, dict) else None
        code = rest
    parser = Parser(tokens(code))
    try:
        body = parser.program()
    except RecursionError:
        body = None
    if body is None or _depth(body) > MAX_DEPTH:  # evaluating and walking it recurse as deep: refused, no crash
        raise NotReplayable(f"exec code nested deeper than replay reads ({MAX_DEPTH} levels)")
    return Cell(limit if isinstance(limit, int) else None, body, tuple(parser.calls))


def _depth(nodes: tuple) -> int:
    """How deep the nodes under `nodes` nest, counted without recursion."""
    deepest, stack = 0, [(nodes, 0)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in node if isinstance(child, tuple))
    return deepest


def commands(code: str) -> list[tuple[str, str | None]] | None:
    """The shell commands (cmd, workdir) a cell runs through `tools.exec_command`, in order; None when it runs
    anything else, or computes what it runs (its effect is then unknown)."""
    try:
        cell = parse(code)
    except NotReplayable:
        return None
    found = []
    for tool, args in cell.calls:
        if tool != "exec_command" or args is None or not isinstance(args.get("cmd"), str):
            return None
        workdir = args.get("workdir")
        found.append((args["cmd"], workdir if isinstance(workdir, str) else None))
    return found


def patch(code: str) -> str | None:
    """The patch text of a cell that only applies one (`const patch = "…"; text(await tools.apply_patch(patch))`,
    or the patch written in the call), else None."""
    try:
        cell = parse(code)
    except NotReplayable:
        return None
    if len(cell.calls) != 1 or cell.calls[0][0] != "apply_patch":
        return None
    if any(stmt[0] in ("for", "count", "if", "unpack") for stmt in cell.body):  # it may run other than once, or none
        return None
    decls = [stmt[1] for stmt in cell.body if stmt[0] == "decl"]
    names = {stmt[1]: literal(stmt[2]) for stmt in cell.body if stmt[0] == "decl" and decls.count(stmt[1]) == 1}
    for node in _walk(cell.body, certain=True):
        if node[0] == "call" and node[1] == "tools.apply_patch" and len(node[2]) == 1:
            arg = node[2][0]
            text = names.get(arg[1]) if arg[0] == "name" else literal(arg)
            return text if isinstance(text, str) else None
    return None


def _walk(nodes: Any, certain: bool = False):
    """Every node under `nodes` (statements and expressions), depth first; `certain`: only those that run once
    whenever the cell runs (not an arrow function's, nor the right side of `&&`, `||`, `??`)."""
    if isinstance(nodes, tuple) and nodes and isinstance(nodes[0], str):
        if certain and nodes[0] == "arrow":
            return
        yield nodes
        if certain and nodes[0] == "bin" and nodes[1] in ("&&", "||", "??"):
            nodes = nodes[2:3]
        else:
            nodes = nodes[1:]
    if isinstance(nodes, tuple):
        for node in nodes:
            if isinstance(node, tuple):
                yield from _walk(node, certain)


UNREAD = "codex-exec-cell"  # what a cell replay cannot read stands for in the shell rules: a program they do not know
# tools that change no file (a plan; a poll of a process an earlier exec_command started, judged by its command then)
_NO_EFFECT = frozenset({"update_plan", "write_stdin", "wait", "web__run", "view_image"})


def shell_script(code: str) -> str | None:
    """The script a cell's effect on the workspace is judged by (replay.state, as any shell command's): its
    `tools.exec_command` commands, one a line; None when it runs nothing that changes files; UNREAD (an unknown
    program: only the paths the session later showed changed become uncertain) when replay cannot read it."""
    try:
        cell = parse(code)
    except NotReplayable:
        return UNREAD
    found = []
    for tool, args in cell.calls:
        if tool == "exec_command" and args is not None and isinstance(args.get("cmd"), str):
            found.append(args["cmd"])
        elif tool not in _NO_EFFECT:
            return UNREAD
    return "\n".join(found) or None
