"""How well simulate's prompt-cache model (toolaudit/simulate/prompt_cache.py) reproduces the recorded cache
reads, writes and uncached input of real sessions, with no policy: per context, and the median error per agent.

    python benchmarks/cache_model_fit.py [PATH ...]     # default: ../shared/corpus/claude-code and codex
    python benchmarks/cache_model_fit.py --markdown ... # the table docs/simulate.md shows
    python benchmarks/cache_model_fit.py --sets 'NAME=PATH:PATH' ...  # Codex sets, without and with turns

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


def rows(paths: list[Path], turns: bool = True) -> list[tuple[str, str, int, object]]:
    """(context name, agent collector, requests, Fit) per context with usage. A request starts a turn when it
    carries no new tool output (as simulate reads its timeline); `turns=False`: the rule before turns counted."""
    collected, _ = collect(paths, ScanOptions.of(calls=True, cache=False))
    carrying = {(m.source, m.session, m.agent, m.request_index) for m in collected.rows if m.request_index is not None}
    out = []
    for (source, session, agent), requests in sorted(contexts(collected.usage).items()):
        name = f"{Path(source).name[:40]} {agent[:10]}"
        starts = [(source, session, agent, u.request_index) not in carrying for u in requests] if turns else None
        out.append((name, requests[0].collector, len(requests), context_fit(requests, starts)))
    return out


def compare(sets: list[str]) -> None:
    """Per named set of Codex sessions (NAME=PATH:PATH), the median reads and uncached-input errors over its
    contexts of 3 requests or more, without turns (each request reads the whole previous prompt) and with them."""
    print("| Codex, median per session | sessions | reads error, without turns | uncached input error | "
          "reads error, with turns | uncached input error |")
    print("|---|---:|---:|---:|---:|---:|")
    for spec in sets:
        name, _, paths = spec.partition("=")
        cells = []
        for turns in (False, True):
            m = medians(rows([Path(p) for p in paths.split(":")], turns)).get("codex", {})
            cells += [_pct(m.get("reads")), _pct(m.get("uncached"))]
            count = m.get("contexts", 0)
        print(f"| {name} | {count} | " + " | ".join(cells) + " |")


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
    if argv[:1] == ["--sets"]:
        compare(argv[1:])
        return
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
