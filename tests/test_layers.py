"""The house's layer order, read from the imports (AST): no back arrows, and each job in its own package.

model/errors/registry/tokenizers/config/storage/options/files/secrets < collectors < scan < simulate < replay
< gate, compare, calibrate, advise < reports < cli. Jobs read collectors and scan; a job's entry module
(`<job>/job.py`) reads its inputs through the pipeline and may call another job's entry point; a job
never imports another job's internals but for the exceptions written down here: replay takes
simulate's cap policies (caps are defined once) and, for its summary, simulate's later-use trace; advise
is simulate's sweeps ranked, so it reads simulate's sink, policy maps and context policies;
reports format the results of every job and import no engine that reads files, runs tools or
parses transcripts; the CLI calls entry points (tests/test_api.py: every command is a thin shell).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "toolaudit"
JOBS = ("scan", "simulate", "replay", "gate", "compare", "calibrate", "advise")
# what each layer must never import
FORBIDDEN = {
    "collectors": (*JOBS, "reports", "cli", "pipeline"),
    "scan": ("simulate", "replay", "gate", "compare", "calibrate", "reports", "cli", "pipeline"),
    "simulate": ("replay", "gate", "compare", "calibrate", "reports", "cli", "pipeline"),
    "replay": ("gate", "compare", "calibrate", "reports", "cli", "pipeline", "simulate.presets",
               "simulate.policymap", "simulate.summary", "simulate.risk"),
    "gate": ("simulate", "replay", "compare", "calibrate", "reports", "cli", "pipeline"),
    "compare": ("simulate", "replay", "gate", "calibrate", "reports", "cli", "pipeline"),
    "calibrate": ("simulate", "replay", "gate", "compare", "reports", "cli", "pipeline"),
    "advise": ("replay", "gate", "compare", "calibrate", "reports", "cli", "pipeline", "simulate.engine",
               "simulate.risk", "simulate.presets"),
    "reports": ("cli", "collectors", "pipeline", "advise.job", "replay.runner", "replay.workspace", "replay.sandbox",
                "replay.builtin", "replay.mcp", "replay.cmd", "replay.python", "simulate.engine", "simulate.risk"),
}
# the one import of simulate's engine replay may make: its summary's later-use trace
ALLOWED = {("replay/summary.py", "simulate.engine"), ("replay/summary.py", "simulate.engine.later_used")}


def _entry_import(where: str, name: str) -> bool:
    """A job's entry module (`<job>/job.py`) may read the inputs through the pipeline and call another job's
    entry point (the gate measures again with scan's, simulate's or replay's; compare scans its sides)."""
    if not where.endswith("/job.py"):
        return False
    return name == "pipeline" or name.startswith("pipeline.") or any(
        name == f"{job}.job" or name.startswith(f"{job}.job.") for job in JOBS)


def _imports(path: Path) -> set[str]:
    """Modules a file imports, as dotted names inside the package (`simulate.policies.base`)."""
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
        where = str(path.relative_to(PACKAGE))
        for name in _imports(path):
            if (where, name) in ALLOWED or _entry_import(where, name):
                continue
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[layer]):
                bad.append(f"{where} imports {name}")
    assert not bad, "\n".join(bad)


def test_each_job_is_a_package_and_the_drawer_is_gone():
    # the folder list reads like the command list: one package per job, no `audit/` drawer
    for job in JOBS:
        assert (PACKAGE / job / "__init__.py").is_file(), job
    assert not (PACKAGE / "audit").exists()
    assert not any(n == "audit" or n.startswith("audit.") for p in PACKAGE.rglob("*.py") for n in _imports(p))


def test_the_check_sees_imports():
    # the walker must find relative and absolute imports, or the test above proves nothing
    names = _imports(PACKAGE / "replay" / "runner.py")
    assert "collectors.discover" in names and "replay.base" in names
