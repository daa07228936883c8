"""Trust, round two (issue 18): no write lands on an input or the baseline, a baseline never runs code, the
gate cannot be fooled, and the numbers never contradict themselves. Each test failed before its fix."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from conftest import ROOT, SAMPLES

BASELINE = ROOT / "toolaudit-baseline.json"
CALLS = SAMPLES / "toolaudit-jsonl" / "calls.jsonl"


# ------------------------------------------------------------------ §1 no write lands on an input or the baseline

def test_calls_out_onto_an_input_is_refused_and_the_input_is_whole(tmp_path, run):
    # a 15-line transcript became 2 lines
    transcript = tmp_path / "t.jsonl"
    shutil.copy(CALLS, transcript)
    before = transcript.read_bytes()
    result = run("replay", transcript, "--tool", "Read=builtin:read_file", "--calls-out", transcript)
    assert result.exit_code == 2 and "--calls-out" in result.output and "one of the inputs" in result.output
    assert transcript.read_bytes() == before


def test_ci_never_writes_over_its_baseline(tmp_path, run):
    baseline = tmp_path / "base.json"
    shutil.copy(BASELINE, baseline)
    before = baseline.read_bytes()
    result = run("ci", SAMPLES, "--baseline", baseline, "-o", baseline, "-q")
    assert result.exit_code == 2 and "is the baseline" in result.output
    result = run("ci", SAMPLES, "--baseline", baseline, "-q", env={"GITHUB_STEP_SUMMARY": str(baseline)})
    assert result.exit_code == 2 and "GITHUB_STEP_SUMMARY" in result.output
    assert baseline.read_bytes() == before


def test_update_baseline_onto_an_input_is_refused(tmp_path, run):
    transcript = tmp_path / "calls.jsonl"
    shutil.copy(CALLS, transcript)
    before = transcript.read_bytes()
    result = run("ci", transcript, "--baseline", transcript, "--update-baseline", "-q")
    assert result.exit_code == 2 and transcript.read_bytes() == before


def test_an_unwritable_step_summary_keeps_the_gates_exit_code(tmp_path, run):
    baseline = tmp_path / "base.json"
    doc = json.loads(BASELINE.read_text())
    doc["totals"]["tokens"] = 1  # every call "grew": the gate fails (exit 3)
    baseline.write_text(json.dumps(doc))
    summary = tmp_path / "no" / "such" / "folder" / "summary.md"
    result = run("ci", SAMPLES, "--baseline", baseline, "-q", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 3, result.output
    assert "cannot write GITHUB_STEP_SUMMARY" in result.output


def test_a_step_summary_that_is_a_hard_link_to_a_transcript_is_refused(tmp_path, run):
    # issue 29: the one-writer check compared paths; a hard link has a path of its own and the input's bytes
    inputs = tmp_path / "runs"
    shutil.copytree(SAMPLES / "claude-code", inputs)
    transcript = next(inputs.rglob("*.jsonl"))
    before = transcript.read_bytes()
    for summary in (tmp_path / "summary.md", tmp_path / "other-summary.md"):
        os.link(transcript, summary)
    result = run("ci", inputs, "--baseline", BASELINE, "-q", env={"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")})
    assert result.exit_code == 2 and "hard link to the input" in result.output
    result = run("scan", inputs, "-q", "-o", tmp_path / "other-summary.md")  # every writer, not only the summary
    assert result.exit_code == 2 and "hard link to the input" in result.output
    result = run("scan", transcript, "-q", "-o", tmp_path / "other-summary.md")  # a file given as the input
    assert result.exit_code == 2 and "one of the inputs" in result.output
    assert transcript.read_bytes() == before


# ------------------------------------------------------------------ §1 a baseline is data, never a program

def _replay_baseline(run, tmp_path, workspace: Path, tools: list[str]) -> Path:
    """A replay baseline of the fixture session, its spec then edited as a pull request could edit it."""
    session = ROOT / "tests" / "fixtures" / "search_session.jsonl"
    out = tmp_path / "replay-baseline.json"
    result = run("replay", session, "--workspace", ROOT / "tests" / "fixtures" / "search_repo", "--translate",
                 "shell-search", "--tool", "grep=builtin:grep", "-f", "json", "-o", out, "-q")
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    doc["meta"]["replay_spec"].update(workspace=str(workspace), tools=tools)
    out.write_text(json.dumps(doc))
    return out


def test_ci_never_runs_a_program_a_baseline_names(tmp_path, run, monkeypatch):
    monkeypatch.chdir(ROOT)
    marker = tmp_path / "PWNED"
    evil = f"grep=cmd:sh -c 'touch {marker}'"
    baseline = _replay_baseline(run, tmp_path, ROOT / "tests" / "fixtures" / "search_repo", [evil])
    session = ROOT / "tests" / "fixtures" / "search_session.jsonl"
    result = run("ci", session, "--baseline", baseline, "-q")
    assert result.exit_code == 2 and "a baseline is data" in result.output
    assert not marker.exists()
    # named on the command line, the same mapping is the user's choice
    result = run("ci", session, "--baseline", baseline, "-q", "--tool", evil)
    assert marker.exists()


def test_ci_replays_only_inside_the_checkout_unless_told(tmp_path, run, monkeypatch):
    monkeypatch.chdir(ROOT)
    baseline = _replay_baseline(run, tmp_path, Path("/"), ["grep=builtin:grep"])
    session = ROOT / "tests" / "fixtures" / "search_session.jsonl"
    result = run("ci", session, "--baseline", baseline, "-q")
    assert result.exit_code == 2 and "outside this checkout" in result.output
    result = run("ci", session, "--baseline", baseline, "-q", "--workspace", ROOT / "tests" / "fixtures" / "search_repo")
    assert result.exit_code in (0, 3), result.output


# ------------------------------------------------------------------ §1 leftovers: the whole tree ends with its call

def _running(command: str) -> list[int]:
    """Pids running exactly `command` (its argv joined by spaces), as a program of its own."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
            except OSError:
                continue
            if b" ".join(argv).decode("utf-8", "replace") == command:
                found.append(int(entry.name))
    return found


def test_a_grandchild_in_a_session_of_its_own_ends_with_the_call(tmp_path):
    from toolaudit.replay.sandbox import run as run_program

    if not Path("/proc/self/task").is_dir():
        import pytest

        pytest.skip("needs /proc (Linux)")
    import random

    marker = f"{random.randint(400_000, 499_999) / 1000:.3f}"  # a sleep nobody else runs, this run's own
    result = run_program(["sh", "-c", f"setsid sleep {marker} >/dev/null 2>&1 & echo started"], cwd=tmp_path,
                         timeout=10)
    assert result.stdout == b"started\n"
    assert _running(f"sleep {marker}") == []


# ------------------------------------------------------------------ §2 the gate cannot be fooled

def _scan_doc(run, path) -> dict:
    result = run("scan", path, "-f", "json", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _calls_file(path: Path, tool: str, size: int, n: int = 8) -> Path:
    path.write_text("".join(json.dumps({"tool": tool, "output": "x " * size, "session": "s", "call_id": f"c{i}"}) + "\n"
                            for i in range(n)))
    return path


def test_a_baseline_with_no_calls_is_no_baseline(tmp_path, run):
    empty = tmp_path / "empty"
    empty.mkdir()
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps(_scan_doc(run, empty)))
    for extra in ((), ("--strict",)):
        result = run("ci", empty, "--baseline", baseline, "-q", *extra)
        assert result.exit_code == 2 and "measured no call" in result.output, result.output


def test_a_renamed_tool_that_grew_fails(tmp_path, run):
    # Bash renamed to Shell while its outputs grew 3x: "vanished: Bash" and PASS before
    before = _calls_file(tmp_path / "before.jsonl", "Bash", 100)
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps(_scan_doc(run, before)))
    after = _calls_file(tmp_path / "after.jsonl", "Shell", 300)
    result = run("ci", after, "--baseline", baseline, "--fail-on", "*:tokens.total:+0", "-q")
    assert result.exit_code == 3 and "Bash: vanished" in result.output, result.output
    result = run("ci", after, "--baseline", baseline, "--fail-on", "*:tokens.total:+0", "--allow-vanished", "Bash",
                 "--allow-unjudged", "-q")
    assert result.exit_code == 0, result.output
    # every baseline tool gone and an `unknown` one in its place: a FAIL, not a PASS
    unknown = _calls_file(tmp_path / "unknown.jsonl", "unknown", 100)
    result = run("ci", unknown, "--baseline", baseline, "-q")
    assert result.exit_code == 3 and "vanished" in result.output


def test_a_check_that_judged_nothing_fails(tmp_path, run):
    # --min-calls 1000: "0 of 0 checks passed, 1 not judged" and PASS before
    calls = _calls_file(tmp_path / "calls.jsonl", "Grep", 50)
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps(_scan_doc(run, calls)))
    result = run("ci", calls, "--baseline", baseline, "--fail-on", "*:tokens.total:+5%", "--min-calls", "1000", "-q")
    assert result.exit_code == 3 and "judged nothing" in result.output, result.output
    result = run("ci", calls, "--baseline", baseline, "--fail-on", "*:tokens.total:+5%", "--min-calls", "1000",
                 "--allow-unjudged", "-q")
    assert result.exit_code == 0, result.output


def test_baselines_with_broken_rows_are_refused(tmp_path, run):
    calls = _calls_file(tmp_path / "calls.jsonl", "Grep", 50)
    good = _scan_doc(run, calls)
    for name, change in (("empty", lambda d: d["tools"][0].update(tool="")),
                         ("negative", lambda d: d["tools"][0].update(tokens=-5)),
                         ("duplicate", lambda d: d["tools"].append(dict(d["tools"][0])))):
        doc = json.loads(json.dumps(good))
        change(doc)
        baseline = tmp_path / f"{name}.json"
        baseline.write_text(json.dumps(doc))
        result = run("ci", calls, "--baseline", baseline, "-q")
        assert result.exit_code == 2 and "the baseline" in result.output, (name, result.output)


def test_the_counts_name_the_failed_and_the_passed_apart_in_every_format(tmp_path, run):
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps(_scan_doc(run, _calls_file(tmp_path / "a.jsonl", "Grep", 50))))
    grown = _calls_file(tmp_path / "b.jsonl", "Grep", 90)
    args = ("ci", grown, "--baseline", baseline, "--fail-on", "tokens.total:+5%", "--fail-on", "calls:+0", "-q")
    text = run(*args).output
    assert "1 of 2 checks passed (failed: tokens.total:+5%; passed: calls:+0)" in text
    doc = json.loads(run(*args, "-f", "json").stdout)
    assert doc["summary"] == {"passed": 1, "judged": 2, "not_judged": 0,
                              "text": "1 of 2 checks passed (failed: tokens.total:+5%; passed: calls:+0)"}


def _wait_for(condition, seconds: float = 60.0) -> bool:
    """Poll `condition` until it holds (a generous bound on a busy machine: not a timing assertion)."""
    import time

    for _ in range(int(seconds / 0.05)):  # polls, not a clock: nothing here measures time
        if condition():
            return True
        time.sleep(0.05)
    return condition()


import signal  # noqa: E402

import pytest  # noqa: E402


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_during_replay_leaves_no_worktree_folder_or_tool(tmp_path, signum):
    # SIGTERM/SIGHUP left a registered worktree, a temp folder and the running tool; SIGINT exited 1 silently
    import os
    import subprocess
    import sys

    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "tests" / "fixtures" / "search_repo", repo, symlinks=True)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "x"], check=True)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    import random

    marker = f"{random.randint(300_000, 399_999) / 1000:.3f}"  # a sleep nobody else runs, this run's own
    child = subprocess.Popen(
        [sys.executable, "-m", "toolaudit", "replay", str(ROOT / "tests" / "fixtures" / "search_session.jsonl"),
         "--workspace", str(repo), "--commit", head, "--tool", f"Read=cmd:sleep {marker}", "--timeout", "600", "-q"],
        cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert _wait_for(lambda: _running(f"sleep {marker}")), "the tool never started"
        child.send_signal(signum)
        _out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    name = signal.Signals(signum).name
    assert child.returncode == 128 + signum and f"interrupted ({name})".encode() in err, err
    assert _running(f"sleep {marker}") == []
    assert list(tmp.iterdir()) == []  # the scratch worktree's folder is gone
    listed = subprocess.run(["git", "-C", str(repo), "worktree", "list"], capture_output=True, text=True).stdout
    assert len(listed.strip().splitlines()) == 1, listed  # no registered worktree left


# ------------------------------------------------------------------ §4 bad input

def test_a_line_past_the_limit_is_passed_over_and_memory_stays_bounded(tmp_path):
    import subprocess
    import sys

    import zstandard

    good = json.dumps({"tool": "Read", "output": "ok", "session": "s", "call_id": "c1"}).encode()
    path = tmp_path / "huge.jsonl.zst"
    with open(path, "wb") as raw, zstandard.ZstdCompressor(level=1).stream_writer(raw) as out:
        out.write(good + b"\n")
        piece = b"x" * (1 << 20)
        out.write(b'{"tool": "Read", "output": "')
        for _ in range(512):  # a 512 MiB line, 'x' all along: a few hundred KB compressed
            out.write(piece)
        out.write(b'"}\n' + good.replace(b'"c1"', b'"c2"') + b"\n")
    # the peak of this process's own memory: VmHWM (ru_maxrss would count the pytest process it was forked
    # from, whose size at fork Linux carries over the exec)
    code = ("import json, resource, sys\n"
            "from click.testing import CliRunner\n"
            "from toolaudit.cli import cli\n"
            f"r = CliRunner().invoke(cli, ['scan', {str(path)!r}, '-f', 'json', '-q', '-j', '1'])\n"
            "doc = json.loads(r.stdout)\n"
            "try:\n"
            "    peak = int(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))\n"
            "except (OSError, StopIteration):\n"
            "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "print(json.dumps([doc['totals']['calls'], doc['skipped'], peak]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**__import__("os").environ, "TOOLAUDIT_MAX_LINE_BYTES": str(8 << 20)})
    assert done.returncode == 0, done.stderr
    calls, skipped, peak_kb = json.loads(done.stdout.splitlines()[-1])
    assert calls == 2 and skipped["count"] == 1
    assert "over the 8,388,608 bytes a line may have" in skipped["first"][0]
    assert peak_kb < 400 * 1024, f"peak RSS {peak_kb} KB"  # the line never sits in memory


def test_a_byte_order_mark_costs_no_record(tmp_path, scan_json):
    # a UTF-8 BOM dropped Codex's session_meta: the session lost its id
    sample = sorted((SAMPLES / "codex").glob("*.jsonl"))[0]
    plain = scan_json(sample)
    marked = tmp_path / sample.name
    marked.write_bytes(b"\xef\xbb\xbf" + sample.read_bytes())
    doc = scan_json(marked)
    assert doc["skipped"]["count"] == plain["skipped"]["count"] == 0
    assert doc["totals"] == plain["totals"]
    from toolaudit.collectors.codex import CodexCollector
    from toolaudit.model import SessionInfo

    infos = [r for r in CodexCollector().collect(marked) if isinstance(r, SessionInfo)]
    assert infos and infos[0].session == [r for r in CodexCollector().collect(sample)
                                          if isinstance(r, SessionInfo)][0].session


def test_writing_to_a_folder_is_one_line_not_an_exception_text(run):
    # `-o /` printed "ValueError: PosixPath('/') has an empty name"
    for target in ("/", str(ROOT / "docs")):
        result = run("scan", SAMPLES / "codex", "-o", target, "-q")
        assert result.exit_code == 1 and result.output.strip() == f"error: cannot write {target}: it is a folder; name a file"


def test_tool_names_are_data_in_markdown_and_on_a_terminal(tmp_path, run):
    # an MCP tool's name reached a PR comment as markup, and a terminal as control sequences
    evil = ["<img src=x onerror=alert(1)>", "line\n# heading", "[click](http://evil.example)", "\x1b[31mred\u202egnp"]
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps({"tool": name, "output": "x", "call_id": f"c{i}"}) + "\n"
                            for i, name in enumerate(evil)))
    markdown = run("scan", path, "-f", "markdown", "-q").stdout
    assert "| <img" not in markdown and "\n# heading" not in markdown and "| [click](" not in markdown
    assert "\\<img src=x onerror=alert(1)\\>" in markdown and "\\[click\\]" in markdown
    table = run("scan", path, "-q").stdout
    assert "\x1b" not in table and "\u202e" not in table and "\\x1b[31mred\\u202egnp" in table
    assert "line\\n# heading" in table


# ------------------------------------------------------------------ §5 numbers that never contradict themselves

def _sim(run, path, *args) -> dict:
    result = run("simulate", path, *args, "-f", "json", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_no_cap_makes_an_output_larger(tmp_path, run):
    # matches whose content is just past the preview: "..." costs more than the cut saves (622 -> 625 tokens)
    lines = [f"src/module_{i}.py:{i + 1}:{'x' * 101}" for i in range(40)]
    path = tmp_path / "calls.jsonl"
    path.write_text(json.dumps({"tool": "Grep", "output": "\n".join(lines), "call_id": "g"}) + "\n"
                    + json.dumps({"tool": "Read", "output": "y " * 2600, "call_id": "r"}) + "\n")
    for args in (("--preview-chars", "100"), ("--max-chars", "5000", "--tool", "@read"), ("--max-chars", "5190")):
        totals = _sim(run, path, *args)["totals"]
        assert totals["tokens_after"] <= totals["tokens_before"] and totals["tokens_saved"] >= 0, (args, totals)
        for row in _sim(run, path, *args)["tools"]:
            assert row["tokens_saved"] >= 0, (args, row)


def test_a_grep_whose_paths_hold_spaces_is_previewed_by_its_matches(tmp_path, run):
    # Codex grep output with paths holding spaces: the `path:line:` parser missed them, --explain named
    # an uncut line as removed text
    from toolaudit.simulate.policies import SearchPreview

    lines = [f"docs/My Notes/part {i}.md:{i}:{'word ' * 60}" for i in range(1, 6)]
    cut = SearchPreview(preview_chars=20).apply("\n".join(lines), len)
    assert all(line.startswith(f"docs/My Notes/part {i}.md:{i}:word word") and line.endswith("...")
               for i, line in enumerate(cut.splitlines(), 1)), cut


def test_a_unified_exec_output_that_names_its_command_still_fails_by_its_exit_code():
    from toolaudit.collectors.codex import _failed

    out = ("Command: /bin/bash -lc 'cargo test'\nChunk ID: 7f3a\nWall time: 12.1 seconds\nProcess exited with code 101\n"
           "Original token count: 42\nOutput:\nerror[E0425]: cannot find value")
    assert _failed(out) and not _failed(out.replace("code 101", "code 0"))


def _priced_session(tmp_path, model: str, write_5m: int, write_1h: int) -> Path:
    """A Claude Code session of one request whose usage wrote to the 5-minute and the 1-hour cache."""
    usage = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0,
             "cache_creation_input_tokens": write_5m + write_1h,
             "cache_creation": {"ephemeral_5m_input_tokens": write_5m, "ephemeral_1h_input_tokens": write_1h}}
    env = {"sessionId": "s1", "cwd": "/w", "isSidechain": False, "version": "2.1.38"}
    lines = [
        {**env, "type": "assistant", "uuid": "a", "message": {"id": "m1", "role": "assistant", "model": model,
         "usage": usage, "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/a"}}]}},
        {**env, "type": "user", "uuid": "u", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "     1→hello"}]}},
    ]
    path = tmp_path / f"{model}-{write_1h}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_one_hour_cache_writes_cost_twice_the_input_price(tmp_path, scan_json):
    # --cost priced every cache write at the 5-minute rate: opus-4-6 $0.78 where the 1-hour rate gives $1.00
    hour = scan_json(_priced_session(tmp_path, "claude-opus-4-6", 0, 200_000), "--cost")
    minutes = scan_json(_priced_session(tmp_path, "claude-opus-4-6", 200_000, 0), "--cost")
    assert hour["usage"]["cache_write_1h"] == 200_000 and "cache_write_1h" not in minutes["usage"]
    assert hour["cost"]["billed_usd"] == 2.0  # 200k × $5 × 2 per MTok
    assert minutes["cost"]["billed_usd"] == 1.25  # 200k × $6.25 per MTok


def test_unpriced_models_cost_null_and_every_grouping_has_a_cost_column(tmp_path, scan_json, run):
    doc = scan_json(_priced_session(tmp_path, "a-model-no-table-knows", 0, 1000), "--cost")
    assert doc["cost"]["billed_usd"] is None and doc["usage"]["cost_usd"] is None
    assert all(t["total_usd"] is None for t in doc["cost"]["tools"])
    for by in ("session", "model", "family", "day"):
        text = run("scan", SAMPLES / "claude-code", "--cost", "--by", by, "-q").stdout
        assert "cost (est.)" in text.splitlines()[0], (by, text.splitlines()[0])


def test_scan_and_simulate_drop_the_same_copies(scan_json, run):
    # "duplicates dropped: 3" from scan and "2" from simulate on the same calls of sample_logs
    scan = scan_json(SAMPLES)
    sim = _sim(run, SAMPLES, "--preset", "codex")
    assert scan["totals"]["duplicates_dropped"] == sim["duplicates_dropped"] == 3


def test_simulate_shows_the_selected_tools_and_the_others_as_one_line(run):
    # `simulate --tool Grep` listed the 36 tools it did not touch, a row each
    text = run("simulate", SAMPLES, "--max-matches", "50", "--tool", "Grep", "-q").stdout
    rows = [line.split()[0] for line in text.splitlines()[1:] if line and not line.startswith(("TOTAL", "policy"))]
    assert "Grep" in rows and "Read" not in rows and "Bash" not in rows
    assert any(line.split("  ")[0].endswith("others, untouched") for line in text.splitlines())
    doc = _sim(run, SAMPLES, "--max-matches", "50", "--tool", "Grep")
    assert len(doc["tools"]) > 30  # JSON keeps every tool's row


# ------------------------------------------------------------------ §3 reasons are redacted, on one line

def test_a_python_tools_failure_reason_is_redacted_on_one_line(tmp_path, run, monkeypatch):
    # python: failure reasons and crash stderr were printed raw into tables, JSON reasons[] and the baseline
    key = "sk-ant-" + "api03-" + "Zq8" * 12  # made up here, shaped as a real key
    tool = tmp_path / "leaky_tool.py"
    tool.write_text("def run(args, workspace):\n"
                    f"    raise RuntimeError('cannot auth with {key}\\n-----BEGIN RSA PRIVATE KEY-----\\nMIIB')\n")
    monkeypatch.chdir(tmp_path)
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"tool": "Read", "args": {"path": "a"}}) + "\n")
    for fmt in ("table", "json", "markdown", "csv"):
        result = run("replay", calls, "--workspace", tmp_path, "--tool", "Read=python:leaky_tool:run", "-f", fmt)
        assert result.exit_code == 0, result.output
        assert key not in result.output and "Zq8Zq8Zq8" not in result.output, fmt
        if fmt == "json":
            reasons = [r["reason"] for r in json.loads(result.stdout)["reasons"]]
            assert reasons and all("\n" not in r for r in reasons)


def test_a_step_summary_swapped_for_a_hard_link_after_the_check_is_not_written(tmp_path, monkeypatch):
    # the command checks its writes before it reads; the summary is appended at its end: it is checked again
    # on the file it opened
    import click

    from toolaudit.cli import ci as ci_command

    inputs = tmp_path / "runs"
    shutil.copytree(SAMPLES / "claude-code", inputs)
    transcript = next(inputs.rglob("*.jsonl"))
    before = transcript.read_bytes()
    summary = tmp_path / "summary.md"
    os.link(transcript, summary)  # as if swapped in after the first check
    said: list[str] = []
    monkeypatch.setattr(click, "echo", lambda text, err=False: said.append(text))
    ci_command._append_summary(str(summary), "## verdict\n", [inputs, BASELINE])
    assert transcript.read_bytes() == before and "is the input" in said[0]
    other = tmp_path / "real-summary.md"
    ci_command._append_summary(str(other), "## verdict\n", [inputs, BASELINE])
    assert other.read_text() == "## verdict\n"
