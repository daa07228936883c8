"""Single-core MB/s of `toolaudit scan`, and the same scan on a local Dask cluster (`--scheduler`).

    python benchmarks/bench_distributed.py                  # benchmarks/corpus/c400 if present, else 200 MB
    python benchmarks/bench_distributed.py --size-mb 50     # a fresh synthetic corpus of this size

The single-core figure is what docs/distributed.md's 1 TB estimate starts from. The cluster is a
LocalCluster on 127.0.0.1 (worker processes, 1 thread each); each command runs in its own process,
best of --repeat. Needs the dask extra; no network.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import synth_corpus  # noqa: E402


def corpus(size_mb: int | None, scratch: Path) -> Path:
    """The synthetic corpus to scan: the kept c400 one, or a fresh one of `size_mb`."""
    kept = HERE / "corpus" / "c400"
    if size_mb is None and kept.is_dir():
        return kept
    root = scratch / "corpus"
    for job in synth_corpus.plan(int((size_mb or 200) * 1_000_000), seed=7):
        synth_corpus.write_one(root, 7, job)
    return root


def timed(args: list[str], repeat: int) -> float:
    """Best wall time of `toolaudit ARGS` in its own process."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "toolaudit", *args], check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    opts = parser.parse_args()
    from distributed import LocalCluster

    from toolaudit.distributed import batches, size_of, task_bytes

    with tempfile.TemporaryDirectory() as scratch:
        root = corpus(opts.size_mb, Path(scratch))
        files = sorted(p for p in root.rglob("*") if p.is_file())
        size = sum(p.stat().st_size for p in files)
        mb = size / 1e6
        print(f"corpus: {root} — {len(files)} files, {mb:.0f} MB; cores: {len(os.sched_getaffinity(0))}")
        one = timed(["scan", str(root), "-j", "1", "-q", "-f", "json", "-o", os.devnull], opts.repeat)
        print(f"scan -j 1:              {one:6.2f} s  {mb / one:6.1f} MB/s (one core, start-up included)")
        local = timed(["scan", str(root), "-j", str(opts.workers), "-q", "-f", "json", "-o", os.devnull], opts.repeat)
        print(f"scan -j {opts.workers}:              {local:6.2f} s  {mb / local:6.1f} MB/s")
        with LocalCluster(n_workers=opts.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster:
            tasks = len(batches(files, [size_of(p) for p in files], task_bytes(size, opts.workers)))
            first = timed(["scan", str(root), "--scheduler", cluster.scheduler_address, "-q", "-f", "json", "-o",
                           os.devnull], 1)  # workers build their tokenizer once
            warm = timed(["scan", str(root), "--scheduler", cluster.scheduler_address, "-q", "-f", "json", "-o",
                          os.devnull], opts.repeat)
        print(f"--scheduler ({opts.workers}×1 thread, {tasks} tasks): first {first:6.2f} s, warm {warm:6.2f} s  "
              f"{mb / warm:6.1f} MB/s")


if __name__ == "__main__":
    main()
