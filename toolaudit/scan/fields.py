"""Which JSON fields make an output's size: tokens per key path, for the outputs that are JSON.

`{"results": [{"title": …, "body": …}], "next": …}` gives `results[].title`, `results[].body` and `next`:
a key's tokens are those of its value as compact JSON (its key and punctuation left out), summed over the
items of a list; paths go two levels deep, so the field that carries the bulk is named, not only its
container. Only key names and counts come out: never a value.
"""

from __future__ import annotations

from typing import Callable

import orjson

DEPTH = 2  # levels of keys named
KEYS = 200  # key paths kept per output at most (a map keyed by ids is not a schema)


def json_shares(text: str, count: Callable[[str], int]) -> dict[str, int]:
    """Tokens per key path of `text` when it is a JSON object or a list of objects, else {}."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return {}
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return {}
    out: dict[str, int] = {}
    _walk(value, "", 0, count, out)
    return out


def _walk(value, path: str, depth: int, count: Callable[[str], int], out: dict[str, int]) -> None:
    if isinstance(value, list):
        if any(isinstance(item, dict) for item in value):
            for item in value:
                _walk(item, path + "[]", depth, count, out)
        elif path:
            out[path] = out.get(path, 0) + count(orjson.dumps(value).decode())
        return
    if not isinstance(value, dict):
        if path:
            out[path] = out.get(path, 0) + count(orjson.dumps(value).decode())
        return
    for key, item in value.items():
        name = f"{path}.{key}" if path else key
        if depth + 1 < DEPTH and isinstance(item, (dict, list)):
            _walk(item, name, depth + 1, count, out)
        elif name in out or len(out) < KEYS:
            out[name] = out.get(name, 0) + count(orjson.dumps(item).decode())
