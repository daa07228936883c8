"""The one percentile rule of the project: nearest rank."""

from __future__ import annotations

import math
from typing import Sequence


def nearest_rank(values: Sequence, p: float):
    """The p-th percentile of `values` by nearest rank: the value at rank ceil(p/100 × n) (0 for none)."""
    if len(values) == 0:
        return 0
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]
