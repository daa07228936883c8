"""A calibration file of a chosen factor, for tests that need one without fitting."""

from __future__ import annotations

import json
from pathlib import Path


def write_calibration(path: Path, factor: float, turns: int = 12) -> Path:
    """A `calibrate --save` file whose pooled factor is `factor`."""
    path.write_text(json.dumps({
        "schema_version": 1, "kind": "toolaudit-calibration", "base_encoding": "o200k_base",
        "models": {}, "pooled": {"f": factor, "n": turns, "p25": factor, "p75": factor},
    }))
    return path
