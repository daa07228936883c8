"""compare: two sides of runs (transcripts or --records files), their deltas per metric and group."""
