"""Shared fixtures: the real corpus beside the repo, the samples, a CLI runner."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
CORPUS = ROOT.parent / "shared" / "corpus"

# One Hypothesis profile for the whole suite: no deadline and no too-slow health check (a busy
# machine is not a bug), and in CI the same examples on every run, with no example database.
_IN_CI = bool(os.environ.get("CI"))
settings.register_profile("toolaudit", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          derandomize=_IN_CI, **({"database": None} if _IN_CI else {}))
settings.load_profile("toolaudit")


@pytest.fixture
def corpus() -> Path:
    """../shared/corpus, or a skip that says why."""
    if not CORPUS.is_dir():
        pytest.skip(f"real corpus not found at {CORPUS} (../shared/corpus beside the repo)")
    return CORPUS


@pytest.fixture
def run():
    """Invoke the CLI; returns the click Result (assert exit_code first)."""
    from toolaudit.cli import cli

    def invoke(*args: str, env: dict | None = None):
        return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False, env=env)

    return invoke


@pytest.fixture
def scan_json(run):
    """Run `scan ... -f json -j 1` and return the parsed document."""

    def scan(*args: str) -> dict:
        result = run("scan", *args, "-f", "json", "-j", "1", "-q")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return scan
