"""An independent count of Claude Code usage, shared by the collector and the billing tests."""

from __future__ import annotations

import json
from pathlib import Path


def independent_usage(path: Path, best: dict | None = None) -> dict[str, int]:
    """Usage summed by hand: once per message.id, the largest output_tokens, no <synthetic> lines.

    Nested subagent messages in agent_progress lines count when the subagent's own file is absent.
    """
    best = {} if best is None else best
    for raw in open(path, encoding="utf-8"):
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(line, dict):
            continue
        messages = []
        if line.get("type") == "assistant":
            messages.append(line.get("message"))
        data = line.get("data")
        if line.get("type") == "progress" and isinstance(data, dict) and data.get("type") == "agent_progress":
            own = path.parent / path.stem / "subagents" / f"agent-{data.get('agentId')}.jsonl"
            inner = data.get("message") or {}
            if not own.exists() and inner.get("type") == "assistant":
                messages.append(inner.get("message"))
        for m in messages:
            if not isinstance(m, dict) or m.get("model") == "<synthetic>" or not isinstance(m.get("usage"), dict):
                continue
            u = m["usage"]
            if m["id"] not in best or u.get("output_tokens", 0) > best[m["id"]].get("output_tokens", 0):
                best[m["id"]] = u
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
    return {k: sum(u.get(k) or 0 for u in best.values()) for k in keys}



def independent_totals(folder: Path) -> tuple[int, int, int, int]:
    """(uncached input, cache write, cache read, output) over every file under `folder`.

    A message id seen in two files (a resumed session's copy) counts once, as in a scan.
    """
    best: dict[str, dict] = {}
    for path in sorted(folder.rglob("*.jsonl")):
        independent_usage(path, best)
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
    return tuple(sum(u.get(k) or 0 for u in best.values()) for k in keys)
