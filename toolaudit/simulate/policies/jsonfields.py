"""JSON fields: drop or cut the bulky text fields of JSON outputs (task bodies, descriptions, results).

Works recursively through objects and lists of objects. Each object that lost or had
a field cut gets `"_body_truncated": true`, so the model knows to ask for the whole
thing. The output stays valid JSON, serialised the way the input was (indented or
compact); text that is not a JSON object or array is returned unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...errors import UsageError
from .base import ORDER_JSON, CountTokens, Policy, cut_chars, dump_json_like, load_json, policies

DEFAULT_FIELDS = ("body", "content", "description", "result")
FLAG = "_body_truncated"


@policies.register
@dataclass(frozen=True)
class JsonFields(Policy):
    """Drop (`no_body`) or cut to `body_chars` + "..." the named fields of JSON outputs, marking each object."""

    key: ClassVar[str] = "json-fields"
    summary: ClassVar[str] = (
        "--no-body or --body-chars N, --body-fields a,b (default body,content,description,result): "
        'drop or cut JSON text fields, marking the object "_body_truncated": true'
    )
    order: ClassVar[int] = ORDER_JSON

    no_body: bool = False
    body_chars: int | None = None
    fields: tuple[str, ...] = DEFAULT_FIELDS
    ellipsis: str = "..."

    def __post_init__(self) -> None:
        if self.no_body == (self.body_chars is not None):
            raise UsageError("give --no-body or --body-chars N (one of them)", slug="bad-policy")
        if self.body_chars is not None and self.body_chars < 0:
            raise UsageError("--body-chars must not be negative", slug="bad-policy")
        object.__setattr__(self, "fields", tuple(self.fields))  # a list from the CLI stays hashable

    def apply(self, text: str, count_tokens: CountTokens | None = None) -> str:
        """The JSON with its body fields dropped or cut, or `text` itself when nothing changed."""
        doc = load_json(text)
        if doc is None or not self._walk(doc):
            return text
        return dump_json_like(doc, text)

    def _walk(self, value: Any) -> bool:
        """Change `value` in place; True when anything changed."""
        if isinstance(value, list):
            return any([self._walk(item) for item in value])  # a list, so every item is walked
        if not isinstance(value, dict):
            return False
        changed = False
        for name in self.fields:
            if name not in value:
                continue
            if self.no_body:
                del value[name]
                changed = True
            elif isinstance(value[name], str) and len(value[name]) > self.body_chars:
                cut = cut_chars(value[name], self.body_chars) + self.ellipsis
                if cut != value[name]:  # an already-cut body stays as it is: applying twice = once
                    value[name], changed = cut, True
        nested = any([self._walk(item) for item in value.values()])
        if changed:
            value[FLAG] = True
        return changed or nested
