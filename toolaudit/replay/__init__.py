"""Replay: re-run recorded tool calls through a new implementation and measure what it returns."""
