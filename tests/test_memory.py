"""Memory flat in corpus size: a scan's Collected keeps compact columns and sums, not each call's row."""

from __future__ import annotations

import gc
import shutil
import types
from array import array
from pathlib import Path

import pytest
from conftest import CORPUS, SAMPLES

from toolaudit.scan.summary import Collected, Grouping, Plan, summarize
from toolaudit.collectors.discover import iter_files
from toolaudit.model import Measurement, ScanMeta, Usage
from toolaudit.pipeline import FileOptions, run


def _reachable(root, kinds: tuple[type, ...]) -> list:
    """Every object of `kinds` reachable from `root` through data (functions, modules and classes are not followed)."""
    found, seen, todo = [], set(), [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (types.FunctionType, types.ModuleType, type, types.MethodType)):
            continue
        seen.add(id(obj))
        if isinstance(obj, kinds):
            found.append(obj)
        todo.extend(gc.get_referents(obj))
    return found


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """The sample logs, with the real Claude Code corpus (subagents, resumed copies, usage) when it is there."""
    root = tmp_path_factory.mktemp("in")
    shutil.copytree(SAMPLES, root / "samples")
    if (CORPUS / "claude-code").is_dir():
        shutil.copytree(CORPUS / "claude-code", root / "claude-code")
    return root


def _collect(folder: Path, **kwargs) -> Collected:
    return run(list(iter_files([folder])), FileOptions(previews=True), Collected(**kwargs))


def test_a_planned_collect_keeps_no_row_nor_usage_record_only_arrays_of_tokens(folder):
    collected = _collect(folder, plan=Plan())
    kept = _reachable(collected, (Measurement, Usage))
    # only calls whose result never came are held (a later file may hold their result)
    assert [m for m in kept if not isinstance(m, Measurement) or m not in collected.unpaired()] == []
    cells = collected.folded.cells.values()
    assert cells and all(type(c.tokens) is array and c.tokens.typecode == "q" for c in cells)
    full = _collect(folder)
    outputs = [r for r in full.all_rows() if r.status != "unpaired"]
    assert sum(len(c.tokens) for c in cells) == len(outputs) > 100
    assert sorted(t for c in cells for t in c.tokens) == sorted(r.tokens for r in outputs)
    # dedupe keys are 16-byte digests, one per kept call with an id
    assert {len(k) for k in collected.dedupe._seen} == {16}
    assert len(collected.dedupe._seen) == sum(1 for r in outputs if r.dedupe_key is not None)


def test_top_keeps_a_bounded_set_of_rows(folder):
    collected = _collect(folder, plan=Plan(top=3))
    assert 3 <= len(collected.folded.largest) <= 6
    assert len(_reachable(collected.folded, (Measurement,))) <= 6


@pytest.mark.parametrize("plan", [Plan(), Plan(Grouping("session"), top=5), Plan(Grouping("day"), cost=True),
                                  Plan(Grouping("model"), top=1, cost=True, model="gpt-4o")])
def test_folded_as_they_come_equals_summarized_from_every_row(folder, plan):
    meta = ScanMeta("0", "o200k_base", "toktok", False, "x", (str(folder),), plan.grouping.by)
    folded = summarize(_collect(folder, plan=plan), meta, plan.grouping, plan.top, cost=plan.cost, model=plan.model)
    whole = summarize(_collect(folder), meta, plan.grouping, plan.top, cost=plan.cost, model=plan.model)
    assert folded.totals.calls > 100
    assert folded == whole


def test_a_summary_other_than_the_plan_is_refused(folder):
    collected = _collect(folder, plan=Plan(top=2))
    meta = ScanMeta("0", "o200k_base", "toktok", False, "x", (str(folder),))
    with pytest.raises(ValueError):
        summarize(collected, meta, top=3)
    with pytest.raises(ValueError):
        collected.all_rows()


def test_freed_heap_is_handed_back_only_past_the_threshold(monkeypatch):
    from toolaudit import pipeline

    trims = []

    class FakeLibc:
        free = 0

        def mallinfo2(self):
            return types.SimpleNamespace(fordblks=self.free)

        def malloc_trim(self, pad):
            trims.append(pad)

    libc = FakeLibc()
    monkeypatch.setattr(pipeline, "_LIBC", libc)
    libc.free = pipeline.TRIM_ABOVE_BYTES
    pipeline.release_freed()
    assert trims == []  # at the threshold: kept for the next file to reuse
    libc.free = pipeline.TRIM_ABOVE_BYTES + 1
    pipeline.release_freed()
    assert trims == [0]


def test_release_freed_runs_on_this_libc(monkeypatch):
    from toolaudit import pipeline

    monkeypatch.setattr(pipeline, "_LIBC", None)  # looked up again, as a fresh process does
    pipeline.release_freed()
    assert pipeline._LIBC is False or pipeline._LIBC.mallinfo2().arena > 0
