"""gate: read a baseline (data, never code), run the checks, decide."""
