"""`simulate` beside `scan` on the same input: its work per output must stay linear and bounded.

    python benchmarks/bench_simulate.py                 # one 200 MB output, and a 100 MB corpus
    python benchmarks/bench_simulate.py --huge-mb 50 --corpus-mb 20    # quicker

Two inputs: a Codex rollout whose one exec_command output is --huge-mb MB of build log
(some failure lines among ordinary ones, paths and identifiers throughout), and the
realistic corpus of bench_scan.py (synth_corpus.py) of --corpus-mb MB. On each, the
commands run side by side, interleaved, best of --repeat: `scan`, `simulate --preset
codex`, `simulate --max-chars 5000` (one flag), and a 10-value `--sweep`. Printed: seconds
and the ratio of each to one scan (issue 10's goals: simulate <= 1.5x, sweep <= 3x).
Each command runs in its own process (-j 1, so the figures do not depend on a busy core).

Then every preset and every context policy runs once more in worker processes (-j 2) on the corpus and must
print the JSON -j 1 printed (issue 32: `--preset codex` crashed there). A crash or a difference ends the
benchmark with exit 1 and says which: a benchmark that does not finish is a failure, never a skipped figure.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

WORDS = ("compile", "src/app/handlers/order_service.py", "linking", "getUserById", "cache_hit", "0x7f3a",
         "warning: unused variable `tmp`", "ok", "Downloading", "crate", "serde_json", "v1.0.219", "test",
         "passed", "module_42", "done", "checking", "target/debug/build", "12345", "->", "the", "and")


def huge_rollout(path: Path, size_mb: float, seed: int = 7) -> int:
    """A Codex 0.104-style rollout with one exec_command output of `size_mb` MB; returns its bytes."""
    rng = random.Random(seed)
    lines, size, target = [], 0, int(size_mb * 1_000_000)
    while size < target:
        if rng.random() < 0.0005:
            line = rng.choice(("error[E0425]: cannot find value `x` in this scope",
                               "FAILED tests/test_orders.py::test_refund - AssertionError: 3 != 4",
                               "Traceback (most recent call last):", "src/lib.rs:12:5: error: expected `;`"))
        else:
            line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
        lines.append(line)
        size += len(line) + 1
    output = "Chunk ID: 1a2b\nWall time: 41.0100 seconds\nProcess exited with code 101\nOutput:\n" + "\n".join(lines)

    def env(kind, payload):
        return json.dumps({"timestamp": "2026-02-01T00:00:00.000Z", "type": kind, "payload": payload}) + "\n"

    with path.open("w", encoding="utf-8") as fh:
        fh.write(env("session_meta", {"id": "bench-huge", "cwd": "/w", "cli_version": "0.104.0", "source": "cli"}))
        fh.write(env("turn_context", {"cwd": "/w", "model": "gpt-5.2",
                                      "truncation_policy": {"mode": "bytes", "limit": 10000}}))
        fh.write(env("response_item", {"type": "function_call", "name": "exec_command",
                                       "arguments": json.dumps({"cmd": "cargo test"}), "call_id": "c1"}))
        fh.write(env("response_item", {"type": "function_call_output", "call_id": "c1", "output": output}))
        fh.write(env("response_item", {"type": "message", "role": "assistant",
                                       "content": [{"type": "output_text", "text": "order_service.py fails"}]}))
    return path.stat().st_size


def corpus(root: Path, size_mb: float, seed: int = 1) -> Path:
    """bench_scan's realistic corpus (Claude Code + Codex), generated once into `root`."""
    import bench_scan

    bench_scan.ensure_corpus(root, size_mb, seed, jobs=2)
    return root / "home"


COMMANDS = {
    "scan": ["scan"],
    "simulate --preset codex": ["simulate", "--preset", "codex"],
    "simulate --max-chars 5000": ["simulate", "--max-chars", "5000"],
    "simulate --sweep (10 values)": ["simulate", "--sweep", "max_chars=1000:10000:1000"],
}


def _command(args: list[str], target: Path, jobs: int, out: str) -> list[str]:
    return [sys.executable, "-m", "toolaudit", *args, str(target), "-f", "json", "-j", str(jobs), "-q", "-o", out]


def timed(args: list[str], target: Path) -> float:
    start = time.perf_counter()
    subprocess.run(_command(args, target, 1, "/dev/null"), check=True, cwd=REPO)
    return time.perf_counter() - start


def _answer(args: list[str], target: Path, jobs: int, out: Path) -> dict:
    done = subprocess.run(_command(args, target, jobs, str(out)), cwd=REPO, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"FAILED: toolaudit {' '.join(args)} -j {jobs} exited {done.returncode}: "
                         f"{done.stderr.strip()[-500:]}")
    answer = json.loads(out.read_text(encoding="utf-8"))
    answer.pop("meta", None)  # when and how it ran
    return answer


def every_policy_in_workers(target: Path, scratch: Path) -> None:
    """Every preset (each version range pinned too) and every context policy: -j 2 answers as -j 1 does."""
    sys.path.insert(0, str(REPO))
    from toolaudit.simulate.context import PRESETS as CONTEXTS
    from toolaudit.simulate.presets import PRESETS, Versioned

    runs = [["--preset", key] for key in PRESETS]
    runs += [["--preset", f"{key}@{p.versions}"] for key, v in PRESETS.items() if isinstance(v, Versioned)
             for _, p in v.ranges]
    runs += [["--context", name] for name in (*CONTEXTS, "mask:keep=10", "clear:trigger=100000,keep=3")]
    print(f"\nworkers (-j 2 against -j 1, {len(runs)} runs)")
    for extra in runs:
        args = ["simulate", *extra]
        if _answer(args, target, 2, scratch / "j2.json") != _answer(args, target, 1, scratch / "j1.json"):
            raise SystemExit(f"FAILED: toolaudit {' '.join(args)}: -j 2 printed other JSON than -j 1")
        print(f"  {' '.join(extra):<40} same JSON")


def compare(name: str, target: Path, repeat: int) -> None:
    best = {key: float("inf") for key in COMMANDS}
    for _ in range(repeat):  # interleaved: a busy moment hits every command alike
        for key, args in COMMANDS.items():
            best[key] = min(best[key], timed(args, target))
    scan = best["scan"]
    print(f"\n{name}")
    for key, seconds in best.items():
        # beyond the scan part it shares: what simulate's own work costs
        print(f"  {key:<30} {seconds:8.2f} s   {seconds / scan:5.2f}x scan   {seconds - scan:+6.2f} s beyond it")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--huge-mb", type=float, default=200)
    ap.add_argument("--corpus-mb", type=float, default=100, help="0: skip the corpus")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None, help="where to write the inputs (default: a temp folder)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="toolaudit-bench-sim-") as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        if args.huge_mb:
            huge = out / "huge"
            huge.mkdir(exist_ok=True)
            size = huge_rollout(huge / "rollout-huge.jsonl", args.huge_mb)
            compare(f"one Codex output of {size / 1e6:.0f} MB", huge, args.repeat)
        if args.corpus_mb:
            root = corpus(out / "corpus", args.corpus_mb)
            compare(f"synthetic corpus of {args.corpus_mb:.0f} MB (bench_scan's)", root, args.repeat)
            every_policy_in_workers(root, out)


if __name__ == "__main__":
    main()
