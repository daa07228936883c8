"""How many workers a scan starts when -j is not given: one below the size where forking pays."""

from __future__ import annotations

from toolaudit import pipeline


def test_one_worker_for_small_input_or_one_file(tmp_path):
    files = []
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text("{}\n")
        files.append(tmp_path / name)
    assert pipeline.auto_jobs(files) == 1
    assert pipeline.auto_jobs(files[:1]) == 1


def test_all_cores_once_forking_pays(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "default_jobs", lambda: 7)
    files = []
    for name in ("a.jsonl", "b.jsonl"):
        with open(tmp_path / name, "wb") as fh:  # sparse: the size counts, not the bytes written
            fh.truncate(pipeline.FORK_PAYS_BYTES // 2 + 1)
        files.append(tmp_path / name)
    assert pipeline.auto_jobs(files) == 7
    assert pipeline.auto_jobs(files[:1]) == 1
