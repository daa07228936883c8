"""The house's layer order, read from the imports (AST): no back arrows.

model/errors/registry/tokenizers < collectors < replay < audit < reports < cli, with two
allowed exceptions written down here: audit may read collectors (calibrate asks them for
turn facts; compare finds files), and replay uses only the cap policies and redaction
of audit, never simulate, summaries, reports or the CLI.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "toolaudit"
LAYERS = ("collectors", "replay", "audit", "reports", "cli")
# what each layer must never import
FORBIDDEN = {
    "collectors": ("audit", "replay", "reports", "cli", "pipeline"),
    "replay": ("reports", "cli", "pipeline", "audit.simulate", "audit.summary", "audit.simsummary",
               "audit.replay_summary", "audit.gate", "audit.compare"),
    "audit": ("replay", "reports", "cli"),
    "reports": ("cli", "replay", "collectors"),
}


def _imports(path: Path) -> set[str]:
    """Modules a file imports, as dotted names inside the package (`audit.policies.base`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = path.relative_to(PACKAGE).with_suffix("").parts
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(here[: len(here) - node.level])
                name = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("toolaudit."):
                name = node.module.removeprefix("toolaudit.")
            else:
                continue
            found.add(name)
            found.update(f"{name}.{alias.name}" if name else alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("toolaudit.") for a in node.names if a.name.startswith("toolaudit."))
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_layer_imports_what_sits_above_it(layer):
    bad = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[layer]):
                bad.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not bad, "\n".join(bad)


def test_the_check_sees_imports():
    # the walker must find relative and absolute imports, or the test above proves nothing
    names = _imports(PACKAGE / "replay" / "runner.py")
    assert "collectors.discover" in names and "replay.base" in names
