"""How well simulate's prompt-cache model (toolaudit/simulate/prompt_cache.py) reproduces the recorded cache
reads and writes of real sessions, with no policy: per context and in total.

    python benchmarks/cache_model_fit.py [PATH ...]     # default: ../shared/corpus/claude-code
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from toolaudit.scan.job import ScanOptions, collect  # noqa: E402
from toolaudit.simulate.prompt_cache import contexts, fit, splits  # noqa: E402


def _pct(modelled: int, recorded: int) -> str:
    return f"{(modelled - recorded) / recorded:+.1%}" if recorded else "n/a"


def main(argv: list[str]) -> None:
    paths = [Path(p) for p in argv] or [HERE.parent.parent / "shared" / "corpus" / "claude-code"]
    collected, _ = collect(paths, ScanOptions.of(calls=True, cache=False))
    print(f"{'context':<52} {'requests':>8} {'reads rec.':>11} {'modelled':>10} {'error':>7} "
          f"{'writes rec.':>11} {'modelled':>10} {'error':>7}")
    for (source, _session, agent), requests in sorted(contexts(collected.usage).items()):
        modelled = splits(requests)
        reads, writes = sum(u.cache_read for u in requests), sum(u.cache_write for u in requests)
        got_r, got_w = sum(s.read for s in modelled), sum(s.write for s in modelled)
        name = f"{Path(source).name[:40]} {agent[:10]}"
        print(f"{name:<52} {len(requests):>8} {reads:>11,} {got_r:>10,} {_pct(got_r, reads):>7} "
              f"{writes:>11,} {got_w:>10,} {_pct(got_w, writes):>7}")
    total = fit(collected.usage)
    print(f"{'all ' + str(total.contexts) + ' contexts':<52} {total.requests:>8} {total.reads_recorded:>11,} "
          f"{total.reads_modelled:>10,} {total.reads_error:>+7.1%} {total.writes_recorded:>11,} "
          f"{total.writes_modelled:>10,} {total.writes_error:>+7.1%}")


if __name__ == "__main__":
    main(sys.argv[1:])
