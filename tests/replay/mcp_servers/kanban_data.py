"""The kanban board both test servers serve: 20 deterministic tasks with 300-600-char bodies."""

from __future__ import annotations

import random

STATUSES = ("todo", "doing", "done", "blocked")
ASSIGNEES = ("ana", "bo", "chen", "dara", "eli")
TOPICS = ("webhook retries", "billing export", "search index", "login rate limit", "CSV import",
          "dark mode", "audit log", "café menu sync", "PDF receipts", "API pagination")
# a few non-ASCII words, so the replay proves text survives the JSON-RPC round trip as is
WORDS = ("the", "queue", "retry", "handler", "should", "backoff", "customer", "report", "naïve",
         "cache", "when", "fails", "timeout", "schema", "migration", "—", "→", "owner", "étape",
         "after", "deploy", "flaky", "test", "metrics", "dashboard", "alert", "on-call", "review")


def _body(rng: random.Random) -> str:
    """A body of a random length in [300, 600] characters, made of whole words."""
    target = rng.randint(301, 600)
    words: list[str] = []
    while len(" ".join(words)) < target:
        words.append(rng.choice(WORDS))
    return " ".join(words)[: target - 1].rstrip() + "."


def tasks() -> list[dict]:
    """The board, the same on every call: id, title, status, assignee, body."""
    rng = random.Random(8)
    return [
        {"id": f"T-{n}", "title": f"{TOPICS[n % len(TOPICS)].capitalize()} #{n}",
         "status": STATUSES[n % len(STATUSES)], "assignee": ASSIGNEES[n % len(ASSIGNEES)],
         "body": _body(rng)}
        for n in range(1, 21)
    ]
