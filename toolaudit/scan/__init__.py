"""scan: measure each call (chars, bytes, tokens, markers, redaction), group it (families, periods), bill it, summarize."""

from ..jobs import entry_point

entry_point(__name__, "scan", ('ScanOptions', 'collect', 'context_now', 'ContextNow', 'live_snapshot'))
