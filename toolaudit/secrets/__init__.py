"""Secret redaction, below every layer (as model and errors are): collectors mask names with it, scan and
replay mask previews, reasons and diffs. `redact` is the door; `forms` and `rules` are its patterns."""
