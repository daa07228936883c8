"""JavaScript's values as a code-mode cell's V8 prints, compares and indexes them (agents.codex_exec evaluates a cell
with them): `String(v)`, `JSON.stringify`, truthiness, `a[k]`, and the string and array methods agents.codex_js reads
whose results need no callback."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from .codex_js import Undefined
from .shell_words import NotReplayable


_INDEX = re.compile(r"0|[1-9][0-9]{0,8}")  # an array index's canonical form (below 2**32 - 1, kept short)


class Raw(str):
    """A number printed as recorded (a wall time no re-run reproduces)."""


def js_number(value: float) -> str:
    """A number as JavaScript prints it (`Number.prototype.toString`)."""
    if isinstance(value, int) and abs(value) >= 2 ** 53:  # a double in V8: its nearest, printed as one
        value = float(value)
    if isinstance(value, int) or value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))
    if 1e-6 <= abs(value) < 1e21:  # the shortest digits that read back (repr's), zeros after them
        shown = format(Decimal(repr(value)), "f")
        return shown.removesuffix(".0") if value.is_integer() else shown
    mantissa, _, exp = repr(value).partition("e")
    return f"{mantissa}e{'+' if int(exp) > 0 else '-'}{abs(int(exp))}"


def js_string(value: Any) -> str:
    """`String(value)`."""
    if value is Undefined:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if v is None or v is Undefined else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, str):
        return value
    raise NotReplayable("exec code prints a value replay does not follow (a promise not awaited, a function)")


def js_json(value: Any, indent: str = "", level: int = 0) -> str:
    """`JSON.stringify(value, null, indent)` (V8's: non-ASCII kept, integer keys first, the others in insertion
    order)."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, (dict, list)):
        if isinstance(value, dict):  # V8 keeps an object's integer keys first, in order, then the others as written
            index = sorted((k for k in value if _INDEX.fullmatch(k)), key=int)
            keys = index + [k for k in value if k not in index]
            gap = " " if indent else ""
            parts = [f"{json.dumps(k, ensure_ascii=False)}:{gap}{js_json(value[k], indent, level + 1)}"
                     for k in keys if value[k] is not Undefined]
            opening, closing = "{", "}"
        else:
            parts = ["null" if v is Undefined else js_json(v, indent, level + 1) for v in value]
            opening, closing = "[", "]"
        if not parts:
            return opening + closing
        if not indent:
            return opening + ",".join(parts) + closing
        inner, outer = "\n" + indent * (level + 1), "\n" + indent * level
        return opening + inner + ("," + inner).join(parts) + outer + closing
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return "null" if value is Undefined else js_string(value)


def text_of(value: Any) -> str:
    """What `text(value)` adds (serialize_output_text)."""
    return js_json(value) if isinstance(value, (dict, list)) and not isinstance(value, Raw) else js_string(value)


def truthy(value: Any) -> bool:
    """JavaScript's truthiness."""
    return not (value is Undefined or value is None or value is False or value == "" or
                (isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0))


# JavaScript's white space and line terminators, as trim() removes them (Python's isspace() differs: \x1c–\x1f, \x85)
JS_SPACE = "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"


def number(value: Any) -> bool:
    """Whether `value` is a JavaScript number (not a boolean, not a recorded wall time)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not isinstance(value, Raw)


def member(owner: Any, key: Any) -> Any:
    """`owner[key]` (`owner.key`): an object's key, an array's or a BMP string's item by index, their `length`."""
    if isinstance(owner, dict) and not isinstance(owner, Raw):
        return owner.get(js_string(key) if number(key) else key, Undefined)
    if isinstance(owner, str) and any(ord(c) > 0xFFFF for c in owner):  # indexed by UTF-16 unit in JavaScript
        raise NotReplayable("exec code indexes a string past the Basic Multilingual Plane")
    if isinstance(owner, (list, str)) and not isinstance(owner, Raw):
        if key == "length":
            return len(owner)
        if number(key) and key == int(key):
            return owner[int(key)] if 0 <= key < len(owner) else Undefined
        if isinstance(key, str) and re.fullmatch(r"0|[1-9][0-9]{0,14}", key):
            return owner[int(key)] if int(key) < len(owner) else Undefined
    raise NotReplayable(f"exec code reads {js_string(key)!r} of a value replay does not follow")


class Arrow:
    """An arrow function's node (`(r, i) => …`), called by the array methods that take one."""

    def __init__(self, node: tuple):
        self.params, self.expr, self.body = node[1], node[2], node[3]


def method(owner: Any, name: str, args: list) -> Any:
    """`owner.name(...args)` for a string's trim(), trimStart(), trimEnd(), slice() and an array's slice(), join()."""
    if isinstance(owner, str) and not isinstance(owner, Raw) and name in ("trim", "trimStart", "trimEnd"):
        return {"trim": str.strip, "trimStart": str.lstrip, "trimEnd": str.rstrip}[name](owner, JS_SPACE)
    if isinstance(owner, (str, list)) and not isinstance(owner, Raw) and name == "slice":
        if isinstance(owner, str) and any(ord(c) > 0xFFFF for c in owner):  # sliced by UTF-16 unit in JavaScript
            raise NotReplayable("exec code slices a string past the Basic Multilingual Plane")
        return owner[_index(args, 0):_index(args, 1)]
    if isinstance(owner, list) and name == "join":
        sep = "," if not args or args[0] is Undefined else js_string(args[0])
        return sep.join("" if v is None or v is Undefined else js_string(v) for v in owner)
    raise NotReplayable(f"exec code calls .{name}() of a value replay does not follow")


def _index(args: list, at: int) -> int | None:
    """slice()'s argument `at` as Python slices take it (JavaScript's negative from the end, truncated; none: None)."""
    if at >= len(args) or args[at] is Undefined:
        return None
    if not number(args[at]) or not abs(args[at]) < 1e15:  # NaN, Infinity: JavaScript's own rules, not followed
        raise NotReplayable("exec code slices by a value replay does not follow")
    return int(args[at])
