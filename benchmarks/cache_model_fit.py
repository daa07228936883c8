"""How well simulate's prompt-cache model (toolaudit/simulate/prompt_cache.py) reproduces the recorded cache
reads, writes and uncached input of real sessions, with no policy: per context, and the median error per agent.

    python benchmarks/cache_model_fit.py [PATH ...]     # default: ../shared/corpus/claude-code and codex
    python benchmarks/cache_model_fit.py --markdown ... # the table docs/simulate.md shows

Each context's model is the one its provider's cache follows (prompt_cache.provider_of): Anthropic's explicit
writes with their lifetimes, OpenAI's and Gemini's automatic prefix reads. An error is null (n/a) only where
the recording has nothing to compare: Codex reports no writes, so its misses show in the uncached input.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from toolaudit.scan.job import ScanOptions, collect  # noqa: E402
from toolaudit.simulate.prompt_cache import context_fit, contexts  # noqa: E402

DEFAULT = [HERE.parent.parent / "shared" / "corpus" / "claude-code", HERE.parent.parent / "shared" / "corpus" / "codex"]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1%}"


def rows(paths: list[Path]) -> list[tuple[str, str, int, object]]:
    """(context name, agent collector, requests, Fit) per context with usage."""
    collected, _ = collect(paths, ScanOptions.of(calls=True, cache=False))
    out = []
    for (source, _session, agent), requests in sorted(contexts(collected.usage).items()):
        name = f"{Path(source).name[:40]} {agent[:10]}"
        out.append((name, requests[0].collector, len(requests), context_fit(requests)))
    return out


def medians(found: list[tuple[str, str, int, object]], least: int = 3) -> dict[str, dict[str, float | None]]:
    """Per collector, the median of each error over its contexts of `least` requests or more (the first request
    of a context is taken as recorded, so shorter ones match by construction)."""
    by: dict[str, dict[str, list[float]]] = {}
    for _name, collector, n, f in found:
        if n < least:
            continue
        errs = by.setdefault(collector, {"reads": [], "writes": [], "uncached": [], "contexts": []})
        errs["contexts"].append(1.0)
        for kind in ("reads", "writes", "uncached"):
            value = getattr(f, f"{kind}_error")
            if value is not None:
                errs[kind].append(value)
    return {c: {"contexts": len(e["contexts"]),
                **{k: statistics.median(e[k]) if e[k] else None for k in ("reads", "writes", "uncached")}}
            for c, e in by.items()}


def main(argv: list[str]) -> None:
    markdown = "--markdown" in argv
    paths = [Path(p) for p in argv if p != "--markdown"] or DEFAULT
    found = rows(paths)
    if markdown:
        print("| agent | contexts (3+ requests) | reads error (median) | writes error | uncached input error |")
        print("|---|---:|---:|---:|---:|")
        for collector, m in sorted(medians(found).items()):
            print(f"| {collector} | {m['contexts']} | {_pct(m['reads'])} | {_pct(m['writes'])} | "
                  f"{_pct(m['uncached'])} |")
        return
    print(f"{'context':<52} {'agent':<12} {'requests':>8} {'reads rec.':>11} {'error':>7} {'writes rec.':>11} "
          f"{'error':>7} {'uncached rec.':>13} {'error':>7}")
    for name, collector, n, f in found:
        print(f"{name:<52} {collector[:12]:<12} {n:>8} {f.reads_recorded:>11,} {_pct(f.reads_error):>7} "
              f"{f.writes_recorded:>11,} {_pct(f.writes_error):>7} {f.uncached_recorded:>13,} "
              f"{_pct(f.uncached_error):>7}")
    print("\nmedian error per agent (contexts of 3 requests or more):")
    for collector, m in sorted(medians(found).items()):
        print(f"  {collector:<14} {m['contexts']:>3} contexts  reads {_pct(m['reads'])}  writes {_pct(m['writes'])}"
              f"  uncached {_pct(m['uncached'])}")


if __name__ == "__main__":
    main(sys.argv[1:])
