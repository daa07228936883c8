"""What every job's result can do for a Python caller: its JSON document and pandas frames.

The JSON is the very document `-f json` prints (the report's view makes it, imported when asked: a
result renders itself through the reports layer, lazily, so importing a result imports no report).
"""

from __future__ import annotations

import json
from dataclasses import asdict, is_dataclass
from typing import Any, Callable, ClassVar


def rows_frame(rows, extra: dict[str, Any] | None = None):
    """A DataFrame of dataclass rows (one column per field), `extra` columns first."""
    import pandas as pd

    records = [{**(extra or {}), **(asdict(r) if is_dataclass(r) else dict(r))} for r in rows]
    return pd.DataFrame.from_records(records)


class Exportable:
    """`.to_dict()`, `.to_json()` and `.to_pandas(what)` for a result; `frames` names what `to_pandas` offers,
    the first being its default."""

    __slots__ = ()
    frames: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def to_dict(self) -> dict:
        """The JSON document `-f json` prints, as Python data (schema: docs/schema/)."""
        from .reports.view import view_of

        return view_of(self).doc(self)

    def to_json(self) -> str:
        """The JSON document `-f json` prints, as text."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def to_pandas(self, what: str | None = None):
        """A pandas DataFrame of the result's rows: `what` is one of `frames` (default: the first)."""
        from .errors import UsageError

        name = what or next(iter(self.frames))
        if name not in self.frames:
            raise UsageError(f"to_pandas({name!r}): one of {', '.join(self.frames)}", slug="frame")
        return with_dates(self.frames[name](self))


# columns that hold a moment (ISO 8601 text in the JSON) or a calendar day, in any frame
MOMENTS = ("ts", "first_ts", "last_ts", "started", "ended", "start", "end", "newest", "oldest", "since", "until")
DAYS = ("day",)


def with_dates(frame):
    """`frame` with its moments as datetime64 in UTC and its days as datetime64 dates (a notebook sorts,
    resamples and plots them; text would sort "2026-1-10" before "2026-1-9" and plot as categories)."""
    import pandas as pd

    for column in frame.columns:
        name = str(column)
        if name.endswith("_ts") or name in MOMENTS:
            if not pd.api.types.is_datetime64_any_dtype(frame[column]):
                frame[column] = pd.to_datetime(frame[column], utc=True, errors="coerce", format="ISO8601")
        elif name in DAYS and not pd.api.types.is_datetime64_any_dtype(frame[column]):
            frame[column] = pd.to_datetime(frame[column], errors="coerce", format="%Y-%m-%d")
    return frame
