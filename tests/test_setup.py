"""The README's two set-up commands: `make demo` installs what the commands need and no test extra;
`make test` adds the test extras (checked with make's dry run, nothing installed)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _dry_run(target: str) -> list[str]:
    """The commands `make TARGET` would run from scratch (-B: as if nothing were built yet)."""
    done = subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


@needs_make
def test_make_demo_installs_no_test_extra():
    installs = [line for line in _dry_run("demo") if "pip install" in line and "-e" in line]
    assert installs == [".venv/bin/python -m pip install --quiet -c constraints.txt -e '.[html]'"]
    assert any(line.endswith("toolaudit scan sample_logs/") for line in _dry_run("demo"))


@needs_make
def test_make_test_adds_the_test_extras():
    installs = [line for line in _dry_run("test") if "pip install" in line and "-e" in line]
    assert installs[-1].endswith("-e '.[test]'") and "-e '.[html]'" in installs[0]


def test_skipped_browser_tests_are_said_once_at_the_end(tmp_path):
    # the suite's own conftest in a folder of one test skipped as the browser tests skip without Chromium
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_one.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.skipif(True, reason='chromium is not installed (Debian: apt-get install chromium)')\n"
        "def test_a():\n    pass\n\n\n"
        "@pytest.mark.skipif(True, reason='chromium is not installed (Debian: apt-get install chromium)')\n"
        "def test_b():\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True)
    said = [line for line in done.stdout.splitlines() if "browser tests were SKIPPED" in line]
    assert done.returncode == 0 and len(said) == 1, done.stdout
