"""The CI gate: checks as tables, the CLI's exit codes, the PR and JUnit reports, gold files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from conftest import SAMPLES
from test_reports_gold import check_gold
from toolaudit.audit.gate import Check, evaluate, gate
from toolaudit.errors import UsageError

GOLD = Path(__file__).parent / "gold"


def doc(tokens=1000, p95=300, grep_mean=50.0, calls=10, tools=("Grep", "Read"), command="scan", tokenizer="o200k_base"):
    rows = [{"tool": t, "calls": calls, "tokens": tokens // len(tools), "tokens_p95": p95,
             "tokens_mean": grep_mean if t == "Grep" else 10.0} for t in tools]
    return {"schema_version": 1, "meta": {"command": command, "tokenizer": tokenizer, "engine": "toktok"},
            "totals": {"tokens": tokens, "calls": calls * len(tools), "later_used": 0}, "tools": rows}


@pytest.mark.parametrize("check, base, now, passes", [
    ("tokens.total:+5%", doc(1000), doc(1050), True),
    ("tokens.total:+5%", doc(1000), doc(1051), False),
    ("tokens.total:+5%", doc(1000), doc(400), True),
    ("tokens.total:-10%", doc(1000), doc(899), False),
    ("*:tokens.p95:+10%", doc(p95=300), doc(p95=330), True),
    ("*:tokens.p95:+10%", doc(p95=300), doc(p95=331), False),
    ("Grep:tokens.mean:+500", doc(grep_mean=50), doc(grep_mean=550), True),
    ("Grep:tokens.mean:+500", doc(grep_mean=50), doc(grep_mean=551), False),
    ("calls:+20%", doc(calls=10), doc(calls=12), True),
    ("calls:+20%", doc(calls=10), doc(calls=13), False),
    ("later_used:+0", doc(), doc(), True),
    ("tokens.total:+5%", doc(0), doc(1), False),  # from 0, any growth is infinite
    ("tokens.total:+5", doc(0), doc(5), True),
])
def test_checks(check, base, now, passes):
    outcomes = evaluate(Check.parse(check), base, now)
    assert outcomes and all(o.passed == passes for o in outcomes)


def test_failure_message_names_tool_metric_numbers_and_limit():
    [outcome] = evaluate(Check.parse("Grep:tokens.mean:+500"), doc(grep_mean=812), doc(grep_mean=1420))
    assert outcome.message() == "Grep: tokens.mean 812 → 1,420 (+608, +74.9%) over the limit +500"


@pytest.mark.parametrize("text", ["tokens", "tokens.total:5%", ":+5%", "tokens.total:+x"])
def test_bad_checks_are_usage_errors(text):
    with pytest.raises(UsageError):
        Check.parse(text)


def test_unknown_metric_suggests():
    with pytest.raises(UsageError, match="did you mean 'tokens_p95'"):
        evaluate(Check.parse("*:tokens_p59:+5%"), doc(), doc())


def test_not_comparable_and_tool_changes():
    result = gate("b.json", doc(), doc(tokenizer="cl100k_base"), [Check.parse("tokens.total:+5%")])
    assert result.verdict == "not comparable" and "tokenizer differs" in result.not_comparable
    result = gate("b.json", doc(tools=("Grep", "Read")), doc(tools=("Read", "Bash")), [Check.parse("*:calls:+0")])
    assert result.new_tools == ("Bash",) and result.vanished_tools == ("Grep",) and result.passed


@pytest.fixture
def corpus_copy(tmp_path):
    """The samples, copied so a test may inflate them."""
    copy = tmp_path / "logs"
    shutil.copytree(SAMPLES, copy)
    return copy


def _inflate_read(folder: Path) -> None:
    """Double every Read result of the Claude Code samples: a PR that made Read verbose."""
    for path in (folder / "claude-code").rglob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for line in lines:
            content = line.get("message", {}).get("content") if isinstance(line.get("message"), dict) else None
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_result" and isinstance(block.get("content"), str) \
                        and "\u2192" in block["content"][:20]:
                    block["content"] = block["content"] * 2
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_ci_passes_then_fails_on_inflated_read(run, corpus_copy, tmp_path):
    base = tmp_path / "baseline.json"
    assert run("scan", corpus_copy, "-f", "json", "-o", base, "-q").exit_code == 0
    ok = run("ci", corpus_copy, "--baseline", base, "-q")
    assert ok.exit_code == 0 and "PASS" in ok.stdout
    _inflate_read(corpus_copy)
    bad = run("ci", corpus_copy, "--baseline", base, "-q", "-f", "markdown")
    assert bad.exit_code == 3
    assert bad.stdout.startswith("### ❌ toolaudit ci: FAIL")
    assert "- failed: total: tokens.total" in bad.stdout and "- failed: Read: tokens.p95" in bad.stdout
    assert "| Read |" in bad.stdout.split("<details>")[0]


def test_junit_and_step_summary(run, corpus_copy, tmp_path):
    base = tmp_path / "baseline.json"
    run("scan", corpus_copy, "-f", "json", "-o", base, "-q")
    _inflate_read(corpus_copy)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    result = run("ci", corpus_copy, "--baseline", base, "-q", "-f", "junit", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 3
    suite = ET.fromstring(result.stdout)
    assert suite.tag == "testsuite" and int(suite.get("failures")) >= 2
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert "tokens.total:+5%" in failed and "*:tokens.p95:+10%" in failed
    assert summary.read_text().startswith("earlier step\n### ❌ toolaudit ci: FAIL")


def test_tokenizer_change_is_not_comparable(run, corpus_copy, tmp_path):
    base = tmp_path / "baseline.json"
    run("scan", corpus_copy, "-f", "json", "-o", base, "-q")
    result = run("ci", corpus_copy, "--baseline", base, "-q", "--tokenizer", "cl100k_base")
    assert result.exit_code == 1
    assert "tokenizer differs: baseline 'o200k_base', now 'cl100k_base'" in result.stdout


def test_update_baseline_and_missing_baseline(run, corpus_copy, tmp_path):
    base = tmp_path / "new.json"
    missing = run("ci", corpus_copy, "--baseline", base)
    assert missing.exit_code == 2 and "no baseline" in missing.stderr
    made = run("ci", corpus_copy, "--baseline", base, "--update-baseline", "-q")
    assert made.exit_code == 0 and "baseline updated on purpose" in made.stderr
    assert json.loads(base.read_text())["meta"]["command"] == "scan"
    assert run("ci", corpus_copy, "--baseline", base, "-q").exit_code == 0


def test_simulate_baseline_runs_the_same_policy(run, corpus_copy, tmp_path):
    base = tmp_path / "sim.json"
    made = run("simulate", corpus_copy, "--max-chars", "5000", "-f", "json", "-o", base, "-q")
    assert made.exit_code == 0
    result = run("ci", corpus_copy, "--baseline", base, "-q", "-f", "json")
    assert result.exit_code == 0
    checks = {c["check"] for c in json.loads(result.stdout)["checks"]}
    assert checks == {"tokens.total:+5%", "later_used:+0"}


def test_fail_on_from_pyproject(run, corpus_copy, tmp_path, monkeypatch):
    base = tmp_path / "baseline.json"
    run("scan", corpus_copy, "-f", "json", "-o", base, "-q")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.toolaudit.ci]\nfail_on = ["calls:+0"]\n')
    result = run("ci", corpus_copy, "--baseline", base, "-q", "-f", "json")
    assert [c["check"] for c in json.loads(result.stdout)["checks"]] == ["calls:+0"]


def test_markdown_gold(run, tmp_path):
    """The PR comment, byte for byte; TOOLAUDIT_REGEN_GOLD=1 rewrites the gold file on purpose."""
    corpus_copy = tmp_path / "logs"
    shutil.copytree(SAMPLES / "claude-code", corpus_copy / "claude-code")
    base = tmp_path / "baseline.json"
    run("scan", corpus_copy, "-f", "json", "-o", base, "-q")
    _inflate_read(corpus_copy)
    text = run("ci", corpus_copy, "--baseline", base, "-q", "-f", "markdown").stdout.replace(str(base), "BASELINE")
    check_gold("ci_fail.md", text)


def test_a_check_on_a_tool_that_is_nowhere_is_a_usage_error_and_a_vanished_one_fails():
    with pytest.raises(UsageError, match="did you mean 'Grep'"):
        evaluate(Check.parse("Grpe:tokens.mean:+500"), doc(), doc())
    [outcome] = evaluate(Check.parse("Grep:tokens.mean:+500"), doc(tools=("Grep", "Read")), doc(tools=("Read",)))
    assert not outcome.passed and outcome.message().startswith("Grep: vanished")
    assert evaluate(Check.parse("*:tokens.p95:+10%"), doc(tools=("Grep", "Read")), doc(tools=("Read",)))


def test_a_different_claude_factor_is_not_comparable(run, corpus_copy, tmp_path):
    from test_calibrate_files import write_calibration

    cal = write_calibration(tmp_path / "cal.json", 1.4)
    base = tmp_path / "baseline.json"
    assert run("scan", corpus_copy, "--tokenizer", "claude", "--calibration", cal, "-f", "json", "-o", base, "-q").exit_code == 0
    assert run("ci", corpus_copy, "--baseline", base, "-q").exit_code == 1
    assert run("ci", corpus_copy, "--baseline", base, "--calibration", cal, "-q").exit_code == 0
