"""--since/--until as people write them, --by day|week|month in a time zone, tool families (--by family, --tool @FAMILY)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from toolaudit.scan.families import BUILTIN, DEFAULT, families_from, is_shell
from toolaudit.scan.periods import parse_when, period_of
from toolaudit.errors import ConfigError, UsageError

NOW = datetime(2026, 3, 10, 14, 30, tzinfo=timezone.utc)
PARIS = ZoneInfo("Europe/Paris")


def _calls(tmp_path, calls: list[tuple[str, str, int]]):
    """A toolaudit-jsonl file: (tool, timestamp, output words) per call."""
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps({"tool": tool, "ts": ts, "output": "word " * words, "session": "s",
                                        "call_id": str(i)}) + "\n"
                            for i, (tool, ts, words) in enumerate(calls)))
    return path


@pytest.mark.parametrize("text, expected", [
    ("7d", NOW - timedelta(days=7)),
    ("24h", NOW - timedelta(hours=24)),
    ("2w", NOW - timedelta(weeks=2)),
    ("today", datetime(2026, 3, 10, tzinfo=PARIS)),
    ("yesterday", datetime(2026, 3, 9, tzinfo=PARIS)),
    ("2026-03-01", datetime(2026, 3, 1, tzinfo=PARIS)),
    ("2026-03-01T10:00:00Z", datetime(2026, 3, 1, 10, tzinfo=timezone.utc)),
    ("2026-03-01T10:00:00+05:00", datetime(2026, 3, 1, 5, tzinfo=timezone.utc)),
])
def test_when_words_and_iso_times(text, expected):
    assert parse_when(text, PARIS, NOW) == expected


def test_today_is_the_zones_day_not_utcs():
    late = datetime(2026, 3, 10, 23, 30, tzinfo=timezone.utc)  # already the 11th in Paris
    assert parse_when("today", PARIS, late) == datetime(2026, 3, 11, tzinfo=PARIS)
    assert parse_when("today", ZoneInfo("UTC"), late) == datetime(2026, 3, 10, tzinfo=timezone.utc)


@pytest.mark.parametrize("text", ["last tuesday", "7x", "", "2026-13-01"])
def test_other_words_are_usage_errors(text):
    with pytest.raises(UsageError, match="7d, 24h, 2w, today, yesterday"):
        parse_when(text, PARIS, NOW)


def test_periods_in_a_zone():
    ts = "2026-03-01T23:30:00Z"  # Sunday in UTC, Monday 00:30 in Paris
    assert period_of(ts, "day", timezone.utc) == "2026-03-01"
    assert period_of(ts, "day", PARIS) == "2026-03-02"
    assert period_of(ts, "week", timezone.utc) == "2026-W09" and period_of(ts, "week", PARIS) == "2026-W10"
    assert period_of("2026-03-31T23:30:00Z", "month", PARIS) == "2026-04"
    assert period_of(None, "day") is None and period_of("not a time", "day") is None


def test_scan_since_relative_and_by_week_with_tz(run, tmp_path):
    now = datetime.now(timezone.utc)
    old, recent = (now - timedelta(days=20)).isoformat(), (now - timedelta(hours=2)).isoformat()
    path = _calls(tmp_path, [("Bash", old, 100), ("Bash", recent, 10), ("Read", recent, 30)])
    doc = json.loads(run("scan", path, "--since", "7d", "-f", "json", "-q", "-j", "1").stdout)
    assert doc["totals"]["calls"] == 2
    doc = json.loads(run("scan", path, "--until", "7d", "-f", "json", "-q", "-j", "1").stdout)
    assert doc["totals"]["calls"] == 1
    result = run("scan", path, "--by", "week", "--tz", "UTC", "-f", "json", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    groups = json.loads(result.stdout)["groups"]
    weeks = [period_of(old, "week", timezone.utc), period_of(recent, "week", timezone.utc)]
    assert [g["week"] for g in groups] == sorted(set(weeks))  # in time order, not by size
    assert sum(g["calls"] for g in groups) == 3


def test_scan_by_day_lists_days_in_order_with_cost(run, tmp_path):
    from test_billing import _session

    result = run("scan", _session(tmp_path), "--by", "day", "--tz", "UTC", "--cost", "-f", "json", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [g["day"] for g in doc["groups"]] == ["2026-03-01"]
    usage = doc["usage"]["groups"]
    assert [(g["day"], g["requests"]) for g in usage] == [("2026-03-01", 1), ("2026-03-02", 1), ("2026-03-03", 1)]
    assert all(g["cost_usd"] > 0 for g in usage)
    table = run("scan", _session(tmp_path), "--by", "day", "--tz", "UTC", "--cost", "-q", "-j", "1").stdout
    assert "Billed usage by day" in table and "2026-03-03" in table


def test_a_bad_tz_is_a_usage_error(run, tmp_path):
    result = run("scan", _calls(tmp_path, [("Bash", "2026-03-01T10:00:00Z", 5)]), "--by", "day", "--tz", "Mars/Olympus")
    assert result.exit_code == 2 and "Mars/Olympus" in result.stderr


def test_families_of_agents_tools():
    names = {"Bash": "shell", "exec_command": "shell", "run_shell_command": "shell", "terminal": "shell",
             "execute_bash": "shell", "local_shell_call": "shell", "Read": "read", "read_file": "read",
             "Grep": "search", "Glob": "search", "find_file": "search", "Edit": "edit/write",
             "apply_patch": "edit/write", "WebFetch": "web", "Task": "task/subagent",
             "mcp__kanban__list_tasks": "mcp:kanban", "get_user_details": "other"}
    assert {tool: DEFAULT.of(tool) for tool in names} == names
    assert is_shell("Bash") and not is_shell("Read")


def test_one_shell_table_for_presets_and_replay():
    from toolaudit.simulate import presets
    from toolaudit.replay.translate import SHELL_TOOLS

    assert presets.SHELL == BUILTIN["shell"]
    assert "BASH" in SHELL_TOOLS and "local_shell_call" in SHELL_TOOLS and "Read" not in SHELL_TOOLS


def test_a_config_table_overrides_and_adds_families():
    own = families_from({"shell": ["bash", "my_runner"], "notebook": ["run_ipython"]})
    assert own.of("my_runner") == "shell" and own.of("exec_command") == "other"  # shell replaced
    assert own.of("run_ipython") == "notebook" and own.of("Read") == "read"  # the rest stays
    with pytest.raises(ConfigError, match="list of tool-name globs"):
        families_from({"shell": 3})


def test_scan_by_family_reads_the_pyproject_table(run, tmp_path, monkeypatch):
    path = _calls(tmp_path, [("Bash", "2026-03-01T10:00:00Z", 5), ("exec_command", "2026-03-01T10:00:00Z", 7),
                             ("mcp__kanban__list", "2026-03-01T10:00:00Z", 3), ("my_runner", "2026-03-01T10:00:00Z", 2)])
    doc = json.loads(run("scan", path, "--by", "family", "-f", "json", "-q", "-j", "1").stdout)
    assert {g["family"]: g["calls"] for g in doc["groups"]} == {"shell": 2, "mcp:kanban": 1, "other": 1}
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.toolaudit.families]\nshell = ["bash", "exec_command", "my_runner"]\n')
    monkeypatch.chdir(project)
    doc = json.loads(run("scan", path, "--by", "family", "-f", "json", "-q", "-j", "1").stdout)
    assert {g["family"]: g["calls"] for g in doc["groups"]} == {"shell": 3, "mcp:kanban": 1}
    (project / "pyproject.toml").write_text('[tool.toolaudit.families]\nshell = 3\n')
    bad = run("scan", path, "--by", "family", "-q")
    assert bad.exit_code != 0 and "families" in bad.stderr


def test_simulate_tool_at_family_selects_every_shell(run, tmp_path):
    big = 3000
    path = _calls(tmp_path, [("Bash", "2026-03-01T10:00:00Z", big), ("exec_command", "2026-03-01T10:00:00Z", big),
                             ("Read", "2026-03-01T10:00:00Z", big)])
    result = run("simulate", path, "--max-chars", "1000", "--tool", "@shell", "-f", "json", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    tools = {t["tool"]: t for t in json.loads(result.stdout)["tools"]}
    assert tools["Bash"]["affected_calls"] == tools["exec_command"]["affected_calls"] == 1
    assert tools["Read"]["affected_calls"] == 0
    bad = run("simulate", path, "--max-chars", "1000", "--tool", "@shel", "-q")
    assert bad.exit_code == 2 and "did you mean 'shell'" in bad.stderr


def test_periods_are_formatted_the_same_on_every_platform():
    from datetime import timezone

    from toolaudit.scan.periods import period_of

    # Go's zero time (year 1) is in real logs: written unpadded, as glibc's strftime did
    assert [period_of("0001-01-01T00:00:00Z", unit, timezone.utc) for unit in ("day", "month")] == ["1-01-01", "1-01"]
    assert period_of("2026-03-01T23:59:59-05:00", "day", timezone.utc) == "2026-03-02"


def test_an_empty_window_says_how_much_it_left_out_and_where_the_data_is(run):
    from conftest import SAMPLES
    from toolaudit.scan.job import ScanOptions, collect
    from toolaudit.scan.periods import when_of

    collected, _ = collect([SAMPLES], ScanOptions.of(calls=True))
    times = [when_of(x.ts) for x in [*collected.all_rows(), *collected.usage]]
    dated = [t for t in times if t is not None]
    late = run("scan", SAMPLES, "-f", "json", "-q", "--since", "2099-01-01")
    doc = json.loads(late.stdout)
    assert late.exit_code == 0 and doc["totals"]["calls"] == 0
    assert doc["window_dropped"] == {"calls_and_requests": len(dated), "newest": max(dated).isoformat()}
    assert doc["undated_dropped"] == len(times) - len(dated)
    table = run("scan", SAMPLES, "-q", "--since", "2099-01-01").output
    assert (f"left out {len(dated):,} dated calls or requests outside the window; the newest of all is "
            f"{max(dated).isoformat()}") in table
    assert "window_dropped" not in json.loads(run("scan", SAMPLES, "-f", "json", "-q").stdout)
