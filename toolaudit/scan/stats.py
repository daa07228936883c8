"""The one percentile rule of the project: nearest rank."""

from __future__ import annotations

import math
from typing import Sequence


def nearest_rank(values: Sequence, p: float):
    """The p-th percentile of `values` by nearest rank: the value at rank ceil(p/100 × n) (0 for none)."""
    return ranked(sorted(values), p)


def ranked(ordered: Sequence, p: float):
    """nearest_rank of values already sorted (several percentiles of one list sort it once)."""
    if len(ordered) == 0:
        return 0
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


class Savings:
    """Before/after rows (simulate's, replay's): the saving and its shares, worked out from the counts."""

    @property
    def tokens_saved(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def saved_pct(self) -> float:
        return 100.0 * self.tokens_saved / self.tokens_before if self.tokens_before else 0.0

    @property
    def weighted_saved_pct(self) -> float:
        return 100.0 * self.weighted_tokens_saved / self.weighted_tokens_before if self.weighted_tokens_before else 0.0
