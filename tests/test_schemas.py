"""docs/schema/*.json: equal to the generator's output, valid 2020-12 schemas, live on every JSON output."""

from __future__ import annotations

import copy
import json

import pytest
from jsonschema import Draft202012Validator

from conftest import ROOT, SAMPLES, schema_problems
from toolaudit.reports import scan_data
from toolaudit.reports.schema import BUILDERS, COMMANDS, main, schema_path, schema_text

REPLAY = ("replay", ROOT / "tests/fixtures/search_session.jsonl", "--workspace", ROOT / "tests/fixtures/search_repo",
          "--translate", "shell-search", "--tool", "grep=builtin:grep?max_matches=100&max_bytes=10000",
          "--tool", "glob=builtin:glob", "--explain", "2")
# one run of each command, with the options that add optional parts of its document
RUNS = {
    "scan": ("scan", SAMPLES, "--cost", "--by", "model", "--top", "3", "-j", "1"),
    "scan-session": ("scan", SAMPLES, "--cost", "--by", "session", "-j", "1"),
    "simulate": ("simulate", SAMPLES, "--preset", "codex", "--explain", "2", "-j", "1"),
    "simulate-sweep": ("simulate", SAMPLES, "--sweep", "max_chars=2000,5000", "-j", "1"),
    "compare": ("compare", SAMPLES / "claude-code", SAMPLES / "codex", "-j", "1"),
    "ci": ("ci", SAMPLES, "--baseline", "BASELINE", "-j", "1"),
    "replay": REPLAY,
}


@pytest.mark.parametrize("command", COMMANDS)
def test_committed_schema_is_the_generators(command):
    path = schema_path(command)
    assert path.is_file(), f"{path} missing: run python -m toolaudit.reports.schema --write"
    assert path.read_text(encoding="utf-8") == schema_text(command), (
        f"{path.name} differs from toolaudit/reports/schema.py: run python -m toolaudit.reports.schema --write")
    Draft202012Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))


def test_generator_main_reports_stale_files(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("toolaudit.reports.schema.SCHEMA_DIR", tmp_path)
    assert main([]) == 1 and "stale:" in capsys.readouterr().err
    assert main(["--write"]) == 0 and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{c}-1.json" for c in COMMANDS)
    assert main([]) == 0


def test_row_fields_come_from_the_views_tuples():
    # the rows' properties are the tuples the views declare, in their order
    from toolaudit.reports.replay_view import REPLAY_FIELDS
    from toolaudit.reports.sim_data import SIM_FIELDS

    assert list(BUILDERS["scan"]()["properties"]["tools"]["items"]["properties"]) == list(scan_data.TOOL_FIELDS)
    assert list(BUILDERS["simulate"]()["properties"]["tools"]["items"]["properties"]) == list(SIM_FIELDS)
    assert list(BUILDERS["replay"]()["properties"]["tools"]["items"]["properties"]) == [*REPLAY_FIELDS, "as"]


@pytest.mark.parametrize("name", RUNS)
def test_each_command_output_validates(run, name, tmp_path):
    baseline = tmp_path / "codex-only.json"  # ci: the codex sample alone, so the whole samples' tokens grew
    assert run("scan", SAMPLES / "codex", "-f", "json", "-o", baseline, "-j", "1", "-q").exit_code == 0
    args = tuple(baseline if a == "BASELINE" else a for a in RUNS[name])
    result = run(*args, "-f", "json", "-q")
    assert result.exit_code in (0, 3), result.output  # ci fails on purpose: a failed gate's document
    doc = json.loads(result.stdout)
    assert doc["meta"]["command"] == args[0]
    assert schema_problems(doc) == []  # the autouse fixture checked it too; this says so explicitly
    if name == "ci":
        assert doc["verdict"] == "fail" and any(c["status"] == "fail" for c in doc["checks"])


def test_schemas_reject_drift(run):
    doc = json.loads(run(*RUNS["scan"], "-f", "json", "-q").stdout)
    extra = copy.deepcopy(doc)
    extra["tools"][0]["new_field"] = 1
    assert any("new_field" in p for p in schema_problems(extra))
    wrong = copy.deepcopy(doc)
    wrong["totals"]["tokens"] = "52015"
    assert any("/totals/tokens" in p for p in schema_problems(wrong))
    missing = copy.deepcopy(doc)
    del missing["meta"]["tokenizer"]
    assert any("tokenizer" in p for p in schema_problems(missing))
    grouped = copy.deepcopy(doc)
    grouped["groups"][0]["second_key"] = "x"  # a grouped row has exactly one key field
    assert schema_problems(grouped)


def test_the_autouse_check_fails_a_test_whose_json_drifts(run, monkeypatch):
    # a view that grows a field the schema does not know fails any test that renders it
    real = scan_data.row_dict
    monkeypatch.setattr(scan_data, "row_dict", lambda row, key: {**real(row, key), "surprise": 1})
    with pytest.raises(pytest.fail.Exception, match=r"scan-1\.json: /tools/0: .*surprise"):
        run("scan", SAMPLES / "codex", "-f", "json", "-j", "1", "-q")
