"""The benchmarks that must finish do finish: a benchmark that crashes fails here, loudly (issue 32)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_bench_simulate_finishes_and_every_policy_agrees_in_workers(tmp_path):
    # tiny inputs: what is checked is that every command runs, and -j 2 prints -j 1's JSON, not the figures
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_simulate.py"), "--huge-mb", "0.2",
                           "--corpus-mb", "2", "--repeat", "1", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "FAILED" not in done.stdout
    assert done.stdout.count("same JSON") >= 25  # every preset, each version range, every context policy
