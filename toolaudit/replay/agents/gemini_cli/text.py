"""Globs, ICU order, file types and text as Gemini CLI read them, and its ripgrep search."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ...builtin.common import CallFailed
from ...builtin.ripgrep import run_rg
from ..base import Call
from .common import BINARY_EXT, MAX_LINE, MAX_LINES, MIME

if TYPE_CHECKING:  # a type only: folder.py imports this module
    from .folder import Folder

# ------------------------------------------------------------------ globs, order, text

def glob_body(pattern: str) -> str:
    """A glob as a regex body: `**/` any folders, `*` and `?` within one name, `[...]` a class."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] in "*?":
            out.append("[^/]*" if pattern[i] == "*" else "[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) > 0:
            inner = pattern[i + 1:end]
            out.append("[" + ("^" + inner[1:] if inner[:1] in "!^" else inner).replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i + 1] if pattern[i] == "\\" and i + 1 < len(pattern) else pattern[i]))
            i += 2 if pattern[i] == "\\" else 1
    return "".join(out)


def _braces(pattern: str) -> list[str]:
    """minimatch's brace expansion: `*.{ts,tsx}` is two patterns."""
    m = re.search(r"\{([^{}]*,[^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [q for alt in m.group(1).split(",") for q in _braces(pattern[:m.start()] + alt + pattern[m.end():])]


def matcher(patterns: list[str], nocase: bool) -> re.Pattern:
    bodies = [glob_body(p.removeprefix("./")) for pat in patterns for p in _braces(pat)]
    return re.compile("(?:" + "|".join(bodies or ["(?!)"]) + ")", re.IGNORECASE if nocase else 0)


def walk_files(base: Path, skip: re.Pattern) -> list[str]:
    """Files under `base` (posix, relative to it), symlinked folders not entered, excluded folders pruned."""
    found = []
    for folder, dirs, files in os.walk(base):
        here = Path(folder).relative_to(base).as_posix()
        rel = "" if here == "." else here + "/"
        dirs[:] = [d for d in dirs if not skip.fullmatch(rel + d + "/x")]
        found += [rel + f for f in files if not skip.fullmatch(rel + f)]
    return found


_PUNCT = "\t\n\x0b\x0c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"  # CLDR root order of ASCII symbols


def icu_key(text: str) -> tuple:
    """A sort key approximating ICU's root collation (JS localeCompare): symbols, digits, letters; then
    accents, then case (lower first)."""
    primary, accents, upper = [], [], []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch) and accents:
            accents[-1] += (ord(ch),)
            continue
        if (i := _PUNCT.find(ch)) >= 0:
            primary.append((0, i))
        elif ch.isdigit():
            primary.append((2, unicodedata.digit(ch, 0)))
        elif ch.isalpha():
            primary.append((3, ord(ch.lower())))
        else:
            primary.append((1, ord(ch)))
        accents.append(())
        upper.append(ch.isupper())
    return primary, accents, upper


def _decode(data: bytes) -> str:
    """readFileWithEncoding: a BOM names UTF-8/16/32 and is dropped; else UTF-8 with U+FFFD."""
    for bom, codec in ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
                       (b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom):].decode(codec, "replace")
    return data.decode("utf-8", "replace")


def _js_cut(line: str, limit: int) -> str | None:
    """`line.substring(0, limit)` counted in UTF-16 units, or None when it is not longer."""
    units = line.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * limit:
        return None
    return units[:2 * limit].decode("utf-16-le", "surrogatepass")


def file_type(path: Path) -> str:
    """detectFileType: text, svg, image, pdf, audio, video or binary (by extension, then by content)."""
    ext = path.suffix.lower()
    if ext in (".ts", ".mts", ".cts"):
        return "text"
    if ext == ".svg":
        return "svg"
    mime = MIME.guess_type(path.name)[0] or ""
    if mime.startswith("image/"):
        return "image"
    if mime.startswith(("audio/", "video/")):
        return mime.split("/")[0] if _binary(path) else "text"
    if mime == "application/pdf":
        return "pdf"
    return "binary" if ext in BINARY_EXT or _binary(path) else "text"


def _binary(path: Path) -> bool:
    """isBinaryFile: a NUL byte, or more than 30% control bytes, in the first 4 KB (a BOM is text)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    if not head or head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return False
    if b"\0" in head:
        return True
    return sum(1 for b in head if b < 9 or 13 < b < 32) / len(head) > 0.3


def inline(path: Path) -> dict:
    """An image or PDF as the inlineData part Gemini sends."""
    import base64
    mime = MIME.guess_type(path.name)[0] or "application/octet-stream"
    return {"inlineData": {"mimeType": mime, "data": base64.b64encode(path.read_bytes()).decode()}}


def read_one(folder: Folder, real: Path, shown: str, start: int | None = None, end: int | None = None) -> dict:
    """processSingleFileContent: {content} or {error}, with the truncation facts for the notice."""
    if not real.exists():
        return {"error": f"File not found: {shown}"}
    if real.is_dir():
        return {"error": f"Path is a directory, not a file: {shown}"}
    size = real.stat().st_size / (1024 * 1024)
    if size > 20:
        return {"error": f"File size exceeds the 20MB limit: {shown} ({size:.2f}MB)"}
    kind, rel = file_type(real), real.relative_to(folder.root).as_posix()
    if kind == "binary":
        return {"content": f"Cannot display content of binary file: {rel}"}
    if kind == "svg":
        big = real.stat().st_size > 1024 * 1024
        return {"content": f"Cannot display content of SVG file larger than 1MB: {rel}" if big
                else _decode(real.read_bytes())}
    if kind in ("image", "pdf"):
        return {"content": inline(real)}
    if kind != "text":
        raise CallFailed(f"not replayable yet: {kind} files")
    return _text_lines(_decode(real.read_bytes()), folder.v, start, end)


def _text_lines(text: str, v: tuple, start: int | None, end: int | None) -> dict:
    """The text case: the slice (0-based start, exclusive end), long lines cut, the truncation facts."""
    lines = re.split(r"\r?\n", text) if v >= (0, 34) else text.split("\n")
    total = len(lines)
    first = min(start or 0, total)
    last = min(end if end is not None else first + MAX_LINES, total)
    cut = False
    shown = []
    for line in lines[first:last]:
        head = _js_cut(line, MAX_LINE)
        cut = cut or head is not None
        shown.append(line if head is None else head + "... [truncated]")
    return {"content": "\n".join(shown), "truncated": first > 0 or last < total or cut,
            "shown": (first + 1, last), "total": total}


def rg_json(lines: bytes) -> list[dict]:
    """ripgrep --json's match and context records, as {path, line, text, context}."""
    out = []
    for raw in lines.splitlines():
        try:
            rec = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        data = rec.get("data") or {}
        path, text = (data.get("path") or {}).get("text"), (data.get("lines") or {}).get("text")
        if rec.get("type") in ("match", "context") and path and text:
            out.append({"path": path, "line": data.get("line_number"), "text": text,
                        "context": rec["type"] == "context"})
    return out


def run_search(call: Call, folder: Folder, flags: list[str], operands: list[str]) -> list[dict]:
    """ripgrep in the replay folder; a bad pattern (exit 2, nothing found) cannot be replayed."""
    result = run_rg(call.sandbox, folder.root, flags, operands)
    found = rg_json(result.stdout)
    if result.exit_code == 2 and not found:
        raise CallFailed("not replayable: ripgrep refused the search (" +
                         result.stderr.decode("utf-8", "replace").strip()[:200] + ")")
    return found
