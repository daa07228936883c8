"""Reports: one module per output format behind one small protocol."""

from importlib import import_module

from .base import render_report, reporters

for _name in ("scan_data", "sim_data", "gate_view", "compare_view", "replay_view", "table_report", "json_report", "csv_report", "markdown_report",
              "junit_report", "html_report"):
    import_module(f"{__name__}.{_name}")

__all__ = ["render_report", "reporters"]
