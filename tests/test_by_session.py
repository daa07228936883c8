"""Which session is which (issue 31.3): `scan --by session` names each session's project, agent and start, in
every format and through the scan cache, and `watch` names a session by its project, one row per subagent."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

import toolaudit
from toolaudit import pipeline
from toolaudit.model import FileResult, Measurement, SessionInfo
from toolaudit.reports.table_report import TableReport
from toolaudit.scan import cache as scan_cache
from toolaudit.scan.cache import resume_from
from toolaudit.scan.cache_rows import decode, encode
from toolaudit.scan.live import snapshot_of
from toolaudit.scan.sessions import project_of, short_id

from conftest import SAMPLES

KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban" / "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5.jsonl"
CODEX = SAMPLES / "codex" / "rollout-2025-10-21T14-02-11-019a06f2-3c41-7d2e-9b8a-4f1e6c2d7a90.jsonl"
GEMINI = SAMPLES / "gemini-cli" / "session-2026-05-12T09-14-3b9c2e71.jsonl"
UUID = "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5"


def _groups(paths, **options) -> dict[str, dict]:
    doc = json.loads(toolaudit.scan(paths, by="session", jobs=1, **options).to_json())
    return {g["session"]: g for g in doc["groups"]}


def test_json_groups_name_each_sessions_project_agent_and_start():
    groups = _groups([SAMPLES])
    kanban = groups[UUID]
    assert (kanban["project"], kanban["agent"], kanban["start"]) == ("kanban", "claude-code", "2026-11-02T14:00:01Z")
    codex = groups["019a06f2-3c41-7d2e-9b8a-4f1e6c2d7a90"]
    assert (codex["project"], codex["agent"]) == ("invoicer", "codex")  # session_meta's cwd
    gemini = groups["3b9c2e71-5d0a-4f6e-9c1b-7a2e8d4f0c13"]
    assert (gemini["project"], gemini["agent"]) == ("weatherbot", "gemini-cli")  # its metadata's directories
    unknown = groups["acme__tinycsv-57"]  # a trajectory that records no folder: null, never a guess
    assert unknown["project"] is None and unknown["agent"] == "mini-swe-agent"
    # the starts are the sessions' first calls or requests, in UTC
    assert all(g["start"] is None or g["start"].endswith("Z") for g in groups.values())


def test_other_groupings_keep_their_rows_as_they_were():
    doc = json.loads(toolaudit.scan([SAMPLES], by="model", jobs=1).to_json())
    assert not any(k in g for g in doc["groups"] for k in ("project", "agent", "start"))


def test_the_terminal_table_at_80_columns_shows_short_ids_projects_and_whole_numbers():
    result = toolaudit.scan([SAMPLES / "claude-code", SAMPLES / "codex"], by="session", cost=True, jobs=1)
    out = TableReport().render(result, width=80)
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    row = next(line for line in lines if line.lstrip().startswith("c3d2e1f0"))
    assert UUID not in out and "…" not in row  # the id's first 8 characters, never its middle cut out
    assert "kanban" in row and "24,866" in row and "$" in row  # project, tokens and billed dollars kept
    head = next(line for line in lines if "session" in line)
    assert head.split()[:2] == ["session", "project"]
    piped = TableReport().render(result)  # scripts read the whole id
    assert UUID in piped and "kanban" in piped and "claude-code" in piped


def test_unpriced_requests_are_counted_in_a_note_and_the_agent_column_stays_at_80_columns(tmp_path):
    from test_billing import _session

    mystery = _session(tmp_path, model="mystery-1")  # three billed requests of a model the price table lacks
    result = toolaudit.scan([SAMPLES, mystery], by="session", cost=True, jobs=1)
    lines = TableReport().render(result, width=80).splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    head = next(line for line in lines if line.split()[:2] == ["session", "project"])
    assert "agent" in head.split() and "billed" in head.split()  # a 19-wide "$0.84 (+3 unpriced)" dropped the agent
    total = next(line for line in lines if line.startswith("TOTAL"))
    assert total.rstrip().endswith("$0.84*") and "unpriced" not in total
    assert "(*: 3 requests without a price left out)" in " ".join(" ".join(lines).split())
    usage = json.loads(result.to_json())["usage"]  # the JSON keeps its numbers
    assert usage["unpriced_requests"] == 3 and usage["cost_usd"] == pytest.approx(0.84, abs=0.005)


@pytest.mark.slow
def test_the_real_sessions_keep_their_agent_column_at_80_columns(corpus):
    result = toolaudit.scan([corpus], by="session", cost=True, jobs=1)
    lines = TableReport().render(result, width=80).splitlines()
    head = next(line for line in lines if line.split()[:2] == ["session", "project"])
    assert "agent" in head.split() and all(len(line) <= 80 for line in lines)


def test_short_ids_are_a_uuids_head_and_any_other_id_whole():
    assert short_id(UUID) == "c3d2e1f0"
    assert short_id("8c2f4e1a9b7d4c3e8f6a2b1c0d9e7f53") == "8c2f4e1a"
    assert short_id("acme__tinycsv-57") == "acme__tinycsv-57"
    assert short_id("runs#run-0418") == "runs#run-0418"


def test_a_project_is_the_folders_name_with_a_secret_masked():
    assert project_of(SessionInfo("s", "x", cwd="/home/dev/kanban")) == "kanban"
    assert project_of(SessionInfo("s", "x", cwd="C:\\Users\\dev\\shop")) == "shop"
    assert project_of(SessionInfo("s", "x", cwd="/home/dev/kanban/")) == "kanban"
    assert project_of(SessionInfo("s", "x", project="/home/dev/weatherbot")) == "weatherbot"
    assert project_of(SessionInfo("s", "x")) is None
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    masked = project_of(SessionInfo("s", "x", cwd=f"/home/dev/{token}"))
    assert token not in masked and "REDACTED" in masked


def _session_copy(tmp_path: Path, cwd: str) -> Path:
    """The kanban sample as a session that worked in `cwd`."""
    lines = []
    for line in KANBAN.read_text().splitlines():
        obj = json.loads(line)
        if "cwd" in obj:
            obj["cwd"] = cwd
        lines.append(json.dumps(obj))
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_project_named_like_a_formula_or_markup_stays_text(tmp_path, run):
    path = _session_copy(tmp_path, "/home/dev/=SUM(1+1)[bold]")
    result = run("scan", path, "--by", "session", "-f", "csv", "-q")
    assert result.exit_code == 0, result.output
    row = next(csv.DictReader(io.StringIO(result.stdout)))
    assert row["project"] == "'=SUM(1+1)[bold]"  # a spreadsheet shows it, never runs it
    table = run("scan", path, "--by", "session", "-q")
    assert table.exit_code == 0 and "=SUM(1+1)[bold]" in table.stdout  # no markup read from it
    markdown = run("scan", path, "--by", "session", "-f", "markdown", "-q")
    assert markdown.exit_code == 0 and "\\[bold\\]" in markdown.stdout


def test_gemini_names_its_project_by_directories_or_its_tmp_folder(tmp_path):
    text = GEMINI.read_text().replace(',"directories":["/home/dev/weatherbot"]', "")
    for folder, expected in (("weatherbot", "weatherbot"), ("a" * 64, None)):  # a slug, or sha256 of the root
        chats = tmp_path / ".gemini" / "tmp" / folder / "chats"
        chats.mkdir(parents=True)
        (chats / GEMINI.name).write_text(text)
        group = _groups([chats])["3b9c2e71-5d0a-4f6e-9c1b-7a2e8d4f0c13"]
        assert group["project"] == expected


def test_the_cache_keeps_each_files_projects_and_a_resumed_read_keeps_them():
    result = pipeline.scan_file(KANBAN, pipeline.FileOptions.of(toolaudit.InputOptions(), previews=False))
    assert result.sessions == ((UUID, "kanban"),)
    assert decode(str(KANBAN), encode(result)).sessions == result.sessions
    resume = resume_from(result)
    assert resume is not None and resume[4] == result.sessions
    # a collector reading on from its checkpoint tells nothing again: the sessions read before are kept
    earlier = (*resume[:4], (("earlier-session", "elsewhere"),))
    grown = pipeline.scan_file(KANBAN, pipeline.FileOptions.of(toolaudit.InputOptions(), previews=False), resume=earlier)
    assert ("earlier-session", "elsewhere") in grown.sessions and (UUID, "kanban") in grown.sessions


def test_cached_kept_and_merged_scans_name_sessions_as_an_uncached_one(tmp_path, monkeypatch):
    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    paths = [SAMPLES / "claude-code", SAMPLES / "codex", SAMPLES / "gemini-cli"]
    uncached = _groups(paths, cache=False)
    assert _groups(paths) == uncached  # folded, each file's fold kept
    assert _groups(paths) == uncached  # the kept summary
    with sqlite3.connect(tmp_path / "cache" / scan_cache.NAME) as db:
        db.execute("DELETE FROM summaries")
    assert _groups(paths) == uncached  # merged from the kept folds
    assert uncached[UUID]["project"] == "kanban"


def test_the_groups_frame_has_project_agent_and_a_datetime_start():
    frame = toolaudit.scan([SAMPLES], by="session", jobs=1).to_pandas("groups")
    assert {"session", "project", "agent", "start"} <= set(frame.columns)
    assert str(frame["start"].dtype).startswith("datetime64") and str(frame["start"].dt.tz) == "UTC"
    row = frame.set_index("session").loc[UUID]
    assert row["project"] == "kanban" and row["agent"] == "claude-code"
    tools = toolaudit.scan([SAMPLES], by="model", jobs=1)
    assert "project" not in tools.to_pandas("groups").columns and "start" not in tools.to_pandas().columns


def _row(source: str, session: str, agent: str, call_id: str, tokens: int = 10) -> Measurement:
    return Measurement(source=source, line=1, collector="claude-code", session=session, agent=agent, tool="Read",
                       call_id=call_id, model=None, ts=None, status="paired", is_error=False, agent_truncated=False,
                       chars=40, bytes=40, lines=None, tokens=tokens, images=0, image_bytes=0, call_index=0,
                       request_index=None, segment=0, residency=None, args_preview="", output_preview=None)


class _Tok:
    label, estimated = "o200k_base", False


def test_watch_gives_each_subagent_one_row_and_names_the_project():
    folder = "/p/-home-dev-kanban"
    main, sub = f"{folder}/{UUID}.jsonl", f"{folder}/{UUID}/subagents/agent-a9cad17.jsonl"
    codex = "/h/.codex/sessions/2026/01/17/rollout-x.jsonl"
    rows = [_row(main, UUID, "main", "m1"), _row(sub, UUID, "a9cad17", "s1"), _row(sub, UUID, "a9cad17", "s2"),
            _row(f"{folder}/{UUID}/subagents/agent-ab00001.jsonl", UUID, "ab00001", "t1"),
            _row(codex, "019a06f2", "main", "c1"), _row("/h/.codex/sessions/2026/01/18/r.jsonl", "019b", "main", "d1")]
    mtimes = {main: 10.0, sub: 20.0, codex: 5.0}
    snap = snapshot_of(rows, mtimes, 7200.0, 30.0, _Tok(), {"019a06f2": "invoicer"})
    got = [(s.session, s.agent, s.project, s.calls) for s in snap.sessions]
    assert got[:3] == [(UUID, "main", "-home-dev-kanban", 1), (UUID, "a9cad17", "-home-dev-kanban", 2),
                       (UUID, "ab00001", "-home-dev-kanban", 1)]  # the session, then its subagents
    assert (("019a06f2", "main", "invoicer", 1)) in got  # its cwd, not the day's folder "17"
    assert ("019b", "main", "sessions", 1) in got  # no cwd known: the folder above the dated ones


def test_watch_rows_of_subagents_are_told_apart():
    from rich.console import Console

    from toolaudit.reports.watch import view

    rows = [_row("/p/k/s.jsonl", UUID, "main", "m1"), _row("/p/k/s/subagents/a.jsonl", UUID, "a9cad17", "s1"),
            _row("/p/k/s/subagents/b.jsonl", UUID, "ab00001", "t1")]
    snap = snapshot_of(rows, {}, 7200.0, 30.0, _Tok(), {UUID: "kanban"})
    console = Console(width=80, record=True)
    console.print(view(snap, keys_hint=""))
    text = console.export_text()
    names = [line.split("  ")[0] for line in text.splitlines() if line.startswith("c3d2e1f0")]
    assert names == ["c3d2e1f0 kanban", "c3d2e1f0 ↳a9cad17 kanban", "c3d2e1f0 ↳ab00001 kanban"]


def test_the_real_sessions_each_name_a_project(corpus):
    groups = _groups([corpus / "claude-code", corpus / "codex"], cache=False)
    named = {k: g["project"] for k, g in groups.items() if g["agent"] in ("claude-code", "codex")}
    assert named and all(named.values()), [k for k, v in named.items() if not v]
    assert named["019a93b9-f380-7600-98ff-940e6b99603c"] == "chatbot-ui"  # Codex's session_meta cwd
    assert all(g["start"] for g in groups.values() if g["agent"] in ("claude-code", "codex"))
