"""scan: measure each call (chars, bytes, tokens, markers, redaction), group it (families, periods), bill it, summarize."""
