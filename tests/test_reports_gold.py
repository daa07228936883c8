"""Reports byte for byte against gold files; TOOLAUDIT_REGEN_GOLD=1 rewrites them on purpose."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from importlib.metadata import distributions
from pathlib import Path

import pytest

from conftest import SAMPLES

GOLD = Path(__file__).parent / "gold"
SHOP = SAMPLES / "claude-code" / "-home-dev-shop"
KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban"


def check_gold(name: str, text: str) -> None:
    """Compare with tests/gold/NAME (dependency versions scrubbed); on a difference, write tests/gold/actual/NAME."""
    text = scrub_versions(text)
    gold = GOLD / name
    if os.environ.get("TOOLAUDIT_REGEN_GOLD"):
        gold.write_text(text)
    if not gold.exists() or text != gold.read_text():
        actual = GOLD / "actual" / name
        actual.parent.mkdir(exist_ok=True)
        actual.write_text(text)
        pytest.fail(f"{gold} differs: see {actual}, or regenerate with TOOLAUDIT_REGEN_GOLD=1")


@lru_cache(maxsize=1)
def _versioned_names() -> re.Pattern:
    """A distribution's name followed by a version: `genai-prices 0.2.5`, `toolaudit 0.1.0`."""
    names = {d.metadata["Name"] for d in distributions() if d.metadata["Name"]} | {"toolaudit"}
    alternatives = "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))
    return re.compile(rf"(?<![\w.-])({alternatives})( v?| version |==)\d+(?:\.\d+)+[\w.+-]*", re.IGNORECASE)


def scrub_versions(text: str) -> str:
    """Every installed distribution's version replaced by VERSION: a gold file must not change with a dependency."""
    return _versioned_names().sub(r"\1\2VERSION", text)


def _scrub(text: str) -> str:
    """Volatile parts: the samples' absolute location (as printed, and as Markdown escapes it)."""
    return text.replace(str(SAMPLES), "SAMPLES").replace(str(SAMPLES).replace("_", "\\_"), "SAMPLES")


@pytest.mark.parametrize("name, args", [
    ("scan_shop.md", ("scan", SHOP, "--top", "3", "--cost")),
    ("scan_by_session.md", ("scan", SHOP, "--by", "session")),
    ("simulate_kanban.md", ("simulate", KANBAN, "--max-chars", "5000", "--explain", "2")),
    ("simulate_sweep.md", ("simulate", KANBAN, "--sweep", "preview_chars=0,100,500")),
])
def test_markdown_reports(run, name, args):
    result = run(*args, "-f", "markdown", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    check_gold(name, _scrub(result.stdout))


def test_table_report_plain_when_piped(run):
    result = run("scan", SHOP, "-j", "1", "-q", env={"NO_COLOR": "1"})
    assert result.exit_code == 0 and not re.search(r"\x1b\[", result.stdout)
    check_gold("scan_shop.txt", _scrub(result.stdout))


def test_version_strings_are_scrubbed():
    assert scrub_versions("cost (genai-prices 0.2.5): billed") == "cost (genai-prices VERSION): billed"
    assert scrub_versions("toolaudit 0.1.0 · tiktoken==0.9.0") == "toolaudit VERSION · tiktoken==VERSION"
    # numbers that are not a distribution's version stay
    assert scrub_versions("tokens 1.5 · ratio 2.25") == "tokens 1.5 · ratio 2.25"


@pytest.mark.parametrize("gold", sorted(p.name for p in GOLD.glob("*.*")))
def test_no_gold_file_names_a_dependency_version(gold):
    text = (GOLD / gold).read_text()
    assert scrub_versions(text) == text, f"{gold} holds a version string: a newer dependency would fail it"
