"""Observation masking on real SWE-agent and mini-swe-agent trajectories: how much of the input it removes,
and what it does to the bill once the prompt cache is counted (docs/simulate.md#masking-on-real-trajectories).

    python benchmarks/masking_table.py [KEEP] [PATH ...]    # default: 10, ../shared/corpus/{mini-swe-agent,swe-agent}

Per trajectory: requests with recorded usage, input tokens before → after (provider's counts), tool-output
tokens carried (× requests, o200k_base: for trajectories without usage, the only input known), dollars
before → after, cache invalidations, and removed outputs the agent used later (refetched).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from toolaudit.simulate.job import SimulateOptions, simulate  # noqa: E402


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def _usd(value) -> str:
    return "n/a" if value is None else f"${value:.3f}"


def main(argv: list[str]) -> None:
    keep = int(argv[0]) if argv and argv[0].isdigit() else 10
    paths = [Path(p) for p in argv[1:] if p] if len(argv) > 1 or (argv and not argv[0].isdigit()) else []
    if argv and not argv[0].isdigit():
        paths = [Path(p) for p in argv]
    corpus = HERE.parent.parent / "shared" / "corpus"
    roots = paths or [corpus / "mini-swe-agent", corpus / "swe-agent"]
    files = sorted(f for root in roots for f in (root.rglob("*") if root.is_dir() else [root])
                   if f.is_file() and f.name.endswith((".traj", ".traj.json")))
    print(f"| trajectory | requests | input before | after | removed | tool tokens carried before | after | "
          f"removed | cost before | after | cache invalidations | refetched |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    sums = [0] * 7
    for f in files:
        t = simulate([f], SimulateOptions.of(context=f"mask:keep={keep}")).variants[0].context
        gone = t.before.input - t.after.input
        tools_gone = t.tool_tokens_before - t.tool_tokens_after
        print(f"| {f.parent.name}/{f.name} | {t.requests} | {t.before.input:,} | {t.after.input:,} | "
              f"{_pct(gone, t.before.input)} | {t.tool_tokens_before:,} | {t.tool_tokens_after:,} | "
              f"{_pct(tools_gone, t.tool_tokens_before)} | {_usd(t.cost_before)} | {_usd(t.cost_after)} | "
              f"{t.cache_invalidations} | {t.refetched} of {t.removed_calls} |")
        for i, v in enumerate((t.requests, t.before.input, t.after.input, t.tool_tokens_before, t.tool_tokens_after,
                               t.refetched, t.removed_calls)):
            sums[i] += v
    print(f"| all {len(files)} | {sums[0]} | {sums[1]:,} | {sums[2]:,} | {_pct(sums[1] - sums[2], sums[1])} | "
          f"{sums[3]:,} | {sums[4]:,} | {_pct(sums[3] - sums[4], sums[3])} | | | | {sums[5]} of {sums[6]} |")


if __name__ == "__main__":
    main(sys.argv[1:])
