"""The Reporter protocol and the one helper that writes a report to a file or stdout."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, ClassVar

from ..registry import Registry
from .files import atomic_write


class Reporter:
    """Renders a result as text. `key` is the `--format` name."""

    key: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        """The whole report as one string."""
        raise NotImplementedError


reporters: Registry[type[Reporter]] = Registry("report", "toolaudit.reports")


def _terminal(stream) -> bool:
    return hasattr(stream, "isatty") and stream.isatty()


def render_report(result: Any, fmt: str, output: str = "-") -> None:
    """Render `result` as `fmt` into `output` (`-`: stdout), whole or not at all (reports.files)."""
    reporter = reporters.get(fmt)()
    to_stdout = output in ("-", "", None)
    color = to_stdout and _terminal(sys.stdout) and "NO_COLOR" not in os.environ
    text = reporter.render(result, color=color)
    if to_stdout:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    atomic_write(Path(output), text)
