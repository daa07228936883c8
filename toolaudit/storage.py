"""Object storage (s3://, gs://, az://, ...) named by URL, read and written through fsspec.

Below every layer, as model and errors are: collectors read transcripts through it, reports
write `--records` through it. A `RemotePath` answers the few `pathlib.Path` questions collectors and discovery ask (name,
parent, open, is_file, iterdir), so a remote transcript reads like a local one. It holds
its URL only, so it pickles small and each process (a Dask worker) reaches the store with
its own credentials, found the usual way for each backend (environment, profiles).
`file://` URLs are plain local paths (local_or_remote).
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO, Iterator

from .errors import UsageError

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
# what each scheme needs installed, for the message when it is missing
EXTRAS = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "az": "az", "abfs": "az", "abfss": "az"}


def is_url(text: Any) -> bool:
    """True for `scheme://...` text (a RemotePath or a string)."""
    return isinstance(text, RemotePath) or (isinstance(text, str) and _SCHEME.match(text) is not None)


def local_or_remote(text: str) -> Path | "RemotePath":
    """A `file://` URL or a plain path as a Path (`~` and `$VARS` expanded, as a shell would); any other
    `scheme://` URL as a RemotePath."""
    match = _SCHEME.match(text)
    if match is None:
        return user_path(text)
    if match.group(1).lower() == "file":
        return user_path(text[len("file://"):] or "/")
    return RemotePath(text)


def user_path(text: str | Path) -> Path:
    """`text` with `~`, `~user` and `$VAR`/`${VAR}` expanded: a notebook cell has no shell to do it."""
    return Path(os.path.expanduser(os.path.expandvars(str(text))))


def input_path(given: Any) -> Any:
    """A path the API or the command line was given: text as local_or_remote reads it, a Path expanded, a
    RemotePath as it is."""
    if isinstance(given, str):
        return local_or_remote(given)
    if isinstance(given, Path):
        return user_path(given) if "~" in str(given) or "$" in str(given) else given
    return given


def filesystem(url: str):
    """(fsspec filesystem, path inside it) for `url`; a UsageError naming the extra when its backend is missing."""
    scheme = _SCHEME.match(url).group(1).lower()
    extra = EXTRAS.get(scheme)
    hint = f"pip install 'agent-toolaudit[{extra}]'" if extra else "install fsspec and its backend for it"
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise UsageError(f"reading {scheme}:// needs fsspec: {hint}", slug="fsspec-extra") from None
    try:
        return url_to_fs(url)
    except ImportError:
        raise UsageError(f"reading {scheme}:// needs its fsspec backend: {hint}", slug="fsspec-extra") from None
    except ValueError as exc:  # fsspec: "Protocol not known"
        raise UsageError(f"{url}: {exc}", slug="bad-url") from None


@dataclass(frozen=True)
class RemotePath:
    """A file or folder in object storage, by URL (no trailing slash)."""

    url: str
    size: int | None = field(default=None, compare=False)  # known when a listing found it

    def __post_init__(self):
        object.__setattr__(self, "url", self.url.rstrip("/") if not self.url.endswith("://") else self.url)

    def __str__(self) -> str:
        return self.url

    @property
    def _split(self) -> tuple[str, str]:
        scheme, _, rest = self.url.partition("://")
        return scheme, rest

    @property
    def parts(self) -> tuple[str, ...]:
        """`s3://`, then the bucket and each key segment."""
        scheme, rest = self._split
        return (f"{scheme}://", *(p for p in rest.split("/") if p))

    @property
    def name(self) -> str:
        """The last segment."""
        return PurePosixPath(self._split[1]).name

    @property
    def suffix(self) -> str:
        """The last segment's last suffix."""
        return PurePosixPath(self._split[1]).suffix

    @property
    def parent(self) -> RemotePath:
        """The folder (prefix) holding it; the bucket is its own parent."""
        scheme, rest = self._split
        head = rest.rsplit("/", 1)[0] if "/" in rest else rest
        return RemotePath(f"{scheme}://{head}")

    def __truediv__(self, name: str) -> RemotePath:
        return RemotePath(f"{self.url}/{name}")

    def _fs(self):
        return filesystem(self.url)

    def open(self, mode: str = "rb") -> BinaryIO:
        """The object opened for reading bytes through fsspec: seekable, read ahead in blocks, and
        buffered as a local file is (readline(limit) and fast line iteration, which fsspec lacks)."""
        if mode != "rb":
            raise ValueError(f"RemotePath.open reads only ('rb'), not {mode!r}")
        fs, path = self._fs()
        return io.BufferedReader(fs.open(path, "rb"), buffer_size=1 << 20)  # type: ignore[return-value]

    def exists(self) -> bool:
        """True for an object or a non-empty prefix."""
        fs, path = self._fs()
        return fs.exists(path)

    def is_dir(self) -> bool:
        """True for a bucket or a prefix with objects under it."""
        fs, path = self._fs()
        return fs.isdir(path)

    def is_file(self) -> bool:
        """True for an object."""
        fs, path = self._fs()
        return fs.isfile(path)

    def iterdir(self) -> Iterator[RemotePath]:
        """The objects and prefixes right under this prefix."""
        fs, path = self._fs()
        for entry in fs.ls(path, detail=True):
            yield self._child(entry)

    def walk_files(self) -> list[RemotePath]:
        """Every object under this prefix, with its size, from one recursive listing."""
        fs, path = self._fs()
        return [self._child(entry) for entry in fs.find(path, detail=True).values() if entry.get("type") != "directory"]

    def _child(self, entry: dict) -> RemotePath:
        # keep the scheme as the user wrote it (az:// and abfs:// name the same store)
        size = entry.get("size")
        return RemotePath(f"{self._split[0]}://{entry['name'].rstrip('/')}", size if isinstance(size, int) else None)

    def stat_size(self) -> int:
        """Its size in bytes (from the listing when it came from one)."""
        if self.size is not None:
            return self.size
        fs, path = self._fs()
        return int(fs.size(path) or 0)
