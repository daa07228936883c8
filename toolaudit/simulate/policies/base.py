"""The Policy interface, the Chain that composes policies, and the helpers every cut shares.

A policy returns the text the model would have seen, marker included. When nothing
needs cutting it returns the very same object (`is`), so callers can tell "unchanged"
without comparing long strings. A "character" is a code point; a cut never splits one,
never splits a UTF-8 sequence, and never separates the halves of a surrogate pair.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import MISSING, dataclass, fields, replace
from typing import Any, Callable, ClassVar

from ...registry import Registry

CountTokens = Callable[[str], int]

# The documented composition order (Chain.of sorts by it): JSON fields, then per-match
# preview, then match/byte limit, then the overall head/tail cap, then refusals.
ORDER_JSON, ORDER_PREVIEW, ORDER_MATCHES, ORDER_CAP, ORDER_REFUSAL = 10, 20, 30, 40, 50


@dataclass(frozen=True)
class Policy:
    """One cap: `apply` returns what the model would have seen, marker included."""

    key: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    order: ClassVar[int] = ORDER_CAP
    # policies of one family replace each other when layers merge; every overall cap is "cap"
    family: ClassVar[str] = ""

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The text after the cap; the same object when it was within limits."""
        raise NotImplementedError

    def describe(self) -> str:
        """Its settings in one line, e.g. `max_chars=5000 head_ratio=0.4`."""
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            default = f.default if f.default is not MISSING else None
            if value is None or (isinstance(value, (bool, str)) and value == default):
                continue  # numbers are always shown: `head_ratio=0.4` says how the cut splits
            if isinstance(value, str):
                value = repr(value if len(value) <= 40 else value[:37] + "...")
            elif isinstance(value, tuple):
                value = ",".join(p.describe() if isinstance(p, Policy) else str(p) for p in value)
            parts.append(f"{f.name}={value}")
        return " ".join(parts)


policies: Registry[type[Policy]] = Registry("policy", "toolaudit.policies", plural="policies")


@dataclass(frozen=True)
class Chain(Policy):
    """Policies applied one after the other, in the documented order."""

    key: ClassVar[str] = "chain"
    summary: ClassVar[str] = "policies applied in order: JSON fields, preview, match limit, cap, refusal"
    policies: tuple[Policy, ...] = ()

    @classmethod
    def of(cls, *items: Policy) -> Chain:
        """A chain of `items` (nested chains flattened), sorted into the documented order."""
        flat: list[Policy] = []
        for item in items:
            flat.extend(item.policies if isinstance(item, Chain) else (item,))
        return cls(tuple(sorted(flat, key=lambda p: p.order)))  # sorted() is stable

    def override(self, *items: Policy) -> Chain:
        """This chain with `items` replacing members of the same family (flags win over a preset)."""
        families = {p.family or p.key for p in items}
        return Chain.of(*(p for p in self.policies if (p.family or p.key) not in families), *items)

    def bind_tool(self, tool: str) -> Chain:
        """This chain with `tool` filled into members that name the tool in their message."""
        if not any(any(f.name == "tool" for f in fields(p)) for p in self.policies):
            return self
        return Chain(tuple(
            replace(p, tool=tool) if any(f.name == "tool" for f in fields(p)) else p for p in self.policies
        ))

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """Each policy in turn; the same object when none changed anything."""
        for policy in self.policies:
            text = policy.apply(text, count_tokens)
        return text

    def describe(self) -> str:
        """Its members, in order: `head-tail(max_chars=5000) → refusal(max_tokens=25000)`."""
        return " → ".join(f"{p.key}({p.describe()})" for p in self.policies) or "unchanged"


@dataclass(frozen=True)
class FirstOf(Policy):
    """Tries its policies in turn; the first that changes the text wins (e.g. Roo: chars before lines)."""

    key: ClassVar[str] = "first-of"
    summary: ClassVar[str] = "the first of several caps that fires (Roo: characters take precedence)"
    family: ClassVar[str] = "cap"
    policies: tuple[Policy, ...] = ()

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The first changed result, or `text` itself."""
        for policy in self.policies:
            out = policy.apply(text, count_tokens)
            if out is not text:
                return out
        return text

    def describe(self) -> str:
        """Its members: `head-tail(...) | head-tail(...)`."""
        return " | ".join(f"{p.key}({p.describe()})" for p in self.policies)


# --- sizes and cuts -------------------------------------------------------------------


def utf8(text: str) -> bytes:
    """UTF-8 bytes of `text`; a lone surrogate (lenient JSON decodes make them) counts 3 bytes."""
    return text.encode("utf-8", "surrogatepass")


def nbytes(text: str) -> int:
    """UTF-8 length of `text`."""
    return len(text) if text.isascii() else len(utf8(text))


def _pair_split(text: str, i: int) -> bool:
    # Python strings can hold a surrogate pair as two code points (from lenient decoders);
    # cutting between them would leave two lone surrogates.
    return 0 < i < len(text) and "\ud800" <= text[i - 1] <= "\udbff" and "\udc00" <= text[i] <= "\udfff"


def cut_chars(text: str, n: int) -> str:
    """The first `n` characters of `text`, one fewer rather than split a surrogate pair."""
    n = max(n, 0)
    if n >= len(text):
        return text
    return text[: n - 1] if _pair_split(text, n) else text[:n]


def cut_chars_tail(text: str, n: int) -> str:
    """The last `n` characters of `text`, one fewer rather than split a surrogate pair."""
    n = max(n, 0)
    if n >= len(text):
        return text
    if n == 0:
        return ""
    start = len(text) - n
    return text[start + 1 :] if _pair_split(text, start) else text[start:]


def cut_bytes(text: str, n: int) -> str:
    """The longest prefix of `text` whose UTF-8 encoding is at most `n` bytes, never splitting a character."""
    n = max(n, 0)
    if text.isascii():
        return text[:n]
    raw = utf8(text)
    if len(raw) <= n:
        return text
    while n > 0 and raw[n] & 0xC0 == 0x80:  # a continuation byte: n is inside a character
        n -= 1
    head = raw[:n].decode("utf-8", "surrogatepass")
    return head[:-1] if _pair_split(text, len(head)) else head


def cut_bytes_tail(text: str, n: int) -> str:
    """The longest suffix of `text` whose UTF-8 encoding is at most `n` bytes, never splitting a character."""
    n = max(n, 0)
    if text.isascii():
        return text[max(len(text) - n, 0) :] if n else ""
    raw = utf8(text)
    if len(raw) <= n:
        return text
    start = len(raw) - n
    while start < len(raw) and raw[start] & 0xC0 == 0x80:
        start += 1
    tail = raw[start:].decode("utf-8", "surrogatepass")
    return tail[1:] if _pair_split(text, len(text) - len(tail)) else tail


def approx_tokens(text: str) -> int:
    """ceil(chars / 4): the estimate used when no tokenizer is given."""
    return math.ceil(len(text) / 4)


def render(template: str, **values: Any) -> str:
    """`template` with `{field}` values filled in (format specs such as `{omitted:,}` allowed)."""
    return template.format(**values) if "{" in template else template


# --- JSON outputs ---------------------------------------------------------------------


def load_json(text: str) -> Any:
    """The parsed object or array `text` holds, or None when it is not JSON."""
    stripped = text.lstrip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


_INDENT = re.compile(r"\n([ \t]+)\S")


def dump_json_like(value: Any, original: str) -> str:
    """`value` serialised the way `original` was: indented or compact, with or without spaces, escaped or not."""
    ensure_ascii = original.isascii() and "\\u" in original
    found = _INDENT.search(original)
    if found:
        indent = found.group(1)
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent if "\t" in indent else len(indent))
    spaced = '": ' in original or ", " in original
    separators = (", ", ": ") if spaced else (",", ":")
    return json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)
