"""Every file toolaudit writes goes through here: a temporary file beside it, fsync, then one rename.

A full disk, a kill or an error mid-write leaves the old file as it was, and two runs
writing the same path leave one whole file (the last rename wins), never a mix.
"""

from __future__ import annotations

import os
import secrets
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import ToolauditError


def _failed(path: Path, exc: OSError) -> ToolauditError:
    return ToolauditError(f"cannot write {path}: {exc.strerror or exc}", slug="write-failed")


def _special(path: Path) -> bool:
    """An existing target that is not a regular file (/dev/stdout, a FIFO): it cannot be renamed over."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """Yield a fresh temporary path beside `path`; when the block ends well it is fsynced and renamed
    onto `path` (whose mode it keeps); on any error it is removed and `path` is untouched.

    An OSError becomes a one-line ToolauditError (`write-failed`).
    """
    path = Path(path)
    target = Path(os.path.realpath(path))  # a symlink keeps pointing at the file it names
    if target.is_dir() or not target.name:
        raise ToolauditError(f"cannot write {path}: it is a folder; name a file", slug="write-failed")
    if _special(target):  # nothing to rename over: write in place, as `> /dev/stdout` would
        try:
            yield target
        except OSError as exc:
            raise _failed(path, exc) from None
        return
    temp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    try:
        os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # the umask's mode, like open()
        yield temp
        _fsync(temp)
        if target.is_file():
            os.chmod(temp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temp, target)
    except OSError as exc:
        _unlink(temp)
        raise _failed(path, exc) from None
    except BaseException:
        _unlink(temp)
        raise


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def atomic_write(path: Path | str, data: str | bytes) -> None:
    """Write `data` (text as UTF-8, newlines as given) to `path` whole or not at all."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path) as temp:
        with open(temp, "wb") as fh:
            fh.write(raw)


def refuse_writing_onto(writes: list[tuple[str, Path]], inputs: list[Path], protected: list[tuple[str, Path]] = (),
                        transcript_suffixes: tuple[str, ...] = ()) -> None:
    """A UsageError when a path a command writes (`writes`: (its flag, the path)) is one of its `inputs`, a
    transcript an input folder holds (a name with one of `transcript_suffixes`: it would be read back as
    one), or one of the `protected` files (ci's baseline). Compared by path and by (st_dev, st_ino): a hard link
    to a transcript has a name of its own and the transcript's bytes. Every writer of every command goes
    through here, before anything is read or written."""
    from .errors import UsageError

    held: dict[tuple[int, int], Path] | None = None  # the input folders' transcripts by identity, walked once
    for flag, out in writes:
        real = Path(os.path.realpath(out))
        ident = _identity(out)
        for what, path in protected:
            if real == Path(os.path.realpath(path)) or (ident is not None and ident == _identity(path)):
                raise UsageError(f"{flag} {out} is the {what}: write it elsewhere", slug="output-is-input")
        for source in inputs:
            folder = Path(os.path.realpath(source))
            if folder.is_dir():
                if real.is_relative_to(folder) and real.name.endswith(transcript_suffixes):
                    raise UsageError(f"{flag} {out} is inside the input folder {source} and would be read as a "
                                     "transcript: write it elsewhere", slug="output-is-input")
            elif real == folder or (ident is not None and ident == _identity(source)):
                raise UsageError(f"{flag} {out} is one of the inputs: write it elsewhere", slug="output-is-input")
        if ident is not None and os.stat(out).st_nlink > 1:  # another name for some file: which one?
            if held is None:
                held = _identities(inputs, transcript_suffixes)
            if ident in held:
                raise UsageError(f"{flag} {out} is a hard link to the input {held[ident]}: write it elsewhere",
                                 slug="output-is-input")


def input_named(st: os.stat_result, inputs: list[Path], suffixes: tuple[str, ...] = ()) -> Path | None:
    """The input (a file given, or a transcript an input folder holds) that is the file `st` describes (an
    fstat of a file opened for writing: what is written is what is checked, whatever the path named between
    the command's start and now), or None."""
    ident = (st.st_dev, st.st_ino)
    for source in inputs:
        if not Path(source).is_dir() and _identity(Path(source)) == ident:
            return Path(source)
    return _identities(inputs, suffixes).get(ident)


def _identity(path: Path) -> tuple[int, int] | None:
    """(st_dev, st_ino) of the file `path` names (links followed), or None when there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _identities(inputs: list[Path], suffixes: tuple[str, ...]) -> dict[tuple[int, int], Path]:
    """The identity of every transcript the input folders hold (links to folders not walked, as a scan walks)."""
    found = {}
    for source in inputs:
        if not Path(source).is_dir():
            continue
        for top, _, names in os.walk(source, onerror=lambda exc: None):
            for name in names:
                if name.endswith(suffixes):
                    ident = _identity(Path(top, name))
                    if ident is not None:
                        found.setdefault(ident, Path(top, name))
    return found


CACHE_ENV = "TOOLAUDIT_CACHE_DIR"


def cache_dir() -> Path:
    """Where toolaudit keeps its own files (the scan cache, the statusline server's socket): $TOOLAUDIT_CACHE_DIR,
    else the user cache folder (platformdirs)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given)
    from platformdirs import user_cache_path

    return user_cache_path("toolaudit", appauthor=False)


def untrusted(path: Path | str, st: os.stat_result) -> str | None:
    """Why a file or folder of ours cannot be trusted (another user owns it, or group or others can write it), or
    None. Where there are no owners (Windows), None."""
    if not hasattr(os, "getuid"):
        return None
    if st.st_uid != os.getuid():
        return f"{path} is owned by uid {st.st_uid}, not by you"
    if st.st_mode & 0o022:
        who = " and ".join(w for bit, w in ((0o020, "group"), (0o002, "others")) if st.st_mode & bit)
        return f"{path} can be written by {who}"
    return None


def private_folder(folder: Path) -> str | None:
    """Make `folder` toolaudit's private folder: created 0700 when missing, narrowed to 0700 when it is ours;
    None when it can be used, else the one-line reason it is refused (another user's, writable by group or
    others, not a folder, or it cannot be made). Nothing in a folder only its owner can write can be swapped
    by anyone else, so what is checked here stays true while it is used."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(folder)
    except OSError as exc:
        return f"cannot use {folder}: {exc.strerror or exc}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{folder} is not a folder"
    why = untrusted(folder, st)
    if why is None and hasattr(os, "getuid") and st.st_mode & 0o077:
        try:  # ours, made by an older toolaudit with the umask's mode: what it holds is nobody else's to read
            os.chmod(folder, stat.S_IMODE(st.st_mode) & 0o700)  # a read-only folder stays read-only
        except OSError as exc:
            return f"cannot make {folder} private: {exc.strerror or exc}"
    return why


def private_file(path: Path) -> str | None:
    """None when `path` is missing or a regular file of ours no one else can write (narrowed to its owner's bits:
    0600), else the
    one-line reason it is refused (not a file, another user's, writable by group or others)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot use {path}: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        return f"{path} is not a file"
    why = untrusted(path, st)
    if why is None and hasattr(os, "getuid") and st.st_mode & 0o077:
        try:
            os.chmod(path, stat.S_IMODE(st.st_mode) & 0o700)
        except OSError as exc:
            return f"cannot make {path} private: {exc.strerror or exc}"
    return why


def find_pyproject(start: Path | None = None) -> Path | None:
    """The nearest pyproject.toml at or above `start` (default: the working directory). Here, not in config:
    the statusline's console script looks for it before click is imported (toolaudit.entry)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None
