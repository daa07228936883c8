"""A fresh clone installs the versions the suite passed with, and runs its tests the way the README says."""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, distribution, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)\s*$")


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            match = PIN.match(line)
            assert match, f"constraints.txt: not a `name==version` pin: {line!r}"
            pins[canonicalize_name(match[1])] = match[2]
    return pins


def _needed(name: str, extras: tuple[str, ...] = (), seen: set | None = None) -> set[str]:
    """Every distribution `name[extras]` pulls in on this platform, by the installed metadata."""
    seen = set() if seen is None else seen
    key = (canonicalize_name(name), extras)
    if key in seen:
        return {k for k, _ in seen}
    seen.add(key)
    for text in distribution(name).requires or ():
        req = Requirement(text)
        wanted = req.marker is None or any(req.marker.evaluate({"extra": e}) for e in (extras or ("",)))
        if wanted:
            _needed(req.name, tuple(sorted(req.extras)), seen)
    return {k for k, _ in seen}


def test_every_install_of_the_makefile_takes_the_constraints():
    makefile = (ROOT / "Makefile").read_text()
    installs = [line for line in makefile.splitlines() if re.search(r"pip install(?! --quiet --upgrade pip)", line)]
    assert installs, "the Makefile installs nothing?"
    assert all("-c constraints.txt" in line for line in installs), installs
    assert makefile.count("$(PIP_INSTALL)") == 2  # the main install and the test extras
    # a changed constraints file reinstalls
    assert re.search(r"^\$\(VENV\)/\.installed-main: .*constraints\.txt", makefile, re.M)
    assert re.search(r"^\$\(VENV\)/\.installed: .*constraints\.txt", makefile, re.M)


def test_the_constraints_pin_every_package_the_test_extras_need():
    pins = _pins()
    needed = _needed("agent-toolaudit", ("test",)) - {"agent-toolaudit"}
    assert sorted(needed - set(pins)) == [], "not pinned in constraints.txt"
    # the suite runs with the versions a clone gets (else refresh constraints.txt: docs/development.md)
    drifted = []
    for name in sorted(needed):
        try:
            installed = version(name)
        except PackageNotFoundError:
            continue
        if installed != pins[name]:
            drifted.append(f"{name} {installed} installed, {pins[name]} pinned")
    assert drifted == []


def test_ci_runs_make_test_and_then_the_slow_tests():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^test: install\n\tenv -u PYTHONDONTWRITEBYTECODE \$\(BIN\)/python -m pytest -m 'not slow' -n 2$", makefile, re.M)
    assert re.search(r"^test-slow: install\n\t\$\(BIN\)/python -m pytest -m slow$", makefile, re.M)
    assert re.search(r"^test-all: test test-slow$", makefile, re.M)  # each test once: one marker, both sides
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert ci == ["make test-all"]
    readme = (ROOT / "README.md").read_text()
    assert "make test " in readme and "make test-all" in readme
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"slow: ' in pyproject and "--strict-markers" in pyproject  # a misspelt marker fails, never hides
