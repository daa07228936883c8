"""Every preset and every context policy gives the same JSON in worker processes as in one (-j 2 == -j 1).

Issue 32: `simulate --preset codex` crashed once files went to worker processes (a closure in the preset
could not be pickled); the tests used inputs too small to be split, so none reached the pool. Here the
corpus is generated (benchmarks/synth_corpus.py, Claude Code and Codex files) and `jobs=2` is given, which
sends each file to a worker whatever its size.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import toolaudit
from toolaudit.simulate.context import PRESETS as CONTEXT_PRESETS
from toolaudit.simulate.presets import PRESETS, Versioned

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import synth_corpus  # noqa: E402

PRESET_NAMES = [*PRESETS, *(f"{key}@{p.versions}" for key, v in PRESETS.items() if isinstance(v, Versioned)
                            for _, p in v.ranges)]
CONTEXTS = [*CONTEXT_PRESETS, "mask:keep=10", "clear:trigger=30000,keep=3", "compact:at=40000,summary=3000"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """~2 MB of Claude Code and Codex sessions in 13 files (enough to be split across workers)."""
    root = tmp_path_factory.mktemp("corpus")
    plan = synth_corpus.plan(2_000_000, seed=3, small=True)
    for job in plan:
        synth_corpus.write_one(root, 3, job)
    kinds = {job[0] for job in plan}
    assert kinds == {"claude", "codex"} and len(plan) >= 4
    return root


def _json(corpus: Path, jobs: int, **options) -> dict:
    result = json.loads(toolaudit.simulate([corpus], jobs=jobs, **options).to_json())
    result.pop("meta", None)  # when and how it ran: not part of the answer
    return result


def _same_in_workers(corpus: Path, **options) -> None:
    one = _json(corpus, 1, **options)
    calls = one["totals"]["calls"] if "totals" in one else one["variants"][0]["totals"]["calls"]  # a sweep: each value
    assert one["files"] >= 4 and calls > 0  # every file read, calls simulated
    assert _json(corpus, 2, **options) == one


def test_codex_preset_and_agent_compaction_in_workers(corpus):
    """The crash of issue 32, and one context policy, on the worker path (kept in the fast suite)."""
    _same_in_workers(corpus, preset="codex", context="claude-code")


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_in_workers(corpus, name):
    _same_in_workers(corpus, preset=name)


@pytest.mark.slow
@pytest.mark.parametrize("context", CONTEXTS)
def test_every_context_policy_in_workers(corpus, context):
    _same_in_workers(corpus, context=context)


@pytest.mark.slow
def test_a_sweep_in_workers(corpus):
    _same_in_workers(corpus, sweep="max_chars=1000:5000:2000")
