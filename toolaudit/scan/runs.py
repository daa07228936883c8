"""Which run each (file, session) belongs to: compare's run rule in plain Python (see compare.engine)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Callable, Iterable

from ..collectors.discover import SUFFIXES


def _stem(name: str) -> str:
    """A file name without the transcript extensions toolaudit reads: `x.traj.json` -> `x`, `run.1.jsonl` -> `run.1`."""
    low = name.lower()
    while low.endswith(SUFFIXES):  # one test for the names that end in none (most, after one cut)
        cut = next((x for x in SUFFIXES if low.endswith(x) and len(low) > len(x)), None)
        if cut is None:
            return name
        name, low = name[:-len(cut)], low[:-len(cut)]
    return name


def main_files(pairs: Iterable[tuple[str, str]], rel: Callable[[str], PurePath]) -> dict[tuple[str, str], str]:
    """(source, session) -> the run's main file below the root (`rel` gives a source's path there).

    The run is (place, session) (compare.engine's docstring): a subagent's file joins the run of
    the transcript beside its folder, and the main file is the parent's transcript.
    """
    pairs = sorted(set(pairs))
    rel_of = {source: rel(source) for source, _ in pairs}
    stem_of = {source: _stem(path.name) for source, path in rel_of.items()}
    beside: dict[tuple[tuple[str, ...], str], list[str]] = {}  # (folder, session) -> stems of its files
    for source, session in pairs:
        beside.setdefault((rel_of[source].parts[:-1], session), []).append(stem_of[source])
    runs: dict[tuple[tuple[str, ...], str], tuple] = {}  # (place, session) -> (moved, path, source) of its main file
    place_of = {}
    for source, session in pairs:
        parts = rel_of[source].parts
        place = parts[:-1] + (stem_of[source],)
        for depth, folder in enumerate(parts[:-1]):  # the shallowest folder that belongs to a transcript beside it
            stems = beside.get((parts[:depth], session), ())
            if folder in stems or (folder == session and stems):
                place = parts[:depth] + (folder if folder in stems else min(stems),)
                break
        else:  # older Claude Code: agent-<id>.jsonl beside <session>.jsonl
            if place[-1].startswith("agent-") and session in beside[parts[:-1], session]:
                place = parts[:-1] + (session,)
        place_of[source, session] = place
        main = (place != parts[:-1] + (stem_of[source],), rel_of[source].as_posix(), source)  # the file at the place
        runs[place, session] = min(runs.get((place, session), main), main)
    return {pair: runs[place, pair[1]][1] for pair, place in place_of.items()}
