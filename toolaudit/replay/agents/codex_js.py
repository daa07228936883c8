"""JavaScript as a code-mode cell's V8 reads it: its tokens, string escapes and `undefined`, and the statement forms
agents.codex_cell lists, read into nodes (`Parser`)."""

from __future__ import annotations

import re
from typing import Any

from .shell_words import NotReplayable

_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<name>[A-Za-z_$][\w$]*)
  | (?P<num>\d+(?:\.\d+)?)
  | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<tmpl>`(?:[^`\\]|\\.)*`)
  | (?P<op>===|!==|&&|\|\||\?\?|=>|\+\+|\+=|<=|>=|[{}()\[\];,.:=!+<>])
""", re.S | re.X)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])")
KEYWORDS = {"const", "let", "var", "if", "else", "for", "await", "true", "false", "null", "undefined"}


def unescape(body: str) -> str:
    """A JavaScript string literal's text (between its quotes): its escapes read as JavaScript reads them."""
    def one(found: re.Match) -> str:
        esc = found.group(1)
        if esc[0] == "u":
            point = int(esc[2:-1] if esc[1] == "{" else esc[1:], 16)
            if point > 0x10FFFF:  # past the last code point: JavaScript's own SyntaxError
                raise NotReplayable("exec code holds an escape past the last code point")
            return chr(point)
        if esc[0] == "x":
            return chr(int(esc[1:], 16))
        if esc in ("\n", "\r\n", "\u2028", "\u2029"):  # a line continuation
            return ""
        return _ESCAPES.get(esc, esc)
    # JavaScript's strings are UTF-16: an escaped surrogate pair is one character, a lone one prints as U+FFFD
    return _ESCAPE.sub(one, body).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def tokens(code: str) -> list[tuple[str, Any]]:
    """The tokens of `code`, whole."""
    return _tokens(code, 0, False)[0]


def embedded(code: str, start: int) -> tuple[list[tuple[str, Any]], int]:
    """The tokens of a template literal's `${…}` whose text begins at `start`, and where its closing `}` ends."""
    return _tokens(code, start, True)


def _tokens(code: str, at: int, embedded: bool) -> tuple[list[tuple[str, Any]], int]:
    out, depth = [], 0
    while at < len(code):
        found = _TOKEN.match(code, at)
        if found is None:
            raise NotReplayable(f"exec code beyond what replay reads ({code[at:at + 12]!r})")
        at = found.end()
        kind = found.lastgroup
        text = found.group(kind)
        if kind == "ws":
            continue
        if embedded and kind == "op" and text in "{}":
            depth += 1 if text == "{" else -1
            if depth < 0:
                return out, at
        if kind == "str":
            out.append(("lit", unescape(text[1:-1])))
        elif kind == "num":
            out.append(("lit", float(text) if "." in text else int(text)))
        elif kind == "tmpl":
            out.append(("tmpl", text[1:-1]))
        elif kind == "name" and text in ("true", "false", "null", "undefined"):
            out.append(("lit", {"true": True, "false": False, "null": None, "undefined": Undefined}[text]))
        else:
            out.append((kind if kind == "name" and text not in KEYWORDS else "op", text))
    if embedded:
        raise NotReplayable("exec code beyond what replay reads (a template expression left open)")
    return out, at


class _Undefined:
    """JavaScript's undefined (None stands for null)."""

    def __repr__(self) -> str:
        return "undefined"


Undefined = _Undefined()


# the binary operators, loosest first (each level binds its operands tighter than the one before)
_LEVELS = (("||", "??"), ("&&",), ("===", "!=="), ("<", "<=", ">", ">="), ("+",))
# the methods of strings and arrays read here
METHODS = ("trim", "trimStart", "trimEnd", "slice", "join", "forEach", "map")

class Parser:
    """A cell's statements read from its tokens (agents.codex_cell's forms), and the tools it calls."""

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
            if not (self.peek("const") or self.peek("let")):  # a `var` there outlives the loop: not followed
                raise NotReplayable("exec code beyond what replay reads (a for loop)")
            self.at += 1
            names = self.names() if self.peek("[") else self.name()  # a pattern's tuple, or one name
            if isinstance(names, str) and self.peek("="):  # `for (let i = 0; i < r.length; i++) STMT`
                return self.counted(names)
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

    def counted(self, name: str) -> tuple:
        """The rest of `for (let NAME = EXPR; EXPR; NAME++ | ++NAME | NAME += EXPR) STMT`."""
        self.take("=")
        start = self.expr()
        self.take(";")
        cond = self.expr()
        self.take(";")
        if self.peek("++"):
            self.at += 1
            step = ("lit", 1) if self.take() == ("name", name) else None
        elif self.take() == ("name", name) and (self.peek("++") or self.peek("+=")):
            step = ("lit", 1) if self.take()[1] == "++" else self.expr()
        else:
            step = None
        if step is None:
            raise NotReplayable("exec code beyond what replay reads (a for loop's step)")
        self.take(")")
        return ("count", name, start, cond, step, self.block())

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

    def expr(self, level: int = 0) -> tuple:
        """A binary expression, JavaScript's precedence: `||`, then `&&`, `===`/`!==`, `<`…, `+` binding closest."""
        if level == len(_LEVELS):
            return self.unary()
        left = self.expr(level + 1)
        while any(self.peek(op) for op in _LEVELS[level]):
            op = self.take()[1]
            left = ("bin", op, left, self.expr(level + 1))
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
            return ("tmpl", self.template(value))
        if kind == "name" and self.peek("=>"):  # `r => text(r.output)`
            return self.arrow((value,))
        if kind == "name":
            return ("name", value)
        if value == "(" and self.arrow_ahead():  # `(r, i) => …`
            return self.arrow(self.listed(")", self.name))
        if value == "(":
            inner = self.expr()
            self.take(")")
            return inner
        if value == "{":
            return ("obj", self.listed("}", self.pair))
        if value == "[":
            return ("arr", self.listed("]", self.expr))
        raise NotReplayable(f"exec code beyond what replay reads ({value!r})")

    def arrow_ahead(self) -> bool:
        """Whether the `(` just taken opens an arrow function's parameters: `=>` follows its `)`."""
        depth, at = 0, self.at
        while at < len(self.tokens):
            token = self.tokens[at]
            depth += token in (("op", "("), ("op", "[")) or -(token in (("op", ")"), ("op", "]")))
            if depth < 0:
                return self.tokens[at + 1:at + 2] == [("op", "=>")]
            at += 1
        return False

    def arrow(self, params: tuple[str, ...]) -> tuple:
        """An arrow function's `=> EXPR` or `=> { STMT… }` (no `return`: forEach's callback, map's expression)."""
        self.take("=>")
        if self.peek("{"):
            return ("arrow", params, None, self.block())
        return ("arrow", params, self.expr(), ())

    def template(self, text: str) -> tuple:
        """A template literal's parts: strings, and the expressions of its `${…}` between them."""
        parts, at = [], 0
        while (start := _dollar(text, at)) >= 0:
            parts.append(("lit", unescape(text[at:start])))
            inner, at = embedded(text, start + 2)
            sub = Parser(inner)
            sub.calls, sub.depth = self.calls, self.depth
            parts.append(sub.expr())
            if sub.at != len(inner):
                raise NotReplayable("exec code beyond what replay reads (a template expression)")
        parts.append(("lit", unescape(text[at:])))
        return tuple(parts)

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
            elif self.peek("["):  # `out[0]`, `r[i]`, `x["key"]`
                self.at += 1
                node = ("idx", node, self.expr())
                self.take("]")
            elif self.peek("(") and node[0] == "get" and node[2] in METHODS and node[1] != ("name", "tools"):
                self.at += 1  # `r.output.trim()`
                node = ("method", node[1], node[2], self.listed(")", self.expr))
            elif self.peek("("):
                self.at += 1
                args = self.listed(")", self.expr)
                node = ("call", _callee(node), args)
                if node[1].startswith("tools."):
                    known = literal(args[0]) if len(args) == 1 else None
                    self.calls.append((node[1][6:], known if isinstance(known, dict) else None))
            elif node[0] == "get" and node[1] == ("name", "tools"):  # `xs.forEach(tools.exec_command)`: it runs,
                raise NotReplayable("exec code passes a tool as a value")  # but no call says so
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


def _dollar(text: str, at: int) -> int:
    """Where the next `${` of a template's text begins (not one a backslash escapes), or -1."""
    while (found := text.find("${", at)) >= 0:
        slashes = len(text[:found]) - len(text[:found].rstrip("\\"))
        if slashes % 2 == 0:
            return found
        at = found + 2
    return -1


def literal(node: tuple) -> Any:
    """The value of a node made of literals only (an object of strings and numbers), else None."""
    if node[0] == "lit":
        return node[1]
    if node[0] == "obj":
        values = {key: literal(value) for key, value in node[1]}
        return None if any(v is None for v in values.values()) else values
    if node[0] == "tmpl" and all(part[0] == "lit" for part in node[1]):
        return "".join(part[1] for part in node[1])
    return None
