"""How many workers a scan starts when -j is not given: one below the size where forking pays."""

from __future__ import annotations

from toolaudit import pipeline


def _two_files(folder, size: int) -> list:
    """Two transcripts of `size` bytes each (sparse: the size counts, not the bytes written)."""
    files = [folder / name for name in ("a.jsonl", "b.jsonl")]
    for path in files:
        with open(path, "wb") as fh:
            fh.truncate(size)
    return files


def test_one_worker_for_small_input_or_one_file(tmp_path):
    files = _two_files(tmp_path, 3)
    assert pipeline.auto_jobs(files) == 1
    assert pipeline.auto_jobs(files[:1]) == 1


def test_all_cores_once_forking_pays(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "default_jobs", lambda: 7)
    files = _two_files(tmp_path, pipeline.FORK_PAYS_BYTES // 2 + 1)
    assert pipeline.auto_jobs(files) == 7
    assert pipeline.auto_jobs(files[:1]) == 1


def test_sizes_are_read_only_until_forking_pays(tmp_path, monkeypatch):
    from toolaudit import distributed

    monkeypatch.setattr(pipeline, "default_jobs", lambda: 7)
    asked = []
    monkeypatch.setattr(distributed, "size_of", lambda path: asked.append(path) or pipeline.FORK_PAYS_BYTES // 2)
    files = [tmp_path / f"{i}.jsonl" for i in range(10)]
    assert pipeline.auto_jobs(files) == 7
    assert asked == files[:2]  # the first two already reach the threshold

