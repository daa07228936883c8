"""JavaScript and Node semantics Claude Code's tools rely on: UTF-16 lengths, trimming, rounding, ICU order, path functions."""

from __future__ import annotations

import math
import os
import unicodedata
from typing import Any

from ....simulate.policies.claude_code import size_text  # noqa: F401  (one definition: simulate's persisted preview uses it)

# --- JavaScript and Node semantics --------------------------------------------------------------

MISSING = object()  # an argument absent from the call (JS undefined), unlike one recorded as null
_JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"


def js_len(text: str) -> int:
    """`text.length` in JavaScript: UTF-16 code units."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF) if not text.isascii() else len(text)


def js_slice(text: str, start: int, end: int | None = None) -> str:
    """`text.slice(start, end)` for non-negative offsets in UTF-16 code units."""
    if text.isascii() or all(ord(ch) <= 0xFFFF for ch in text):
        return text[start:end]
    units = text.encode("utf-16-le", "surrogatepass")
    part = units[2 * start:None if end is None else 2 * end]
    return part.decode("utf-16-le", "surrogatepass")  # a pair cut in two leaves a lone surrogate, as in JS


def js_trim(text: str) -> str:
    """`String.prototype.trim`: JavaScript's whitespace, not Python's."""
    return text.strip(_JS_SPACE)


def js_round(value: float) -> int:
    """`Math.round`: halves go up."""
    return math.floor(value + 0.5)


def js_text(value: Any) -> str:
    """`${value}` in a JavaScript template: numbers without `.0`, undefined and null by name."""
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ICU's root collation (what localeCompare uses) for ASCII: whitespace, punctuation, symbols, digits,
# letters, with case only a tertiary difference; other control characters are ignored
_ICU_ORDER = "\t\n\x0b\x0c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789"
_ICU_PRIMARY = {ch: rank for rank, ch in enumerate(_ICU_ORDER)}
_ICU_PRIMARY.update({ch: len(_ICU_ORDER) + i for i, ch in enumerate("abcdefghijklmnopqrstuvwxyz")})
_ICU_PRIMARY.update({ch.upper(): rank for ch, rank in list(_ICU_PRIMARY.items()) if ch.isalpha()})


def collation_key(text: str) -> tuple:
    """A sort key ordering strings as JavaScript's `a.localeCompare(b)` does in an English locale.

    Exact for ASCII; other characters are decomposed (an accent is a secondary difference) and
    ranked after the ASCII letters by code point, an approximation of ICU's tables.
    """
    primaries, secondaries, tertiaries = [], [], []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch) and primaries:
            secondaries[-1] += (ord(ch),)
            continue
        rank = _ICU_PRIMARY.get(ch)
        if rank is None:
            if ord(ch) < 0x20 or ord(ch) == 0x7F:
                continue  # ignorable
            rank = 0x10000 + ord(ch.lower())
        primaries.append(rank)
        secondaries.append(())
        tertiaries.append(1 if ch != ch.lower() else 0)
    return tuple(primaries), tuple(secondaries), tuple(tertiaries)


def _normalize_string(path: str, allow_above_root: bool) -> str:
    """Node's `normalizeString` (posix): `.`, `..` and repeated slashes resolved."""
    res, last_segment, last_slash, dots = "", 0, -1, 0
    for i in range(len(path) + 1):
        if i < len(path):
            code = path[i]
        elif code == "/":
            break
        else:
            code = "/"
        if code == "/":
            if last_slash == i - 1 or dots == 1:
                pass
            elif dots == 2:
                if len(res) < 2 or last_segment != 2 or not res.endswith(".."):
                    if len(res) > 2:
                        cut = res.rfind("/")
                        res = "" if cut == -1 else res[:cut]
                        last_segment = 0 if cut == -1 else len(res) - 1 - res.rfind("/")
                        last_slash, dots = i, 0
                        continue
                    if res:
                        res, last_segment, last_slash, dots = "", 0, i, 0
                        continue
                if allow_above_root:
                    res += "/.." if res else ".."
                    last_segment = 2
            else:
                res = f"{res}/{path[last_slash + 1:i]}" if res else path[last_slash + 1:i]
                last_segment = i - last_slash - 1
            last_slash, dots = i, 0
        elif code == "." and dots != -1:
            dots += 1
        else:
            dots = -1
    return res


def node_resolve(cwd: str, *paths: str) -> str:
    """Node's `path.resolve(...paths)` with `cwd` as the process's working folder."""
    resolved, absolute = "", False
    for path in (*reversed(paths), cwd):
        if absolute:
            break
        if path:
            resolved = f"{path}/{resolved}"
            absolute = path.startswith("/")
    resolved = _normalize_string(resolved, not absolute)
    return f"/{resolved}" if absolute else resolved or "."


def node_relative(cwd: str, source: str, target: str) -> str:
    """Node's `path.relative(source, target)`."""
    if source == target:
        return ""
    source, target = node_resolve(cwd, source), node_resolve(cwd, target)
    if source == target:
        return ""
    from_len, to_len = len(source) - 1, len(target) - 1
    length = min(from_len, to_len)
    last_sep, i = -1, 0
    while i < length:
        if source[1 + i] != target[1 + i]:
            break
        if source[1 + i] == "/":
            last_sep = i
        i += 1
    if i == length:
        if to_len > length:
            if target[1 + i] == "/":
                return target[2 + i:]
            if i == 0:
                return target[1 + i:]
        elif from_len > length:
            if source[1 + i] == "/":
                last_sep = i
            elif i == 0:
                last_sep = 0
    out = ""
    for j in range(2 + last_sep, len(source) + 1):
        if j == len(source) or source[j] == "/":
            out += "/.." if out else ".."
    return out + target[1 + last_sep:]


def node_join(*parts: str) -> str:
    """Node's `path.join` (posix)."""
    joined = "/".join(part for part in parts if part)
    if not joined:
        return "."
    absolute, trailing = joined.startswith("/"), joined.endswith("/")
    body = _normalize_string(joined, not absolute)
    if not body:
        return "/" if absolute else ("./" if trailing else ".")
    body += "/" if trailing else ""
    return f"/{body}" if absolute else body


def node_dirname(path: str) -> str:
    """Node's `path.dirname` (posix)."""
    if not path:
        return "."
    end, matched = -1, True
    for i in range(len(path) - 1, 0, -1):
        if path[i] == "/":
            if not matched:
                end = i
                break
        else:
            matched = False
    if end == -1:
        return "/" if path.startswith("/") else "."
    return "//" if path.startswith("/") and end == 1 else path[:end]


def node_basename(path: str, suffix: str = "") -> str:
    """Node's `path.basename` (posix), `suffix` dropped when it ends a longer name."""
    trimmed = path.rstrip("/")
    base = trimmed[trimmed.rfind("/") + 1:] if trimmed else ""
    if suffix and base != suffix and base.endswith(suffix):
        return base[:-len(suffix)]
    return base


def node_extname(path: str) -> str:
    """Node's `path.extname` (posix): `.golangci.yml` -> `.yml`, `.env` -> ``."""
    start_dot, start_part, end, matched, pre_dot = -1, 0, -1, True, 0
    for i in range(len(path) - 1, -1, -1):
        ch = path[i]
        if ch == "/":
            if not matched:
                start_part = i + 1
                break
            continue
        if end == -1:
            matched, end = False, i + 1
        if ch == ".":
            if start_dot == -1:
                start_dot = i
            elif pre_dot != 1:
                pre_dot = 1
        elif start_dot != -1:
            pre_dot = -1
    if start_dot == -1 or end == -1 or pre_dot == 0 or (
            pre_dot == 1 and start_dot == end - 1 and start_dot == start_part + 1):
        return ""
    return path[start_dot:end]


def mtime_ms(path: str) -> float:
    """Node's `stat().mtimeMs`."""
    info = os.stat(path)
    return info.st_mtime_ns // 1_000_000_000 * 1e3 + info.st_mtime_ns % 1_000_000_000 / 1e6
