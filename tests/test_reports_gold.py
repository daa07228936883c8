"""Reports byte for byte against gold files; TOOLAUDIT_REGEN_GOLD=1 rewrites them on purpose."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import SAMPLES

GOLD = Path(__file__).parent / "gold"
SHOP = SAMPLES / "claude-code" / "-home-dev-shop"
KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban"


def check_gold(name: str, text: str) -> None:
    """Compare with tests/gold/NAME; on a difference, write tests/gold/actual/NAME to look at."""
    gold = GOLD / name
    if os.environ.get("TOOLAUDIT_REGEN_GOLD"):
        gold.write_text(text)
    if not gold.exists() or text != gold.read_text():
        actual = GOLD / "actual" / name
        actual.parent.mkdir(exist_ok=True)
        actual.write_text(text)
        pytest.fail(f"{gold} differs: see {actual}, or regenerate with TOOLAUDIT_REGEN_GOLD=1")


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
