"""Issue 10's figures in one run: scan speed against the naive and floor scripts, simulate against scan, peak RSS by size.

    python benchmarks/bench_scan.py              # 100 MB for speed; RSS at 100 MB, 400 MB and 2 GB
    python benchmarks/bench_scan.py --small      # 20 MB, RSS at 20 and 40 MB: a quick look
    python benchmarks/bench_scan.py --rss-sizes 100,400 --repeat 5

Corpora (synth_corpus.py: Claude Code sessions and Codex rollouts laid out as under
~/.claude/projects and ~/.codex/sessions) are generated once into benchmarks/corpus/c<MB>
(git-ignored) and reused. Every measured command runs inside its own wrapper process, so
the wrapper's RUSAGE_CHILDREN peak and CPU time belong to that command alone. Timings are
interleaved (one round runs every command once; a busy moment hits all alike) and the best
of --repeat rounds is kept. Compared, on the same files:
- naive: what a careful script does: json.loads per line and tiktoken (o200k_base,
  vocabulary read offline from bpe-openai) on each tool result, one call at a time;
- floor: what is physically needed: read, orjson.loads every line, count each tool
  result with toktok (its vocabulary build included);
- toolaudit scan -j 1 and -j 2, and simulate (--preset codex, one flag, a 10-value
  --sweep) at -j 1, as ratios to scan -j 1.
Needs no network.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import synth_corpus  # noqa: E402

MANIFEST = "bench-manifest.json"  # beside the transcripts, not among them, so scans never see it
GENERATOR_VERSION = 2


# ---- corpus -------------------------------------------------------------------------------


def ensure_corpus(out: Path, size_mb: float, seed: int, jobs: int, small: bool = False) -> dict:
    """The corpus in `out`: reused when its manifest matches, else (re)generated (`small`: files of
    15-800 KB instead of 1-20 MB, synth_corpus.plan)."""
    wanted = {"generator": GENERATOR_VERSION, "size_mb": size_mb, "seed": seed, **({"small": True} if small else {})}
    manifest = out / MANIFEST
    if manifest.exists():
        old = json.loads(manifest.read_text())
        if all(old.get(k, False if k == "small" else None) == v for k, v in {**wanted, "small": small}.items()):
            return {**old, "reused": True}
        shutil.rmtree(out)
    elif out.exists() and any(out.iterdir()):
        # Why: --out might point at real transcripts; never delete what we did not write.
        sys.exit(f"error: {out} exists, is not empty and holds no {MANIFEST}; choose another --out")
    home = out / "home"
    home.mkdir(parents=True, exist_ok=True)
    plan = synth_corpus.plan(int(size_mb * 1_000_000), seed, small)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(synth_corpus.write_one, [home] * len(plan), [seed] * len(plan), plan))
    info = {**wanted, "files": len(results), "bytes": sum(r[1] for r in results), "calls": sum(r[2] for r in results),
            "generate_seconds": round(time.perf_counter() - start, 2)}
    manifest.write_text(json.dumps(info, indent=2))
    return {**info, "reused": False}


# ---- measuring a command ---------------------------------------------------------------------


def _tree_rss_kb(root: int) -> int:
    """Resident KB of `root` and all its descendants, from /proc (0 where /proc is absent)."""
    parent, rss = {}, {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parent[int(name)] = int(fields[1])
        rss[int(name)] = int(fields[21]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    total, todo, seen = 0, [root], set()
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total


def child_measure(cmd: list[str]) -> None:
    """Wrapper mode: run `cmd`, print its wall time, peak RSS and sampled process-tree RSS as JSON."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak_tree, done = 0, threading.Event()

    def sample() -> None:
        nonlocal peak_tree
        while not done.wait(0.1):
            peak_tree = max(peak_tree, _tree_rss_kb(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    kb = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss  # macOS reports bytes, Linux KB
    print(json.dumps({"rc": proc.returncode, "seconds": wall, "cpu": usage.ru_utime + usage.ru_stime,
                      "peak_kb": kb, "tree_kb": peak_tree,
                      "stdout": out.decode("utf-8", "replace")[-2000:], "stderr": err.decode("utf-8", "replace")[-2000:]}))


def measure(cmd: list[str], env: dict) -> dict:
    """Run `cmd` in a fresh wrapper process and return its measurements."""
    wrapper = [sys.executable, str(Path(__file__).resolve()), "_measure", "--", *cmd]
    done = subprocess.run(wrapper, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---- the naive baseline -------------------------------------------------------------------------


def _result_texts(obj: dict):
    """Tool-result texts of one parsed line: Claude `tool_result` content, Codex `function_call_output` output."""
    if obj.get("type") == "user":
        content = (obj.get("message") or {}).get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    yield block.get("content")
    elif obj.get("type") == "response_item":
        payload = obj.get("payload") or {}
        if payload.get("type") in ("function_call_output", "custom_tool_call_output"):
            yield payload.get("output")


def _as_text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(b.get("text", "") for b in value if isinstance(b, dict))
    return ""


def child_naive(root: Path) -> None:
    """Baseline mode: json.loads every line, tiktoken-encode every tool result; print totals as JSON."""
    sys.path.insert(0, str(REPO / "tests"))
    from openai_vocab import load_encoding

    start = time.perf_counter()
    enc = load_encoding("o200k_base")
    loaded = time.perf_counter() - start
    calls = tokens = 0
    for path in sorted(root.rglob("*.jsonl")):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                for value in _result_texts(json.loads(line)):
                    tokens += len(enc.encode_ordinary(_as_text(value)))
                    calls += 1
    print(json.dumps({"calls": calls, "tokens": tokens, "load_seconds": loaded}))


def child_floor(root: Path) -> None:
    """Floor mode: read, orjson.loads every line, count each tool result with toktok; print totals as JSON."""
    import orjson
    import toktok

    start = time.perf_counter()
    tok = toktok._encoding("o200k_base")
    loaded = time.perf_counter() - start
    calls = tokens = 0
    for path in sorted(root.rglob("*.jsonl")):
        with open(path, "rb") as fh:
            for line in fh:
                for value in _result_texts(orjson.loads(line)):
                    tokens += tok.count(_as_text(value))
                    calls += 1
    print(json.dumps({"calls": calls, "tokens": tokens, "load_seconds": loaded}))


# ---- the run ---------------------------------------------------------------------------------------


def _env() -> dict:
    env = dict(os.environ)
    # Why: `python -m toolaudit` must find this checkout even when it is not installed.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    # Why: an installed toolaudit has its bytecode compiled; with PYTHONDONTWRITEBYTECODE (set in some
    # sandboxes) a module edited since its last .pyc would be compiled again at every timed start
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def scan_available(env: dict) -> str | None:
    """None when `python -m toolaudit scan` works here, else why not."""
    done = subprocess.run([sys.executable, "-m", "toolaudit", "scan", "--help"], capture_output=True, text=True, env=env)
    return None if done.returncode == 0 else (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]


def _scan_totals(path: Path) -> tuple[int, int] | None:
    """(calls, tokens) from a scan's JSON report, when it has them."""
    try:
        totals = json.loads(path.read_text())["totals"]
        return int(totals["calls"]), int(totals["tokens"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _machine() -> str:
    """CPU model, cores, memory and load: what the figures were measured on."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), model)
    except OSError:
        pass
    try:
        load = " · load average %.1f" % os.getloadavg()[0]
    except OSError:
        load = ""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30 if hasattr(os, "sysconf") else 0
    return f"{model} · {os.cpu_count()} cores · {memory:.0f} GiB · Python {sys.version.split()[0]}{load}"


def _toolaudit(args: list[str], home: Path, report: Path | None = None) -> list[str]:
    return [sys.executable, "-m", "toolaudit", *args, str(home), "-f", "json", "-q", "-o", str(report or os.devnull)]


def speed_commands(home: Path, report: Path, empty: Path) -> dict[str, list[str]]:
    """Label -> command of every timed command (the first is the one ratios are taken to)."""
    me = str(Path(__file__).resolve())
    return {
        "toolaudit scan -j 1": _toolaudit(["scan", "-j", "1"], home, report),
        "toolaudit scan -j 2": _toolaudit(["scan", "-j", "2"], home),
        "naive json + tiktoken": [sys.executable, me, "_naive", str(home)],
        "floor: read + orjson + toktok": [sys.executable, me, "_floor", str(home)],
        "simulate --preset codex -j 1": _toolaudit(["simulate", "--preset", "codex", "-j", "1"], home),
        "simulate --max-chars 5000 -j 1": _toolaudit(["simulate", "--max-chars", "5000", "-j", "1"], home),
        "simulate --sweep (10 values) -j 1": _toolaudit(["simulate", "--sweep", "max_chars=1000:10000:1000", "-j", "1"],
                                                        home),
        "toolaudit scan, an empty folder": _toolaudit(["scan", "-j", "1"], empty),
    }


def interleaved(commands: dict[str, list[str]], env: dict, repeat: int) -> tuple[dict[str, dict], list[dict]]:
    """Each command's best (fastest) measurement over `repeat` rounds that run every command once, and
    every round's seconds per command."""
    best: dict[str, dict] = {}
    rounds: list[dict[str, float]] = []
    for _ in range(repeat):
        rounds.append({})
        for label, cmd in commands.items():
            m = measure(cmd, env)
            if m["rc"] != 0:
                sys.exit(f"error: {label} failed (exit {m['rc']}): {m['stderr'].strip()[-500:]}")
            rounds[-1][label] = m["seconds"]
            if label not in best or m["seconds"] < best[label]["seconds"]:
                best[label] = m
    return best, rounds


def round_ratios(rounds: list[dict[str, float]], top: str, bottom: str) -> str:
    """`top`'s time over `bottom`'s in each round (run seconds apart, so a busy moment slows both), as
    `median (min–max)`."""
    ratios = sorted(r[top] / r[bottom] for r in rounds)
    return f"{statistics.median(ratios):.2f}x ({ratios[0]:.2f}–{ratios[-1]:.2f})"


def speed(home: Path, mb: float, env: dict, repeat: int, work: Path) -> None:
    """MB/s and ratios of scan (-j 1, -j 2), the naive and floor scripts, and simulate, measured interleaved."""
    report = work / "scan-report.json"
    empty = work / "empty"
    empty.mkdir(exist_ok=True)
    best, rounds = interleaved(speed_commands(home, report, empty), env, repeat)
    print(f"{'command (best of %d, interleaved)' % repeat:<38} {'seconds':>8} {'CPU s':>7} {'MB/s':>7} {'peak RSS MB':>12}")
    for label, m in best.items():
        print(f"{label:<38} {m['seconds']:>8.2f} {m['cpu']:>7.2f} {mb / m['seconds']:>7.1f} {m['peak_kb'] / 1024:>12.0f}")
    scan = {j: best[f"toolaudit scan -j {j}"]["seconds"] for j in (1, 2)}
    naive, floor = best["naive json + tiktoken"]["seconds"], best["floor: read + orjson + toktok"]["seconds"]
    print()
    for j in (1, 2):
        print(f"scan -j {j}: {mb / scan[j]:.1f} MB/s · {naive / scan[j]:.2f}x the naive script (goal >= 4) · "
              f"{scan[j] / floor:.2f}x the floor (goal <= 1.3)")
    print(f"floor: {naive / floor:.2f}x the naive script")
    start = best["toolaudit scan, an empty folder"]["seconds"]
    vocab = json.loads(best["floor: read + orjson + toktok"]["stdout"])["load_seconds"]
    print(f"fixed costs: scan of an empty folder {start:.2f} s (start-up and the o200k vocabulary); the floor's "
          f"vocabulary {vocab:.2f} s; so per MB scan -j 1 spends {(scan[1] - start) / mb * 1000:.1f} ms, "
          f"the floor {(floor - vocab) / mb * 1000:.1f} ms")
    cpu = {label: m["cpu"] for label, m in best.items()}
    print(f"in CPU seconds (steadier on a busy machine): scan -j 1 is {cpu['naive json + tiktoken'] / cpu['toolaudit scan -j 1']:.2f}x "
          f"the naive script and {cpu['toolaudit scan -j 1'] / cpu['floor: read + orjson + toktok']:.2f}x the floor")
    for label, goal in (("simulate --preset codex -j 1", 1.5), ("simulate --max-chars 5000 -j 1", 1.5),
                        ("simulate --sweep (10 values) -j 1", 3)):
        print(f"{label}: {best[label]['seconds'] / scan[1]:.2f}x scan -j 1 (goal <= {goal:g})")
    if len(rounds) > 1:
        naive_l, floor_l = "naive json + tiktoken", "floor: read + orjson + toktok"
        print(f"per round, the median (and range) of {len(rounds)} ratios, each of commands run seconds apart:")
        for j in (1, 2):
            scan_l = f"toolaudit scan -j {j}"
            print(f"  scan -j {j}: {round_ratios(rounds, naive_l, scan_l)} as fast as the naive script; "
                  f"{round_ratios(rounds, scan_l, floor_l)} the floor's time")
        for label in ("simulate --preset codex -j 1", "simulate --max-chars 5000 -j 1", "simulate --sweep (10 values) -j 1"):
            print(f"  {label}: {round_ratios(rounds, label, 'toolaudit scan -j 1')} scan -j 1")
    counted = [json.loads(best[label]["stdout"]) for label in ("naive json + tiktoken", "floor: read + orjson + toktok")]
    mine = _scan_totals(report)
    same = mine == (counted[0]["calls"], counted[0]["tokens"]) == (counted[1]["calls"], counted[1]["tokens"])
    print(f"calls and o200k tokens: scan {mine}, naive and floor {counted[0]['calls']}, {counted[0]['tokens']:,}: "
          f"{'the same' if same else 'DIFFERENT'}")


def memory(sizes: list[float], args: argparse.Namespace, env: dict) -> None:
    """Peak RSS of scan -j 1 (one process holds everything) and -j 2 (largest process, all processes) per size."""
    print(f"\n{'input':>10} {'files':>6} {'calls':>7} {'-j 1 peak MB':>13} {'-j 2 peak MB':>13} {'-j 2 tree MB':>13} "
          f"{'-j 1 s':>7} {'-j 1 MB/s':>9}")
    for size in sizes:
        out = Path(args.out).resolve() / f"c{size:g}"
        free = shutil.disk_usage(out.parent if out.parent.exists() else REPO).free
        if not (out / MANIFEST).exists() and free < size * 1_000_000 * 1.5:
            print(f"{size:>8g} MB  skipped: {free / 1e9:.1f} GB free on the disk, too little to write it")
            continue
        info = ensure_corpus(out, size, args.seed, 2)
        home = out / "home"
        one = measure(_toolaudit(["scan", "-j", "1"], home), env)
        two = measure(_toolaudit(["scan", "-j", "2"], home), env)
        mb = info["bytes"] / 1e6
        print(f"{mb:>7.0f} MB {info['files']:>6} {info['calls']:>7} {one['peak_kb'] / 1024:>13.0f} "
              f"{two['peak_kb'] / 1024:>13.0f} {two['tree_kb'] / 1024:>13.0f} {one['seconds']:>7.1f} "
              f"{mb / one['seconds']:>9.1f}")
    print("peak: the largest single process (getrusage); tree: all processes together, sampled every 0.1 s.")


def run(args: argparse.Namespace) -> None:
    env = _env()
    problem = scan_available(env)
    if problem:
        sys.exit(f"error: `python -m toolaudit scan --help` failed: {problem}")
    print(f"machine: {_machine()}")
    out = Path(args.out).resolve() / f"c{args.size_mb:g}"
    info = ensure_corpus(out, args.size_mb, args.seed, 2)
    mb = info["bytes"] / 1_000_000
    how = "reused" if info["reused"] else f"generated in {info['generate_seconds']} s"
    print(f"corpus: {out} — {info['files']} files, {mb:.1f} MB, {info['calls']} tool calls ({how})\n")
    speed(out / "home", mb, env, args.repeat, out)
    if args.rss_sizes:
        memory([float(s) for s in args.rss_sizes.split(",")], args, env)


def main(argv: list[str] | None = None) -> None:
    """Entry point; `_measure`, `_naive` and `_floor` are the internal child modes."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_measure"]:
        return child_measure(argv[2:] if argv[1:2] == ["--"] else argv[1:])
    if argv[:1] in (["_naive"], ["_floor"]):
        return (child_naive if argv[0] == "_naive" else child_floor)(Path(argv[1]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=100, help="corpus for the speed figures (default 100)")
    parser.add_argument("--rss-sizes", default="100,400,2000", help="corpus sizes in MB for peak RSS ('' for none)")
    parser.add_argument("--small", action="store_true", help="quick: 20 MB for speed, RSS at 20 and 40 MB, 1 round")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds; the best of each is kept (default 3)")
    parser.add_argument("--out", default=str(HERE / "corpus"), help="where corpora live (default benchmarks/corpus, gitignored)")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    args = parser.parse_args(argv)
    if args.small:
        args.size_mb, args.rss_sizes, args.repeat = 20, "20,40", 1
    run(args)


if __name__ == "__main__":
    main()
