"""Codex's code-mode `exec` cell (0.144+), read and never run: the small part of JavaScript that replay can follow.

A cell is JavaScript (openai/codex `codex-rs/code-mode`, run in V8) whose only way to the machine is `tools.NAME(…)`,
the agent's own tools; `text(value)` adds an item to what the model sees. Replay never runs the recorded code: it
reads the cell into a few statement forms and evaluates them itself (agents.codex_exec), the tool calls answered by
replay's own emulations. The forms read: `const|let|var NAME = EXPR` (or `[NAME, …] = EXPR`), `if (EXPR) STMT [else
STMT]`, `for (const NAME|[NAME, …] of EXPR) STMT`, an expression; expressions are literals (strings, numbers,
template literals whose `${…}` are names and members), object (`{cmd}` for `{cmd: cmd}`) and array literals, names,
members (`r.output`), `await`, `!`, `+`, `===`, `!==`, `&&`, `||`, parentheses, and calls of `text`,
`JSON.stringify`, `Promise.all` and `tools.NAME`. Anything else (another loop, a function, a method call) is refused
with what it met: the cell is then not replayable, and its effect is judged as an unknown program's.
The first line may be the `// @exec: {"yield_time_ms": N, "max_output_tokens": N}` pragma (`parse_exec_source`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .codex_js import KEYWORDS, Undefined, tokens, unescape  # noqa: F401  (codex_exec, tests import them here)
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


class _Parser:
    def __init__(self, tokens: list[tuple[str, Any]]):
        self.tokens, self.at, self.calls, self.depth = tokens, 0, [], 0

    def peek(self, value: str | None = None) -> bool:
        if self.at >= len(self.tokens):
            return False
        kind, text = self.tokens[self.at]
        return value is None or (kind == "op" and text == value)

    def take(self, value: str | None = None) -> tuple[str, Any]:
        if not self.peek(value):
            got = self.tokens[self.at][1] if self.at < len(self.tokens) else "the end"
            raise NotReplayable(f"exec code beyond what replay reads ({got!r} where {value or 'more'} was due)")
        self.at += 1
        return self.tokens[self.at - 1]

    def program(self) -> tuple:
        body = []
        while self.at < len(self.tokens):
            if self.peek(";"):
                self.at += 1
                continue
            body.append(self.statement())
        return tuple(body)

    def statement(self) -> tuple:
        if self.peek("var") and self.depth:
            raise NotReplayable("exec code beyond what replay reads (a var inside a block)")
        if self.peek("const") or self.peek("let") or self.peek("var"):
            self.at += 1
            if self.peek("["):  # `const [a, b] = await Promise.all([…])`: an array's items, one name each
                names = self.names()
                self.take("=")
                return ("unpack", names, self.expr())
            kind, name = self.take()
            if kind != "name":
                raise NotReplayable("exec code beyond what replay reads (a destructuring declaration)")
            self.take("=")
            return ("decl", name, self.expr())
        if self.peek("for"):  # `for (const NAME|[NAME, …] of EXPR) STMT`: each item of an array in turn
            self.at += 1
            self.take("(")
            if not (self.peek("const") or self.peek("let") or self.peek("var")):
                raise NotReplayable("exec code beyond what replay reads (a for loop)")
            self.at += 1
            names = self.names() if self.peek("[") else self.name()  # a pattern's tuple, or one name
            if self.take() != ("name", "of"):
                raise NotReplayable("exec code beyond what replay reads (a for loop)")
            items = self.expr()
            self.take(")")
            return ("for", names, items, self.block())
        if self.peek("if"):
            self.at += 1
            self.take("(")
            cond = self.expr()
            self.take(")")
            then = self.block()
            other = ()
            if self.peek(";") and self.at + 1 < len(self.tokens) and self.tokens[self.at + 1] == ("op", "else"):
                self.at += 1  # `if (c) a; else b`: the first statement's `;`
            if self.peek("else"):
                self.at += 1
                other = self.block()
            return ("if", cond, then, other)
        return ("expr", self.expr())

    def name(self) -> str:
        kind, name = self.take()
        if kind != "name":
            raise NotReplayable("exec code beyond what replay reads (a destructuring declaration)")
        return name

    def names(self) -> tuple[str, ...]:
        """The names of an array pattern `[a, b]` (no holes, defaults or rest)."""
        self.take("[")
        return self.listed("]", self.name)

    def listed(self, close: str, item) -> tuple:
        """What `item` reads, again and again, comma-separated up to `close` (taken; a trailing comma allowed)."""
        out = []
        while not self.peek(close):
            out.append(item())
            if not self.peek(close):
                self.take(",")
        self.take(close)
        return tuple(out)

    def block(self) -> tuple:
        """An `if`'s or a loop's body (a `var` in it would outlive it, which the evaluation does not follow)."""
        self.depth += 1
        try:
            return self._block()
        finally:
            self.depth -= 1

    def _block(self) -> tuple:
        if not self.peek("{"):
            return (self.statement(),)
        self.take("{")
        body = []
        while not self.peek("}"):
            if self.peek(";"):
                self.at += 1
                continue
            body.append(self.statement())
        self.take("}")
        return tuple(body)

    def expr(self) -> tuple:
        left = self.unary()
        while self.peek("+") or self.peek("===") or self.peek("!==") or self.peek("&&") or self.peek("||"):
            op = self.take()[1]
            left = ("bin", op, left, self.unary())
        return left

    def unary(self) -> tuple:
        if self.peek("await"):
            self.at += 1
            return ("await", self.unary())
        if self.peek("!"):
            self.at += 1
            return ("not", self.unary())
        return self.postfix(self.primary())

    def primary(self) -> tuple:
        kind, value = self.take()
        if kind == "lit":
            return ("lit", value)
        if kind == "tmpl":
            return ("tmpl", _template(value))
        if kind == "name":
            return ("name", value)
        if value == "(":
            inner = self.expr()
            self.take(")")
            return inner
        if value == "{":
            return ("obj", self.listed("}", self.pair))
        if value == "[":
            return ("arr", self.listed("]", self.expr))
        raise NotReplayable(f"exec code beyond what replay reads ({value!r})")

    def pair(self) -> tuple[str, tuple]:
        """An object literal's `key: value` (`{cmd}` for `{cmd: cmd}`; a keyword is a key as any)."""
        key_kind, key = self.take()
        key_kind = "lit" if key_kind == "op" and key in KEYWORDS else key_kind
        if key_kind not in ("name", "lit") or not isinstance(key, str):
            raise NotReplayable("exec code beyond what replay reads (an object key)")
        if key_kind == "name" and (self.peek(",") or self.peek("}")):
            return key, ("name", key)
        self.take(":")
        return key, self.expr()

    def postfix(self, node: tuple) -> tuple:
        while True:
            if self.peek("."):
                self.at += 1
                kind, name = self.take()
                if kind != "name" and name not in KEYWORDS:  # `r.for`: a keyword is a member's name too
                    raise NotReplayable("exec code beyond what replay reads (a member)")
                node = ("get", node, name)
            elif self.peek("("):
                self.at += 1
                args = self.listed(")", self.expr)
                node = ("call", _callee(node), args)
                if node[1].startswith("tools."):
                    literal = _literal(args[0]) if len(args) == 1 else None
                    self.calls.append((node[1][6:], literal if isinstance(literal, dict) else None))
            else:
                return node


def _callee(node: tuple) -> str:
    """`text`, `JSON.stringify` or `tools.NAME`: the functions a cell may call here."""
    if node == ("name", "text"):
        return "text"
    if node == ("get", ("name", "JSON"), "stringify"):
        return "JSON.stringify"
    if node == ("get", ("name", "Promise"), "all"):  # its array's calls were made as the array was built
        return "Promise.all"
    if node[0] == "get" and node[1] == ("name", "tools"):
        return f"tools.{node[2]}"
    raise NotReplayable("exec code calls a function replay does not follow")


def _template(text: str) -> tuple:
    """A template literal's parts: strings, and the `${name.member}` expressions between them."""
    parts, at = [], 0
    for found in re.finditer(r"\$\{\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\}", text):
        parts.append(("lit", unescape(text[at:found.start()])))
        names = found.group(1).split(".")
        node: tuple = ("name", names[0])
        for name in names[1:]:
            node = ("get", node, name)
        parts.append(node)
        at = found.end()
    if "${" in text[at:]:
        raise NotReplayable("exec code beyond what replay reads (a template expression)")
    parts.append(("lit", unescape(text[at:])))
    return tuple(parts)


def _literal(node: tuple) -> Any:
    """The value of a node made of literals only (an object of strings and numbers), else None."""
    if node[0] == "lit":
        return node[1]
    if node[0] == "obj":
        values = {key: _literal(value) for key, value in node[1]}
        return None if any(v is None for v in values.values()) else values
    if node[0] == "tmpl" and all(part[0] == "lit" for part in node[1]):
        return "".join(part[1] for part in node[1])
    return None


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
    parser = _Parser(tokens(code))
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
    if any(stmt[0] in ("for", "if", "unpack") for stmt in cell.body):  # it may run other than once, or not at all
        return None
    decls = [stmt[1] for stmt in cell.body if stmt[0] == "decl"]
    names = {stmt[1]: _literal(stmt[2]) for stmt in cell.body if stmt[0] == "decl" and decls.count(stmt[1]) == 1}
    for node in _walk(cell.body):
        if node[0] == "call" and node[1] == "tools.apply_patch" and len(node[2]) == 1:
            arg = node[2][0]
            text = names.get(arg[1]) if arg[0] == "name" else _literal(arg)
            return text if isinstance(text, str) else None
    return None


def _walk(nodes: Any):
    """Every node under `nodes` (statements and expressions), depth first."""
    if isinstance(nodes, tuple) and nodes and isinstance(nodes[0], str):
        yield nodes
        nodes = nodes[1:]
    if isinstance(nodes, tuple):
        for node in nodes:
            if isinstance(node, tuple):
                yield from _walk(node)


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
