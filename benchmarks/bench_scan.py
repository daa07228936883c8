"""Throughput and peak memory of `toolaudit scan` on a large synthetic corpus, next to a naive baseline.

    python benchmarks/bench_scan.py             # 200 MB corpus
    python benchmarks/bench_scan.py --small     # 20 MB, quick
    python benchmarks/bench_scan.py --keep      # keep (and reuse) the corpus in --out

The corpus (synth_corpus.py) holds Claude Code sessions and Codex rollouts laid out as
under ~/.claude/projects and ~/.codex/sessions. Every measured command runs inside its
own wrapper process, so the wrapper's RUSAGE_CHILDREN peak belongs to that command
alone. The baseline is what a careful script would do: json.loads per line and
tiktoken (o200k_base, vocabulary read offline from bpe-openai) on each tool result,
one call at a time. Needs no network.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
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


def ensure_corpus(out: Path, size_mb: float, seed: int, jobs: int) -> dict:
    """The corpus in `out`: reused when its manifest matches, else (re)generated."""
    wanted = {"generator": GENERATOR_VERSION, "size_mb": size_mb, "seed": seed}
    manifest = out / MANIFEST
    if manifest.exists():
        old = json.loads(manifest.read_text())
        if all(old.get(k) == v for k, v in wanted.items()):
            return {**old, "reused": True}
        shutil.rmtree(out)
    elif out.exists() and any(out.iterdir()):
        # Why: --out might point at real transcripts; never delete what we did not write.
        sys.exit(f"error: {out} exists, is not empty and holds no {MANIFEST}; choose another --out")
    home = out / "home"
    home.mkdir(parents=True, exist_ok=True)
    plan = synth_corpus.plan(int(size_mb * 1_000_000), seed)
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
    maxrss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    kb = maxrss // 1024 if sys.platform == "darwin" else maxrss  # macOS reports bytes, Linux KB
    print(json.dumps({"rc": proc.returncode, "seconds": wall, "peak_kb": kb, "tree_kb": peak_tree,
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


# ---- the run ---------------------------------------------------------------------------------------


def _env() -> dict:
    env = dict(os.environ)
    # Why: `python -m toolaudit` must find this checkout even when it is not installed.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
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


def run(args: argparse.Namespace) -> None:
    env = _env()
    out = Path(args.out).resolve()
    home = out / "home"
    jobs = args.jobs or os.cpu_count() or 1
    info = ensure_corpus(out, args.size_mb, args.seed, jobs)
    mb = info["bytes"] / 1_000_000
    how = "reused" if info["reused"] else f"generated in {info['generate_seconds']} s"
    print(f"corpus: {out} — {info['files']} files, {mb:.1f} MB, {info['calls']} tool calls ({how})\n")
    rows = []
    problem = scan_available(env)
    if problem:
        print(f"skipping toolaudit: `python -m toolaudit scan --help` failed: {problem}\n")
    else:
        # The JSON report is a few KB, so writing it costs what -o /dev/null does, and
        # its totals let us check toolaudit against the baseline.
        report = out / "scan-report.json"
        base = [sys.executable, "-m", "toolaudit", "scan", str(home), "-f", "json", "-o", str(report)]
        for label, extra in ((f"toolaudit scan -j {args.jobs}" if args.jobs else "toolaudit scan (-j default)",
                              ["-j", str(args.jobs)] if args.jobs else []), ("toolaudit scan -j 1", ["-j", "1"])):
            rows.append((label, {**measure(base + extra, env), "totals": _scan_totals(report)}))
    naive = measure([sys.executable, str(Path(__file__).resolve()), "_naive", str(home)], env)
    rows.append(("naive json + tiktoken", naive))
    print(f"{'tool':<30} {'MB':>8} {'seconds':>9} {'MB/s':>8} {'peak RSS MB':>12} {'tree RSS MB':>12}")
    for label, m in rows:
        if m["rc"] != 0:
            print(f"{label:<30} failed (exit {m['rc']}): {m['stderr'].strip().splitlines()[-1:] or ''}")
            continue
        print(f"{label:<30} {mb:>8.1f} {m['seconds']:>9.2f} {mb / m['seconds']:>8.1f} "
              f"{m['peak_kb'] / 1024:>12.0f} {m['tree_kb'] / 1024:>12.0f}")
    if naive["rc"] == 0:
        totals = json.loads(naive["stdout"])
        print(f"\nnaive baseline: {totals['calls']} tool results, {totals['tokens']:,} o200k_base tokens "
              f"(building the tiktoken Encoding took {totals['load_seconds']:.2f} s of its time)")
        for label, m in rows[:-1]:
            if m.get("totals"):
                calls, tokens = m["totals"]
                same = (calls, tokens) == (totals["calls"], totals["tokens"])
                print(f"{label}: {calls} calls, {tokens:,} tokens — {'same as' if same else 'DIFFERENT FROM'} the baseline")
    print("peak RSS: the largest single process (getrusage); tree RSS: all processes together, sampled every 0.1 s.")
    if not args.keep and not info["reused"]:
        shutil.rmtree(out)


def main(argv: list[str] | None = None) -> None:
    """Entry point; `_measure` and `_naive` are the internal child modes."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_measure"]:
        return child_measure(argv[2:] if argv[1:2] == ["--"] else argv[1:])
    if argv[:1] == ["_naive"]:
        return child_naive(Path(argv[1]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=200, help="corpus size (default 200)")
    parser.add_argument("--small", action="store_const", const=20, dest="size_mb", help="a 20 MB corpus, for a quick run")
    parser.add_argument("--out", default=str(HERE / "corpus"), help="corpus folder (default benchmarks/corpus, gitignored)")
    parser.add_argument("--keep", action="store_true", help="keep the corpus; a kept corpus of the same size and seed is reused")
    parser.add_argument("--jobs", type=int, default=0, help="-j for the parallel toolaudit run (default: toolaudit's own) and corpus writers")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    run(parser.parse_args(argv))


if __name__ == "__main__":
    main()
