"""Modules of one idea: no module of the package grows past 600 lines (issue 32), none of replay's past 400 (issue 28).

A module that grows past its limit is split along the ideas it holds, not trimmed of its comments.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "toolaudit"
LIMIT = 600
REPLAY_LIMIT = 400


def _sizes():
    for path in sorted(PACKAGE.rglob("*.py")):
        with path.open(encoding="utf-8") as fh:
            yield path.relative_to(PACKAGE.parent), sum(1 for _ in fh)


def test_no_module_over_600_lines():
    over = [f"{path} ({n})" for path, n in _sizes() if n > LIMIT]
    assert not over, f"split these along their ideas: {', '.join(over)}"


def test_no_replay_module_over_400_lines():
    over = [f"{path} ({n})" for path, n in _sizes() if path.parts[1] == "replay" and n > REPLAY_LIMIT]
    assert not over, f"split these along their ideas: {', '.join(over)}"
