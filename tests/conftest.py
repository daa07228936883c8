"""Shared fixtures: the real corpus beside the repo, the samples, a CLI runner."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

# The tests' own scan cache (toolaudit.scan.cache), never the user's: set before any scan, removed at exit;
# each test then gets an empty one of its own (fresh_scan_cache), so that no test is served another's rows
_CACHE = tempfile.mkdtemp(prefix="toolaudit-test-cache-")
os.environ["TOOLAUDIT_CACHE_DIR"] = _CACHE
# no statusline test starts a resident server behind its back: tests/test_resident.py starts and stops its own
os.environ["TOOLAUDIT_NO_RESIDENT"] = "1"
atexit.register(shutil.rmtree, _CACHE, True)

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
CORPUS = ROOT.parent / "shared" / "corpus"


def run_git(repo: Path, *args: str) -> str:
    """git in `repo` with a fixed identity and no user or system configuration; its stdout, stripped."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": str(repo), "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def committed_repo(repo: Path, files: dict[str, str] | None = None, message: str = "start") -> str:
    """`repo` made a git repository holding `files` (path -> text, written first) and whatever it already has,
    committed; the commit's id."""
    for rel, text in (files or {}).items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", message]):
        run_git(repo, *args)
    return run_git(repo, "rev-parse", "HEAD")


# One Hypothesis profile for the whole suite: no deadline and no too-slow health check (a busy
# machine is not a bug), and in CI the same examples on every run, with no example database.
_IN_CI = bool(os.environ.get("CI"))
settings.register_profile("toolaudit", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          derandomize=_IN_CI, **({"database": None} if _IN_CI else {}))
settings.load_profile("toolaudit")


@pytest.fixture(autouse=True)
def fresh_scan_cache(monkeypatch, tmp_path_factory):
    """An empty scan cache for each test: a test that breaks a collector on purpose reads its files, and
    a scan made twice in one test is served from the cache as a user's would be."""
    monkeypatch.setenv("TOOLAUDIT_CACHE_DIR", str(tmp_path_factory.mktemp("scan-cache")))


@pytest.fixture
def corpus() -> Path:
    """../shared/corpus, or a skip that says why."""
    if not CORPUS.is_dir():
        pytest.skip(f"real corpus not found at {CORPUS} (../shared/corpus beside the repo)")
    return CORPUS


@pytest.fixture
def run():
    """Invoke the CLI; returns the click Result (assert exit_code first)."""
    from toolaudit.cli import cli

    def invoke(*args: str, env: dict | None = None, input: str | None = None):
        return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False, env=env, input=input)

    return invoke


@pytest.fixture
def scan_json(run):
    """Run `scan ... -f json -j 1` and return the parsed document."""

    def scan(*args: str) -> dict:
        result = run("scan", *args, "-f", "json", "-j", "1", "-q")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return scan


@pytest.fixture(autouse=True)
def json_outputs_match_their_schema(monkeypatch):
    """Every `-f json` document a test makes is checked against docs/schema/<command>-1.json.

    The JSON reporter is wrapped, so stdout and `-o` files alike are checked; a mismatch fails
    the test with pytest.fail (a BaseException, which the CLI's catch-all does not swallow).
    """
    from toolaudit.reports.json_report import JsonReport

    render = JsonReport.render

    def checked(self, result, **options):
        text = render(self, result, **options)
        problems = schema_problems(json.loads(text))
        if problems:
            pytest.fail("JSON output does not match its schema:\n" + "\n".join(problems), pytrace=False)
        return text

    monkeypatch.setattr(JsonReport, "render", checked)


_VALIDATORS: dict = {}


def schema_problems(doc) -> list[str]:
    """Where a toolaudit JSON document (one with meta.command) breaks its committed schema; [] if none."""
    from jsonschema import Draft202012Validator

    from toolaudit.reports.schema import BUILDERS, schema_path

    command = doc.get("meta", {}).get("command") if isinstance(doc, dict) else None
    if command not in BUILDERS:
        return []
    if command not in _VALIDATORS:
        _VALIDATORS[command] = Draft202012Validator(json.loads(schema_path(command).read_text(encoding="utf-8")))
    return [f"{schema_path(command).name}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
            for e in _VALIDATORS[command].iter_errors(doc)]


def pytest_terminal_summary(terminalreporter):
    """Say once, at the end and loudly, that the browser tests did not run for want of Chromium."""
    skipped = terminalreporter.stats.get("skipped", [])
    if any("chromium is not installed" in str(getattr(report, "longrepr", "")) for report in skipped):
        terminalreporter.write_sep("!", "the HTML report's browser tests were SKIPPED: no Chromium found "
                                   "(Debian: apt-get install chromium; .ci/run installs it)", red=True, bold=True)
