"""A suite that never flakes: one Hypothesis profile without deadlines, derandomized in CI, and no timing."""

from __future__ import annotations

import pytest

import os
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

TESTS = Path(__file__).parent
FIXTURES = TESTS / "fixtures"  # source files a test reads (a repository to search), not tests


def test_the_profile_is_loaded_without_deadline_or_timing_checks():
    current = settings()
    assert current.deadline is None
    assert HealthCheck.too_slow in current.suppress_health_check  # a busy machine is not a failing test
    assert current.derandomize == bool(os.environ.get("CI"))


@pytest.mark.slow  # seconds of work: make test-all runs it
def test_in_ci_the_profile_is_derandomized():
    env = {**os.environ, "CI": "true"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"{__file__}::test_the_profile_is_loaded_without_deadline_or_timing_checks"],
        cwd=TESTS.parent, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_test_sets_a_deadline_or_times_itself():
    deadline = re.compile(r"deadline\s*=\s*(?!None)")
    clock = re.compile(r"\btime\.(time|perf_counter|monotonic|process_time)\s*\(")
    offenders = []
    for path in TESTS.rglob("*.py"):
        if path.name == Path(__file__).name or FIXTURES in path.parents:
            continue
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path.relative_to(TESTS)}: {m.group(0)}" for rx in (deadline, clock) for m in rx.finditer(text)]
    assert not offenders
