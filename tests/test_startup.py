"""Start-up stays light: heavy libraries are imported only where used (timings live in benchmarks/bench_startup.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ONE_FILE = ROOT / "sample_logs" / "claude-code" / "-home-dev-shop" / "9a0b7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d.jsonl"
HEAVY = ("pandas", "numpy", "pyarrow", "genai_prices", "altair", "vl_convert", "toktok", "rs_bpe", "tiktoken")


def _imported_after(args: list[str], watch: tuple[str, ...] = HEAVY) -> set[str]:
    """The `watch` (HEAVY) modules loaded in a fresh interpreter after `toolaudit ARGS` (an empty list: only the import)."""
    code = (
        "import io, json, sys, contextlib\n"
        "from toolaudit.cli import cli\n"
        f"args = {args!r}\n"
        "if args:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        try:\n"
        "            cli.main(args)\n"
        "        except SystemExit as exc:\n"
        "            assert exc.code == 0, exc.code\n"
        f"print(json.dumps(sorted(m for m in {watch!r} if m in sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_importing_the_cli_imports_nothing_heavy():
    assert _imported_after([]) == set()


def test_help_and_version_import_nothing_heavy():
    assert _imported_after(["--help"]) == set()
    assert _imported_after(["scan", "--help"]) == set()


def test_a_scan_imports_no_pandas_and_approx_builds_no_vocabulary(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLAUDIT_CACHE_DIR", str(tmp_path))
    # a small workload: the engine that loads fast (tokenizers.engine_for)
    assert _imported_after(["scan", str(ONE_FILE), "-q", "-j", "1"]) == {"rs_bpe"}
    # the same file again, from the scan cache: nothing to count, no vocabulary at all
    assert _imported_after(["scan", str(ONE_FILE), "-q", "-j", "1"]) == set()
    assert _imported_after(["scan", str(ONE_FILE), "-q", "-j", "1", "--no-cache", "--engine", "toktok"]) == {"toktok"}
    assert _imported_after(["scan", str(ONE_FILE), "-q", "-j", "1", "--tokenizer", "approx", "-f", "json"]) == set()


def test_the_check_sees_a_heavy_import():
    # the probe must notice what a command does import: --cost prices with genai-prices
    assert "genai_prices" in _imported_after(["scan", str(ONE_FILE), "-q", "-j", "1", "--cost",
                                              "--tokenizer", "approx"])


def test_a_json_report_imports_no_other_report_module():
    # rich's console and tables are the table report's; html and xml the HTML report's (40 ms at start-up)
    others = ("rich.console", "rich.table", "html", "xml.etree.ElementTree", "toolaudit.reports.table_report")
    assert _imported_after(["scan", str(ONE_FILE), "-q", "-j", "1", "--tokenizer", "approx", "-f", "json"],
                           others) == set()
    assert "rich.table" in _imported_after(["scan", str(ONE_FILE), "-q", "-j", "1", "--tokenizer", "approx"], others)
