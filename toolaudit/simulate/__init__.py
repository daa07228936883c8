"""simulate: cap policies (one module per family), agent presets, the risk trace, and the summary of what a cap saves."""
