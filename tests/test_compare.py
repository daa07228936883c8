"""`toolaudit compare`: two constructed conditions whose per-run numbers, and so medians, are known.

Outputs are runs of one ASCII letter and counted with `--tokenizer approx` (ceil(chars/4)),
so a run's bytes and tokens follow from the lengths written here.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path, PurePath

import pandas as pd
import pytest

from toolaudit.compare.engine import Grouping, parse_group_by, run_files
from toolaudit.compare.sides import Side, usage_frame
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


def write_jsonl(path: Path, calls: list[tuple[str, int]], letter: str = "x", session: str | None = None) -> None:
    """A toolaudit-jsonl run: one line per call; the session is the file name unless given."""
    named = {"session": session} if session else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"tool": t, "output": letter * n, "call_id": f"c{i}", **named})
                            + "\n" for i, (t, n) in enumerate(calls)), encoding="utf-8")


def write_claude(path: Path, session: str, calls: list[tuple[str, int]], billed: list[int],
                 agent: str | None = None) -> None:
    """A Claude Code session: one request per call plus a last one; request i is billed `billed[i]` input tokens.

    With `agent`, the file of one of the session's subagents (as <session>/subagents/agent-<id>.jsonl holds).
    """
    assert len(billed) == len(calls) + 1
    env = {"sessionId": session, "cwd": "/w", "version": "2.1.0", "isSidechain": bool(agent)}
    if agent:
        env["agentId"] = agent
    ids = f"{session}-{agent}" if agent else session

    def assistant(i, content):
        # input split over the three parts Usage.input_total adds up
        usage = {"input_tokens": billed[i] - 30, "cache_creation_input_tokens": 20,
                 "cache_read_input_tokens": 10, "output_tokens": 5}
        return {"type": "assistant", "uuid": f"{ids}-a{i}", **env, "message": {
            "id": f"msg-{ids}-{i}", "model": "claude-sonnet-4-5", "role": "assistant", "usage": usage,
            "content": content}}

    lines = [{"type": "user", "uuid": f"{ids}-u", **env, "message": {"role": "user", "content": "go"}}]
    for i, (tool, n) in enumerate(calls):
        call_id = f"toolu-{ids}-{i}"
        lines.append(assistant(i, [{"type": "tool_use", "id": call_id, "name": tool, "input": {}}]))
        lines.append({"type": "user", "uuid": f"{ids}-r{i}", **env, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": "y" * n}]}})
    lines.append(assistant(len(calls), [{"type": "text", "text": "done"}]))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def write_mini(path: Path, instance: str, outputs: list[int], billed: int) -> None:
    """A mini-swe-agent trajectory (tool-call mode): one bash call per output of that many chars.

    The session is the instance id, whatever the folder: the same instance in run1/ and run2/
    is what made runs merge. Each request is billed `billed` input tokens.
    """
    def response(i):
        return {"response": {"id": f"resp-{i}", "model": "gpt-5",
                             "usage": {"prompt_tokens": billed, "completion_tokens": 5}}}

    messages = [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "fix it"}]
    for i, n in enumerate(outputs):
        call = {"id": f"call-{i}", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
        messages.append({"role": "assistant", "content": "", "tool_calls": [call], "extra": response(i)})
        messages.append({"role": "tool", "tool_call_id": f"call-{i}", "content": "z" * n})
    messages.append({"role": "assistant", "content": "done", "extra": response(len(outputs))})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"trajectory_format": "mini-swe-agent-1.1", "instance_id": instance, "info": {},
                                "messages": messages}), encoding="utf-8")


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
    assert runs[("a", "fix", "run2")] == {"side": "a", "task": "fix", "run": "run2", "file": "fix/run2.jsonl",
                                          "tokens": 600, "bytes": 2400, "calls": 3, "billed_input": None,
                                          "tool_output_usd": None}  # these transcripts name no model


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


@pytest.mark.parametrize("group_by", [None, "0", "1", "2", "3", r"re:(run\d)"])
def test_one_instance_in_several_run_folders_is_several_runs(run, compare_json, tmp_path, group_by):
    # A/task1/run<i>/acme__x-1.traj.json: each run names its session after the instance, not the run
    outputs = {"A": [[400], [800, 400], [2000]], "B": [[400], [400], [400, 400]]}
    for side, runs in outputs.items():
        for i, sizes in enumerate(runs, 1):
            write_mini(tmp_path / side / "task1" / f"run{i}" / "acme__x-1.traj.json", "acme__x-1", sizes, 1000 * i)
    args = (tmp_path / "A", tmp_path / "B") + (("--group-by", group_by) if group_by else ())
    doc = compare_json(*args)
    assert doc["sides"]["a"]["runs"] == 3 and doc["sides"]["b"]["runs"] == 3  # at every --group-by
    # tokens per run: A 100, 300, 500; B 100, 100, 200
    assert metric(doc["overall"], "tokens") == (300, 100, -200, -66.67, 3, 3)
    assert metric(doc["overall"], "calls") == (1, 1, 0, 0.0, 3, 3)
    # billed: (calls + 1) requests × 1,000 i: A 2,000, 6,000, 6,000; B 2,000, 4,000, 9,000
    assert metric(doc["overall"], "billed_input") == (6000, 4000, -2000, -33.33, 3, 3)
    runs = [r for r in doc["runs"] if r["side"] == "a"]
    assert {r["run"] for r in runs} == {"acme__x-1"}
    assert [(r["file"], r["calls"]) for r in sorted(runs, key=lambda r: r["file"])] == [
        ("task1/run1/acme__x-1.traj.json", 1), ("task1/run2/acme__x-1.traj.json", 2),
        ("task1/run3/acme__x-1.traj.json", 1)]
    tasks = {"0": ["(all)"], "2": ["run1", "run2", "run3"], "3": ["acme__x-1.traj.json"],
             r"re:(run\d)": ["run1", "run2", "run3"]}.get(group_by, ["task1"])
    assert [t["task"] for t in doc["tasks"]] == tasks
    if group_by is None:
        table = run("compare", *args, "--tokenizer", "approx", "-j", "1", "-q").stdout
        assert "runs that share a session id within a task, told apart by their files: A 3, B 3" in table


def test_a_subagent_file_joins_its_parents_run_at_every_level(compare_json, tmp_path):
    project = tmp_path / "A" / "t1" / "-w"
    write_claude(project / "s1.jsonl", "s1", [("Read", 400)], [1000, 1500])                          # 2,500
    write_claude(project / "s1" / "subagents" / "agent-x1.jsonl", "s1", [("Grep", 800)], [500, 700],  # 1,200
                 agent="x1")
    write_claude(project / "s2.jsonl", "s2", [("Read", 40)], [900, 1100])                            # 2,000
    write_claude(tmp_path / "B" / "t1" / "-w" / "s3.jsonl", "s3", [("Read", 40)], [1000, 1000])
    for level in range(6):
        doc = compare_json(tmp_path / "A", tmp_path / "B", "--group-by", str(level))
        assert doc["sides"]["a"]["runs"] == 2, level  # not 3 once LEVEL reaches the subagents folder
        runs = {r["run"]: r for r in doc["runs"] if r["side"] == "a"}
        assert runs["s1"]["file"] == "t1/-w/s1.jsonl"  # the parent's transcript names the run and its task
        assert (runs["s1"]["calls"], runs["s1"]["tokens"], runs["s1"]["billed_input"]) == (2, 300, 3700)
        assert metric(doc["overall"], "billed_input")[0] == 2850
        task = ["(all)", "t1", "-w", "s1.jsonl", "s1.jsonl", "s1.jsonl"][level]
        assert runs["s1"]["task"] == task
    # a folder of sessions, one with its subagents/ folder: still one task by default
    doc = compare_json(project, tmp_path / "B" / "t1" / "-w")
    assert doc["meta"]["group_by"] == "0" and [t["task"] for t in doc["tasks"]] == ["(all)"]
    assert doc["sides"]["a"]["runs"] == 2


def test_run_places():
    """Which files make one run: a path without extensions and a session (unit, on constructed records)."""
    files = {  # source below /r -> session
        "t/run.1.jsonl": "x", "t/run.2.jsonl": "x",              # two files, one session id: two runs
        "t/y.json": "y", "t/y.jsonl": "y",                       # one name, two extensions: one run
        "t/p.jsonl": "p", "t/p/subagents/agent-1.jsonl": "p",    # Claude Code: <s>.jsonl and <s>/subagents/
        "t/chat-1.jsonl": "uuid-1", "t/uuid-1/sub.jsonl": "uuid-1",  # Gemini CLI: chats/<session id>/
        "t/q.jsonl": "q", "t/q/other.jsonl": "not-q",            # another session in a folder named like a file
        "t.jsonl": "s", "t/run9/r.traj.json": "r",               # a task folder named like a file: apart
        "u/s.jsonl": "s", "u/agent-a1.jsonl": "s",               # older Claude Code: agent-<id>.jsonl beside
        "u/acme.traj.json": "acme", "u/acme-2.traj.json": "acme",  # a rerun saved beside the first: apart
    }
    calls = pd.DataFrame([("/r/" + f, s, "Read", 1, 1, "paired") for f, s in files.items()],
                         columns=["source", "session", "tool", "tokens", "bytes", "status"])
    side = Side("A", "/r", calls, usage_frame([]))
    got = {row.source[3:]: (row.run, row.file) for row in run_files(side).itertuples()}
    assert got == {
        "t/run.1.jsonl": ("x", "t/run.1.jsonl"), "t/run.2.jsonl": ("x", "t/run.2.jsonl"),
        "t/y.json": ("y", "t/y.json"), "t/y.jsonl": ("y", "t/y.json"),
        "t/p.jsonl": ("p", "t/p.jsonl"), "t/p/subagents/agent-1.jsonl": ("p", "t/p.jsonl"),
        "t/chat-1.jsonl": ("uuid-1", "t/chat-1.jsonl"), "t/uuid-1/sub.jsonl": ("uuid-1", "t/chat-1.jsonl"),
        "t/q.jsonl": ("q", "t/q.jsonl"), "t/q/other.jsonl": ("not-q", "t/q/other.jsonl"),
        "t.jsonl": ("s", "t.jsonl"), "t/run9/r.traj.json": ("r", "t/run9/r.traj.json"),
        "u/s.jsonl": ("s", "u/s.jsonl"), "u/agent-a1.jsonl": ("s", "u/s.jsonl"),
        "u/acme.traj.json": ("acme", "u/acme.traj.json"), "u/acme-2.traj.json": ("acme", "u/acme-2.traj.json"),
    }


def test_a_report_is_not_runs(run, conditions, tmp_path):
    a, b = conditions
    for command in ("scan", "compare"):
        report = tmp_path / f"{command}.json"
        args = (a,) if command == "scan" else (a, b)
        assert run(command, *args, "--tokenizer", "approx", "-f", "json", "-o", report, "-j", "1", "-q").exit_code == 0
        result = run("compare", report, b, "-q")
        assert result.exit_code == 2, result.output
        assert f"is a `toolaudit {command}` JSON report" in result.output
        assert "no runs in" not in result.output
        assert "folders of transcripts" in result.output and "`scan --records`" in result.output
    # junit is `ci`'s: compare offers the other formats
    result = run("compare", a, b, "-f", "junit", "-q")
    assert result.exit_code == 2 and "'junit' is not one of" in result.output
    assert "[csv|html|json|markdown|table]" in run("compare", "--help").stdout
