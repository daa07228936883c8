"""Every report is byte-identical across runs, hash seeds and -j values (only `created` differs)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, SAMPLES

# Each command in every format it offers; run in a fresh interpreter per hash seed, because set and
# dict orders that leak into a report change with PYTHONHASHSEED, not within one process.
RUNS = r"""
import json, sys
from click.testing import CliRunner
from toolaudit.cli import cli

samples, baseline, jobs, times = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
commands = {
    "scan": ["scan", samples, "--top", "5"],
    "scan-by-session": ["scan", samples, "--by", "session"],
    "simulate": ["simulate", samples, "--max-chars", "2000", "--explain", "3"],
    "ci": ["ci", samples, "--baseline", baseline, "--fail-on", "*:tokens.p95:+0", "--min-calls", "0"],
}
formats = {"ci": ["table", "markdown", "json", "csv", "junit", "html"]}
out = {}
for name, args in commands.items():
    for fmt in formats.get(name, ["table", "markdown", "json", "csv", "html"]):
        for time in range(times):
            result = CliRunner().invoke(cli, args + ["-f", fmt, "-q", "-j", jobs], catch_exceptions=False)
            out[f"{name} -f {fmt} #{time}"] = [result.exit_code, result.stdout]
json.dump(out, sys.stdout)
"""
CREATED = re.compile(r'("created": "|<time class="created">)[^"<]*("|</time>)')


def _outputs(seed: str, jobs: str, times: int, baseline) -> dict[str, list]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-c", RUNS, str(SAMPLES), str(baseline), jobs, str(times)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return {key: [code, CREATED.sub(r"\1…\2", text)] for key, (code, text) in json.loads(done.stdout).items()}


@pytest.mark.slow  # seconds of work: make test-all runs it
@pytest.mark.skipif(not hasattr(os, "fork"), reason="-j2 here relies on fork-started workers")
def test_reports_are_identical_across_runs_seeds_and_jobs(run, tmp_path):
    baseline = tmp_path / "baseline.json"
    assert run("scan", SAMPLES, "-f", "json", "-o", baseline, "-q", "-j", "1").exit_code == 0
    first = _outputs("1", "1", 2, baseline)
    second = _outputs("2", "2", 1, baseline)
    assert len(first) == 2 * len(second) == 42
    for key, (code, text) in second.items():
        again = key.replace("#0", "#1")
        assert code in (0, 3) and text, key
        assert first[key] == first[again], f"{key}: two runs in one process differ"
        assert first[key] == [code, text], f"{key}: -j1 with hash seed 1 and -j2 with seed 2 differ"
