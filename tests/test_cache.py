"""The scan cache: a cached scan says exactly what an uncached one says, holds no text, and survives
damage and two scans at once (toolaudit.scan.cache)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import toolaudit
from toolaudit import pipeline
from toolaudit.options import Hooks
from toolaudit.scan import cache as scan_cache

from conftest import SAMPLES

KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban" / "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5.jsonl"
SHOP = SAMPLES / "claude-code" / "-home-dev-shop" / "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11.jsonl"


@pytest.fixture
def cache_home(tmp_path, monkeypatch) -> Path:
    """An empty cache folder of this test's own."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(scan_cache.ENV, str(folder))
    return folder


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The files scan_file really read (a cache hit reads none)."""
    seen: list[str] = []
    real = pipeline.scan_file

    def counting(path, options, **extra):
        seen.append(Path(path).name)
        return real(path, options, **extra)

    monkeypatch.setattr(pipeline, "scan_file", counting)
    return seen


def _doc(paths, **options) -> dict:
    """The scan's JSON document (what `scan -f json` prints), its creation time left out."""
    result = toolaudit.scan(paths, jobs=1, **options)
    doc = json.loads(result.to_json())
    doc["meta"].pop("created")
    return doc


def both(paths, **options) -> tuple[dict, dict]:
    """(the cached scan's document, the uncached one's)."""
    return _doc(paths, **options), _doc(paths, cache=False, **options)


def test_cached_equals_uncached_on_the_real_corpus_and_the_samples(corpus, cache_home, reads):
    for paths, by in (([corpus], "tool"), ([SAMPLES], "session"), ([corpus, SAMPLES], "file")):
        cold, plain = both(paths, by=by, cost=True)
        reads.clear()
        warm = _doc(paths, by=by, cost=True)
        assert cold == plain == warm
        assert reads == []  # the second cached scan read no file
    assert scan_cache.info().files > 50


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_a_growing_shrinking_rewritten_corpus(tmp_path, cache_home, reads):
    folder = tmp_path / "projects" / "-home-dev-app"
    folder.mkdir(parents=True)
    grow, other = folder / "grow.jsonl", folder / "other.jsonl"
    kanban, shop = _lines(KANBAN), _lines(SHOP)
    assert len(kanban) > 16 and len(shop) > 12
    grow.write_bytes(b"".join(kanban[:8]))
    other.write_bytes(b"".join(shop))
    steps = {
        "first": lambda: None,
        "grown": lambda: _append(grow, b"".join(kanban[8:15])),
        "half a line": lambda: _append(grow, kanban[15][: len(kanban[15]) // 2]),
        "line finished": lambda: _append(grow, kanban[15][len(kanban[15]) // 2:]),
        "shrunk": lambda: grow.write_bytes(b"".join(kanban[:5])),
        "rewritten": lambda: grow.write_bytes(b"".join(shop[:12])),
        "new file": lambda: (folder / "new.jsonl").write_bytes(b"".join(kanban[:10])),
        "deleted": lambda: other.unlink(),
    }
    for name, change in steps.items():
        change()
        reads.clear()
        cached = _doc([tmp_path / "projects"], by="session")
        read_again = list(reads)
        assert cached == _doc([tmp_path / "projects"], by="session", cache=False), name
        expected = {"first": ["grow.jsonl", "other.jsonl"], "new file": ["new.jsonl"], "deleted": []}
        assert sorted(read_again) == expected.get(name, ["grow.jsonl"]), name  # only what changed
    assert sorted(scan_cache.ScanCache(_key()).stamps()) == sorted(scan_cache.path_key(folder / name)
                                                                   for name in ("grow.jsonl", "new.jsonl"))


def test_a_grown_file_counts_only_its_new_outputs(tmp_path, cache_home, monkeypatch):
    from toolaudit.tokenizers import Tokenizer

    path = tmp_path / "s.jsonl"
    rows = [{"session": "s", "call_id": f"c{n}", "tool": "Grep", "args": {"n": n}, "output": f"out {n}\n" * (n + 1)}
            for n in range(30)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[:20]))
    counted: list[str] = []
    real = Tokenizer.count_for
    monkeypatch.setattr(Tokenizer, "count_for", lambda self, text, model: counted.append(text) or real(self, text, model))
    _doc([path])
    assert len(counted) == 20
    counted.clear()
    _append(path, "".join(json.dumps(r) + "\n" for r in rows[20:]).encode())
    grown = _doc([path])
    assert len(counted) == 10  # the ten new outputs only
    assert grown == _doc([path], cache=False) and grown["totals"]["calls"] == 30


def _claude_sessions(corpus: Path, least: int) -> list[Path]:
    """Real Claude Code sessions of at least `least` lines, the longest first."""
    found = [p for p in (corpus / "claude-code").rglob("*.jsonl") if len(_lines(p)) >= least]
    return sorted(found, key=lambda p: -len(_lines(p)))


def test_a_grown_claude_code_session_is_read_on_from_its_checkpoint(corpus, tmp_path, cache_home, monkeypatch):
    # real sessions cut at many places (mid-call, mid-line, after a compaction or a subagent's progress),
    # scanned, then grown: the resumed read must say exactly what a whole read says
    from toolaudit.collectors import reading

    starts: list[int] = []
    real = reading.read_lines

    def spying(path, start=(0, 0), at=None):
        starts.append(start[0])
        return real(path, start, at)

    monkeypatch.setattr(reading, "read_lines", spying)
    monkeypatch.setattr("toolaudit.collectors.claude_code.read_lines", spying)
    sessions = _claude_sessions(corpus, 40)[:3]
    assert sessions, "no Claude Code session of 40 lines in the corpus"
    resumed = 0
    for n, session in enumerate(sessions):
        lines = _lines(session)
        path = tmp_path / f"s{n}" / session.name
        path.parent.mkdir()
        cuts = sorted({len(lines) * k // 7 for k in range(1, 7)})
        path.write_bytes(b"".join(lines[: cuts[0]]))
        _doc([path])
        for a, b in zip(cuts, cuts[1:] + [len(lines)]):
            half = lines[b - 1][: len(lines[b - 1]) // 2] if b < len(lines) else b""
            _append(path, b"".join(lines[a: b - 1]) + (lines[b - 1][: len(half)] if half else lines[b - 1]))
            starts.clear()
            grown = _doc([path], by="session")
            resumed += any(starts)
            assert grown == _doc([path], by="session", cache=False), (session.name, a, b)
            if half:  # finish the cut line
                _append(path, lines[b - 1][len(half):])
    assert resumed >= 10  # most reads went on from a checkpoint rather than from the start


def test_appended_tells_growth_from_a_rewrite(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"a" * 10_000)
    before = scan_cache.stamp_of(path)
    assert not scan_cache.appended(path, before)  # not longer
    _append(path, b"b" * 100)
    assert scan_cache.appended(path, before)
    path.write_bytes(b"a" * 9_000 + b"x" + b"a" * 1_099)  # longer, but the old end changed: rewritten
    assert not scan_cache.appended(path, before)


def _append(path: Path, data: bytes) -> None:
    assert data
    with path.open("ab") as fh:
        fh.write(data)


def _key() -> str:
    return scan_cache.options_key("o200k_base", "auto", None, None)


def test_same_size_same_mtime_other_bytes_is_read_again(tmp_path, cache_home, reads):
    path = tmp_path / "s.jsonl"
    lines = _lines(KANBAN)
    path.write_bytes(b"".join(lines))
    first = _doc([path])
    st = path.stat()
    swapped = lines[1:2] + lines[:1] + lines[2:]  # the same bytes in another order: same size
    path.write_bytes(b"".join(swapped))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    reads.clear()
    again = _doc([path])
    assert reads == ["s.jsonl"]  # its first bytes changed: not trusted
    assert again == _doc([path], cache=False) and first["totals"] == again["totals"]


def test_no_cache_writes_nothing_and_text_options_read_the_files(tmp_path, cache_home, reads):
    _doc([KANBAN], cache=False)
    assert not (cache_home / scan_cache.NAME).exists()
    _doc([KANBAN])
    reads.clear()
    _doc([KANBAN], records=str(tmp_path / "calls.csv"))  # every call's preview: every file is read
    assert reads == [KANBAN.name]


@pytest.mark.parametrize("show_content", [False, True])
def test_top_reads_again_only_the_files_of_the_largest_calls(corpus, cache_home, reads, show_content):
    for _ in range(2):
        reads.clear()
        cached = _doc([corpus, SAMPLES], top=5, show_content=show_content)
    read_again = set(reads)
    assert cached == _doc([corpus, SAMPLES], top=5, show_content=show_content, cache=False)
    holding = {Path(row["file"]).name for row in cached["top"]}
    assert 0 < len(read_again) <= 10 and holding <= read_again  # the top rows' files, and a few candidates'
    assert all(row["args_preview"] for row in cached["top"])


MARKER = "QZXJ-unique-marker-7731"


def _marked_claude(path: Path) -> None:
    """The kanban session with MARKER in every tool argument and every tool output."""
    out = []
    for raw in _lines(KANBAN):
        record = json.loads(raw)
        content = (record.get("message") or {}).get("content")
        for item in content if isinstance(content, list) else ():
            if item.get("type") == "tool_use":
                item["input"] = {key: f"{MARKER} {value}" for key, value in item["input"].items()}
            elif item.get("type") == "tool_result":
                item["content"] = f"{MARKER} output"
        if "toolUseResult" in record:
            record["toolUseResult"] = f"{MARKER} copy"
        out.append(json.dumps(record) + "\n")
    path.write_text("".join(out))


def test_the_cache_holds_no_output_or_argument_text(tmp_path, cache_home):
    marked = tmp_path / "in"
    marked.mkdir()
    _marked_claude(marked / "s.jsonl")
    rows = [{"session": "s", "call_id": f"c{i}", "tool": "Grep", "args": {"pattern": f"{MARKER}{i}"},
             "output": f"{MARKER} line {i}\n" * 20} for i in range(30)]
    (marked / "calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    doc = _doc([marked])
    assert doc["totals"]["calls"] >= 30
    assert scan_cache.info().files == 2
    for file in cache_home.iterdir():  # the database, its WAL and shared memory alike
        assert MARKER.encode() not in file.read_bytes(), file.name
    for by in ("session", "file", "family"):
        _doc([marked], by=by)
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        entries = db.execute("SELECT entry FROM files UNION ALL SELECT entry FROM summaries "
                             "UNION ALL SELECT entry FROM parts").fetchall()
        assert len(entries) == 2 + 4 + 2 * 4  # the files', four scans' summaries, each file's part for each plan
        for (entry,) in entries:
            assert MARKER.encode() not in entry


def _cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolaudit", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def _corrupt_then_scan(cache_home: Path, damage) -> tuple[str, dict]:
    cache_home.mkdir(parents=True, exist_ok=True)
    damage(cache_home / scan_cache.NAME)
    env = {**os.environ, scan_cache.ENV: str(cache_home)}
    done = _cli("scan", str(SAMPLES / "claude-code"), "-f", "json", "-j", "1", env=env)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    doc["meta"].pop("created")
    return done.stderr, doc


def _garbage(path: Path) -> None:
    path.write_bytes(b"not a database at all " * 500)


def _foreign(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('someone else''s')")


def _other_app(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE about (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO about VALUES ('app', 'other-tool')")


@pytest.mark.parametrize("damage", [_garbage, _foreign, _other_app], ids=["garbage", "foreign", "other-app"])
def test_a_damaged_or_foreign_cache_is_discarded_with_a_note(cache_home, damage):
    stderr, doc = _corrupt_then_scan(cache_home, damage)
    assert "discarded, starting a new one" in stderr
    assert doc == _doc([SAMPLES / "claude-code"], cache=False)
    assert scan_cache.info().files == doc["totals"]["files"] == 4  # a new cache, in use


def test_a_damaged_entry_is_read_again(cache_home, reads):
    _doc([KANBAN])
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        db.execute("UPDATE files SET entry = ?", (b'{"m": [[1, 2]]}',))
        db.execute("DELETE FROM summaries")  # else the kept summary answers without the entry
    reads.clear()
    assert _doc([KANBAN]) == _doc([KANBAN], cache=False)
    assert reads[0] == KANBAN.name


def test_two_scans_at_once_share_one_cache(tmp_path, cache_home):
    # many small files, so that the processes write batches at the same time
    folder = tmp_path / "many"
    for i in range(60):
        (folder / f"p{i % 5}").mkdir(parents=True, exist_ok=True)
        rows = [{"session": f"s{i}", "call_id": f"c{n}", "tool": ("Read", "Grep", "Bash")[n % 3],
                 "args": {"n": n}, "output": f"line {n}\n" * (n * (i + 1) % 97)} for n in range(40)]
        (folder / f"p{i % 5}" / f"s{i}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = {**os.environ, scan_cache.ENV: str(cache_home)}
    args = [sys.executable, "-m", "toolaudit", "scan", str(folder), "-f", "json", "-j", "1", "-q", "--by", "file"]
    runs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(3)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert all(run.returncode == 0 for run in runs), [err for _, err in outputs]
    expected = _doc([folder], by="file", cache=False)
    for out, _ in outputs:
        doc = json.loads(out)
        doc["meta"].pop("created")
        assert doc == expected
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert scan_cache.info().files == 60
    assert _doc([folder], by="file") == expected


def test_cache_info_and_clear(cache_home, run):
    assert "no scan cache yet" in run("cache", "info").output
    _doc([KANBAN, SHOP])
    shown = run("cache", "info").output
    assert f"{cache_home / scan_cache.NAME}" in shown and "2 files · o200k_base · engine auto" in shown
    assert "kept beside them: whole-scan summaries 1, file folds 2" in shown
    doc = json.loads(run("cache", "info", "--json").output)
    assert (doc["files"], doc["summaries"], doc["parts"]) == (2, 1, 2)
    assert "removed the scan cache" in run("cache", "clear").output
    assert not (cache_home / scan_cache.NAME).exists()


def test_entries_of_other_code_are_dropped(cache_home):
    _doc([KANBAN])
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        db.execute("UPDATE files SET key = '1|0000000000000000|o200k_base|auto||'")
    scan_cache.ScanCache(_key()).close()
    assert scan_cache.info().files == 0


def test_an_unwritable_cache_folder_only_turns_the_cache_off(tmp_path, monkeypatch, run):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(scan_cache.ENV, str(blocker / "below"))  # a folder inside a file: cannot exist
    result = run("scan", str(KANBAN), "-f", "json", "-j", "1")
    assert result.exit_code == 0 and "scan cache off" in result.stderr
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)


def test_compare_and_ci_scan_through_the_cache(cache_home, reads, tmp_path):
    runs = Path(__file__).resolve().parents[1] / "docs" / "examples" / "runs"
    first = json.loads(toolaudit.compare(runs / "baseline", runs / "capped").to_json())
    reads.clear()
    again = json.loads(toolaudit.compare(runs / "baseline", runs / "capped").to_json())
    assert reads == []  # both sides' transcripts came from the cache
    assert again == {**first, "meta": again["meta"]}
    baseline = tmp_path / "baseline.json"
    baseline.write_text(toolaudit.scan([SAMPLES / "claude-code"]).to_json())
    reads.clear()
    verdict = toolaudit.gate([SAMPLES / "claude-code"], baseline=baseline)
    assert reads == [] and verdict.passed


def _folds(monkeypatch) -> list[str]:
    """The files whose rows a scan folded (none when a kept summary answered)."""
    from toolaudit.scan.summary import Collected

    folded: list[str] = []
    real = Collected.add
    monkeypatch.setattr(Collected, "add", lambda self, result: folded.append(Path(result.source).name)
                        or real(self, result))
    return folded


def test_an_unchanged_corpus_is_answered_from_its_kept_summary(corpus, tmp_path, cache_home, reads, monkeypatch):
    folded = _folds(monkeypatch)
    paths = [corpus, SAMPLES]
    for options in ({"by": "session"}, {"by": "day", "tz": ZoneInfo("Europe/Paris")}, {"by": "week"}, {}):
        first = _doc(paths, **options)
        assert folded  # the first scan folds every file's rows (and keeps the summary)
        folded.clear()
        reads.clear()
        again = _doc(paths, **options)
        assert (folded, reads) == ([], [])  # no file read, no row folded
        assert again == first == _doc(paths, cache=False, **options)
        folded.clear()
    # another plan is not answered by this one's summary
    _doc(paths, by="model")
    assert folded
    # a file more, or a file changed, and the rows are folded again (only the changed file read)
    copy = tmp_path / "one"
    copy.mkdir()
    session = copy / KANBAN.name
    session.write_bytes(b"".join(_lines(KANBAN)[:10]))
    _doc([copy, SAMPLES])
    folded.clear()
    _append(session, b"".join(_lines(KANBAN)[10:12]))
    reads.clear()
    grown = _doc([copy, SAMPLES])
    assert reads == [KANBAN.name] and len(folded) > 1
    assert grown == _doc([copy, SAMPLES], cache=False)


def test_a_summary_is_not_kept_for_a_window_or_text(cache_home, tmp_path, monkeypatch):
    folded = _folds(monkeypatch)
    for options in ({"since": datetime(2000, 1, 1, tzinfo=timezone.utc)}, {"top": 3},
                    {"strict": False, "top": 1, "show_content": True}, {"cost": True}):
        _doc([SAMPLES / "claude-code"], **options)
        folded.clear()
        _doc([SAMPLES / "claude-code"], **options)
        assert folded, options  # folded from the per-file entries each time
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM summaries").fetchone() == (0,)


def test_a_damaged_summary_is_dropped_with_a_note(cache_home, capsys):
    _doc([SAMPLES / "claude-code"])
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        db.execute("UPDATE summaries SET entry = ?", (b'{"files": {"$c": "os.system", "f": ["id"]}}',))
    notes: list[str] = []
    result = toolaudit.scan([SAMPLES / "claude-code"], jobs=1, hooks=Hooks(say=notes.append))
    assert any("kept summary is damaged" in n for n in notes)
    assert result.to_dict()["totals"] == _doc([SAMPLES / "claude-code"], cache=False)["totals"]


def test_the_summary_codec_rebuilds_every_result_class(corpus):
    from dataclasses import replace

    from toolaudit.scan.summary_cache import data_of, result_of

    for options in ({"cost": True, "by": "session"}, {"by": "family"}):
        result = toolaudit.scan([corpus, SAMPLES], jobs=1, cache=False, **options)
        assert result.bill is not None and result.days and result.skipped
        rebuilt = result_of(data_of(result))
        assert rebuilt == replace(result, meta=None, calls=())
    with pytest.raises(KeyError):  # only the result classes are ever built from a summary
        result_of(data_of(result).replace(b'"$c":"GroupRow"', b'"$c":"Path"'))


def test_a_file_whose_mode_changed_is_read_once_again_then_served(tmp_path, cache_home, reads):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(_lines(KANBAN)))
    first = _doc([path], by="session")
    os.chmod(path, 0o600)  # its change time moves: nothing tells a chmod from a write that put the mtime back
    reads.clear()
    assert _doc([path], by="tool") and reads == ["s.jsonl"]
    reads.clear()
    assert _doc([path], by="session") == first and reads == []


def _merges(monkeypatch) -> list[bool]:
    """Each part a scan met: True when it was merged whole, False when its rows were folded instead."""
    from toolaudit.scan import parts, summary

    met: list[bool] = []
    real = parts.merge
    monkeypatch.setattr(summary, "merge", lambda collected, doc: met.append(real(collected, doc)) or met[-1])
    return met


def test_a_grown_corpus_merges_the_other_files_folds(corpus, tmp_path, cache_home, monkeypatch):
    # the summary misses (one file grew): the other files' parts are merged whole, those that share a call
    # with an earlier file are folded row by row, and the answer is the uncached one
    folder = tmp_path / "c"
    shutil.copytree(corpus, folder / "corpus")
    shutil.copytree(SAMPLES, folder / "samples")
    met = _merges(monkeypatch)
    options = {"by": "session"}
    first = _doc([folder], **options)
    assert met.count(True) > 50 and met.count(False) >= 1  # parts made and merged; resumed copies folded
    session = folder / "samples" / KANBAN.relative_to(SAMPLES)
    _append(session, _lines(KANBAN)[-1])  # a copy of its own last line: one more line, no new call
    met.clear()
    grown = _doc([folder], **options)
    assert met.count(True) > 50
    assert grown == _doc([folder], cache=False, **options)
    assert (grown["totals"]["calls"], grown["totals"]["tokens"]) == (first["totals"]["calls"], first["totals"]["tokens"])


def test_copies_across_files_count_once_through_the_parts(tmp_path, cache_home, monkeypatch):
    folder = tmp_path / "runs"
    folder.mkdir()

    def rows(ids, session="s"):
        return "".join(json.dumps({"session": session, "call_id": f"c{i}", "tool": "Grep", "args": {"n": i},
                                   "output": f"out {i}\n" * (i + 1)}) + "\n" for i in ids)

    (folder / "a.jsonl").write_text(rows(range(0, 10)))
    (folder / "b.jsonl").write_text(rows(range(5, 15)))  # five calls copied from a
    (folder / "c.jsonl").write_text(rows(range(20, 25), session="t"))
    met = _merges(monkeypatch)
    first = _doc([folder])
    assert met == [True, False, True]  # b shares calls with a: its rows are folded one by one
    (folder / "c.jsonl").write_text(rows(range(20, 26), session="t"))
    met.clear()
    again = _doc([folder])
    assert met == [True, False, True]
    assert again == _doc([folder], cache=False)
    assert first["totals"]["calls"] == 10 + 5 + 5 and again["totals"]["calls"] == 21
    assert again["totals"]["duplicates_dropped"] == 5


def test_a_damaged_part_is_not_merged(tmp_path, cache_home, monkeypatch, reads):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "s.jsonl").write_bytes(b"".join(_lines(KANBAN)))
    (folder / "t.jsonl").write_bytes(b"".join(_lines(SHOP)))
    _doc([folder], by="session")
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        db.execute("UPDATE parts SET entry = ?", (b'[1, 2, 3]',))
        db.execute("DELETE FROM summaries")
    met = _merges(monkeypatch)
    reads.clear()
    cached = _doc([folder], by="session")
    assert met.count(True) == 2 and reads == []  # made again from the cached entries, not read
    assert cached == _doc([folder], by="session", cache=False)


def test_the_local_zone_is_keyed_by_its_rules(monkeypatch):
    # Athens and Cairo share their zone names and offsets, not their clock changes: --by day without --tz
    # must not take one's kept summary for the other's
    from toolaudit.scan.summary import Grouping, Plan
    from toolaudit.scan.summary_cache import plan_key

    keys = {}
    for zone in ("Europe/Athens", "Africa/Cairo"):
        monkeypatch.setenv("TZ", zone)
        keys[zone] = (plan_key(Plan(Grouping("day"))), plan_key(Plan(Grouping("tool"))))
    assert keys["Europe/Athens"][0] != keys["Africa/Cairo"][0]
    assert keys["Europe/Athens"][1] == keys["Africa/Cairo"][1]  # a grouping without periods: no zone in it


def test_a_file_changed_just_now_is_checked_on_its_edges_next_time(tmp_path, cache_home, monkeypatch, reads):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(_lines(KANBAN)))
    assert scan_cache.stamp_of(path).racy  # a write in the same tick would not move its ctime
    monkeypatch.setattr(scan_cache, "RACY_NS", 0)
    assert not scan_cache.stamp_of(path).racy
    _doc([path])
    peeks: list[str] = []
    real = scan_cache._peek
    monkeypatch.setattr(scan_cache, "_peek", lambda p, size=None: peeks.append(Path(p).name) or real(p, size))
    reads.clear()
    _doc([path], by="session")
    assert (peeks, reads) == ([], [])  # size, mtime, inode and ctime unchanged: not even opened
    os.chmod(path, 0o600)
    _doc([path], by="file")
    assert (peeks, reads) == (["s.jsonl"], ["s.jsonl"])  # its ctime moved: read again


def test_a_name_that_is_not_utf8_is_scanned_not_kept(tmp_path, cache_home):
    folder = tmp_path / "runs"
    folder.mkdir()
    row = json.dumps({"session": "s", "call_id": "c1", "tool": "Grep", "args": {}, "output": "x\n" * 5}) + "\n"
    (folder / "a.jsonl").write_text(row)
    odd = os.fsencode(folder) + b"/b\xff.jsonl"
    with open(odd, "w") as handle:
        handle.write(row)
    with open(os.fsencode(folder) + b"/c\xfe.jsonl", "w") as handle:
        handle.write('{"foo": 1}\n')  # unrecognised: its name is in the result's text
    for _ in range(2):
        assert _doc([folder]) == _doc([folder], cache=False)
    assert scan_cache.info().files == 1


def test_an_openhands_conversation_that_changed_is_read_again(tmp_path, cache_home, reads):
    # its first event file stands for the folder (openhands_v1.walked): events added or removed change the
    # folder, not that file, so its stamp covers every file of the conversation
    folder = tmp_path / "oh"
    shutil.copytree(SAMPLES / "openhands-v1", folder)
    events = next(folder.rglob("events"))
    later = sorted(events.iterdir())[-4:]
    kept = {path: path.read_bytes() for path in later}
    for path in later:
        path.unlink()
    shorter = _doc([folder])
    for path, data in kept.items():  # the conversation went on
        path.write_bytes(data)
    reads.clear()
    whole = _doc([folder])
    assert reads  # read again
    assert whole == _doc([folder], cache=False) and whole["totals"]["calls"] > shorter["totals"]["calls"]
    later[-1].unlink()
    assert _doc([folder]) == _doc([folder], cache=False)


def test_a_scan_loads_the_stamps_of_its_own_files_only(tmp_path, cache_home):
    folder = tmp_path / "runs"
    (folder / "deep").mkdir(parents=True)
    for name in ("a.jsonl", "b.jsonl", "deep/c.jsonl"):
        (folder / name).write_bytes(b"".join(_lines(KANBAN)[:6]))
    (tmp_path / "runs2").mkdir()  # a folder whose name starts like the other's
    (tmp_path / "runs2" / "d.jsonl").write_bytes(b"".join(_lines(SHOP)))
    _doc([folder, tmp_path / "runs2"])

    everyone = [*folder.rglob("*.jsonl"), *(tmp_path / "runs2").rglob("*.jsonl")]
    names = {scan_cache.path_key(p): p.name for p in everyone}  # the cache keeps digests of paths' parts

    def known(files, roots=()):
        return sorted(names[k] for k in scan_cache.ScanCache(_key()).stamps(files, roots))

    one = folder / "b.jsonl"
    assert known([one], [one]) == ["b.jsonl"]
    assert known([folder / "a.jsonl"], [folder]) == ["a.jsonl", "b.jsonl", "c.jsonl"]  # all under the folder
    assert known([one, tmp_path / "runs2" / "d.jsonl"], [one]) == ["b.jsonl", "d.jsonl"]
    assert known(None) == ["a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl"]


@pytest.mark.parametrize("by", ["tool", "session", "file", "collector", "agent", "model", "family", "day", "week",
                                "month"])
def test_every_grouping_merged_from_the_folds_says_what_an_uncached_scan_says(corpus, cache_home, by):
    paths = [corpus, SAMPLES]
    first = _doc(paths, by=by)  # folds made and merged, the summary kept
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        db.execute("DELETE FROM summaries")  # the next scan merges the kept folds
    assert first == _doc(paths, by=by) == _doc(paths, by=by) == _doc(paths, by=by, cache=False)


@pytest.mark.parametrize("racy", [False, True])
def test_an_edit_of_the_same_size_with_its_mtime_put_back_is_read_again(tmp_path, cache_home, monkeypatch, racy):
    # the size, mtime, inode and first and last 4 KB are as they were: only the change time says it changed
    if not racy:
        monkeypatch.setattr(scan_cache, "RACY_NS", 0)

    def rows(middle: str) -> str:
        out = [json.dumps({"session": "s", "call_id": f"c{i}", "tool": "Read", "args": {},
                           "output": (middle if i == 20 else "plain words here ") * 60}) + "\n" for i in range(40)]
        return "".join(out)

    path = tmp_path / "runs.jsonl"
    path.write_text(rows("xxxxxxxxxxxxxxx "))
    before = path.stat()
    first = _doc([path])
    path.write_text(rows("x x x x x x x x "))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    now = path.stat()
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    assert now.st_ctime_ns != before.st_ctime_ns
    again = _doc([path])
    assert again == _doc([path], cache=False) and again["totals"] != first["totals"]


def test_no_path_or_name_is_kept_as_text_in_the_keys(tmp_path, cache_home):
    # a secret in a file or folder name was kept as it is in the path keys (issue 29): the keys are digests of
    # each part now, and a folder's files still share its key as a prefix
    folder = tmp_path / "proj-FOLDERMARK" / "sub"
    folder.mkdir(parents=True)
    for name in ("a-FILEMARK.jsonl", "b.jsonl"):
        (folder / name).write_bytes(b"".join(_lines(KANBAN)[:8]))
    first = _doc([tmp_path / "proj-FOLDERMARK"])
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        keys = [row[0] for table in ("files", "parts") for row in db.execute(f"SELECT path FROM {table}")]
    db.close()
    assert len(keys) >= 2
    assert not any(mark in key for key in keys for mark in ("MARK", "proj", "jsonl", str(tmp_path)))
    prefix = scan_cache.folders([tmp_path / "proj-FOLDERMARK"])[0]
    assert all(key.startswith(prefix) for key in keys)
    (folder / "b.jsonl").unlink()  # a file gone from the folder still drops out
    assert _doc([tmp_path / "proj-FOLDERMARK"]) == _doc([tmp_path / "proj-FOLDERMARK"], cache=False) != first
    assert scan_cache.info().files == 1


def test_a_note_about_a_damaged_entry_masks_a_secret_in_the_files_name(tmp_path, cache_home, run):
    import random

    rng = random.Random(29)
    token = "ghp_" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789") for _ in range(36))
    path = tmp_path / f"log-{token}.jsonl"
    path.write_bytes(KANBAN.read_bytes())
    assert run("scan", path, "-j", "1").exit_code == 0
    with sqlite3.connect(cache_home / scan_cache.NAME) as db:
        db.execute("UPDATE files SET entry = ?", (b'{"m": [[1, 2]]}',))
        db.execute("DELETE FROM summaries")
    db.close()
    result = run("scan", path, "-j", "1", "--by", "file")
    assert result.exit_code == 0 and "is damaged" in result.stderr and token not in result.stderr
