"""Hypothesis strategies shared by the policy tests: text that is hard to cut right."""

from __future__ import annotations

from hypothesis import strategies as st

# emoji (4-byte, ZWJ sequences, flags), CJK (3-byte), combining marks, 2-byte Latin, line ends
PIECES = st.sampled_from([
    "a", "Z", " ", "x" * 7, "\n", "\n", "\r\n", "\t", "é", "e\u0301", "ß", "中", "文字", "—",
    "😀", "👩‍💻", "🇫🇷", "\u200d", ":", "-", "0", "42", "{", "}",
])

texts = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=120).map("".join)
nonempty_texts = texts.filter(bool)

# search outputs: match lines, context lines, separators and the odd header
PATHS = ("src/a.py", "lib/my-file-2-x.rs", "docs/中文.md", "b")
_paths = st.sampled_from(PATHS)
_content = st.lists(PIECES.filter(lambda p: "\n" not in p), max_size=40).map("".join)
_match = st.builds(lambda p, n, c: f"{p}:{n}:{c}", _paths, st.integers(1, 999), _content)
_context = st.builds(lambda p, n, c: f"{p}-{n}-{c}", _paths, st.integers(1, 999), _content)
_line = st.one_of(_match, _match, _match, _context, st.just("--"), st.just("Found 3 files"))
search_outputs = st.lists(_line, max_size=40).map(lambda lines: "\n".join(lines) + ("\n" if lines else ""))


def encodes(text: str) -> bool:
    """True when `text` is valid Unicode for UTF-8 (no character was split)."""
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False
