"""The gate's dollars: what the gated run's tool outputs cost, and the baseline's where it carries them.

Both are read from the measured documents (a baseline is data: a missing or malformed figure is no price,
never an error): scan's `cost.tools[]` (first + re-sent), simulate's and replay's `cost.after_usd` (the tool
outputs as the policy or the variant leaves them). Estimated, as scan prices them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class GateCost:
    """The gated run's tool-output dollars and the baseline's (None where a document carries none)."""

    current_usd: float | None
    baseline_usd: float | None
    unpriced_calls: int = 0  # of the gated run: calls whose model the price table lacks
    prices: str | None = None
    why_not: str | None = None  # why the gated run has no dollars

    @property
    def change_usd(self) -> float | None:
        """Now − baseline; None unless both are known."""
        if self.current_usd is None or self.baseline_usd is None:
            return None
        return self.current_usd - self.baseline_usd

    def as_dict(self) -> dict:
        """The JSON form (`ci -f json`'s `cost`)."""
        change = self.change_usd
        return {"prices": self.prices, "currency": "USD", "estimated": True,
                "baseline_usd": _round(self.baseline_usd), "current_usd": _round(self.current_usd),
                "change_usd": _round(change), "unpriced_calls": self.unpriced_calls, "why_not": self.why_not}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 8)


def _number(value) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def output_usd(doc: dict) -> tuple[float | None, int, str | None]:
    """(tool-output dollars, calls without a price, the price table) of a scan, simulate or replay document."""
    cost = doc.get("cost")
    if not isinstance(cost, dict):
        return None, 0, None
    prices = cost.get("prices") if isinstance(cost.get("prices"), str) else None
    if doc.get("meta", {}).get("command", "scan") == "scan":
        tools = [t for t in cost.get("tools") or [] if isinstance(t, dict)]
        priced = [v for v in (_number(t.get("total_usd")) for t in tools) if v is not None]
        unpriced = sum(int(_number(t.get("unpriced_calls")) or 0) for t in tools)
        return (sum(priced) if priced else None), unpriced, prices
    return _number(cost.get("after_usd")), int(_number(cost.get("unpriced_calls")) or 0), prices


def gate_cost(baseline: dict, current: dict) -> GateCost:
    """The dollars of a gate: the current run's, priced now; the baseline's as it recorded them."""
    now, unpriced, prices = output_usd(current)
    base, _, _ = output_usd(baseline)
    why = None
    if now is None:
        models = (current.get("cost") or {}).get("unknown_models") or []
        named = [m for m in models if isinstance(m, str) and not m.startswith("(")]
        why = (f"no price for {', '.join(named)} in the offline price table ({unpriced:,} calls)" if named
               else f"the transcripts name no model to price these {unpriced:,} calls with" if unpriced
               else "the gated run carries no tool-output dollars")
    return GateCost(now, base, unpriced, prices, why)
