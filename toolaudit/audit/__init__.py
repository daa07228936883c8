"""Measure records, apply cap policies, aggregate, compare and gate: pure functions."""
