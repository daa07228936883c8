"""Mask obvious secrets (keys, tokens, passwords) before any text is shown."""

from __future__ import annotations

import re

MASK = "[REDACTED]"

_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|$)", re.S),
    re.compile(r"\b(sk|pk|rk)-(proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\b(sk|pk|rk|whsec)_(live|test)_[A-Za-z0-9]{10,}"),
    re.compile(r"\b(hf|glpat|npm|pypi|dop_v1|xapp|shpat|shpss)[-_][A-Za-z0-9_\-]{16,}"),
    re.compile(r"\b(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{12,}"),
    re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@"),  # credentials in any URL
]
# key = value pairs whose name says secret: keep the name, mask the value
_ASSIGN = re.compile(
    r"""(?ix)
    (\b[\w.-]*(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth)[\w.-]*
      ["']?\s*[:=]\s*["']?)
    ([^\s"',;}]{4,})
    """
)


# command-line flags that take a secret: `--password x`, `-p x` is too ambiguous to touch
_FLAG = re.compile(r"(?i)(--?(?:password|passwd|token|secret|api-?key|auth)[ =])(\S+)")


def redact(text: str) -> str:
    """`text` with obvious secrets replaced by [REDACTED]."""
    for pattern in _PATTERNS:
        text = pattern.sub(MASK, text)
    text = _FLAG.sub(lambda m: m.group(1) + MASK, text)
    return _ASSIGN.sub(lambda m: m.group(1) + MASK, text)


def preview(text: str, width: int) -> str:
    """A one-line, redacted preview of at most `width` characters."""
    flat = " ".join(redact(text[: width * 4]).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
