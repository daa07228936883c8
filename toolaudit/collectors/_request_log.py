"""What the request-log readers (anthropic-messages, openai-chat) share: conversations found by
their message history, the requests that carried each tool result, the tool menus requests sent.

A request log re-sends the conversation with every request, so it shows exactly which requests
carried each tool result. A request continues the conversation of the longest earlier request
its messages extend (matched by a digest of each prefix, so memory stays bounded); anything
else (a side call, another conversation, a history the client pruned) starts a new one.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any, Callable, Iterator

import orjson

from ..model import MAIN_AGENT, ToolMenu
from .base import dump_args

MAX_HISTORIES = 65_536  # request digests remembered per file (16 bytes each)
MAX_OPEN = 1024  # conversations open per file; beyond, the least recently used one is ended


def digest(value: Any) -> bytes:
    """A short digest of a JSON value, keys sorted (odd strings such as lone surrogates escaped)."""
    try:
        raw = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson refuses lone surrogates and non-string keys
        raw = json.dumps(value, sort_keys=True, default=repr).encode()
    return hashlib.blake2b(raw, digest_size=16).digest()


def prefix_digests(seed: str, messages: list, skeleton: Callable[[Any], Any] = lambda m: m) -> list[bytes]:
    """The digest of each prefix of `messages`: item k-1 names messages[:k] (within `seed`)."""
    out = []
    current = hashlib.blake2b(seed.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    for message in messages:
        current = hashlib.blake2b(current + digest(skeleton(message)), digest_size=16).digest()
        out.append(current)
    return out


class History:
    """Which open conversation an earlier request with these very messages belonged to."""

    def __init__(self) -> None:
        self.known: OrderedDict[bytes, Any] = OrderedDict()

    def find(self, chain: list[bytes]) -> tuple[Any, int]:
        """(the conversation of the longest earlier request `chain` extends, its message count),
        or (None, 0). Conversations marked `closed` are not continued."""
        for k in range(len(chain), 0, -1):
            owner = self.known.get(chain[k - 1])
            if owner is not None and not owner.closed:
                return owner, k
        return None, 0

    def remember(self, chain: list[bytes], owner: Any) -> None:
        """Remember a request's whole message list; the oldest digests go first past the bound."""
        if not chain:
            return
        self.known[chain[-1]] = owner
        self.known.move_to_end(chain[-1])
        while len(self.known) > MAX_HISTORIES:
            self.known.popitem(last=False)


class Carried:
    """How many requests carried each tool result.

    A request carries a result when its messages hold it as it was first sent: a client that
    clears an old result's content, or drops it, stops carrying it from that request on.
    """

    def __init__(self) -> None:
        self._first: dict[Any, bytes] = {}
        self._count: dict[Any, int] = {}
        self._last: dict[Any, int] = {}  # the request last counted: a result twice in one request counts once

    def add(self, key: Any, request: int, content: bytes = b"") -> bool:
        """Count request number `request` (a serial within the file) for `key`; True the first time."""
        first = self._first.get(key)
        if first is None:
            self._first[key], self._count[key], self._last[key] = content, 1, request
            return True
        if first == content and self._last[key] != request:
            self._count[key] += 1
            self._last[key] = request
        return False

    def count(self, key: Any) -> int:
        """The requests that carried `key` so far (0 when never seen)."""
        return self._count.get(key, 0)


def tool_name(defn: dict) -> str:
    """A definition's tool name: Anthropic `name`, OpenAI `function.name`, else its `type`."""
    fn = defn.get("function")
    for value in (defn.get("name"), fn.get("name") if isinstance(fn, dict) else None, defn.get("type")):
        if isinstance(value, str) and value:
            return value
    return "(unnamed)"


class Menus:
    """The distinct tool menus one session sent and how many requests carried each."""

    def __init__(self) -> None:
        self._menus: dict[bytes, list] = {}

    def add(self, tools: Any, requests: int = 1) -> None:
        """Count `requests` requests for the menu `tools` (a request's `tools` list)."""
        if not isinstance(tools, list) or not tools or requests <= 0:
            return
        key = digest(tools)
        entry = self._menus.get(key)
        if entry is None:
            defs = tuple((tool_name(t), dump_args(t)) for t in tools if isinstance(t, dict))
            entry = self._menus[key] = [defs, 0]
        entry[1] += requests

    def records(self, source: str, session: str, agent: str = MAIN_AGENT) -> Iterator[ToolMenu]:
        """One ToolMenu per distinct menu, in the order first sent."""
        for defs, requests in self._menus.values():
            if defs:
                yield ToolMenu(source, session, defs, requests, agent)
