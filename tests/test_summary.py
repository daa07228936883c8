"""Aggregation: nearest-rank percentiles, dedupe, residency."""

from __future__ import annotations

import csv

import numpy as np

from toolaudit.scan.measure import measure, with_residency
from toolaudit.scan.summary import Collected, nearest_rank, summarize
from toolaudit.model import FILE_SCOPE, SCAN_SCOPE, FileResult, ScanMeta, SessionEnd, ToolCall
from toolaudit.tokenizers import get_tokenizer


def test_nearest_rank():
    values = np.array([15, 20, 35, 40, 50])
    assert nearest_rank(values, 50) == 35
    assert nearest_rank(values, 95) == 50
    assert nearest_rank(values, 5) == 15
    assert nearest_rank(np.array([]), 95) == 0
    assert nearest_rank(np.arange(1, 101), 95) == 95


def test_ranked_reads_a_sorted_list_as_nearest_rank_does():
    from toolaudit.scan.stats import ranked

    values = [40, 15, 50, 35, 20]
    for p in (5, 50, 95, 100):
        assert ranked(sorted(values), p) == nearest_rank(values, p)
    assert ranked([], 50) == 0


def _call(call_id, text, *, source="a.jsonl", tool="Read", request=None, segment=0, id_scope=SCAN_SCOPE):
    return ToolCall(source=source, line=1, collector="x", session="s", tool=tool, output=text,
                    call_id=call_id, request_index=request, segment=segment, id_scope=id_scope)


def test_dedupe_across_files_and_residency():
    tok = get_tokenizer()
    a = [measure(_call("t1", "hello world", request=1), tok), measure(_call("t2", "x" * 40, request=3, segment=1), tok)]
    a = with_residency(a, [SessionEnd("a.jsonl", "s", (2, 6))])
    assert [m.residency for m in a] == [1, 3]
    b = [measure(_call("t1", "hello world", source="b.jsonl"), tok)]
    local = [measure(_call("t1", "hi", source="c.jsonl", id_scope=FILE_SCOPE), tok)]
    collected = Collected([FileResult("a.jsonl", "x", tuple(a)), FileResult("b.jsonl", "x", tuple(b)),
                           FileResult("c.jsonl", "x", tuple(local))])
    assert collected.duplicates == 1 and len(collected.rows) == 3
    meta = ScanMeta("v", "o200k_base", "toktok", False, "now", ())
    result = summarize(collected, meta)
    assert result.totals.calls == 3
    assert result.carried_tokens == 2 * 1 + a[1].tokens * 3


def test_a_copy_with_its_result_beats_an_unpaired_copy_in_either_order():
    from dataclasses import replace as dc_replace

    from toolaudit.model import UNPAIRED

    tok = get_tokenizer()
    paired = measure(_call("t9", "the result"), tok)
    unpaired = dc_replace(measure(_call("t9", "", source="b.jsonl"), tok), status=UNPAIRED)
    for order in ([paired, unpaired], [unpaired, paired]):
        collected = Collected([FileResult(m.source, "x", (m,)) for m in order])
        assert [m.status for m in collected.all_rows()] == ["paired"] and collected.duplicates == 1


def test_lines_and_argument_previews_are_counted_only_for_the_rows_that_show_them(tmp_path, run):
    tok = get_tokenizer("o200k_base")
    call = ToolCall(source="a.jsonl", line=1, collector="x", session="s", tool="Read", output="a\nb\nc",
                    call_id="c1", args='{"path": "x.py"}')
    shown = measure(call, tok)
    assert shown.lines == 3 and shown.args_preview
    plain = measure(call, tok, previews=False)
    assert plain.lines is None and plain.args_preview == ""
    assert (plain.tokens, plain.chars, plain.bytes) == (shown.tokens, shown.chars, shown.bytes)
    # a scan that writes records counts them for every row it writes
    log = tmp_path / "calls.jsonl"
    log.write_text('{"session": "s", "call_id": "c1", "tool": "Read", "output": "a\\nb\\nc"}\n')
    done = run("scan", log, "-q", "-f", "json", "-o", tmp_path / "r.json", "--records", tmp_path / "rows.csv")
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader((tmp_path / "rows.csv").open()))
    assert [r["lines"] for r in rows] == ["3"]
