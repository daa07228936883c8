"""The CLI end to end: exit codes first, then what the user reads."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd

from conftest import SAMPLES
from toolaudit.cli import cli

CLAUDE = SAMPLES / "claude-code" / "-home-dev-shop"
TOOL_FIELDS = ["tool", "calls", "tokens", "share", "tokens_mean", "tokens_p50", "tokens_p95",
               "tokens_max", "chars", "bytes", "error_calls", "agent_truncated_calls"]


def test_every_command_has_help(run):
    cli.load_all()  # the commands' modules are imported when a command runs
    assert len(cli.commands) >= 11

    def walk(group, prefix):
        for name, cmd in group.commands.items():
            assert cmd.help, f"{prefix}{name} has no help text"
            result = run(*prefix.split(), name, "--help")
            assert result.exit_code == 0
            if hasattr(cmd, "commands"):
                walk(cmd, f"{prefix}{name} ")

    walk(cli, "")


def test_scan_sample_table(run):
    result = run("scan", CLAUDE, "-j", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.splitlines()[0].split()[:3] == ["tool", "calls", "tokens"]
    assert "\x1b[" not in out  # piped: plain text
    assert "duplicates dropped: 3" in out and "TOTAL" in out
    assert "images: 1 (6,144 bytes" in out


def test_json_schema_contract(scan_json):
    doc = scan_json(CLAUDE)
    assert doc["schema_version"] == 1
    assert set(doc["meta"]) >= {"version", "tokenizer", "engine", "created", "inputs", "estimated"}
    assert doc["meta"]["tokenizer"] == "o200k_base" and doc["meta"]["estimated"] is False
    for row in doc["tools"]:
        assert list(row) == TOOL_FIELDS
    assert doc["tools"] == sorted(doc["tools"], key=lambda r: -r["tokens"])
    totals = doc["totals"]
    assert totals["calls"] == sum(r["calls"] for r in doc["tools"]) == 15
    assert totals["tokens"] == sum(r["tokens"] for r in doc["tools"])
    assert abs(sum(r["share"] for r in doc["tools"]) - 1) < 1e-4
    assert totals["duplicates_dropped"] == 3 and totals["sessions"] == 2 and totals["files"] == 3
    assert doc["skipped"] == {"count": 0, "first": []}
    bash = next(r for r in doc["tools"] if r["tool"] == "Bash")
    assert (bash["calls"], bash["error_calls"], bash["agent_truncated_calls"]) == (3, 1, 1)


def test_by_agent_and_parallel_jobs_agree(run, scan_json):
    doc = scan_json(CLAUDE, "--by", "agent")
    assert [g["agent"] for g in doc["groups"]][:2] == ["main", "b41c9d2"] or {g["agent"] for g in doc["groups"]} == {"main", "b41c9d2"}
    parallel = run("scan", CLAUDE, "-f", "json", "-j", "2", "-q")
    assert parallel.exit_code == 0
    assert json.loads(parallel.stdout)["tools"] == scan_json(CLAUDE)["tools"]


def test_missing_path_is_a_usage_error(run):
    result = run("scan", "no/such/dir")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error:")


def test_unknown_collector_suggests(run):
    result = run("scan", CLAUDE, "--from", "claude-cod")
    assert result.exit_code == 2
    assert "did you mean 'claude-code'" in result.stderr


def test_strict_fails_on_a_broken_line(run, tmp_path):
    good = (CLAUDE / "9a0b7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d.jsonl").read_text()
    path = tmp_path / "s.jsonl"
    path.write_text(good + "{broken\n")
    lenient = run("scan", path, "-f", "json", "-q")
    assert lenient.exit_code == 0
    assert json.loads(lenient.stdout)["skipped"]["first"] == [f"{path}:{len(good.splitlines()) + 1}: invalid JSON: "
                                                              + json.loads(lenient.stdout)["skipped"]["first"][0].split("invalid JSON: ")[1]]
    strict = run("scan", path, "--strict")
    assert strict.exit_code == 1
    assert "--strict" in strict.stderr and str(path) in strict.stderr


def test_unrecognised_file_is_named_and_others_still_scanned(run, tmp_path):
    (tmp_path / "notes.json").write_text('{"hello": "world"}')
    (tmp_path / "s.jsonl").write_text((CLAUDE / "9a0b7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d.jsonl").read_text())
    result = run("scan", tmp_path, "-f", "json")
    assert result.exit_code == 0
    assert "notes.json" in result.stderr and "toolaudit list collectors" in result.stderr
    # the resumed file alone: its copied Grep, its own Bash and Write; the copied Read lost its result
    totals = json.loads(result.stdout)["totals"]
    assert (totals["calls"], totals["unpaired_calls"]) == (3, 1)


def test_default_locations(run, tmp_path):
    empty = run("scan", env={"HOME": str(tmp_path), "CODEX_HOME": "", "CLAUDE_CONFIG_DIR": ""})
    assert empty.exit_code == 1 and "no PATH given" in empty.stderr
    projects = tmp_path / ".claude" / "projects"
    projects.mkdir(parents=True)
    (projects / "s.jsonl").write_text((CLAUDE / "9a0b7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d.jsonl").read_text())
    found = run("scan", "-f", "json", env={"HOME": str(tmp_path), "CODEX_HOME": "", "CLAUDE_CONFIG_DIR": ""})
    assert found.exit_code == 0
    assert f"scanning {projects}" in found.stderr


def test_formats_and_output_file(run, tmp_path):
    out = tmp_path / "r.csv"
    assert run("scan", CLAUDE, "-f", "csv", "-o", out).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert list(rows[0]) == TOOL_FIELDS + ["tokenizer"] and rows[-1]["tool"] == "TOTAL"
    assert rows[0]["tokenizer"] == "o200k_base (exact, engine auto)"
    md = run("scan", CLAUDE, "-f", "markdown")
    assert md.exit_code == 0
    assert md.stdout.startswith("### toolaudit scan") and "| **TOTAL** |" in md.stdout


def test_records_csv_and_parquet(run, tmp_path):
    for name in ("calls.csv", "calls.parquet"):
        path = tmp_path / name
        assert run("scan", CLAUDE, "--records", path, "-q").exit_code == 0
        df = pd.read_csv(path) if name.endswith(".csv") else pd.read_parquet(path)
        assert len(df) == 15 and {"tool", "tokens", "source", "line", "residency"} <= set(df.columns)
    bad = run("scan", CLAUDE, "--records", tmp_path / "calls.txt")
    assert bad.exit_code == 2


def test_top_previews_args_and_redacts_content(run, tmp_path):
    path = tmp_path / "calls.jsonl"
    path.write_text(
        '{"type":"assistant","sessionId":"s","uuid":"1","message":{"id":"m","content":[{"type":"tool_use",'
        '"id":"t","name":"Bash","input":{"command":"env"}}]}}\n'
        '{"type":"user","sessionId":"s","uuid":"2","message":{"content":[{"type":"tool_result","tool_use_id":"t",'
        '"content":"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz123456 HOME=/root"}]}}\n')
    hidden = run("scan", path, "--top", "1")
    assert hidden.exit_code == 0
    assert '{"command":"env"}' in hidden.stdout and "HOME=/root" not in hidden.stdout
    shown = run("scan", path, "--top", "1", "--show-content", "-f", "json")
    preview = json.loads(shown.stdout)["top"][0]["output_preview"]
    assert "HOME=/root" in preview and "sk-proj" not in preview and "[REDACTED]" in preview


def test_approx_is_labelled_estimated(run, scan_json):
    doc = scan_json(CLAUDE, "--tokenizer", "approx")
    assert doc["meta"]["estimated"] is True and doc["meta"]["tokenizer"] == "approx"
    table = run("scan", CLAUDE, "--tokenizer", "approx")
    assert "tokens (estimated)" in table.stdout and "estimated" in table.stdout.splitlines()[-2] + table.stdout


def test_pyproject_config_and_unknown_key(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.toolaudit]\ntokenizer = "cl100k_base"\n')
    result = run("scan", CLAUDE, "-f", "json", "-q")
    assert result.exit_code == 0 and json.loads(result.stdout)["meta"]["tokenizer"] == "cl100k_base"
    assert json.loads(run("scan", CLAUDE, "-f", "json", "-q", "--tokenizer", "o200k_base").stdout)["meta"]["tokenizer"] == "o200k_base"
    (tmp_path / "pyproject.toml").write_text('[tool.toolaudit]\ntokeniser = "cl100k_base"\n')
    bad = run("scan", CLAUDE)
    assert bad.exit_code == 2 and "did you mean 'tokenizer'" in bad.stderr


def test_list_collectors(run):
    result = run("list", "collectors")
    assert result.exit_code == 0
    keys = [line.split()[0] for line in result.stdout.splitlines()]
    assert {"claude-code", "codex", "openai-chat", "anthropic-messages", "toolaudit-jsonl"} <= set(keys)


def test_unreadable_files_are_reported_and_the_scan_goes_on(run, tmp_path, monkeypatch):
    import builtins

    (tmp_path / "a.jsonl").write_text((CLAUDE / "9a0b7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d.jsonl").read_text())
    locked = tmp_path / "b.jsonl"
    locked.write_text("{}\n")
    real_open = builtins.open

    def guarded(file, *args, **kwargs):  # root reads any file, so refuse this one by hand
        if str(file) == str(locked):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded)
    result = run("scan", tmp_path, "-f", "json", "-j", "1")
    assert result.exit_code == 0
    assert f"{locked}: cannot read: Permission denied" in result.stderr
    assert json.loads(result.stdout)["errors"] == [f"{locked}: cannot read: Permission denied"]


def test_unknown_config_sub_table_is_an_error(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.toolaudit.simulate.polices.Grep]\npreview_chars = 100\n')
    result = run("simulate", CLAUDE, "--max-chars", "100")
    assert result.exit_code == 2 and "did you mean 'policies'" in result.stderr


def test_no_command_shows_the_help(run):
    for args in ((), ("list",)):
        result = run(*args)
        assert result.exit_code == 0 and result.stdout.startswith("Usage:") and not result.stderr


def test_strict_fails_on_an_unreadable_file(run, tmp_path, monkeypatch):
    import builtins

    locked = tmp_path / "b.jsonl"
    locked.write_text((CLAUDE / "9a0b7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d.jsonl").read_text())
    real_open = builtins.open

    def guarded(file, *args, **kwargs):
        if str(file) == str(locked):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded)
    assert run("scan", tmp_path, "-j", "1", "-q").exit_code == 0
    strict = run("scan", tmp_path, "-j", "1", "-q", "--strict")
    assert strict.exit_code == 1 and "Permission denied (--strict)" in strict.stderr


def test_older_subagent_layout_counts_the_same(scan_json, tmp_path):
    """2.0.x wrote agent-<id>.jsonl beside the session: its own records still win over progress copies."""
    import shutil

    old = tmp_path / "old"
    old.mkdir()
    for path in CLAUDE.glob("*.jsonl"):
        shutil.copy(path, old / path.name)
    shutil.copy(next(CLAUDE.rglob("agent-*.jsonl")), old / "agent-b41c9d2.jsonl")
    new, before = scan_json(CLAUDE)["totals"], scan_json(old)["totals"]
    assert (before["calls"], before["tokens"], before["carried_tokens"]) == (new["calls"], new["tokens"], new["carried_tokens"])
