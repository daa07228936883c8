"""`toolaudit compare`: two constructed conditions whose per-run numbers, and so medians, are known.

Outputs are runs of one ASCII letter and counted with `--tokenizer approx` (ceil(chars/4)),
so a run's bytes and tokens follow from the lengths written here.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path, PurePath

import pytest

from toolaudit.audit.compare import Grouping, parse_group_by
from toolaudit.errors import UsageError

# condition -> task -> run -> [(tool, output chars)]
CALLS = {
    "A": {
        "fix": {"run1": [("Read", 400), ("Grep", 800)],               # 2 calls, 1,200 B, 300 tok
                "run2": [("Read", 400), ("Read", 400), ("Grep", 1600)],  # 3 calls, 2,400 B, 600 tok
                "run3": [("Read", 4000)]},                             # 1 call,  4,000 B, 1,000 tok
        "add": {"run1": [("Bash", 100)],                               # 1 call,    100 B, 25 tok
                "run2": [("Bash", 300)]},                              # 1 call,    300 B, 75 tok
    },
    "B": {
        "fix": {"run1": [("Read", 200)],                               # 1 call,   200 B, 50 tok
                "run2": [("Read", 200), ("Grep", 200)],                # 2 calls,  400 B, 100 tok
                "run3": [("Read", 800)]},                              # 1 call,   800 B, 200 tok
        "add": {"run1": [("Bash", 100), ("Read", 40)]},                # 2 calls,  140 B, 35 tok
        "new": {"run1": [("Bash", 100)]},                              # 1 call,   100 B, 25 tok
    },
}


def write_jsonl(path: Path, calls: list[tuple[str, int]], letter: str = "x") -> None:
    """A toolaudit-jsonl run: one line per call; the session is the file name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"tool": t, "output": letter * n, "call_id": f"c{i}"}) + "\n"
                            for i, (t, n) in enumerate(calls)), encoding="utf-8")


def write_claude(path: Path, session: str, calls: list[tuple[str, int]], billed: list[int]) -> None:
    """A Claude Code session: one request per call plus a last one; request i is billed `billed[i]` input tokens."""
    assert len(billed) == len(calls) + 1
    env = {"sessionId": session, "cwd": "/w", "version": "2.1.0", "isSidechain": False}

    def assistant(i, content):
        # input split over the three parts Usage.input_total adds up
        usage = {"input_tokens": billed[i] - 30, "cache_creation_input_tokens": 20,
                 "cache_read_input_tokens": 10, "output_tokens": 5}
        return {"type": "assistant", "uuid": f"{session}-a{i}", **env, "message": {
            "id": f"msg-{session}-{i}", "model": "claude-sonnet-4-5", "role": "assistant", "usage": usage,
            "content": content}}

    lines = [{"type": "user", "uuid": f"{session}-u", **env, "message": {"role": "user", "content": "go"}}]
    for i, (tool, n) in enumerate(calls):
        call_id = f"toolu-{session}-{i}"
        lines.append(assistant(i, [{"type": "tool_use", "id": call_id, "name": tool, "input": {}}]))
        lines.append({"type": "user", "uuid": f"{session}-r{i}", **env, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": "y" * n}]}})
    lines.append(assistant(len(calls), [{"type": "text", "text": "done"}]))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.fixture
def conditions(tmp_path: Path) -> tuple[Path, Path]:
    """A/<task>/<run>.jsonl and B/<task>/<run>.jsonl from CALLS."""
    for side, tasks in CALLS.items():
        for task, runs in tasks.items():
            for run, calls in runs.items():
                write_jsonl(tmp_path / side / task / f"{run}.jsonl", calls)
    return tmp_path / "A", tmp_path / "B"


@pytest.fixture
def compare_json(run):
    def go(*args) -> dict:
        result = run("compare", *args, "--tokenizer", "approx", "-f", "json", "-j", "1", "-q")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return go


def metric(row: dict, name: str) -> tuple:
    """(A median, B median, change, % change, n A, n B) of one metric of a row."""
    m = row["metrics"][name]
    return (m["a"] and m["a"]["median"], m["b"] and m["b"]["median"], m["change"], m["pct_change"],
            m["a"]["n"] if m["a"] else 0, m["b"]["n"] if m["b"] else 0)


def test_table_prints_the_medians(run, conditions):
    result = run("compare", *conditions, "--tokenizer", "approx", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["all", "runs", "n"]
    # all runs: tokens A 25,75,300,600,1000 -> 300; B 25,35,50,100,200 -> 50
    assert lines[1].split() == ["output", "tokens", "(est.)", "5", "5", "300", "50", "-250", "↓", "83.3%",
                                "25–1,000", "25–200"]
    assert lines[2].split() == ["output", "bytes", "5", "5", "1,200", "200", "-1,000", "↓", "83.3%",
                                "100–4,000", "100–800"]
    assert lines[3].split() == ["calls", "5", "5", "1", "1", "0", "=", "0.0%", "1–3", "1–2"]
    assert not any("billed input" in line for line in lines)  # no usage on either side: the row is left out
    out = result.stdout
    assert "Per task (median per run):" in out and "Per tool (median per run, over the runs that called it):" in out
    assert "only in B: new" in out
    assert "grouped by 1:" in out


def test_json_numbers(compare_json, conditions):
    doc = compare_json(*conditions)
    assert doc["schema_version"] == 1
    assert doc["meta"]["command"] == "compare" and doc["meta"]["group_by"] == "1"
    assert doc["meta"]["estimated"] is True
    assert doc["sides"]["a"] | {"path": None} == {"path": None, "input": "transcripts", "runs": 5, "tasks": 2,
                                                  "runs_with_usage": 0, "files": 5, "skipped_lines": 0}
    overall = doc["overall"]
    assert metric(overall, "tokens") == (300, 50, -250, -83.33, 5, 5)
    assert metric(overall, "bytes") == (1200, 200, -1000, -83.33, 5, 5)
    assert metric(overall, "calls") == (1, 1, 0, 0.0, 5, 5)
    assert overall["metrics"]["billed_input"] == {"a": None, "b": None, "change": None, "pct_change": None}
    assert overall["metrics"]["tokens"]["a"] == {"median": 300, "min": 25, "max": 1000, "n": 5}
    tasks = {t["task"]: t for t in doc["tasks"]}
    assert list(tasks) == ["add", "fix", "new"]
    assert metric(tasks["fix"], "tokens") == (600, 100, -500, -83.33, 3, 3)
    assert metric(tasks["fix"], "calls") == (2, 1, -1, -50.0, 3, 3)
    # an even n: the mean of the two middle values (25 and 75)
    assert metric(tasks["add"], "tokens") == (50, 35, -15, -30.0, 2, 1)
    assert metric(tasks["add"], "calls") == (1, 2, 1, 100.0, 2, 1)
    assert metric(tasks["new"], "tokens") == (None, 25, None, None, 0, 1)
    # median of per-task medians over fix and add: A (600 + 50) / 2, B (100 + 35) / 2
    assert metric(doc["by_task"], "tokens") == (325, 67.5, -257.5, -79.23, 2, 2)
    tools = {t["tool"]: t for t in doc["tools"]}
    assert [t["tool"] for t in doc["tools"]] == ["Read", "Grep", "Bash"]  # by tokens on both sides
    # per tool, over the runs that called it: Read A 100, 200, 1000; B 50, 50, 200, 10
    assert metric(tools["Read"], "tokens") == (200, 50, -150, -75.0, 3, 4)
    assert metric(tools["Grep"], "bytes") == (1200, 200, -1000, -83.33, 2, 1)
    assert "billed_input" not in tools["Read"]["metrics"]
    runs = {(r["side"], r["task"], r["run"]): r for r in doc["runs"]}
    assert len(runs) == 10
    assert runs[("a", "fix", "run2")] == {"side": "a", "task": "fix", "run": "run2", "tokens": 600, "bytes": 2400,
                                          "calls": 3, "billed_input": None}


def test_billed_input_from_claude_code_usage(compare_json, tmp_path):
    a, b = tmp_path / "A", tmp_path / "B"
    write_claude(a / "t1" / "s1.jsonl", "a-s1", [("Read", 400)], [1000, 1500])                  # 2,500
    write_claude(a / "t1" / "s2.jsonl", "a-s2", [("Read", 800), ("Bash", 40)], [1000, 2000, 3000])  # 6,000
    write_claude(a / "t1" / "s3.jsonl", "a-s3", [("Read", 40)], [900, 1100])                    # 2,000
    write_claude(b / "t1" / "s1.jsonl", "b-s1", [], [1000])                                     # no call: 1,000
    write_claude(b / "t1" / "s2.jsonl", "b-s2", [("Read", 100)], [1000, 1200])                  # 2,200
    doc = compare_json(a, b)
    assert doc["sides"]["a"]["runs_with_usage"] == 3 and doc["sides"]["b"]["runs"] == 2
    assert metric(doc["overall"], "billed_input") == (2500, 1600, -900, -36.0, 3, 2)
    assert doc["overall"]["metrics"]["billed_input"]["a"] == {"median": 2500, "min": 2000, "max": 6000, "n": 3}
    # the run with no tool call counts, with zeros
    assert metric(doc["overall"], "calls") == (1, 0.5, -0.5, -50.0, 3, 2)
    assert metric(doc["overall"], "tokens") == (100, 12.5, -87.5, -87.5, 3, 2)


def test_billed_row_in_the_table(run, tmp_path):
    write_claude(tmp_path / "A" / "s1.jsonl", "a-s1", [("Read", 400)], [1000, 1500])
    write_claude(tmp_path / "B" / "s1.jsonl", "b-s1", [("Read", 40)], [1000, 1000])
    result = run("compare", tmp_path / "A", tmp_path / "B", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    billed = next(line for line in result.stdout.splitlines() if line.startswith("billed input"))
    assert billed.split() == ["billed", "input", "1", "1", "2,500", "2,000", "-500", "↓", "20.0%",
                              "2,500–2,500", "2,000–2,000"]
    assert "grouped by 0: one task (all runs)" in result.stdout  # flat folders: one task


def test_group_by_regex_and_the_flat_default(compare_json, tmp_path):
    for side, sizes in (("A", {"fix-r1": 400, "fix-r2": 800, "add-r1": 40}),
                        ("B", {"fix-r1": 200, "fix-r2": 200, "add-r1": 400})):
        for name, n in sizes.items():
            write_jsonl(tmp_path / side / f"{name}.jsonl", [("Read", n)])
    a, b = tmp_path / "A", tmp_path / "B"
    flat = compare_json(a, b)
    assert flat["meta"]["group_by"] == "0" and [t["task"] for t in flat["tasks"]] == ["(all)"]
    assert metric(flat["overall"], "tokens") == (100, 50, -50, -50.0, 3, 3)
    doc = compare_json(a, b, "--group-by", r"re:^(\w+)-r\d+")
    tasks = {t["task"]: t for t in doc["tasks"]}
    assert list(tasks) == ["add", "fix"]
    assert metric(tasks["fix"], "tokens") == (150, 50, -100, -66.67, 2, 2)
    assert metric(tasks["add"], "tokens") == (10, 100, 90, 900.0, 1, 1)
    # without a group the whole match names the task; a path it misses is "(unmatched)"
    doc = compare_json(a, b, "--group-by", "re:fix")
    assert [t["task"] for t in doc["tasks"]] == ["(unmatched)", "fix"]


def test_group_by_level_two(compare_json, tmp_path):
    for side, n in (("A", 400), ("B", 40)):
        write_jsonl(tmp_path / side / "cfg" / "task1" / "r1.jsonl", [("Read", n)])
        write_jsonl(tmp_path / side / "cfg" / "task2" / "r1.jsonl", [("Read", n * 2)])
    doc = compare_json(tmp_path / "A", tmp_path / "B", "--group-by", "2")
    tasks = {t["task"]: t for t in doc["tasks"]}
    assert list(tasks) == ["task1", "task2"]
    assert metric(tasks["task2"], "bytes") == (800, 80, -720, -90.0, 1, 1)
    # level 1 puts both under cfg
    assert [t["task"] for t in compare_json(tmp_path / "A", tmp_path / "B")["tasks"]] == ["cfg"]


def test_grouping_names():
    assert parse_group_by(None) is None
    assert parse_group_by("2") == Grouping("2", level=2)
    assert parse_group_by("0").task(PurePath("t/r.jsonl")) == "(all)"
    assert parse_group_by("1").task(PurePath("t/r.jsonl")) == "t"
    assert parse_group_by("3").task(PurePath("t/r.jsonl")) == "r.jsonl"  # above LEVEL: its own name
    assert parse_group_by(r"re:(\d+)").task(PurePath("t/run7.jsonl")) == "7"
    assert parse_group_by(r"re:(x)?y").task(PurePath("y.jsonl")) == "(unmatched)"  # empty group
    for bad in ("one", "-1", "re:("):
        with pytest.raises(UsageError):
            parse_group_by(bad)


def test_records_file_as_a_side(run, compare_json, conditions, tmp_path):
    a, b = conditions
    for name in ("a.csv", "a.parquet"):
        result = run("scan", a, "--tokenizer", "approx", "--records", tmp_path / name, "-j", "1", "-q")
        assert result.exit_code == 0, result.output
    direct = compare_json(a, b)
    for name in ("a.csv", "a.parquet"):
        doc = compare_json(tmp_path / name, b)
        assert doc["sides"]["a"]["input"] == "records"
        assert doc["tasks"] == direct["tasks"] and doc["overall"] == direct["overall"]
    # a .json list of the same records (what pandas' to_json(orient="records") writes)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "a.csv").read_text(encoding="utf-8"))))
    (tmp_path / "a.json").write_text(json.dumps(
        [{**r, "tokens": int(r["tokens"]), "bytes": int(r["bytes"])} for r in rows]), encoding="utf-8")
    assert compare_json(tmp_path / "a.json", b)["overall"] == direct["overall"]


def test_errors_exit_codes(run, conditions, tmp_path):
    a, b = conditions
    result = run("compare", a, tmp_path / "missing", "-q")
    assert result.exit_code == 2
    assert "does not exist" in result.output
    result = run("compare", a, b, "--group-by", "deep", "-q")
    assert result.exit_code == 2
    assert "--group-by takes a directory level" in result.output
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    result = run("compare", tmp_path / "bad.csv", b, "-q")
    assert result.exit_code == 2 and "not a records file" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("compare", a, empty, "-q")
    assert result.exit_code == 1 and "no runs in" in result.output


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json"])
def test_every_format_renders(run, conditions, fmt, tmp_path):
    out = tmp_path / f"compare.{fmt}"
    result = run("compare", *conditions, "--tokenizer", "approx", "-f", fmt, "-o", out, "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    if fmt == "json":
        assert json.loads(text)["overall"]["metrics"]["tokens"]["b"]["median"] == 50
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        assert list(rows[0]) == ["scope", "key", "metric", "a_n", "a_median", "a_min", "a_max", "b_n", "b_median",
                                 "b_min", "b_max", "change", "pct_change"]
        fix = next(r for r in rows if r["scope"] == "task" and r["key"] == "fix" and r["metric"] == "tokens")
        assert (fix["a_median"], fix["b_median"], fix["change"], fix["pct_change"]) == ("600", "100", "-500", "-83.33")
        assert {r["scope"] for r in rows} == {"overall", "by_task", "task", "tool"}
    elif fmt == "markdown":
        assert text.startswith("### toolaudit compare\n")
        assert "| output tokens (est.) | 5 | 5 | 300 | 50 | -250 | ↓ 83.3% | 25–1,000 | 25–200 |" in text
    else:
        assert "↓ 83.3%" in text
