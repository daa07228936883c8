"""Reports: one module per output format behind one small protocol.

Format and view modules are imported when first used (base.BUILTIN, view.VIEW_MODULES):
`--help` and `--version` import none of them, and a scan report imports only its own.
"""

from .base import render_report, reporters

__all__ = ["render_report", "reporters"]
