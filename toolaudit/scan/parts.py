"""One file's fold on its own (a part), kept in the scan cache and merged into a scan without its rows.

Why: when one session of a 10k-file corpus grew, the kept summary (scan.summary_cache) no longer serves,
and decoding and folding every other file's ~125,000 cached rows again took 2.8 s. A part holds what
folding the file alone gives for one plan: its groups' token lists and sums, days, runs, the bill's sums,
the digests of its calls and requests, the calls still waiting for their result, its menus and skipped
lines. A scan merges it as it is when none of its calls or requests is one an earlier file holds: then the
merge is what folding its rows would have been (sums add, token lists join, the order of first appearance
is kept). When one is shared (a resumed session copies its parent's calls), its rows are folded one by one
as before, so a call copied into several files still counts once.

Parts are made only for scans whose summary may be kept (scan.summary_cache.Keeper: a plan without a
--since/--until window, --top, --records, --strict or --cost) of more than one file. Like the cache's entries
they hold no text.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from decimal import Decimal
from hashlib import sha256
from typing import Callable

import orjson

from ..model import FileResult, Measurement, MenuMeasurement, Skipped
from .cache_rows import measurement, menu, row_fields
from .cache_store import path_key
from .menu import keep_menu

# a part is one JSON list, read by position (decoding ~10k of them must cost little more than orjson's parse)
FILES, COLLECTORS, CELLS, DAYS, RUNS, SESSIONS, SCALARS, REFS, TOTAL, UNKNOWN, GROUPS, BILLED, CONTEXTS, TOOLS, \
    BY_GROUP, MENUS, SKIPPED, SKIPPED_COUNT, UNRECOGNISED, ERRORS, DUPLICATES, SEEN, HELD, REQUESTS, PROJECTS, \
    ABOUT = range(26)
_SCALARS = ("calls", "unpaired", "orphans", "images", "image_bytes", "carried", "known", "requests", "ref_calls")
_BILLING = ("requests", "input_uncached", "cache_write", "cache_read", "output", "unpriced_requests",
            "cache_write_1h")


@dataclass
class Part:
    """One file's part as the scan meets it: `doc` to merge, and `result()` its rows, for when it cannot be."""

    source: str
    doc: list
    result: Callable[[], FileResult]


def doc_of(result: FileResult, plan) -> list:
    """The part of one file's result: the result folded alone for `plan` (summary.Collected), as JSON data."""
    from .summary import Collected

    alone = Collected(plan=plan)
    alone.add(result)
    tally, bill = alone.folded, alone.folded.billing
    held = alone.dedupe.held()
    return [
        alone.files, list(alone.collectors.items()),
        [[group, tool, cell.tokens.tolist(), cell.chars, cell.bytes, cell.errors, cell.truncated]
         for (group, tool), cell in tally.cells.items()],
        [[day, tool, n, tokens] for (day, tool), (n, tokens) in tally.days.items()],
        [[source, session, n] for (source, session), n in tally.runs.items()],
        sorted(tally.sessions),
        [getattr(tally, name) for name in _SCALARS],
        list(tally.refs.items()),
        _billing_row(bill.out.total), sorted(bill.out.unknown_models),
        [[name, *_billing_row(sums)] for name, sums in bill.groups.items()],
        [list(context) for context in bill.billed],
        [[session, agent, *sums] for (session, agent), sums in bill.contexts.items()],
        [[model, tool, *sums] for (model, tool), sums in bill.tools.items()],
        [[model, group, *sums] for (model, group), sums in bill.by_group.items()],
        [row_fields(m, MenuMeasurement) for m in alone.menus.values()],
        [row_fields(s, Skipped) for s in alone.skipped], alone.skipped_count, alone.unrecognised, alone.errors,
        alone.duplicates, b"".join(sorted(alone.dedupe.answered_digests())).hex(),
        [row_fields(row, Measurement) for row in held],
        b"".join(sorted(alone.requests_seen)).hex(),
        [list(pair) for pair in alone.projects.items()],
        tally.about.rows() if tally.about is not None else [],
    ]


class Kept:
    """The parts of one plan in one scan cache: read at once when the scan starts, written with the entries."""

    def __init__(self, cache, plan, plan_key: str, files: list | None = None, roots=()):
        self.cache, self.plan = cache, plan
        self.tag = sha256(plan_key.encode()).hexdigest()[:32]
        self.found = cache.parts(self.tag, files, roots)  # path_key -> (stamp digest, entry)

    def kept(self, path, stamp) -> list | None:
        """The part kept for `path` at `stamp`, or None (none kept, another stamp's, or not a part)."""
        found = self.found.get(path_key(path))
        if found is None or found[0] != stamp_digest(stamp):
            return None
        try:
            doc = orjson.loads(found[1])
        except orjson.JSONDecodeError:
            return None
        return doc if _whole(doc) else None

    def made(self, path, stamp, result: FileResult) -> list:
        """The part of `result` (the file `path` at `stamp`), kept for the next scan."""
        doc = doc_of(result, self.plan)
        try:
            self.cache.put_part(self.tag, str(path), stamp_digest(stamp), orjson.dumps(doc))
        except (TypeError, orjson.JSONEncodeError):  # a name that is not UTF-8 in its lines: merged, not kept
            pass
        return doc


# the length of each row of the sections merged by position, so that a damaged part is never half merged
_ROWS = {COLLECTORS: 2, CELLS: 7, DAYS: 4, RUNS: 3, REFS: 2, GROUPS: 2 + len(_BILLING), BILLED: 2, CONTEXTS: 5,
         TOOLS: 5, BY_GROUP: 5, PROJECTS: 2, ABOUT: 3}


def _whole(doc) -> bool:
    """Whether `doc` has a part's shape: every section, every row of the length merge reads."""
    return (isinstance(doc, list) and len(doc) == ABOUT + 1 and isinstance(doc[SEEN], str)
            and isinstance(doc[REQUESTS], str) and isinstance(doc[SCALARS], list) and len(doc[SCALARS]) == len(_SCALARS)
            and isinstance(doc[TOTAL], list) and len(doc[TOTAL]) == len(_BILLING) + 1
            and all(isinstance(doc[i], list) for i in (SESSIONS, UNKNOWN, MENUS, SKIPPED, UNRECOGNISED, ERRORS, HELD))
            and all(isinstance(doc[i], list) and all(isinstance(row, list) and len(row) == n for row in doc[i])
                    for i, n in _ROWS.items()))


def stamp_digest(stamp) -> bytes:
    """What names one version of a file's bytes (its change time left out: a chmod changes no number)."""
    return sha256(f"{stamp.size}\0{stamp.mtime_ns}\0{stamp.inode}\0".encode() + (stamp.edges or b"")).digest()[:16]


def _billing_row(sums) -> list:
    return [*(getattr(sums, name) for name in _BILLING), None if sums.cost is None else str(sums.cost)]


def _digests(text: str) -> set[bytes]:
    packed = bytes.fromhex(text)
    return {packed[i:i + 16] for i in range(0, len(packed), 16)}


def merge(collected, doc: list) -> bool:
    """Merge one file's part into `collected` (a summary.Collected with a plan and no window); False, with
    nothing changed, when one of its calls or requests is one `collected` already holds."""
    seen, requests = _digests(doc[SEEN]), _digests(doc[REQUESTS])
    if collected.dedupe.meets(seen) or not requests.isdisjoint(collected.requests_seen):
        return False
    collected.dedupe.take(seen, doc[DUPLICATES])
    for row in doc[HELD]:
        held = measurement(row)
        collected.dedupe.unanswered(held.dedupe_key, held)
    collected.requests_seen |= requests
    collected.files += doc[FILES]
    for name, n in doc[COLLECTORS]:
        collected.collectors[name] = collected.collectors.get(name, 0) + n
    for row in doc[MENUS]:
        keep_menu(collected.menus, menu(row))
    from .summary import SKIPPED_SHOWN

    collected.skipped_count += doc[SKIPPED_COUNT]
    room = SKIPPED_SHOWN - len(collected.skipped)
    collected.skipped.extend(Skipped(*row) for row in doc[SKIPPED][:max(room, 0)])
    collected.unrecognised.extend(doc[UNRECOGNISED])
    collected.errors.extend(doc[ERRORS])
    for session, project in doc[PROJECTS]:
        collected.projects.setdefault(session, project)
    _merge_tally(collected.folded, doc)
    return True


def _merge_tally(tally, doc: list) -> None:
    from .summary import Cell

    for group, tool, tokens, chars, size, errors, truncated in doc[CELLS]:
        cell = tally.cells.get((group, tool))
        if cell is None:
            cell = tally.cells[group, tool] = Cell()
        cell.tokens.extend(array("q", tokens))
        cell.chars += chars
        cell.bytes += size
        cell.errors += errors
        cell.truncated += truncated
    for day, tool, n, tokens in doc[DAYS]:
        sums = tally.days.setdefault((day, tool), [0, 0])
        sums[0] += n
        sums[1] += tokens
    for source, session, n in doc[RUNS]:
        tally.runs[source, session] = tally.runs.get((source, session), 0) + n
    tally.sessions.update(doc[SESSIONS])
    if tally.about is not None:
        tally.about.merge(doc[ABOUT])
    for name, n in zip(_SCALARS, doc[SCALARS]):
        setattr(tally, name, getattr(tally, name) + n)
    for name, n in doc[REFS]:
        tally.refs[name] = tally.refs.get(name, 0) + n
    bill = tally.billing
    _merge_billing(bill.out.total, doc[TOTAL])
    bill.out.unknown_models.update(doc[UNKNOWN])
    for name, *row in doc[GROUPS]:
        _merge_billing(bill.groups[name], row)
    bill.billed.update(tuple(context) for context in doc[BILLED])
    for into, rows in ((bill.contexts, doc[CONTEXTS]), (bill.tools, doc[TOOLS]), (bill.by_group, doc[BY_GROUP])):
        for first, second, *sums in rows:
            kept = into.setdefault((first, second), [0, 0, 0])
            for i, n in enumerate(sums):
                kept[i] += n


def _merge_billing(sums, row: list) -> None:
    for name, n in zip(_BILLING, row):
        setattr(sums, name, getattr(sums, name) + n)
    if row[-1] is not None:
        sums.cost = (sums.cost or Decimal(0)) + Decimal(row[-1])




