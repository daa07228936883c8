"""What a Codex shell command reads that no commit holds: the local repository's own files (`.git/`: its hooks, its
config, Entire's session state) and a path git ignores that the checkout lacks (`.workmux.yaml`, `.beads/README.md`,
`.entire/logs/entire.log`: a tool's local settings, logs and exports), or a path under the agents' own folders
(`.codex/skills/…`, `.codex/hooks.json`: replay.start_state's AGENT_HOMES) that the checkout lacks. Their text was
the recording machine's, and no start state can give it back: such a call is not replayable, with the path named.
A path the replay folder holds (the session's own edit made it) is read as any other."""

from __future__ import annotations

import posixpath
from pathlib import Path

from ..ignored import ignored
from .base import Call
from .codex_homes import agent_homes
from .codex_reads import shell_reads


def local_state(call: Call) -> str | None:
    """Why `call` reads what only the recording machine had (a path under .git/, or one git ignores and the replay
    folder lacks), or None."""
    args = call.args if isinstance(call.args, dict) else {}
    read = shell_reads(call.tool, args, call.cwd)
    shown = (call.cwd or "").rstrip("/")
    if not read or not shown.startswith("/"):
        return None
    inside = [posixpath.relpath(p, shown) for p in read if p == shown or p.startswith(shown + "/")]
    for rel in inside:
        if ".git" in rel.split("/"):
            return f"reads {rel}: the recording machine's repository files (.git/), which no commit holds"
    missing = [rel for rel in inside if rel != "." and not (Path(call.root) / rel).exists()]
    # unless the recording says a path was missing there too (`rg: .claude/skills: No such file or directory`)
    absent = bool(call.params.get("absent"))
    homes = [rel for rel in missing if (rel + "/").startswith(agent_homes()) and not absent]
    if homes:
        return f"reads {homes[0]}: the agents' own folder on the recording machine, which no commit holds"
    # a walk of a folder that holds one (`find .entire`: Entire's logs/, tmp/ and metadata/ beside its settings)
    holding = [home for rel in inside if rel != "." for home in agent_homes()
               if home.startswith(rel.rstrip("/") + "/") and not (Path(call.root) / home).exists() and not absent]
    if holding:
        return f"reads {holding[0]}: the agents' own folder on the recording machine, which no commit holds"
    matched = ignored(Path(call.root), missing)
    first = next((rel for rel in missing if rel in matched), None)
    return f"reads {first}, which git ignores: a local file no commit holds" if first else None
