"""calibrate: fit a model family's tokens to a local encoding from the usage transcripts record."""

from ..jobs import entry_point

entry_point(__name__, "calibrate", ())
