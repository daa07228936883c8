"""Start-up figures: `--version`, `--help`, and a scan of one small file, next to what they cannot avoid.

    python benchmarks/bench_startup.py            # best of 7
    python benchmarks/bench_startup.py -n 15

Each command runs as its own process, the commands interleaved round by round (a busy
machine slows all of them alike), and the best wall time of each is printed. Targets
(issue 11): `--version` and `--help` under 0.3 s; a one-file scan no slower than building
the o200k vocabulary in a process of its own plus 0.3 s; `--tokenizer approx` builds no
vocabulary, so its scan sits near `--help`. `import pandas` is shown for scale: no
command above imports it. To find what a command imports, run it under
`python -X importtime`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ONE_FILE = REPO / "sample_logs" / "claude-code" / "-home-dev-shop" / "9a0b7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d.jsonl"
PY = sys.executable
CLI = [PY, "-m", "toolaudit"]
VOCAB = "from toolaudit.tokenizers import get_tokenizer; get_tokenizer('o200k_base').count('x')"

COMMANDS = {
    "python (nothing)": [PY, "-c", "pass"],
    "import pandas": [PY, "-c", "import pandas"],
    "o200k vocabulary": [PY, "-c", VOCAB],
    "toolaudit --version": CLI + ["--version"],
    "toolaudit --help": CLI + ["--help"],
    "toolaudit scan --help": CLI + ["scan", "--help"],
    "scan 1 file (o200k)": CLI + ["scan", str(ONE_FILE), "-q", "-j", "1"],
    "scan 1 file (approx)": CLI + ["scan", str(ONE_FILE), "-q", "-j", "1", "--tokenizer", "approx"],
    "scan 1 file -f json": CLI + ["scan", str(ONE_FILE), "-q", "-j", "1", "-f", "json"],
}


def timed(argv: list[str]) -> float:
    """Wall seconds of one run; a failing command stops the benchmark."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--rounds", type=int, default=7, help="runs of each command (best is kept)")
    rounds = parser.parse_args().rounds
    for argv in COMMANDS.values():  # warm the file cache and the .pyc files
        timed(argv)
    best = {name: float("inf") for name in COMMANDS}
    for _ in range(rounds):
        for name, argv in COMMANDS.items():
            best[name] = min(best[name], timed(argv))
    print(f"start-up, best of {rounds} (seconds, wall, one process each)")
    for name, seconds in best.items():
        print(f"  {name:<24} {seconds:6.3f}")
    budget = best["o200k vocabulary"] + 0.3
    checks = [
        ("--version < 0.3 s", best["toolaudit --version"] < 0.3),
        ("--help < 0.3 s", best["toolaudit --help"] < 0.3),
        (f"scan 1 file <= vocabulary + 0.3 s ({budget:.3f})", best["scan 1 file (o200k)"] <= budget),
        ("scan --tokenizer approx < vocabulary", best["scan 1 file (approx)"] < best["o200k vocabulary"]),
    ]
    for text, ok in checks:
        print(f"  {'ok  ' if ok else 'MISS'} {text}")


if __name__ == "__main__":
    main()
