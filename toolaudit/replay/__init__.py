"""Replay: re-run recorded tool calls through a new implementation and measure what it returns."""

from ..jobs import entry_point

entry_point(__name__, "replay", ('replay_options',))
