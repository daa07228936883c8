"""Replay fixtures: the seed repository for the builtin search tools, copied where a test may change it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SEARCH_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "search_repo"


@pytest.fixture
def search_repo(tmp_path: Path) -> Path:
    """A fresh copy of tests/fixtures/search_repo (outside any git checkout, so no .gitignore applies)."""
    repo = tmp_path / "repo"
    shutil.copytree(SEARCH_REPO, repo, symlinks=True)
    return repo
