"""`--records PATH`: one row per call, as CSV or Parquet, for the user's own analysis."""

from __future__ import annotations

from pathlib import Path

from ..audit.summary import frame
from ..errors import ToolauditError, UsageError
from ..model import Measurement
from .files import atomic_path


def write_records(rows: list[Measurement], path: Path) -> None:
    """Write the per-call rows, whole or not at all; Parquet needs pyarrow (the `parquet` extra)."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise UsageError(f"--records takes a .csv or .parquet path, not {path.name!r}")
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ToolauditError(
                "writing Parquet needs pyarrow: pip install 'agent-toolaudit[parquet]' (or use a .csv path)",
                slug="parquet-extra") from None
    df = frame(rows)
    with atomic_path(path) as temp:  # the temp name ends in .tmp: pandas must not infer a compression
        if suffix == ".csv":
            df.to_csv(temp, index=False, compression=None)
        else:
            df.to_parquet(temp, index=False)
