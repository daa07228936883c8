"""How well simulate's prompt-cache model (toolaudit/simulate/prompt_cache.py) reproduces the recorded cache
reads, writes and uncached input of real sessions, with no policy: per context, and the median error per agent.

    python benchmarks/cache_model_fit.py [PATH ...]     # default: ../shared/corpus/claude-code and codex
    python benchmarks/cache_model_fit.py --markdown ... # the table docs/simulate.md shows
    python benchmarks/cache_model_fit.py --sets 'NAME=PATH:PATH' ...  # Codex sets: no turns, guessed, recorded
    python benchmarks/cache_model_fit.py --ttl 600 --sets ...          # ... with another idle expiry (seconds)
    python benchmarks/cache_model_fit.py --fit-ttl 'NAME=PATH:PATH' ...  # misclassified requests per expiry
    python benchmarks/cache_model_fit.py --kinds 'NAME=PATH:PATH' ...    # Codex sets by session kind: where misses are
    python benchmarks/cache_model_fit.py --turn-starts 'NAME=PATH:PATH' ... # a rule tried and left out (docs/simulate.md)
    python benchmarks/cache_model_fit.py --hours 2026-06-1 'NAME=PATH:PATH' ... # in-turn misses by UTC hour: when

Each context's model is the one its provider's cache follows (prompt_cache.provider_of): Anthropic's explicit
writes with their lifetimes, OpenAI's and Gemini's automatic prefix reads. An error is null (n/a) only where
the recording has nothing to compare: Codex reports no writes, so its misses show in the uncached input.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import statistics
import sys
from datetime import timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from toolaudit.scan.job import ScanOptions, collect  # noqa: E402
from toolaudit.scan.periods import when_of  # noqa: E402
from toolaudit.simulate import prompt_cache  # noqa: E402
from toolaudit.simulate.prompt_cache import context_fit, contexts, splits  # noqa: E402

DEFAULT = [HERE.parent.parent / "shared" / "corpus" / "claude-code", HERE.parent.parent / "shared" / "corpus" / "codex"]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1%}"


def rows(paths: list[Path], turns: str = "recorded") -> list[tuple[str, str, int, object]]:
    """(context name, agent collector, requests, Fit) per context with usage. `turns`: "recorded" (a request starts
    a turn where the transcript says the user spoke, else where it carries no new tool output, as simulate reads
    its timeline), "guessed" (the second rule alone) or "none" (the rule before turns counted)."""
    return [(name, requests[0].collector, len(requests), context_fit(requests, starts))
            for name, requests, starts in _contexts(paths, turns)]


def _contexts(paths: list[Path], turns: str = "recorded") -> list[tuple[str, list, list[bool] | None]]:
    collected, _ = collect(paths, ScanOptions.of(calls=True, cache=False))
    carrying = {(m.source, m.session, m.agent, m.request_index) for m in collected.rows if m.request_index is not None}
    out = []
    for (source, session, agent), requests in sorted(contexts(collected.usage).items()):
        if turns == "guessed":  # the recorded turns hidden: splits falls back on the guess
            requests = [dataclasses.replace(u, turn_start=None) for u in requests]
        starts = None if turns == "none" else [(source, session, agent, u.request_index) not in carrying
                                               for u in requests]
        out.append((f"{Path(source).name[:40]} {agent[:10]}", requests, starts))
    return out


def compare(sets: list[str]) -> None:
    """Per named set of Codex sessions (NAME=PATH:PATH), the median reads and uncached-input errors over its
    contexts of 3 requests or more: without turns (each request reads the whole previous prompt), with guessed
    turns, and with the recorded turns where the format has them (the model as it is)."""
    print("| Codex, median per session | sessions | reads error, without turns | uncached input error | "
          "reads error, guessed turns | uncached input error | reads error, recorded turns | uncached input error |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for spec in sets:
        name, _, paths = spec.partition("=")
        cells = []
        for turns in ("none", "guessed", "recorded"):
            m = medians(rows([Path(p) for p in paths.split(":")], turns)).get("codex", {})
            cells += [_pct(m.get("reads")), _pct(m.get("uncached"))]
            count = m.get("contexts", 0)
        print(f"| {name} | {count} | " + " | ".join(cells) + " |")


TTLS = (180, 300, 450, 600, 900, 1200, 1800, 2700, 3600)


def fit_ttl(sets: list[str], least_gap: float = 120.0) -> None:
    """Per named set, how many requests after `least_gap` seconds idle or more each expiry T classes wrongly: the
    recording missed (read under half of what the model with no expiry reads) and the gap was under T, or it hit
    and the gap was T or more. The T with the fewest on the fitted-on sets is prompt_cache.AUTOMATIC_TTL_S."""
    print("| Codex set | requests after 2+ idle minutes | recorded misses | "
          + " | ".join(f"T={t // 60:g} min" if t % 60 == 0 else f"T={t / 60:g} min" for t in TTLS) + " |")
    print("|---|---:|---:|" + "---:|" * len(TTLS))
    kept = prompt_cache.AUTOMATIC_TTL_S
    prompt_cache.AUTOMATIC_TTL_S = float("inf")  # the model with no expiry: what a hit would have read
    try:
        for spec in sets:
            name, _, paths = spec.partition("=")
            points = []
            for _name, requests, starts in _contexts([Path(p) for p in paths.split(":")]):
                if requests[0].collector != "codex" or len(requests) < 3:
                    continue
                modelled = splits(requests, starts=starts)
                for before, u, s in zip(requests, requests[1:], modelled[1:]):
                    now, then = when_of(u.ts), when_of(before.ts)
                    if now and then and (now - then).total_seconds() >= least_gap and s.read > 2_000:
                        points.append(((now - then).total_seconds(), u.cache_read < s.read / 2))
            wrong = [sum(1 for gap, miss in points if (gap >= t) != miss) for t in TTLS]
            print(f"| {name} | {len(points)} | {sum(m for _, m in points)} | " + " | ".join(map(str, wrong)) + " |")
    finally:
        prompt_cache.AUTOMATIC_TTL_S = kept


MISS = 1_500  # a request that read this much less than the model did: a miss the model did not foresee


def kind_of(path: str) -> str:
    """What started a Codex session, from its rollout's `session_meta.source`: "main" (the CLI, an IDE, `codex
    exec`), "review subagent" (`{"subagent": "review"}`), or another subagent by its name ("thread_spawn")."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in itertools.islice(fh, 20):  # the session_meta line comes first; a few lines of slack
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and item.get("type") == "session_meta":
                source = (item.get("payload") or {}).get("source")
                sub = source.get("subagent") if isinstance(source, dict) else None
                if sub is None:
                    return "main"
                return f"{sub if isinstance(sub, str) else next(iter(sub), 'other')} subagent"
    return "main"


def _missed(requests: list, starts: list[bool] | None) -> list[tuple[bool, bool, object]]:
    """Per request of one context: (starts a turn, read MISS tokens or more under the model, the model's split);
    the first request never counts as a miss (the model takes its read as recorded)."""
    turns = prompt_cache.recorded_turns(requests, starts) or [False] * len(requests)
    modelled = splits(requests, starts=starts)
    return [(turns[i], i > 0 and u.cache_read < s.read - MISS, s) for i, (u, s) in enumerate(zip(requests, modelled))]


def _decomposed(requests: list, starts: list[bool] | None) -> tuple[list[int], list[float | None]]:
    """One context's counts (in-turn requests, of them misses, turn starts, of them misses; the first request
    left out) and its uncached-input error: as modelled, with the in-turn misses' recorded reads given to the
    model, and with the turn starts' given."""
    counts = [0, 0, 0, 0]
    uncached = [0, 0, 0]
    for i, (u, (turn, missed, s)) in enumerate(zip(requests, _missed(requests, starts))):
        if i:
            counts[2 if turn else 0] += 1
            counts[3 if turn else 1] += missed
        told = (s.read, u.cache_read if missed and not turn else s.read, u.cache_read if missed and turn else s.read)
        uncached = [a + u.input_total - r for a, r in zip(uncached, told)]
    recorded = sum(u.input_uncached for u in requests)
    return counts, [(m - recorded) / recorded if recorded else None for m in uncached]


def _by_hour(requests: list, starts: list[bool] | None, prefix: str) -> dict[str, list[int]]:
    """One context's in-turn requests (the first left out) by the UTC hour they were made in ("2026-06-17 07h"),
    those hours only that start with `prefix`: [requests, of them misses, of them misses that read nothing]."""
    found: dict[str, list[int]] = {}
    for i, (u, (turn, missed, _s)) in enumerate(zip(requests, _missed(requests, starts))):
        when = when_of(u.ts)
        hour = when.astimezone(timezone.utc).strftime("%Y-%m-%d %Hh") if when else "no time"
        if i and not turn and hour.startswith(prefix):
            row = found.setdefault(hour, [0, 0, 0])
            row[0] += 1
            row[1] += missed
            row[2] += missed and u.cache_read == 0
    return found


def hours(argv: list[str]) -> None:
    """Per named set of Codex sessions, session kind and UTC hour starting with the prefix (argv[0], e.g.
    "2026-06-1"): how many sessions made in-turn requests then, how many of those requests missed (read MISS
    tokens or more under the model) and how many of the misses read nothing; when the misses came."""
    prefix, sets = argv[0], argv[1:]
    print("| Codex set | session kind | UTC hour | sessions | in-turn requests that missed | of them read nothing |")
    print("|---|---|---|---:|---:|---:|")
    for spec in sets:
        name, _, paths = spec.partition("=")
        rows: dict[tuple[str, str], list[int]] = {}
        for _name, requests, starts in _contexts([Path(p) for p in paths.split(":")]):
            if requests[0].collector != "codex" or len(requests) < 3:
                continue
            kind = kind_of(requests[0].source)
            for hour, (n, missed, nothing) in _by_hour(requests, starts, prefix).items():
                row = rows.setdefault((hour, kind), [0, 0, 0, 0])
                for k, v in enumerate((1, n, missed, nothing)):
                    row[k] += v
        for (hour, kind), (sessions, n, missed, nothing) in sorted(rows.items()):
            print(f"| {name} | {kind} | {hour} | {sessions} | {missed:,} of {n:,} ({missed / n:.0%}) | {nothing:,} |")


def kinds(sets: list[str]) -> None:
    """Per named set of Codex sessions and per session kind (kind_of), the median uncached-input error, how many
    in-turn requests and turn starts read MISS tokens or more under the model, and the median error were the
    model told the recorded reads of those in-turn requests, or of those turn starts (where the error comes from)."""
    print("| Codex set | session kind | sessions | uncached input error (median) | in-turn requests that missed | "
          "turn starts that missed | error, in-turn misses told | error, turn-start misses told |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for spec in sets:
        name, _, paths = spec.partition("=")
        by: dict[str, list] = {}
        for _name, requests, starts in _contexts([Path(p) for p in paths.split(":")]):
            if requests[0].collector != "codex" or len(requests) < 3:
                continue
            found = _decomposed(requests, starts)
            for key in (kind_of(requests[0].source), "all"):
                by.setdefault(key, []).append(found)
        for key, found in sorted(by.items(), key=lambda kv: (kv[0] == "all", kv[0])):
            c = [sum(f[0][k] for f in found) for k in range(4)]
            err = [_pct(statistics.median(e)) if (e := [f[1][k] for f in found if f[1][k] is not None]) else "n/a"
                   for k in range(3)]
            print(f"| {name} | {key} | {len(found)} | {err[0]} | {c[1]:,} of {c[0]:,} ({c[1] / max(1, c[0]):.0%}) | "
                  f"{c[3]:,} of {c[2]:,} ({c[3] / max(1, c[2]):.0%}) | {err[1]} | {err[2]} |")


TURN_GAPS = (0.0, 120.0, 300.0)


def turn_starts(sets: list[str]) -> None:
    """Per named set, the median reads and uncached-input errors of the model as it is and of a rule tried and
    left out: a turn start (Codex routes each turn afresh: its sticky-routing token is per turn) after a gap of
    T or more reads only the context's first read, as after an expiry; T in TURN_GAPS (0: every turn start)."""
    print("| Codex set | as modelled | " + " | ".join(
        "every turn start reads only the first read" if t == 0 else f"turn starts after {t / 60:g}+ idle minutes"
        for t in TURN_GAPS) + " |")
    print("|---|---:|" + "---:|" * len(TURN_GAPS))
    for spec in sets:
        name, _, paths = spec.partition("=")
        fits: list[list] = [[] for _ in range(len(TURN_GAPS) + 1)]
        for _name, requests, starts in _contexts([Path(p) for p in paths.split(":")]):
            if requests[0].collector != "codex" or len(requests) < 3:
                continue
            turns = prompt_cache.recorded_turns(requests, starts) or [False] * len(requests)
            modelled = splits(requests, starts=starts)
            for k, least in enumerate((None, *TURN_GAPS)):
                first: dict = {}
                reads = []
                for i, (u, s) in enumerate(zip(requests, modelled)):
                    first.setdefault(u.model, s.read)  # a model's first request: what the model takes as recorded
                    gap = (when_of(u.ts) - when_of(requests[i - 1].ts)).total_seconds() if i and u.ts and \
                        requests[i - 1].ts else 0.0
                    cut = least is not None and i > 0 and turns[i] and gap >= least
                    reads.append(min(s.read, first[u.model]) if cut else s.read)
                fits[k].append(prompt_cache.Fit(
                    1, len(requests), sum(u.cache_read for u in requests), sum(reads), 0, 0,
                    sum(u.input_uncached for u in requests), sum(u.input_total for u in requests) - sum(reads)))
        cells = []
        for found in fits:
            m = medians([("", "codex", 3, f) for f in found]).get("codex", {})
            cells.append(f"{_pct(m.get('reads'))} / {_pct(m.get('uncached'))}")
        print(f"| {name} | " + " | ".join(cells) + " |")


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
    if argv[:1] == ["--ttl"]:  # the idle expiry the rest runs with (the figures before it was fitted: 600)
        prompt_cache.AUTOMATIC_TTL_S = float(argv[1])
        argv = argv[2:]
    modes = {"--sets": compare, "--fit-ttl": fit_ttl, "--turn-starts": turn_starts, "--kinds": kinds, "--hours": hours}
    if argv[:1] and argv[0] in modes:  # each takes named Codex sets, NAME=PATH:PATH (--hours a prefix first)
        modes[argv[0]](argv[1:])
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
