"""gate: read a baseline (data, never code), run the checks, decide."""

from ..jobs import entry_point

entry_point(__name__, "gate", ('GateOptions', 'measure'))
