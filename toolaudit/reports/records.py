"""`--records PATH`: one row per call, as CSV or Parquet, for the user's own analysis."""

from __future__ import annotations

from pathlib import Path

from ..audit.summary import frame
from ..errors import ToolauditError, UsageError
from ..model import Measurement


def write_records(rows: list[Measurement], path: Path) -> None:
    """Write the per-call rows; Parquet needs pyarrow (the `parquet` extra)."""
    df = frame(rows)
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            df.to_csv(path, index=False)
        elif suffix == ".parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                raise ToolauditError(
                    "writing Parquet needs pyarrow: pip install 'agent-toolaudit[parquet]' (or use a .csv path)",
                    slug="parquet-extra") from None
            df.to_parquet(path, index=False)
        else:
            raise UsageError(f"--records takes a .csv or .parquet path, not {path.name!r}")
    except OSError as exc:
        path.unlink(missing_ok=True)
        raise ToolauditError(f"cannot write {path}: {exc.strerror or exc}", slug="write-failed") from None
