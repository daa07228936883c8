"""The CI gate: checks as tables, the CLI's exit codes, the PR and JUnit reports, gold files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from conftest import SAMPLES
from test_reports_gold import check_gold
from toolaudit.gate.checks import Allowances, Check, evaluate, gate
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
    assert result.new_tools == ("Bash",) and result.vanished_tools == ("Grep",) and not result.passed
    # a vanished tool fails unless accepted: a rename would hide its growth
    assert [o.scope for o in result.outcomes if not o.passed] == ["Grep"]
    result = gate("b.json", doc(tools=("Grep", "Read")), doc(tools=("Read", "Bash")), [Check.parse("*:calls:+0")],
                  allow=Allowances(vanished=("Grep",)))
    assert result.passed


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
    assert "- failed: total: tokens.total " in bad.stdout
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
    assert suite.tag == "testsuite" and int(suite.get("failures")) == 1
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["tokens.total:+20%"]
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
    from toolaudit.reports.markdown_report import md_text

    text = run("ci", corpus_copy, "--baseline", base, "-q", "-f", "markdown").stdout.replace(md_text(str(base)),
                                                                                             "BASELINE")
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


# --- the gate cannot pass on nothing; it gates on what is stable -------------------------------

def nightly(folder: Path, seed: int, tasks: int = 10, repeats: int = 5, scale: float = 1.0) -> Path:
    """A nightly agent eval: each task run `repeats` times, calls and output sizes varying from run to run.

    toolaudit-jsonl, one file per run (`<task>/run<r>.jsonl`, the session named after the task, as eval
    harnesses do, and the model's call ids unique); `scale` makes every output longer (a real regression).
    """
    import random

    rng = random.Random(seed)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split()
    for t in range(tasks):
        for r in range(repeats):
            lines = []
            for c in range(rng.randint(6, 14) + t % 4):
                tool = ("Read", "Grep", "Bash", "Glob")[rng.randrange(4) if t % 2 else rng.randrange(3)]
                size = int(rng.lognormvariate(4.5 + (t % 3) * 0.3, 0.8) * scale)
                output = " ".join(rng.choice(words) for _ in range(size))
                lines.append(json.dumps({"session": f"task-{t}", "call_id": f"call-{t}-{r}-{c}", "tool": tool,
                                         "args": {}, "output": output, "request": c + 1}))
            path = folder / f"task-{t}" / f"run{r}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(lines) + "\n")
    return folder


def test_per_run_metrics_follow_compare_s_run_rule(scan_json, tmp_path):
    folder = nightly(tmp_path / "n", seed=1, tasks=3, repeats=3)
    totals = scan_json(folder)["totals"]
    per_file = sorted(g["tokens"] for g in scan_json(folder, "--by", "file")["groups"])
    assert totals["runs"] == 9 == len(per_file)  # the same session in nine files is nine runs
    assert totals["tokens_per_run_median"] == per_file[4]
    assert totals["tokens_per_run_p90"] == per_file[8]  # nearest rank: ceil(0.9 × 9) = 9th


def test_defaults_hold_on_reruns_of_the_same_tasks_and_catch_growth(run, tmp_path):
    base = tmp_path / "baseline.json"
    assert run("scan", nightly(tmp_path / "night0", seed=0), "-f", "json", "-o", base, "-q", "-j", "1").exit_code == 0
    for seed in (1, 2, 3):  # three more nights of the same tasks
        again = run("ci", nightly(tmp_path / f"night{seed}", seed=seed), "--baseline", base, "-q", "-j", "1",
                    "-f", "json")
        assert again.exit_code == 0, again.stdout
        checks = {c["check"] for c in json.loads(again.stdout)["checks"]}
        assert "tokens_per_run.median:+20%" in checks
    old = run("ci", tmp_path / "night1", "--baseline", base, "-q", "-j", "1",
              "--fail-on", "tokens.total:+5%", "--fail-on", "*:tokens.p95:+10%", "--min-calls", "0")
    assert old.exit_code == 3  # what the defaults were: they flap on a re-run
    grown = run("ci", nightly(tmp_path / "grown", seed=1, scale=1.5), "--baseline", base, "-q", "-j", "1")
    assert grown.exit_code == 3 and "failed: total: tokens_per_run.median" in grown.stdout


def test_too_few_calls_is_said_not_failed():
    base, now = doc(p95=300, calls=2), doc(p95=900, calls=3)
    outcomes = evaluate(Check.parse("*:tokens.p95:+10%"), base, now, min_calls=5)
    assert outcomes and all(o.passed and o.status == "too few calls" for o in outcomes)
    assert outcomes[0].message() == "Grep: too few calls to judge tokens.p95 (2 → 3 calls, fewer than 5)"
    assert not any(o.passed for o in evaluate(Check.parse("*:tokens.p95:+10%"), base, now, min_calls=2))
    [gone] = evaluate(Check.parse("Grep:tokens.mean:+5"), doc(calls=2, tools=("Grep", "Read")),
                      doc(calls=2, tools=("Read",)), min_calls=5)
    assert gone.passed and gone.status == "too few calls"  # two calls may simply not recur
    [total] = evaluate(Check.parse("tokens.total:+5%"), doc(1000, calls=1), doc(2000, calls=1), min_calls=5)
    assert not total.passed  # the sample rule is for per-tool checks


def test_a_metric_the_baseline_lacks_is_said_not_failed():
    now = doc()
    now["totals"]["tokens_per_run_median"] = 500.0
    [outcome] = evaluate(Check.parse("tokens_per_run.median:+20%"), doc(), now)
    assert outcome.passed and outcome.status == "not in baseline"
    assert "--update-baseline" in outcome.message()


@pytest.mark.parametrize("now, reason", [
    (doc(0, calls=0, tools=()), "nothing measured: 0 calls now, the baseline had 20"),
    (doc(1000, calls=4), "nothing measured: 60% of the baseline's 20 calls vanished (8 now; --max-vanished 50%)"),
])
def test_nothing_measured_fails(now, reason):
    result = gate("b.json", doc(calls=10), now, [Check.parse("tokens.total:+5%")])
    assert result.verdict == "nothing measured" and not result.passed
    assert result.nothing_measured == reason
    assert gate("b.json", doc(calls=10), now, [Check.parse("tokens.total:+5%")], max_vanished=100).passed \
        is (now["totals"]["calls"] > 0)
    assert gate("b.json", doc(0, calls=0, tools=()), doc(0, calls=0, tools=()), []).passed  # nothing then, nothing now


def test_ci_on_an_empty_folder_or_half_the_runs_exits_1(run, corpus_copy, tmp_path):
    base = tmp_path / "baseline.json"
    assert run("scan", corpus_copy, "-f", "json", "-o", base, "-q").exit_code == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("ci", empty, "--baseline", base, "-q", "-f", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["verdict"] == "nothing measured" and report["nothing_measured"].startswith("nothing measured: 0 files")
    junit = ET.fromstring(run("ci", empty, "--baseline", base, "-q", "-f", "junit").stdout)
    assert [f.get("type") for f in junit.iter("failure")] == ["nothing-measured"]
    sim = tmp_path / "sim.json"
    assert run("simulate", corpus_copy, "--max-chars", "500", "-f", "json", "-o", sim, "-q").exit_code == 0
    assert run("ci", empty, "--baseline", sim, "-q").exit_code == 1
    for folder in ("claude-code", "codex", "openai-chat", "openhands", "hermes", "gemini-cli"):
        shutil.rmtree(corpus_copy / folder)
    assert run("ci", corpus_copy, "--baseline", base, "-q").exit_code == 1
    assert run("ci", corpus_copy, "--baseline", base, "-q", "--max-vanished", "95%").exit_code in (0, 3)


def test_max_vanished_and_min_calls_from_pyproject(run, corpus_copy, tmp_path, monkeypatch):
    base = tmp_path / "baseline.json"
    run("scan", corpus_copy, "-f", "json", "-o", base, "-q")
    shutil.rmtree(corpus_copy / "claude-code")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.toolaudit.ci]\nmax_vanished = 5\nmin_calls = 3\n')
    result = run("ci", corpus_copy, "--baseline", base, "-q", "-f", "json")
    assert result.exit_code == 1 and "--max-vanished 5%" in json.loads(result.stdout)["nothing_measured"]


def _locked(monkeypatch, locked: Path) -> None:
    """Make `locked` unreadable, for root too (chmod does not stop root)."""
    import os

    real = os.scandir

    def scandir(path="."):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_an_unreadable_folder_is_in_the_json_errors_and_fails_strict(run, corpus_copy, tmp_path, monkeypatch):
    base = tmp_path / "baseline.json"
    run("scan", corpus_copy, "-f", "json", "-o", base, "-q")
    locked = corpus_copy / "codex"
    _locked(monkeypatch, locked)
    scanned = run("scan", corpus_copy, "-f", "json", "-q", "-j", "1")
    assert scanned.exit_code == 0
    assert json.loads(scanned.stdout)["errors"] == [f"{locked}: cannot read: Permission denied"]
    ci = run("ci", corpus_copy, "--baseline", base, "-q", "-f", "json", "-j", "1")
    assert json.loads(ci.stdout)["errors"] == [f"{locked}: cannot read: Permission denied"]
    for command in (("scan",), ("simulate", "--max-chars", "100"), ("ci", "--baseline", str(base))):
        strict = run(command[0], corpus_copy, *command[1:], "--strict", "-q", "-j", "1")
        assert strict.exit_code == 1 and "cannot read: Permission denied (--strict)" in strict.stderr


@pytest.mark.parametrize("text, says", [
    ('{"meta": []}', "its meta is a list, not an object"),
    ('[{"tool": "Read"}]', "is a JSON list, not a toolaudit scan, simulate or replay result"),
    ('{"schema_version": 99, "meta": {"command": "scan"}, "totals": {}, "tools": []}',
     "was written by a newer toolaudit (schema_version 99; this one reads up to 1)"),
    ('{"schema_version": 1, "meta": {"command": "scan"}, "totals": {"tokens": 1', "is not valid JSON"),
    ('{"schema_version": 1, "meta": {"command": "compare"}, "totals": {}, "tools": []}',
     "is a `compare` result; ci takes a scan, simulate or replay result"),
    ('{"schema_version": 1, "meta": {"command": "scan"}, "totals": [], "tools": []}', "its totals is a list"),
    ('{"schema_version": 1, "meta": {"command": "scan"}, "totals": {}, "tools": [1]}', "its tools[] are not"),
    ('{"schema_version": 1, "meta": {"command": "scan"}, "totals": {"tokens": "many"}, "tools": []}',
     "totals.tokens that is not a number ('many')"),
])
def test_a_malformed_baseline_is_one_usage_line(run, corpus_copy, tmp_path, text, says):
    base = tmp_path / "baseline.json"
    base.write_text(text)
    result = run("ci", corpus_copy, "--baseline", base, "-q", "-j", "1")
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and says in result.stderr, result.stderr
    assert "Error" not in result.stderr


def test_ci_table_orders_ties_by_tool_name():
    from toolaudit.reports.gate_view import tool_changes

    names = ("zeta", "Alpha", "mid", "beta")
    result = gate("b.json", doc(tools=names), doc(tools=names), [])
    assert [r["tool"] for r in tool_changes(result)] == sorted(names)
