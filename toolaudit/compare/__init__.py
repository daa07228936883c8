"""compare: two sides of runs (transcripts or --records files), their deltas per metric and group."""

from ..jobs import entry_point

entry_point(__name__, "compare", ('CompareOptions',))
