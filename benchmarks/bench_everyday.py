"""The everyday figures (issue 19) in one run: the scan cache, a grown session, the statusline, the engines.

    python benchmarks/bench_everyday.py                 # 100 MB corpus; grown 5 MB session; statusline; engines
    python benchmarks/bench_everyday.py --big           # and the 2 GB / ~10k-file corpus (generated once: minutes)
    python benchmarks/bench_everyday.py --repeat 5

Corpora come from synth_corpus.py (bench_scan.ensure_corpus: benchmarks/corpus/c<MB>, git-ignored). Every
timed command runs in its own wrapper process (bench_scan.measure); commands compared with each other run
interleaved in rounds and the best of --repeat is kept, and ratios are also given per round (a busy
moment slows both sides). Each cached command runs against a cache it warmed itself (TOOLAUDIT_CACHE_DIR
in a temp folder). Needs no network.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_scan  # noqa: E402
import synth_corpus  # noqa: E402

SCAN_ME = str(HERE / "bench_scan.py")


def _scan(home: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "toolaudit", "scan", str(home), "-f", "json", "-q", "-o", os.devnull, *extra]


def cache_figures(home: Path, mb: float, env: dict, repeat: int) -> None:
    """An unchanged re-scan from the cache against a full scan and against the floor."""
    subprocess.run(_scan(home), env=env, check=True)  # warm the cache
    commands = {
        "full scan (--no-cache)": _scan(home, "--no-cache"),
        "re-scan, unchanged (cache)": _scan(home),
        "floor: read + orjson + toktok": [sys.executable, SCAN_ME, "_floor", str(home)],
    }
    best, rounds = bench_scan.interleaved(commands, env, repeat)
    print(f"\n{mb:g} MB corpus ({sum(1 for p in home.rglob('*.jsonl'))} files), best of {repeat}, interleaved:")
    for label, m in best.items():
        print(f"  {label:<32} {m['seconds']:>7.2f} s  peak {m['peak_kb'] / 1024:>5.0f} MB")
    full, cached = "full scan (--no-cache)", "re-scan, unchanged (cache)"
    print(f"  re-scan / full scan: {bench_scan.round_ratios(rounds, cached, full)} per round "
          f"(goal <= 0.05 at 2 GB); re-scan / floor: {bench_scan.round_ratios(rounds, cached, 'floor: read + orjson + toktok')}")
    grew = one_grown(home, env, repeat)
    print(f"  re-scan, one file grew (its new lines read, the other files' folds merged): best {min(grew):.2f} s, "
          f"{min(grew) / best[full]['seconds']:.2f}x the best full scan")


def one_grown(home: Path, env: dict, repeat: int) -> list[float]:
    """Seconds of a re-scan after one file grew by a few of its own lines (then cut back to its bytes and the
    cache warmed again, so the corpus stays what its manifest says)."""
    target = sorted(home.rglob("*.jsonl"))[0]
    size = target.stat().st_size
    extra = b"".join(target.read_bytes().splitlines(keepends=True)[1:4])
    times = []
    for _ in range(repeat):
        with target.open("ab") as fh:
            fh.write(extra)
        times.append(bench_scan.measure(_scan(home), env)["seconds"])
        os.truncate(target, size)
        subprocess.run(_scan(home), env=env, check=True)
    return times


def _session(folder: Path, size: int, seed: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "grown.jsonl"
    synth_corpus.write_claude(path, seed, 0, size)
    return path


def _donor_lines(work: Path, seed: int, size: int) -> list[bytes]:
    """At least `size` bytes of lines of another session to grow one with, each under 50 KB: a growth of
    100 KB is then ~100 KB (the generator's rare 0.5-2 MB outputs would make one round's growth 20 times
    that, and they are most of its bytes: the donor is made larger until its small lines are enough)."""
    donor, made = work / "donor.jsonl", size
    while True:
        synth_corpus.write_claude(donor, seed + 1, 1, made)
        lines = [line for line in donor.read_bytes().splitlines(keepends=True) if len(line) < 50_000]
        if sum(map(len, lines)) >= size:
            return lines
        made *= 2


def _grow(path: Path, lines: list[bytes], at: int, size: int) -> int:
    """Append whole lines of about `size` bytes from `lines[at:]`; returns the next index."""
    taken = 0
    with path.open("ab") as fh:
        while taken < size and at < len(lines):
            fh.write(lines[at])
            taken += len(lines[at])
            at += 1
    return at


def _timed(cmd: list[str], env: dict, stdin: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, input=stdin, text=True, capture_output=True)
    return time.perf_counter() - start


def _wait_for_server(env: dict, patience_s: float = 20.0) -> None:
    """Until the statusline's resident server (started by a first call with `env`) answers a ping."""
    sys.path.insert(0, str(bench_scan.REPO))
    from toolaudit import resident

    before = os.environ.get("TOOLAUDIT_CACHE_DIR")
    os.environ["TOOLAUDIT_CACHE_DIR"] = env["TOOLAUDIT_CACHE_DIR"]
    try:
        path = resident.socket_path()
    finally:
        if before is None:
            os.environ.pop("TOOLAUDIT_CACHE_DIR")
        else:
            os.environ["TOOLAUDIT_CACHE_DIR"] = before
    end = time.monotonic() + patience_s
    while time.monotonic() < end and resident.ask(path, {"ping": True}) != "pong":
        time.sleep(0.1)


def grown_figures(work: Path, env: dict, rounds: int) -> None:
    """A 5 MB session that grew by 100 KB since the last scan (and since the last statusline): the statusline
    through its resident server (started by the first call, stopped at the end) and loading everything."""
    session = _session(work / "live" / "-home-dev-app", 5_000_000, 11)
    first = session.stat().st_size / 1e6
    lines = _donor_lines(work, 11, 100_000 * (3 * rounds + 4))  # three growths a round
    subprocess.run(_scan(session), env=env, check=True)
    at = 0
    grown, statusline, unchanged, starts, python, loaded = [], [], [], [], [], []
    stdin = json.dumps({"session_id": "bench", "transcript_path": str(session)})
    status = [sys.executable, "-m", "toolaudit", "statusline"]  # the first call starts the resident server
    subprocess.run(status, env=env, input=stdin, text=True, check=True, capture_output=True)
    _wait_for_server(env)  # it loads in the background: the timed calls start once it answers
    empty = work / "empty"
    empty.mkdir(exist_ok=True)
    for _ in range(rounds):  # interleaved: grow + scan, grow + statusline, statusline again, the yardsticks
        at = _grow(session, lines, at, 100_000)
        grown.append(_timed(_scan(session), env))
        at = _grow(session, lines, at, 100_000)
        statusline.append(_timed(status, env, stdin))
        unchanged.append(_timed(status, env, stdin))
        at = _grow(session, lines, at, 100_000)
        loaded.append(_timed([*status, "--no-resident"], env, stdin))
        starts.append(_timed([sys.executable, "-m", "toolaudit", "scan", str(empty), "-q", "-f", "json"], env))
        python.append(_timed([sys.executable, "-c", "pass"], env))
    size = session.stat().st_size / 1e6
    print(f"\na Claude Code session of {first:.1f} MB grown to {size:.1f} MB in {rounds} rounds "
          "(each scan and each statusline after 100 KB more; the statusline through its resident server):")
    p95 = sorted(statusline)[max(0, round(0.95 * len(statusline)) - 1)]
    subprocess.run([*status, "--stop"], env=env, check=True, capture_output=True)
    rows = (("scan of the grown session (goal <= 0.15 s)", grown),
            ("statusline after growth (goal p95 <= 0.15 s)", statusline), ("statusline, nothing new", unchanged),
            ("statusline after growth, --no-resident", loaded), ("yardstick: scan of an empty folder", starts),
            ("yardstick: python -c pass", python))
    for label, times in rows:
        print(f"  {label:<46} best {min(times):.3f} s  median {statistics.median(times):.3f} s  "
              f"p95 {sorted(times)[max(0, round(0.95 * len(times)) - 1)]:.3f} s")
    ratio = sorted(a / b for a, b in zip(statusline, starts))
    print(f"  statusline after growth / empty-folder scan, per round: median {statistics.median(ratio):.2f}x "
          f"({ratio[0]:.2f}-{ratio[-1]:.2f}); statusline p95 {p95:.3f} s")


def engine_figures(env: dict, repeat: int, sizes: list[float]) -> None:
    """rs-bpe against toktok on a fresh scan (no cache, one process) at several sizes: the `auto` crossover."""
    print("\nengines, scan --no-cache -j 1 (best of %d, interleaved):" % repeat)
    print(f"  {'MB':>6} {'rs-bpe s':>9} {'toktok s':>9}")
    points = []
    for mb in sizes:
        home = bench_scan.ensure_corpus(HERE / "corpus" / f"c{mb:g}", mb, 7, 2)
        folder = HERE / "corpus" / f"c{mb:g}" / "home"
        commands = {e: _scan(folder, "--no-cache", "-j", "1", "--engine", e) for e in ("rs-bpe", "toktok")}
        best, _ = bench_scan.interleaved(commands, env, repeat)
        real_mb = home["bytes"] / 1e6
        points.append((real_mb, best["rs-bpe"]["seconds"], best["toktok"]["seconds"]))
        print(f"  {real_mb:>6.1f} {best['rs-bpe']['seconds']:>9.2f} {best['toktok']['seconds']:>9.2f}")
    (m0, r0, t0), (m1, r1, t1) = points[0], points[-1]
    slope_r, slope_t = (r1 - r0) / (m1 - m0), (t1 - t0) / (m1 - m0)
    if slope_r > slope_t:
        cross = m0 + (t0 - r0) / (slope_r - slope_t)
        print(f"  per MB: rs-bpe {slope_r * 1000:.1f} ms, toktok {slope_t * 1000:.1f} ms; start: toktok pays "
              f"{t0 - r0:.2f} s more at {m0:.1f} MB; crossover ≈ {cross:.0f} MB (tokenizers.AUTO_CROSSOVER_BYTES)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=20, help="grown-session and statusline rounds")
    parser.add_argument("--big", action="store_true", help="also the 2 GB / ~10k-file corpus")
    parser.add_argument("--skip", default="", help="comma-separated: cache,grown,engines")
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    env = bench_scan._env()
    print(bench_scan._machine())
    with tempfile.TemporaryDirectory(prefix="toolaudit-everyday-") as tmp:
        work = Path(tmp)
        env["TOOLAUDIT_CACHE_DIR"] = str(work / "cache")
        if "cache" not in skip:
            for mb in (100, 2000) if args.big else (100,):
                # 2 GB as ~10k files of ~200 KB (a real ~/.claude/projects' shape), 100 MB as 13 files of 1-20 MB
                folder = HERE / "corpus" / (f"c{mb}-small" if mb == 2000 else f"c{mb}")
                bench_scan.ensure_corpus(folder, mb, 7, 2, small=mb == 2000)
                cache_figures(folder / "home", mb, env, args.repeat)
        if "grown" not in skip:
            grown_figures(work, env, args.rounds)
        if "engines" not in skip:
            engine_figures(env, args.repeat, [2, 8, 32])


if __name__ == "__main__":
    main()
