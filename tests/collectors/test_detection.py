"""Detection on every corpus file: the right collector, and no other collector's sniff claims it."""

from __future__ import annotations

from conftest import CORPUS
from helpers import corpus_file, corpus_files, each_path
from toolaudit.collectors import collectors
from toolaudit.collectors.base import load_document, loads
from toolaudit.collectors.discover import detect

# corpus folder -> the collector that reads it: each folder is named after its format
EXPECTED = {folder: folder for folder in (
    "claude-code", "codex", "openai-chat", "gemini-cli", "swe-agent", "mini-swe-agent",
    "openhands", "openai-responses", "hermes", "atif",
)}
# the Agent Sessions app's made-up "drift" lines: not a Codex format (see test_codex.py)
NOT_A_FORMAT = {"stage0-codex-schema_drift.jsonl"}
FILES = [p for p in corpus_files("") if p.name != "SOURCES.md"]


def _claims(path):
    """Every collector whose own sniff says yes to the file (order does not matter here)."""
    with open(path, "rb") as fh:
        try:
            first = loads(fh.readline())
        except ValueError:
            first = None
    try:
        doc = load_document(path)
    except ValueError:
        doc = None
    return {key for key, cls in collectors.all().items()
            if (cls.jsonl and isinstance(first, dict) and cls.sniff_line(first))
            or (cls.document and doc is not None and cls.sniff_doc(doc))}


@each_path(FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_detection(path):
    path = corpus_file(path)
    folder = path.relative_to(CORPUS).parts[0]
    expected = None if path.name in NOT_A_FORMAT else EXPECTED.get(folder)
    cls, _ = detect(path)
    assert (cls.key if cls else None) == expected
    assert _claims(path) <= ({expected} if expected else set())
