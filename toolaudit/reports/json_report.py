"""JSON report: the versioned document that baselines and other tools read."""

from __future__ import annotations

import json
from typing import Any

from .base import Reporter, reporters
from .view import view_of


@reporters.register
class JsonReport(Reporter):
    """`-f json`: schema_version, meta, totals, tools[]… (schemas in the README)."""

    key = "json"
    description = "versioned JSON document (the schema baselines use)"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        return json.dumps(view_of(result).doc(result), indent=2, ensure_ascii=False) + "\n"
