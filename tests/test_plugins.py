"""Plugins: an installed package's entry point adds a report format (toolaudit.registry), and a machine
without any is not made to read every package's metadata to find that out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import json
from toolaudit.reports.base import reporters
from toolaudit import registry
print(json.dumps({"keys": reporters.keys(), "declared": registry._declared("toolaudit.reports"),
                  "render": reporters.get("loud")().render(None) if "loud" in reporters.keys() else None}))
"""


def _probe(path: Path | None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(path) if path else ""}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120,
                         check=True).stdout
    return json.loads(out)


def _plugin(folder: Path) -> Path:
    """A package `loud-report` installed in `folder`: its dist-info declares a `loud` report format."""
    (folder / "loud_report.py").write_text(
        "from toolaudit.reports.base import Reporter, reporters\n\n\n"
        "class Loud(Reporter):\n    key = 'loud'\n\n    def render(self, result, **options):\n        return 'LOUD'\n")
    meta = folder / "loud_report-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: loud-report\nVersion: 1.0\n")
    (meta / "entry_points.txt").write_text("[toolaudit.reports]\nloud = loud_report:Loud\n")
    return folder


def test_an_installed_plugin_adds_its_format(tmp_path):
    found = _probe(_plugin(tmp_path))
    assert found["declared"] is True
    assert found["keys"][-1] == "loud" and found["render"] == "LOUD"


def test_without_plugins_no_metadata_is_read(tmp_path):
    found = _probe(None)
    assert found["declared"] is False and "loud" not in found["keys"] and "json" in found["keys"]
