"""Cap policies: one module per family, composed by Chain in one documented order.

Order: JSON fields (10) → per-match preview and line clip (20) → match/byte limit (30)
→ overall head/tail cap (40) → refusal (50). Importing this package registers every
built-in family in `policies` (the `toolaudit.policies` entry-point group adds plugins).
"""

from .codex import CodexLegacy, CodexMiddle
from .opencode import OpenCodeCut
from .base import (Chain, FirstOf, Policy, cut_bytes, cut_bytes_tail, cut_chars, cut_chars_tail, nbytes,
                   policies)
from .headtail import DEFAULT_MARKER, HeadTail
from .jsonfields import JsonFields
from .matchlimit import DEFAULT_NOTICE, MatchLimit
from .preview import LineClip, SearchPreview
from .refusal import Refusal

__all__ = [
    "Chain", "CodexLegacy", "CodexMiddle", "DEFAULT_MARKER", "DEFAULT_NOTICE", "FirstOf", "HeadTail",
    "JsonFields", "LineClip", "MatchLimit", "OpenCodeCut", "Policy", "Refusal", "SearchPreview", "cut_bytes",
    "cut_bytes_tail", "cut_chars", "cut_chars_tail", "nbytes", "policies",
]
