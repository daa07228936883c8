"""JSON report: the versioned document that baselines and other tools read."""

from __future__ import annotations

import json
from typing import Any

from .base import Reporter, reporters
from .scan_data import scan_dict
from .sim_data import sim_dict


@reporters.register
class JsonReport(Reporter):
    """`-f json`: schema_version, meta, totals, tools[], skipped (see README)."""

    key = "json"
    description = "versioned JSON document (the schema baselines use)"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        doc = sim_dict(result) if getattr(result, "kind", "scan") == "simulate" else scan_dict(result)
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
