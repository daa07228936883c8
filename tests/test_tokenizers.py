"""toktok-rs counts exactly what OpenAI's tiktoken counts, offline; the other engines behave."""

from __future__ import annotations

import base64
import hashlib
import inspect
import json
import math
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))  # openai_vocab, whatever pytest's import mode
from openai_vocab import load_encoding, pinned_hash, vocab_bytes  # noqa: E402

from toolaudit import tokenizers  # noqa: E402
from toolaudit.errors import ToolauditError, UsageError  # noqa: E402
from toolaudit.tokenizers import Tokenizer, from_tiktoken_encoding, get_tokenizer, sanitize  # noqa: E402

ENCODINGS = ("o200k_base", "cl100k_base")
N_VOCAB = {"o200k_base": 200019, "cl100k_base": 100277}


REAL_READ_FILE_CACHED = __import__("tiktoken.load").load.read_file_cached


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any attempt by tiktoken to fetch a vocabulary fails the test instead of downloading."""
    import tiktoken.load

    def refuse(*args, **kwargs):
        raise AssertionError(f"tiktoken tried to fetch {args!r}: tests must stay offline")

    monkeypatch.setattr(tiktoken.load, "read_file", refuse)
    monkeypatch.setattr(tiktoken.load, "read_file_cached", refuse)


# the exact engines each count what tiktoken counts (`auto` is one of them per workload)
EXACT = ("toktok", "rs-bpe")


def pair(name: str, engine: str = "toktok") -> tuple[Tokenizer, Tokenizer]:
    """(`engine` through toolaudit, the real tiktoken Encoding through toolaudit)."""
    return get_tokenizer(name, engine), from_tiktoken_encoding(load_encoding(name))


# --- the varied set -------------------------------------------------------------------

_CODE = '''import os\n\n\nclass Cache(dict):\n    """LRU-ish."""\n\n    def __init__(self, size: int = 128) -> None:\n        super().__init__()\n        self.size = size  # don't grow\n\n    def get(self, key, default=None):\n        return super().get(key, default) if key in self else default\n\t\tif x != y and x >= 0x1F: pass\r\n'''
_JSON = json.dumps(
    {"users": [{"id": i, "name": f"user{i}", "tags": ["a", "b"], "score": i * 1.5, "ok": i % 2 == 0, "n": None}
               for i in range(20)], "nested": {"deep": {"deeper": [[], {}, [1, [2, [3]]]]}}},
    indent=2,
)
_GREP = "".join(
    f"src/toolaudit/collectors/module_{i % 7}.py:{i * 13}:    if obj.get('type') == \"tool_result\":  # {i}\n"
    for i in range(60)
)
_MIN_JS = '!function(e,t){"object"==typeof exports&&"undefined"!=typeof module?module.exports=t():"function"==typeof define&&define.amd?define(t):(e=e||self).Vue=t()}(this,function(){"use strict";var e=Object.freeze({});function t(e){return null==e}function n(e){return null!=e}var r=/[\\u0000-\\u001f]/g;return e});' * 5
_B64 = base64.b64encode(random.Random(7).randbytes(3000)).decode()
_CJK = (
    "안녕하세요. 이 파일은 설정을 읽습니다. 한국어 문장과 숫자 12345.\n"
    "你好，世界！这是一个测试文件，用于统计词元数量。\n"
    "こんにちは、世界。ファイルを読み込みました。カタカナとひらがなと漢字。\n"
    "Привет, мир! Ελληνικά. العربية مرحبا. עברית שלום. हिन्दी नमस्ते. ภาษาไทย สวัสดี.\n"
)
_EMOJI = (
    "👨‍👩‍👧‍👦 👩🏽‍💻 🏳️‍🌈 🏴‍☠️ 🇺🇸🇯🇵🇰🇷🇩🇪 👍🏻👍🏼👍🏽👍🏾👍🏿 ❤️‍🔥 🧑‍🤝‍🧑 "
    "✅❌⚠️ 🚀🔥💯 e\u0301 n\u0303 a\u20dd \ufeff zero\u200bwidth"
)
_WEIRD = "\x00\x01\x7f\x1b[31mred\x1b[0m \u2028 \u2029 \x85 \ufffd \U0010ffff \ue000"


def _random_text(seed: int, size: int) -> str:
    raw = random.Random(seed).randbytes(size)
    return raw.decode("utf-8", "replace")


VARIED = {
    "empty-ish": " ",
    "hello": "hello world",
    "code": _CODE,
    "pretty-json": _JSON,
    "grep": _GREP,
    "min-js": _MIN_JS,
    "base64": _B64,
    "cjk": _CJK,
    "emoji": _EMOJI,
    "weird": _WEIRD,
    "spaces": " " * 1000 + "x" + " " * 37 + "\n",
    "newlines": "\n" * 500 + "a\n\n\n \n\t\n" + "\r\n" * 100,
    "equals": "=" * 400 + "\n" + "-" * 300 + "\n" + "#" * 129 + "\n" + "*" * 77,
    "tabs": "\t" * 64 + "x\t\t y",
    "numbers": "1234567890" * 50 + " 3.14159 -0.5e-10 0xDEADBEEF 1_000_000",
    "contractions": "it's I'LL we've they'D You'Re don't O'Neil's",
    "long-word": "a" * 20000,
    "mixed-long": (_CODE + _GREP + _CJK + _EMOJI) * 40,
    "specials": "before <|endoftext|> mid <|endofprompt|> <|fim_prefix|><|im_start|>after<|endoftext|>",
    "special-only": "<|endoftext|>",
    "random-utf8-a": _random_text(1, 4096),
    "random-utf8-b": _random_text(2, 65536),
    "random-latin1": random.Random(3).randbytes(4096).decode("latin-1"),
}

SURROGATES = {
    "lone-high-mid": "a\ud83db",
    "lone-low": "\udc00",
    "lone-high-end": "tail\ud800",
    "pair-as-halves": "x\ud83d\ude00y",  # a valid pair written as two code points
    "reversed-pair": "\ude00\ud83d",
    "mixed": "ok 😀 \ud83d broken \udfff end",
}


# --- the vocabulary files themselves ---------------------------------------------------


@pytest.mark.parametrize("name", ENCODINGS)
def test_vocabulary_matches_tiktoken_pinned_hash(name):
    pinned = pinned_hash(name)
    assert hashlib.sha256(vocab_bytes(name)).hexdigest() == pinned
    # the pin came from tiktoken's constructor; it is the literal in tiktoken's own source
    from tiktoken_ext import openai_public

    assert f'expected_hash="{pinned}"' in inspect.getsource(openai_public)


def test_vocab_loader_restores_tiktoken_fetch():
    import tiktoken.load

    import openai_vocab

    before = tiktoken.load.read_file_cached, tiktoken.load.read_file
    enc, pinned = openai_vocab._build.__wrapped__("cl100k_base")  # uncached: really swaps and restores
    assert (tiktoken.load.read_file_cached, tiktoken.load.read_file) == before
    assert enc.n_vocab == N_VOCAB["cl100k_base"] and pinned == pinned_hash("cl100k_base")


@pytest.mark.parametrize("name", ENCODINGS)
def test_n_vocab_anchors(name):
    enc = load_encoding(name)
    assert enc.name == name
    assert enc.n_vocab == N_VOCAB[name]
    import toktok

    tok = toktok._encoding(name)
    if hasattr(tok, "n_vocab"):
        assert tok.n_vocab == N_VOCAB[name]


def test_hello_world_anchor():
    toktok_tok, tiktoken_tok = pair("o200k_base")
    assert toktok_tok.count("hello world") == 2
    assert tiktoken_tok.count("hello world") == 2


# --- exactness --------------------------------------------------------------------------


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("key", sorted(VARIED))
def test_exact_engines_count_what_tiktoken_counts(name, key, engine):
    text = VARIED[key]
    toktok_tok, tiktoken_tok = pair(name, engine)
    assert sanitize(text) == text
    assert toktok_tok.count(text) == tiktoken_tok.count(text) > 0


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("key", sorted(VARIED))
def test_toktok_ids_equal_tiktoken(name, key):
    # Stronger than counts: the same ids, so equal counts are not a coincidence.
    import toktok

    enc = load_encoding(name)
    text = VARIED[key]
    assert toktok._encoding(name).encode_ordinary(text) == enc.encode_ordinary(text)


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("name", ENCODINGS)
def test_special_token_literals_are_ordinary_text(name, engine):
    toktok_tok, tiktoken_tok = pair(name, engine)
    enc = load_encoding(name)
    for literal in ("<|endoftext|>", "<|endofprompt|>"):
        n = toktok_tok.count(literal)
        assert n == tiktoken_tok.count(literal) == len(enc.encode(literal, disallowed_special=()))
        assert n > 1  # not the single special token


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("key", sorted(SURROGATES))
def test_lone_surrogates(name, key, engine):
    raw = SURROGATES[key]
    clean = sanitize(raw)
    clean.encode("utf-8")  # sanitize leaves text that encodes
    toktok_tok, tiktoken_tok = pair(name, engine)
    counted = toktok_tok.count(clean)
    assert counted == tiktoken_tok.count(clean)
    # tiktoken repairs the raw string itself; sanitize must repair it the same way
    assert counted == len(load_encoding(name).encode_ordinary(raw))


def test_sanitize_joins_pairs_and_replaces_lone_halves():
    assert sanitize("x\ud83d\ude00y") == "x😀y"
    assert sanitize("a\ud83db") == "a\ufffdb"
    assert sanitize("plain") == "plain"


_HALVES = ["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude00"]  # surrogates are rare draws otherwise
_HYPO = settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("name", ENCODINGS)
@_HYPO
@given(text=st.text())
def test_hypothesis_text(name, text, engine):
    toktok_tok, tiktoken_tok = pair(name, engine)
    assert toktok_tok.count(text) == tiktoken_tok.count(text)


# Code points Unicode 17 (2025) assigned, letters and marks mostly: toktok's pre-tokenizer classes
# them with Unicode 17's tables, tiktoken's regex with older ones that leave them unassigned, so a
# text holding one can count a token apart (found by sweeping every code point as "x{c}/A": the
# engines differ on these only; the last four ranges only under o200k_base).
UNICODE_17 = ((0x88F, 0x88F), (0xC5C, 0xC5C), (0xCDC, 0xCDC), (0xA7CE, 0xA7CF), (0xA7D2, 0xA7D2),
              (0xA7D4, 0xA7D4), (0xA7F1, 0xA7F1), (0x10940, 0x10959), (0x10EC5, 0x10EC7), (0x11DB0, 0x11DDB),
              (0x11DE0, 0x11DE9), (0x16EA0, 0x16EB8), (0x16EBB, 0x16ED3), (0x16FF2, 0x16FF6), (0x187F8, 0x187FF),
              (0x18D09, 0x18D1E), (0x18D80, 0x18DF2), (0x1E6C0, 0x1E6F5), (0x1E6FE, 0x1E6FF), (0x2B73A, 0x2B73F),
              (0x2CEA2, 0x2CEAD), (0x323B0, 0x33479), (0x1ACF, 0x1ADD), (0x1AE0, 0x1AEB), (0x10EFA, 0x10EFB),
              (0x11B60, 0x11B67))


def _older_unicode(c: str) -> bool:
    return not any(lo <= ord(c) <= hi for lo, hi in UNICODE_17)


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("point", [0x323B0, 0x11DB0, 0x1E6C0, 0x10940])
def test_unicode_17_letters_are_where_toktok_parts(name, point):
    # the documented exception (docs/scan.md): when this fails, the engines agree again; drop UNICODE_17
    toktok_tok, tiktoken_tok = pair(name)
    text = f"x{chr(point)}/A"
    assert toktok_tok.count(text) != tiktoken_tok.count(text)
    assert toktok_tok.count(f"x{chr(point - 1)}/A") == tiktoken_tok.count(f"x{chr(point - 1)}/A")
    # rs-bpe counts them as tiktoken does
    assert get_tokenizer(name, "rs-bpe").count(text) == tiktoken_tok.count(text)


@pytest.mark.parametrize("name", ENCODINGS)
def test_auto_picks_by_workload_and_counts_alike(name):
    assert get_tokenizer(name, "auto", workload=1000).engine == "rs-bpe"
    assert get_tokenizer(name, "auto", workload=tokenizers.AUTO_CROSSOVER_BYTES).engine == "toktok"
    assert get_tokenizer(name, "auto").engine == "toktok"  # an unknown workload counts as large
    small, large = get_tokenizer(name, "auto", workload=1), get_tokenizer(name, "auto", workload=1 << 40)
    for text in VARIED.values():
        assert small.count(text) == large.count(text)


@pytest.mark.parametrize("name", ENCODINGS)
@_HYPO
@given(text=st.text(st.characters(codec=None, exclude_categories=()).filter(_older_unicode) | st.sampled_from(_HALVES),
                    max_size=200))
@pytest.mark.parametrize("engine", EXACT)
def test_hypothesis_any_code_point(name, text, engine):
    # Surrogates included: the measuring path sanitizes, tiktoken repairs on its own.
    toktok_tok, tiktoken_tok = pair(name, engine)
    clean = sanitize(text)
    assert toktok_tok.count(clean) == tiktoken_tok.count(clean) == len(load_encoding(name).encode_ordinary(text))


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("name", ENCODINGS)
@_HYPO
@given(parts=st.lists(st.sampled_from(sorted(VARIED.values())) | st.text(max_size=30), max_size=6))
def test_hypothesis_spliced_samples(name, parts, engine):
    # Splices make BPE merges cross the seams between the fixed samples.
    text = "".join(parts)
    toktok_tok, tiktoken_tok = pair(name, engine)
    assert toktok_tok.count(text) == tiktoken_tok.count(text)


# --- the other engines and the interface ---------------------------------------------------


@pytest.mark.parametrize("text", ["", "a", "abcd", "abcde", "한국어", "😀" * 9, "x" * 1001])
def test_approx_is_ceil_chars_over_four(text):
    tok = get_tokenizer("approx")
    assert tok.estimated
    assert tok.count(text) == math.ceil(len(text) / 4)


def test_labels():
    assert "estimated" in get_tokenizer("approx").label
    assert get_tokenizer("o200k_base").label == "o200k_base"
    assert get_tokenizer("cl100k_base", "toktok").label == "cl100k_base"
    assert not get_tokenizer("o200k_base").estimated


def test_defaults():
    tok = get_tokenizer()
    assert (tokenizers.DEFAULT_TOKENIZER, tokenizers.DEFAULT_ENGINE) == ("o200k_base", "auto")
    assert tok.name == "o200k_base" and tok.engine == "toktok"  # auto, for a workload it was not told


@pytest.mark.parametrize("name", ["gpt2", "o200k", "", "O200K_BASE"])
def test_unknown_tokenizer_is_usage_error(name):
    with pytest.raises(UsageError, match="unknown tokenizer"):
        get_tokenizer(name)


@pytest.mark.parametrize("name", ["o200k_base", "approx"])
def test_unknown_engine_is_usage_error(name):
    with pytest.raises(UsageError, match="unknown engine"):
        get_tokenizer(name, "huggingface")


def test_count_cache_returns_same_number_and_counts_once():
    calls = []

    def counter(text):
        calls.append(text)
        return len(text.split())

    tok = Tokenizer("fake", "toktok", False, counter)
    text = "the same file read twice " * 100
    first = tok.count(text)
    assert tok.count(text) == first == tok.count("".join(list(text))) == 500
    assert len(calls) == 1
    assert tok.count("") == 0 and len(calls) == 1


def test_real_tokenizer_cache_is_stable():
    tok = get_tokenizer("o200k_base")
    text = VARIED["mixed-long"]
    assert tok.count(text) == tok.count(text) == tok.count("".join(list(text)))


def test_tiktoken_engine_offline_failure_names_cache_dir(monkeypatch):
    import tiktoken

    def offline(name):
        raise ConnectionError("no network")

    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    with pytest.raises(ToolauditError) as info:
        get_tokenizer("o200k_base", "tiktoken")
    assert "TIKTOKEN_CACHE_DIR" in info.value.message
    assert "TIKTOKEN_CACHE_DIR" in str(info.value)


def test_tiktoken_engine_counts_like_toktok(monkeypatch):
    # The tiktoken engine, fed the locally built Encoding instead of a download.
    import tiktoken

    monkeypatch.setattr(tiktoken, "get_encoding", load_encoding)
    tok = get_tokenizer("cl100k_base", "tiktoken")
    assert (tok.engine, tok.estimated) == ("tiktoken", False)
    for text in (VARIED["code"], VARIED["specials"], VARIED["emoji"]):
        assert tok.count(text) == get_tokenizer("cl100k_base").count(text)


def test_tiktoken_engine_uses_a_cached_vocabulary_and_never_fetches(monkeypatch, tmp_path):
    """With the vocabulary in TIKTOKEN_CACHE_DIR, the reference engine works; without it, no download."""
    import hashlib

    import tiktoken.load
    import tiktoken.registry

    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})  # nothing built earlier in this process
    monkeypatch.setattr(tiktoken.load, "read_file_cached", REAL_READ_FILE_CACHED)  # the cache, not the network
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    refuse = tiktoken.load.read_file  # the autouse fixture's: a fetch would fail the test
    with pytest.raises(ToolauditError, match="no cached vocabulary"):
        get_tokenizer("o200k_base", "tiktoken")
    assert tiktoken.load.read_file is refuse  # the fetch is put back
    (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(vocab_bytes("o200k_base"))
    tok = get_tokenizer("o200k_base", "tiktoken")
    assert tok.count(VARIED["code"]) == get_tokenizer("o200k_base").count(VARIED["code"])
