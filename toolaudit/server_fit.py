"""Small answers for the MCP server: compact JSON within a token budget, made small by design (the top rows
and a `rest` aggregate, no empty fields) and, when still over, by leaving out the lowest rows and saying so.

The budget is counted exactly (o200k_base) on the very text sent; the JSON is always whole.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

DEFAULT_MAX_TOKENS = 1500
MIN_MAX_TOKENS = 200  # below this not even the totals fit
DEFAULT_ROWS = 10


def dumps(doc: Any) -> str:
    """`doc` as compact JSON (no indentation, no spaces), UTF-8 kept as is."""
    from .tokenizers import sanitize

    return sanitize(json.dumps(doc, separators=(",", ":"), ensure_ascii=False))


def count(text: str) -> int:
    """Exact o200k_base tokens of `text`."""
    from .tokenizers import get_tokenizer

    return get_tokenizer("o200k_base", "auto", workload=len(text)).count(text)


def pruned(value: Any) -> Any:
    """`value` without None, empty strings, lists and dicts, at any depth."""
    if isinstance(value, dict):
        out = {k: pruned(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [], {}, ())}
    if isinstance(value, (list, tuple)):
        return [pruned(v) for v in value]
    return value


def row(source: dict, keep: Iterable[str], nonzero: Iterable[str] = (), digits: int = 4) -> dict:
    """The fields `keep` of `source`, in that order, with the fields `nonzero` only when not 0 and floats
    rounded to `digits`."""
    quiet = set(nonzero)
    out = {}
    for key in keep:
        value = source.get(key)
        if value is None or (key in quiet and not value):
            continue
        out[key] = round(value, digits) if isinstance(value, float) else value
    return out


class Ranked:
    """A list of rows in an answer, largest first: the top `limit` shown, the others summed into a `rest`
    dict (`rows`: how many, and the sums of `additive` fields)."""

    def __init__(self, key: str, rows: list[dict], limit: int, additive: Iterable[str]):
        self.key = key
        self.additive = tuple(additive)
        self.shown = list(rows[:max(limit, 0)])
        self.rest: dict[str, Any] = {}
        self.left_out = 0  # rows taken off for the budget (also in rest)
        for extra in rows[max(limit, 0):]:
            self._fold(extra)

    def _fold(self, extra: dict) -> None:
        self.rest["rows"] = self.rest.get("rows", 0) + 1
        for field in self.additive:
            value = extra.get(field)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total = self.rest.get(field, 0) + value
                self.rest[field] = round(total, 4) if isinstance(total, float) else total

    def drop_last(self) -> bool:
        """Move the lowest shown row into `rest`; False when none is left."""
        if not self.shown:
            return False
        self._fold(self.shown.pop())
        self.left_out += 1
        return True

    def place(self, doc: dict) -> None:
        """Put the rows (and their rest, when any) into `doc`."""
        doc[self.key] = self.shown
        if self.rest:
            doc[f"{self.key}_rest"] = self.rest
        else:
            doc.pop(f"{self.key}_rest", None)


def fit(doc: dict, ranked: list[Ranked], max_tokens: int, essential: tuple[str, ...] = ()) -> str:
    """`doc` with its ranked lists, as compact JSON within `max_tokens`: the lowest rows left out (longest list
    first) while over, a `truncated` field saying how many and how to ask for them; then, if still over,
    only the `essential` keys. Always whole JSON."""
    max_tokens = max(int(max_tokens), MIN_MAX_TOKENS)
    for r in ranked:
        r.place(doc)
    text = dumps(pruned(doc))
    full = count(text)
    if full <= max_tokens:
        return text
    text_tokens = full
    while True:
        shown = sum(len(r.shown) for r in ranked)
        # rows make most of an answer: over / (answer tokens per row) rows at once, about what is needed
        batch = max(1, (text_tokens - max_tokens) * shown // max(text_tokens, 1))
        dropped = 0
        for _ in range(batch):
            longest = max(ranked, key=lambda r: len(r.shown), default=None)
            if longest is None or not longest.drop_last():
                break
            dropped += 1
        if not dropped:
            break
        for r in ranked:
            r.place(doc)
        doc["truncated"] = _truncated(ranked, full)
        text = dumps(pruned(doc))
        text_tokens = count(text)
        if text_tokens <= max_tokens:
            return text
    rests = tuple(f"{r.key}_rest" for r in ranked)
    for kept in ((*essential, *rests), essential):  # the sums of the rows left out, if they fit
        small = {k: doc[k] for k in kept if k in doc}
        small["truncated"] = {**_truncated(ranked, full), "fields_left_out": sorted(set(doc) - set(small))}
        text = dumps(pruned(small))
        if count(text) <= max_tokens:
            return text
    return dumps({"truncated": {"answer_tokens": full, "ask": f"max_tokens={full}"}})


def _truncated(ranked: list[Ranked], full: int) -> dict:
    """What the budget left out, and the budget that shows it all."""
    left = {r.key: r.left_out for r in ranked if r.left_out}
    return {"rows_left_out": sum(left.values()), "from": left,
            "ask": f"call again with max_tokens={full} to see them (meanwhile summed in "
                   f"{', '.join(k + '_rest' for k in left)})"}
