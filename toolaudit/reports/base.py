"""The Reporter protocol and the one helper that writes a report to a file or stdout."""

from __future__ import annotations

import os
import shutil
import sys
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar

from ..registry import Registry, entry_points_of
from ..files import atomic_write


class Reporter:
    """Renders a result as text. `key` is the `--format` name."""

    key: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        """The whole report as one string."""
        raise NotImplementedError


# built-in formats: key -> module, imported on first use so that start-up stays fast
BUILTIN = {"table": "table_report", "json": "json_report", "csv": "csv_report", "markdown": "markdown_report",
           "junit": "junit_report", "html": "html_report"}


class Reporters(Registry):
    """The report registry: built-in modules are imported when a reporter is first asked for."""

    def _load_plugins(self) -> None:
        if not self._plugins_loaded:
            for module in BUILTIN.values():
                import_module(f"{__package__}.{module}")
        super()._load_plugins()

    def keys(self) -> list[str]:
        """Every format's key without importing any format module (plugins by entry-point name)."""
        return list(BUILTIN) + [ep.name for ep in self._plugins() if ep.name not in BUILTIN]

    def get(self, key: str):
        """The reporter for `key`, importing only its own module when it is a built-in no plugin replaces
        (a JSON report need not import rich's tables, nor the HTML report's modules)."""
        if key in BUILTIN and all(ep.name != key for ep in self._plugins()):
            import_module(f"{__package__}.{BUILTIN[key]}")  # it registers itself
            return self._items[key]
        return super().get(key)

    def _plugins(self):
        return entry_points_of(self.group)


reporters: Reporters = Reporters("report", "toolaudit.reports")


def _terminal(stream) -> bool:
    return hasattr(stream, "isatty") and stream.isatty()


def render_report(result: Any, fmt: str, output: str = "-", **options: Any) -> None:
    """Render `result` as `fmt` into `output` (`-`: stdout), whole or not at all (toolaudit.files).

    On a terminal the reporter gets its width (and colour unless NO_COLOR); piped or to a
    file, no width. `options` go to the reporter as they are (the table's `layout`).
    """
    reporter = reporters.get(fmt)()
    to_stdout = output in ("-", "", None)
    terminal = to_stdout and _terminal(sys.stdout)
    if terminal and fmt == "html":  # a page of inline SVG is for a browser: pages of markup on a terminal help no one
        from ..errors import UsageError

        raise UsageError("-f html writes a page for a browser: give -o report.html (or pipe it: `> report.html`)",
                         slug="html-to-terminal")
    color = terminal and "NO_COLOR" not in os.environ
    width = shutil.get_terminal_size((100, 24)).columns if terminal else None
    text = reporter.render(result, color=color, width=width, **options)
    if to_stdout:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    atomic_write(Path(output), text)
