"""`--calls-out FILE`: every replayed call as toolaudit-jsonl, so scan, simulate, compare and ci read it.

Each line keeps the recorded session, call id, agent, model, timestamp and request index;
`output` is the new output (the recorded one for calls that were not re-run), `tool` the
tool the call went to. `replay_status` (and `replay_reason`) say what happened; the
toolaudit-jsonl collector ignores those keys. The file is written beside its destination
and renamed into place when complete, so a failed run never leaves half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


class CallsWriter:
    """Writes replayed calls to a temporary file; `commit()` renames it into place, `abort()` removes it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        folder = self.path.parent if str(self.path.parent) else Path(".")
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=folder)
        self._tmp = Path(tmp)
        self._fh = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        self.count = 0

    def write(self, replay_file) -> None:
        """The calls of one runner.ReplayFile, duplicates left out."""
        for item in replay_file.calls:
            if item.status == "duplicate":
                continue
            # a refused or failed call was not replayed: its recording stands, as the report's sizes count it
            call = item.after if item.after is not None and item.status not in ("refused", "failed") else item.before
            line = {"tool": call.tool, "args": item.args if item.args is not None else call.args,
                    "output": call.output, "session": call.session, "call_id": call.call_id or None,
                    "agent": call.agent, "is_error": call.is_error, "ts": call.ts, "model": call.model,
                    "request": call.request_index, "replay_status": item.status}
            if call.status == "unpaired":
                del line["output"]  # still no output: a calls-file line, as it came
            if item.reason:
                line["replay_reason"] = item.reason
            if call.images:
                line["images"] = call.images  # counted, never text: the output holds the text parts only
            self._fh.write(json.dumps({k: v for k, v in line.items() if v is not None}, ensure_ascii=False) + "\n")
            self.count += 1

    def commit(self) -> None:
        """Flush, sync and rename into place."""
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        """Remove the temporary file (the destination is left as it was)."""
        self._fh.close()
        self._tmp.unlink(missing_ok=True)
