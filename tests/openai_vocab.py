"""OpenAI's o200k_base / cl100k_base as real `tiktoken.Encoding`s, built offline.

Used by the exactness test and the benchmarks' naive baseline. The vocabulary bytes
come from the `bpe-openai` distribution's package data, read as data (the package is
never imported). tiktoken's own constructor in `tiktoken_ext.openai_public` builds the
Encoding: only its byte fetch is swapped for the local file, and that swap refuses
any bytes whose sha256 differs from the hash tiktoken pins for the download.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import importlib.metadata
from pathlib import Path
from typing import Iterator

DISTRIBUTION = "bpe-openai"


class VocabularyError(RuntimeError):
    """The local vocabulary is missing, or is not the file tiktoken expects."""


def vocab_path(name: str) -> Path:
    """Where bpe-openai's `<name>.tiktoken.gz` lies on disk."""
    dist = importlib.metadata.distribution(DISTRIBUTION)
    wanted = f"bpe_openai/data/{name}.tiktoken.gz"
    for file in dist.files or ():
        if str(file).replace("\\", "/").endswith(wanted):
            return Path(dist.locate_file(file))
    raise VocabularyError(f"{DISTRIBUTION} does not ship {wanted}")


def vocab_bytes(name: str) -> bytes:
    """The decompressed `<name>.tiktoken` file (lines of `base64token rank`)."""
    return gzip.decompress(vocab_path(name).read_bytes())


@contextlib.contextmanager
def _local_fetch(name: str, data: bytes) -> Iterator[list[str]]:
    """Make tiktoken.load serve `data` for `<name>.tiktoken`; yields the hashes tiktoken asked for."""
    import tiktoken.load as load

    asked: list[str] = []
    actual = hashlib.sha256(data).hexdigest()

    def read_file_cached(blobpath: str, expected_hash: str | None = None) -> bytes:
        if not blobpath.endswith(f"/{name}.tiktoken"):
            raise VocabularyError(f"unexpected vocabulary fetch: {blobpath}")
        if not expected_hash:
            raise VocabularyError(f"tiktoken pinned no hash for {blobpath}")
        if actual != expected_hash:
            raise VocabularyError(f"{name}: local sha256 {actual} != tiktoken's {expected_hash}")
        asked.append(expected_hash)
        return data

    def read_file(blobpath: str) -> bytes:
        # Why: if tiktoken ever bypasses read_file_cached, fail instead of downloading.
        raise VocabularyError(f"network fetch attempted: {blobpath}")

    saved = load.read_file_cached, load.read_file
    load.read_file_cached, load.read_file = read_file_cached, read_file
    try:
        yield asked
    finally:
        load.read_file_cached, load.read_file = saved


@functools.cache
def _build(name: str):
    import tiktoken
    from tiktoken_ext import openai_public

    data = vocab_bytes(name)
    with _local_fetch(name, data) as asked:
        params = openai_public.ENCODING_CONSTRUCTORS[name]()
    if len(asked) != 1:
        raise VocabularyError(f"{name}: tiktoken's constructor did not load its vocabulary via tiktoken.load")
    return tiktoken.Encoding(**params), asked[0]


def load_encoding(name: str):
    """A real tiktoken.Encoding for `name`, from the local file, its sha256 checked against tiktoken's pin."""
    return _build(name)[0]


def pinned_hash(name: str) -> str:
    """The sha256 tiktoken's own constructor pins for `name`'s vocabulary download."""
    return _build(name)[1]
