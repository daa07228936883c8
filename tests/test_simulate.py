"""simulate end to end: constructed sessions with known answers, the CLI, presets on the corpus."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from conftest import SAMPLES
from toolaudit.simulate.presets import PRESETS

SIM_FIELDS = ["tool", "calls", "affected_calls", "tokens_before", "tokens_after", "tokens_saved", "saved_pct",
              "chars_before", "chars_after", "bytes_before", "bytes_after", "weighted_tokens_saved",
              "agent_truncated_calls", "errors_cut", "json_broken", "later_used"]
KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban"


class Session:
    """Writes a small Claude Code session: calls, results, the model's text."""

    def __init__(self):
        self.lines: list[dict] = []
        self.n = 0

    def _env(self, **kw) -> dict:
        self.n += 1
        return {"sessionId": "s1", "uuid": f"u{self.n}", "timestamp": f"2026-01-01T00:00:{self.n:02d}Z", **kw}

    def call(self, tool: str, args: dict, output: str, *, text: str | None = None, is_error: bool = False):
        mid = f"m{self.n}"
        content = ([{"type": "text", "text": text}] if text else []) + [
            {"type": "tool_use", "id": f"t{self.n}", "name": tool, "input": args}]
        tid = f"t{self.n}"
        self.lines.append(self._env(type="assistant", message={"id": mid, "model": "claude-x", "content": content}))
        block = {"type": "tool_result", "tool_use_id": tid, "content": output}
        if is_error:
            block["is_error"] = True
        self.lines.append(self._env(type="user", message={"content": [block]}))
        return self

    def say(self, text: str):
        self.lines.append(self._env(type="assistant", message={"id": f"m{self.n}", "model": "claude-x",
                                                                "content": [{"type": "text", "text": text}]}))
        return self

    def write(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        return path


def simulate(run, *args) -> dict:
    result = run("simulate", *args, "-f", "json", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _grep_100(tmp_path: Path) -> Path:
    matches = [f"src/pkg/module_{i:03d}.py:{i + 10}:    value = compute(x)  # ordinary line {i}" for i in range(100)]
    matches[79] = "src/legacy/only_here.py:42:    raise ConfigError('stale cache')  # the one that matters"
    return (Session()
            .call("Grep", {"pattern": "compute|ConfigError", "path": "src"}, "\n".join(matches))
            .call("Read", {"file_path": "src/legacy/only_here.py"}, "def load():\n    raise ConfigError('stale cache')")
            .write(tmp_path / "grep.jsonl"))


def test_later_used_counts_what_only_the_cut_part_named(run, tmp_path):
    path = _grep_100(tmp_path)
    cut = simulate(run, path, "--max-matches", "50", "--tool", "Grep")
    assert cut["totals"]["later_used"] == 1 and cut["totals"]["affected_calls"] == 1
    grep = next(t for t in cut["tools"] if t["tool"] == "Grep")
    assert grep["later_used"] == 1
    whole = simulate(run, path, "--max-matches", "100", "--tool", "Grep")
    assert whole["totals"]["later_used"] == 0 and whole["totals"]["affected_calls"] == 0


def test_explain_names_what_was_hidden_and_where_it_was_used(run, tmp_path):
    path = _grep_100(tmp_path)
    result = run("simulate", path, "--max-matches", "50", "--tool", "Grep", "--explain", "1", "-j", "1")
    assert result.exit_code == 0
    assert "src/legacy/only_here.py" in result.stdout
    assert f"used later at {path}:3" in result.stdout


def test_errors_cut_and_json_broken(run, tmp_path):
    log = "FAILED tests/test_a.py::test_x - AssertionError\n" + "\n".join(f"ok line {i}" for i in range(200))
    doc = json.dumps({"items": [{"id": i, "name": f"item {i}"} for i in range(200)]})
    path = (Session()
            .call("Bash", {"command": "pytest"}, log, is_error=True)
            .call("list_items", {}, doc)
            .write(tmp_path / "s.jsonl"))
    tail = simulate(run, path, "--tail-lines", "20")
    assert tail["totals"]["errors_cut"] == 1
    head = simulate(run, path, "--head-lines", "20")
    assert head["totals"]["errors_cut"] == 0
    cap = simulate(run, path, "--max-chars", "500")
    assert cap["totals"]["json_broken"] == 1
    assert next(t for t in cap["tools"] if t["tool"] == "list_items")["json_broken"] == 1


def test_an_output_the_agent_already_cut_is_never_credited(run, tmp_path):
    already = "x" * 15000 + "\n\n... [48211 characters truncated] ...\n\n" + "y" * 15000
    path = Session().call("Bash", {"command": "make"}, already).write(tmp_path / "s.jsonl")
    doc = simulate(run, path, "--max-chars", "1000")
    totals = doc["totals"]
    assert (totals["affected_calls"], totals["tokens_saved"], totals["agent_truncated_calls"]) == (0, 0, 1)
    assert doc["agent_truncated"] == {"claude-code": 1}


def test_weighted_saving_is_saved_times_residency(run, tmp_path):
    session = Session().call("Read", {"file_path": "a.txt"}, "word " * 4000)
    for i in range(3):
        session.call("Bash", {"command": f"echo {i}"}, "ok")
    doc = simulate(run, session.write(tmp_path / "s.jsonl"), "--max-chars", "1000", "--tool", "Read")
    read = next(t for t in doc["tools"] if t["tool"] == "Read")
    # the read's output is carried by the requests m2, m4 and m6: residency 3
    assert read["weighted_tokens_saved"] == 3 * read["tokens_saved"] > 0


def test_json_contract_and_sample_figures(run):
    doc = simulate(run, KANBAN, "--preview-chars", "100")
    assert doc["schema_version"] == 1 and doc["meta"]["command"] == "simulate"
    assert doc["meta"]["policies"] == ["*: search-preview(preview_chars=100)"]
    for row in doc["tools"]:
        assert list(row) == SIM_FIELDS
    grep = next(t for t in doc["tools"] if t["tool"] == "Grep")
    assert grep["affected_calls"] == 1 and grep["tokens_after"] < grep["tokens_before"]
    assert doc["totals"]["tokens_saved"] == sum(t["tokens_saved"] for t in doc["tools"])


def test_sweep_is_one_row_per_value_and_matches_single_runs(run, tmp_path):
    result = run("simulate", KANBAN, "--sweep", "max_chars=2000,5000,20000", "-f", "csv", "-j", "1")
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["value"] for r in rows] == ["2000", "5000", "20000"]
    saved = [float(r["saved_pct"]) for r in rows]
    assert saved == sorted(saved, reverse=True)
    single = simulate(run, KANBAN, "--max-chars", "5000")
    assert float(rows[1]["saved_pct"]) == single["totals"]["saved_pct"]
    ranged = simulate(run, KANBAN, "--sweep", "preview_chars=0:500:50")
    assert [r["value"] for r in ranged["sweep"]] == [str(v) for v in range(0, 501, 50)]


def test_usage_errors(run, tmp_path):
    assert run("simulate", KANBAN).exit_code == 2  # no policy at all
    bad = run("simulate", KANBAN, "--preset", "codexx")
    assert bad.exit_code == 2 and "did you mean 'codex'" in bad.stderr
    policy = tmp_path / "p.toml"
    policy.write_text('[Grep]\npreveiw_chars = 100\n')
    typo = run("simulate", KANBAN, "--policy-file", policy)
    assert typo.exit_code == 2 and "did you mean 'preview_chars'" in typo.stderr
    assert run("simulate", KANBAN, "--sweep", "max_chars").exit_code == 2


def test_policy_file_and_pyproject(run, tmp_path, monkeypatch):
    policy = tmp_path / "p.toml"
    policy.write_text('[Grep]\npreview_chars = 100\n\n["mcp__*"]\nno_body = true\n\n[default]\nmax_chars = 100000\n')
    doc = simulate(run, KANBAN, "--policy-file", policy)
    affected = {t["tool"] for t in doc["tools"] if t["affected_calls"]}
    assert affected == {"Grep", "mcp__kanban__list_tasks"}
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.toolaudit.simulate.policies.Grep]\npreview_chars = 0\n')
    doc = simulate(run, KANBAN)
    assert {t["tool"] for t in doc["tools"] if t["affected_calls"]} == {"Grep"}


def test_flags_win_over_a_preset(run):
    preset = simulate(run, KANBAN, "--preset", "claude-code")
    both = simulate(run, KANBAN, "--preset", "claude-code", "--max-lines", "100", "--tool", "Read")
    read = lambda d: next(t for t in d["tools"] if t["tool"] == "Read")  # noqa: E731
    assert read(both)["tokens_after"] < read(preset)["tokens_after"]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_runs_on_the_whole_corpus(run, corpus, name):
    doc = simulate(run, corpus, SAMPLES, "--preset", name)
    assert doc["totals"]["calls"] > 300
    assert doc["totals"]["tokens_after"] <= doc["totals"]["tokens_before"] or name == "claude-code"


def test_a_parallel_call_is_not_later_use(run, tmp_path):
    """Two calls written in one message: the second's arguments came before the first's output."""
    matches = "\n".join(f"src/mod{i}.py:{i}:match here" for i in range(100))
    lines = [
        {"type": "assistant", "sessionId": "s", "uuid": "1", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "g", "name": "Grep", "input": {"pattern": "match"}}]}},
        {"type": "assistant", "sessionId": "s", "uuid": "2", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "r", "name": "Read", "input": {"file_path": "src/mod77.py"}}]}},
        {"type": "user", "sessionId": "s", "uuid": "3", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "g", "content": matches}]}},
        {"type": "user", "sessionId": "s", "uuid": "4", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "r", "content": "x = 1"}]}},
    ]
    path = tmp_path / "par.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    doc = simulate(run, path, "--max-matches", "50", "--tool", "Grep")
    assert doc["totals"]["affected_calls"] == 1 and doc["totals"]["later_used"] == 0


def test_explain_never_shows_a_secret(run, tmp_path):
    log = "\n".join(["filler"] * 400 + ["export GITHUB_TOKEN=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"])
    path = Session().call("Bash", {"command": "env"}, log).write(tmp_path / "s.jsonl")
    result = run("simulate", path, "--head-lines", "10", "--explain", "1", "-j", "1")
    assert result.exit_code == 0 and "ghp_" not in result.stdout
    doc = simulate(run, path, "--head-lines", "10", "--explain", "1")
    assert "ghp_" not in json.dumps(doc)


def test_a_blob_does_not_stall_the_evidence_scan(run, tmp_path):
    blob = "f0" * 200_000  # one 400 KB hex token: item extraction must stay linear
    path = Session().call("Bash", {"command": "xxd"}, blob).write(tmp_path / "s.jsonl")
    doc = simulate(run, path, "--max-chars", "1000")
    assert doc["totals"]["affected_calls"] == 1


def test_sweep_conflicts_are_usage_errors(run):
    both = run("simulate", KANBAN, "--sweep", "max_chars=100,200", "--max-chars", "50")
    assert both.exit_code == 2 and "give one" in both.stderr
    explain = run("simulate", KANBAN, "--sweep", "max_chars=100,200", "--explain", "2")
    assert explain.exit_code == 2 and "--explain" in explain.stderr
