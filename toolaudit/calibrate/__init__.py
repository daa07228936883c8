"""calibrate: fit a model family's tokens to a local encoding from the usage transcripts record."""
