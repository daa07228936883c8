"""One dedupe for every job: a call copied into several files (a resumed session, a subagent echo) counts once.

A call is known by its dedupe key (model.call_key: its id in its scope). The first copy with a result
wins; a copy whose result never came is held until the end, and dropped when a copy with the result
turns up in a later file. `duplicates` counts every copy dropped, the same number in scan, simulate and
replay for the same files.
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any


def digest(key: tuple) -> bytes:
    """A dedupe key as 16 bytes: blake2b-128 of its repr, so two keys collide with odds of 2^-128 per pair,
    far below anything that could change a count; a set of them takes ≈ 90 bytes a key, not the key's strings."""
    return blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def request_key(u) -> tuple:
    """A provider request's identity across the scan (a Usage): ids unique across files (Usage.global_id)
    count once scan-wide, others once per file."""
    return (u.collector, u.request_id) if u.global_id else (u.collector, u.source, u.request_id)


class Dedupe:
    """The copies seen so far: `answered(key)` for a call with a result, `unanswered(key, item)` for one without."""

    def __init__(self) -> None:
        self.duplicates = 0
        self._seen: set[bytes] = set()
        self._held: dict[tuple, Any] = {}
        self._held_digests: set[bytes] = set()  # the held keys' digests: what `meets` looks in

    def answered(self, key: tuple | None) -> bool:
        """Whether a call with its result is kept (the first copy; a call without an id always is)."""
        if key is None:
            return True
        hashed = digest(key)
        if hashed in self._seen:
            self.duplicates += 1
            return False
        self._seen.add(hashed)
        if self._held.pop(key, None) is not None:
            self._held_digests.discard(hashed)
            self.duplicates += 1  # the copy without a result, held until now, is dropped
        return True

    def unanswered(self, key: tuple | None, item: Any) -> bool:
        """Hold a call whose result never came (kept when no other copy turns up); False when it is a copy."""
        if key is None:
            return True
        hashed = digest(key)
        if hashed in self._seen or key in self._held:
            self.duplicates += 1
            return False
        self._held[key] = item
        self._held_digests.add(hashed)
        return True

    def answered_digests(self) -> set[bytes]:
        """The digests of the calls kept with their result (what another scan's `meets` looks for)."""
        return self._seen

    def meets(self, answered: set[bytes]) -> bool:
        """Whether any of the `answered` digests (another file's calls with results) is a call seen or held here."""
        return not (answered.isdisjoint(self._seen) and answered.isdisjoint(self._held_digests))

    def take(self, answered: set[bytes], duplicates: int) -> None:
        """Another file's answered calls and dropped copies, known to meet none of these (`meets` said so)."""
        self._seen |= answered
        self.duplicates += duplicates

    def held(self) -> list:
        """The calls without a result that no later copy answered."""
        return list(self._held.values())
