"""simulate: cap policies (one module per family), agent presets, the risk trace, and the summary of what a cap saves."""

from ..jobs import entry_point

entry_point(__name__, "simulate", ('SimulateOptions', 'Caps', 'run_spec'))
