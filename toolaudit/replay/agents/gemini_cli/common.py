"""What Gemini CLI's tools share: versions, limits, the answer as the model got it."""

from __future__ import annotations

import mimetypes

from ....collectors._gemini_content import result_parts
from ....collectors.base import flatten
from ...base import REFUSED, Outcome
from ...sandbox import OutsideWorkspace

AGENT = "gemini-cli"
NEWEST = (0, 56)
MAX_LINES = MAX_LINE = 2000
JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000\ufeff"  # what JS trim() removes
# utils/ignorePatterns.ts: binary files, glob's and grep's excludes, read_many_files' defaults
BINARY_FILES = (".bin", ".exe", ".dll", ".so", ".dylib", ".class", ".jar", ".war", ".zip", ".tar", ".gz", ".bz2",
                ".rar", ".7z", ".pak", ".rpa", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods",
                ".odp", ".pyc", ".pyo")
BINARY_EXT = {*BINARY_FILES, ".pdf", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".svg", ".dat", ".obj", ".o",
              ".a", ".lib", ".wasm"}
COMMON_IGNORE = ["**/node_modules/**", "**/.git/**", "**/bower_components/**", "**/.svn/**", "**/.hg/**"]
DIR_EXCLUDES = ["**/.vscode/**", "**/.idea/**", "**/dist/**", "**/build/**", "**/coverage/**", "**/__pycache__/**"]
MANY_EXCLUDES = [*COMMON_IGNORE, *DIR_EXCLUDES, *(f"**/*{e}" for e in BINARY_FILES), "**/.DS_Store", "**/.env",
                 "**/GEMINI.md"]
MIME = mimetypes.MimeTypes()  # the built-in table only: the machine's /etc/mime.types must not matter
COMMON: dict[str, str] = {"version": "the Gemini CLI version whose format to print (default: the recording's, else 0.56)",
          "git": "true/false: honour .gitignore as in a git repository (default: whether the folder has .git)"}


# ------------------------------------------------------------------ what the model got

def _measure(parts: list) -> Outcome:
    """The recorded result parts, measured as the gemini-cli collector measures them."""
    seen, error = result_parts(parts)
    content = flatten(seen)
    return Outcome(content.text, is_error=error, images=content.images, image_bytes=content.image_bytes)


def error_outcome(message: str) -> Outcome:
    """A tool error: the model got `{"error": message}`."""
    return _measure([{"functionResponse": {"response": {"error": message}}}])


def shown_answer(content: str | dict | list, v: tuple) -> Outcome:
    """convertToFunctionResponse of `content` (a string, an inlineData part, or a list of them)."""
    items = content if isinstance(content, list) else [content]
    if v < (0, 22):  # before d236df5b21 a list answered "Tool execution succeeded." with sibling parts
        if len(items) == 1 and isinstance(items[0], str):
            return _measure([{"functionResponse": {"response": {"output": items[0]}}}])
        if len(items) == 1:
            mime = items[0]["inlineData"]["mimeType"]
            output = f"Binary content of type {mime} was processed."
            return _measure([{"functionResponse": {"response": {"output": output}}}, items[0]])
        parts = [{"text": i} if isinstance(i, str) else i for i in items]
        return _measure([{"functionResponse": {"response": {"output": "Tool execution succeeded."}}}, *parts])
    texts = [i for i in items if isinstance(i, str)]
    blobs = [i for i in items if not isinstance(i, str)]
    output = "\n".join(texts) if texts else f"Binary content provided ({len(blobs)} item(s))."
    return _measure([{"functionResponse": {"response": {"output": output}}}, *blobs])


def refused_outcome(exc: OutsideWorkspace) -> Outcome:
    return Outcome("", status=REFUSED, reason=str(exc))
