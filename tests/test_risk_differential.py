"""simulate's fast risk checks give exactly the answers of the plain ones they replaced.

The plain versions (one regex pass per token, every literal's line confirmed, one `find`
per item) are kept here as the reference; the checks run on seeded synthetic texts, and
simulate runs on synthetic transcripts and the samples with each version.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES
from toolaudit.simulate import engine as simulate, items as evidence, risk, signals
from toolaudit.simulate.policymap import maps_from_spec
from toolaudit.simulate.items import _GUTTER, _SPLIT, occurs_as_item
from toolaudit.simulate.signals import WINDOW, _confirm
from toolaudit.collectors import discover
from toolaudit.model import UNPAIRED, ModelText, ToolCall
from toolaudit.tokenizers import get_tokenizer

sys.path.insert(0, str(ROOT / "benchmarks"))
import synth_corpus  # noqa: E402  (the benchmark's generator: realistic outputs, seeded)

# servers started per test, differential sweeps: seconds each (make test-all runs them, make test does not)
pytestmark = pytest.mark.slow


def plain_items(text: str) -> set[str]:
    """risk.items before the per-token memo: every token classified where it stands, none remembered."""
    found: set[str] = set()
    for token in _SPLIT.split(_GUTTER.sub("", text)):
        found.update(evidence._token_items(token))
    return found


def plain_failure_lines(text: str, memo: dict | None = None) -> set[str]:
    """signals.failure_lines before it skipped a line looked at already (`memo` is not used)."""
    found: set[str] = set()
    size = len(text)
    for literal in signals._LITERALS:
        pos = text.find(literal)
        while pos != -1:
            low = max(pos - WINDOW, 0)
            start = text.rfind("\n", low, pos) + 1 or low
            end = text.find("\n", pos, pos + WINDOW)
            end = min(pos + WINDOW, size) if end == -1 else end
            piece = text[start:end]
            if _confirm(piece, start == 0 or text[start - 1] == "\n", end == size or text[end] == "\n"):
                found.add(piece.strip())
            pos = text.find(literal, max(end, pos + 1))
    return found


# lines that hold a signal's literal but (mostly) no needle, and the signals they come close to
NEAR = ["error handling", "errors", "Errors in", "ERRORS", "fatalism", "FATALITY", "xceptional", "FAILS", "FAILURE",
        "ERR!x", "npm ERR", "E  x", "panicky", "Tracebacks", "exit", "exits 0", "returncodes", "failed",
        "unfailed", "Error", "error TS", "error ts1:", "error TS2304:", "ERROR X1:", "fatal E12:", "Caused by:x",
        "Caused by: y", "Exception in", "Exception in thread x", "IOException", "java.io.IOException: x", " ... ERROR", " ... OK", "FAIL",
        "panic: x", "panicked at", "1 failed", "Exit code: 3", "test result: FAILED", "x" * 300, "\n", "\n", " "]


def plain_has_item(full: risk.Full, item: str) -> bool:
    """Full.has_item before the runs prefilter: the item's text looked for in the whole output."""
    return occurs_as_item(full.text, item)


PARTS = ["src/app/main.py", "main.py:42", "main.py:42:7", "/etc/hosts", "package.json", "parse_args", "getUser",
         "sha256sum", "12345", "999", "0.123", "v1.2.3", "a.b", "x/", "./run.sh", "~/.config/app.toml",
         "    12→", "  7|", "3\t", "123→foo_bar", "Error: boom", "error: null", "FAILED tests/t.py::x",
         "Traceback (most recent call last):", "Exit code: 2", "exit code 0", "3 failed", "0 failed",
         "panic: oh", "npm ERR! x", "E   assert 1", "--- FAIL: TestX", "test result: FAILED", "<returncode>1</returncode>",
         "java.io.IOException: gone", "ok ... FAILED", "def foo_bar(x):", "error[E0425]: y", "src/lib.rs:12:5: error: z",
         "\"exit_code\": 1", "....", "!?", ":", "=", "*", "|", "`", "'", "\"", "(", ")", "[", "]", "{", "}", "<", ">",
         ",", ";", " ", "  ", "\t", "\n", "\n\n", "é", "日本", "\u2028", "main.py.", "main.py!", "x" * 300,
         "ab/" * 100, "q" * 600, "w_1" * 200, "4" * 520, "f.py:" + "9" * 600]


def mixed_text(rng: random.Random) -> str:
    """A text mixing items, failure lines, gutters, separators and long tokens, glued or spaced."""
    glue = ("", " ", "\n", "/", ".", "_", ":")
    return "".join(rng.choice(PARTS) + rng.choice(glue) for _ in range(rng.randint(1, 60)))


def texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = [mixed_text(rng) for _ in range(count)]
    # long lines and long texts: windows cut mid-line, items repeated past OCCURRENCES
    out += ["".join(mixed_text(rng).replace("\n", " ") for _ in range(40)) for _ in range(30)]
    out += [("src/app/main.py " * 1200) + "main.py:9 getUser", ("1234 " * 1500) + "\n    1234→x"]
    return out


def test_items_are_the_plain_items():
    sample = texts(4000, 1)
    found = [risk.items(t) for t in sample]
    assert found == [plain_items(t) for t in sample]
    assert sum(map(len, found)) > 20_000  # the texts are full of items


def test_items_stay_exact_when_the_token_memo_is_cleared(monkeypatch):
    monkeypatch.setattr(evidence, "TOKEN_CACHE", 5)
    evidence._TOKEN_ITEMS.clear()
    sample = texts(300, 2)
    assert [risk.items(t) for t in sample] == [plain_items(t) for t in sample]
    assert len(evidence._TOKEN_ITEMS) <= 5


def test_failure_lines_are_the_plain_ones():
    sample = texts(3000, 3)
    found = [signals.failure_lines(t) for t in sample]
    assert found == [plain_failure_lines(t) for t in sample]
    memo: dict = {}  # one memo for every text, as a full output shares its own with its cuts
    assert [signals.failure_lines(t, memo) for t in sample] == found
    assert sum(1 for f in found if f) > 1000


def test_failure_lines_skip_no_line_that_carries_a_signal():
    """failure_lines looks only at lines holding a needle: lines holding a literal without one are skipped."""
    rng = random.Random(7)
    sample = ["".join(rng.choice(NEAR) + rng.choice(("", " ", "\n", ":", " ...", "\t")) for _ in range(rng.randint(1, 40)))
              for _ in range(4000)]
    sample += ["".join(rng.choice(NEAR) + " " for _ in range(200)) for _ in range(20)]  # long lines: windows
    # lines about a window long, a signal at either end: one piece, or windows of it
    sample += [head + "y" * (size - len(head) - len(tail)) + tail + end for size in range(WINDOW - 3, WINDOW + 4)
               for head, tail in (("FAIL: x", ""), ("", "E   x"), ("ok", " ... FAILED")) for end in ("", "\nz")]
    found = [signals.failure_lines(t) for t in sample]
    assert found == [plain_failure_lines(t) for t in sample]
    assert sum(1 for f in found if f) > 1000 and sum(1 for f in found if not f) > 200


def test_failure_lines_where_needles_overlap_or_follow_wide_characters():
    """One Aho-Corasick pass finds every needle: one that overlaps another (`error failed`: the probe
    `rror ` and ` failed`; ` ... ERROR:`), after characters outside ASCII, many on one long line."""
    cases = ["error failed", "error 3 failed", "x ... ERROR: y", "é日本 ok\nerror TS2304: nope\nok", "日本語 FAIL: x",
             "2 failed, 1 passed ... ERROR", "Caused by: error: boom", "Caused by: nothing here",
             "🙂" * 300 + " Exit code: 2 " + "ü" * 300, ("error: a " * 100 + "\n") * 3, "fatal fatal: x\r\nE   y"]
    rng = random.Random(11)
    cases += ["".join(rng.choice(NEAR + ["é", "日本", "🙂", " "]) for _ in range(rng.randint(1, 60))) for _ in range(2000)]
    found = [signals.failure_lines(t) for t in cases]
    assert found == [plain_failure_lines(t) for t in cases]
    assert found[:2] == [set(), {"error 3 failed"}] and found[3] == {"error TS2304: nope"}
    assert found[6:8] == [{"Caused by: error: boom"}, set()] and sum(1 for f in found if f) > 300


def test_has_item_is_the_plain_lookup():
    rng = random.Random(4)
    sample = texts(1500, 4)
    asked = hits = 0
    for text in sample:
        full = risk.Full(text)
        other = sorted(plain_items(rng.choice(sample)))
        # items of this and other texts, pieces of items, items with separators, and nothing
        wanted = sorted(plain_items(text)) + rng.sample(other, min(len(other), 20))
        wanted += [w[1:] for w in wanted[:10]] + ["main.py x", "a;b", "", "\n", "sha256sum", "x" * 600]
        for item in wanted:
            got = full.has_item(item)
            assert got == plain_has_item(risk.Full(text), item), (text[:200], item)
            asked, hits = asked + 1, hits + got
    assert hits > 1000 and asked - hits > 1000  # both answers were exercised


def plain_first_hidden(full: risk.Full, after: str, later: list[list[str]], held: list) -> set[str]:
    """simulate._first_hidden before it stopped at the earliest place: every hidden item the model writes later."""
    return risk.missing_from(after, {item for group in later for item in group if plain_has_item(full, item)})


def plain_first_said(events: list, calls: list):
    """simulate._first_said before its places were listed once per context: every call's items
    gathered anew from a map of every item to where it is first written, then grouped by place."""
    first: dict[tuple, dict[str, int]] = {}
    where: dict[int, tuple[tuple, int]] = {}
    index = {id(c): i for i, c in enumerate(calls)}
    for position, (_, _, kind, record, items) in enumerate(events):
        ctx = (record.session, record.agent)
        if kind == "output":
            where[index[id(record)]] = (ctx, position)
            continue
        for item in items:
            first.setdefault(ctx, {}).setdefault(item, position)

    def firsts(i: int) -> list[list[str]]:
        ctx, position = where[i]
        groups: dict[int, list[str]] = {}
        for item, at in first.get(ctx, {}).items():
            if at > position:
                groups.setdefault(at, []).append(item)
        return [groups[at] for at in sorted(groups)]

    return firsts


def _synthetic(tmp_path: Path) -> list[Path]:
    """A few small Claude Code and Codex transcripts from the benchmark's generator."""
    files = []
    for index in range(4):
        claude = tmp_path / "-home-dev-shop" / f"session-{index}.jsonl"
        claude.parent.mkdir(exist_ok=True)
        synth_corpus.write_claude(claude, 5, index, 400_000)
        codex = tmp_path / f"rollout-{index}.jsonl"
        synth_corpus.write_codex(codex, 5, index, 400_000, dt.datetime(2026, 1, 2, tzinfo=dt.timezone.utc), f"s{index}")
        files += [claude, codex]
    return files + sorted(p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))


def _simulate(files: list[Path], maps: list, explain: bool) -> list:
    out, tokenizer = [], get_tokenizer("o200k_base", "toktok")
    for path in files:
        cls, doc = discover.detect(path, None)
        if cls is not None:
            out.append(simulate.simulate_records(cls().records(path, doc), maps, tokenizer, explain=explain)[1])
    return out


@pytest.mark.parametrize("spec, sweep, explain, locate", [
    ({"preset": "codex"}, None, False, False),
    ({"preset": "codex"}, None, False, True),
    ({"preset": "codex"}, None, True, False),
    ({"flags": {"max_lines": 40}}, "max_chars=1000:10000:3000", False, True),
    ({"flags": {"head_ratio": 0.2}}, "max_chars=500:20000:6500", False, False),
])
def test_simulate_gives_the_plain_answers(tmp_path, monkeypatch, spec, sweep, explain, locate):
    """`locate`: Full.locate_ahead's automaton serves from the first lookup of any text (these
    outputs are shorter than it waits for), in chunks whose ends places cross."""
    maps, _ = maps_from_spec(spec, sweep)
    files = _synthetic(tmp_path)
    located = []
    if locate:
        for name, value in (("LOCATE_AFTER", 0), ("LOCATE_TEXT", 0), ("LOCATE_ITEMS", 1), ("LOCATE_CHUNK", 500)):
            monkeypatch.setattr(risk, name, value)
        lookahead = risk.Full.locate_ahead
        monkeypatch.setattr(risk.Full, "locate_ahead",
                            lambda full, groups: lookahead(full, groups) or located.append(bool(full._located)))
    fast = _simulate(files, maps, explain)
    assert sum(located) > 20 or not locate
    monkeypatch.setattr(risk, "items", plain_items)
    monkeypatch.setattr(risk, "failure_lines", plain_failure_lines)
    monkeypatch.setattr(risk.Full, "has_item", plain_has_item)
    monkeypatch.setattr(simulate, "_first_hidden", plain_first_hidden)
    monkeypatch.setattr(simulate, "_first_said", plain_first_said)
    plain = _simulate(files, maps, explain)
    assert fast == plain  # every Cut: sizes, errors_cut, json_broken, later_used, used_at, hidden items
    cuts = [cut for per_file in fast for per_map in per_file for cut in per_map]
    # the checks were exercised: cuts that hid failures and items the model used later
    assert sum(c.affected for c in cuts) > 10 and sum(c.later_used for c in cuts) > 2
    assert sum(c.errors_cut for c in cuts) > 2 and sum(c.json_broken for c in cuts) > 0


def test_held_is_the_plain_lookup_of_each_item(monkeypatch):
    """Full.held skips an item holding the text of one nowhere in the text; the answer is each item's plain lookup."""
    rng = random.Random(8)
    sample = texts(1500, 8)
    asked = []
    lookup = risk.Full.has_item
    monkeypatch.setattr(risk.Full, "has_item", lambda full, item: asked.append(item) or lookup(full, item))
    wanted_in_all = skipped = 0
    for text in sample:
        # what one place of the model's writing yields: a path, its file name, identifiers, numbers
        group = sorted(plain_items(rng.choice(sample)) | set(rng.sample(sorted(plain_items(text)) or [""], 1)))
        group += [g + "x" for g in group[:3]] + ["zz_" + g for g in group[:3]] + ["main.py x"]
        asked.clear()
        got = risk.Full(text).held(group)
        assert got == {item for item in group if plain_has_item(risk.Full(text), item)}, (text[:200], group)
        wanted_in_all, skipped = wanted_in_all + len(group), skipped + len(group) - len(asked)
    assert skipped > 2000 and wanted_in_all - skipped > 5000  # items were skipped, and items were looked up


def test_missing_from_is_the_plain_difference():
    """risk.missing_from reads only the tokens holding an item; the plain way classifies every token."""
    rng = random.Random(6)
    sample = texts(1500, 6) + ["x" * 3000 + "main.py main.py", "a" * 2500 + "/main.py", "  12→main.py\n3\tgetUser"]
    kept = dropped = 0
    for after in sample:
        present = sorted(plain_items(after) | plain_items(rng.choice(sample)))
        present += [p[1:] for p in present[:15]] + [p + "x" for p in present[:5]] + ["", "a b", "main.py", "12"]
        got = risk.missing_from(after, set(present))
        assert got == {p for p in present if p not in plain_items(after)}, after[:200]
        kept, dropped = kept + len(present) - len(got), dropped + len(got)
    assert kept > 5000 and dropped > 5000


def test_first_said_is_the_plain_grouping(tmp_path):
    """simulate._first_said: per call, the same places in the same order, holding the same items."""
    compared = nonempty = 0
    for path in _synthetic(tmp_path):
        cls, doc = discover.detect(path, None)
        if cls is None:
            continue
        stream = [r for r in cls().records(path, doc) if isinstance(r, (ToolCall, ModelText))
                  and not (isinstance(r, ToolCall) and r.status == UNPAIRED)]
        calls = [r for r in stream if isinstance(r, ToolCall)]
        events = simulate._events(stream, simulate._said(stream))
        fast, plain = simulate._first_said(events, calls), plain_first_said(events, calls)
        for i in range(len(calls)):
            got, want = fast(i), plain(i)
            assert [sorted(g) for g in got] == [sorted(g) for g in want], (path, i)
            compared, nonempty = compared + 1, nonempty + bool(want)
    assert compared > 50 and nonempty > 20 and compared - nonempty > 5


@pytest.mark.parametrize("chunk", [3, 64, 1 << 16])
def test_located_items_are_the_plain_lookup(monkeypatch, chunk):
    """Full.locate_ahead finds the items to come in one automaton pass, chunk by chunk (the chunk
    made small here, so places cross its end): has_item answers as the plain lookup does."""
    monkeypatch.setattr(risk, "LOCATE_CHUNK", chunk)
    monkeypatch.setattr(risk, "LOCATE_TEXT", 0)
    monkeypatch.setattr(risk, "LOCATE_ITEMS", 1)
    monkeypatch.setattr(risk, "LOCATE_AFTER", 2)
    rng = random.Random(9)
    sample = texts(100, 9)[:100] + ["é日本 main.py 🙂 src/app/main.py:12 " * 50, "ab" * 40 + "getUser"]
    located = hits = 0
    for number, text in enumerate(sample):
        # half the time only the text's own items: every one is found, and the pass stops early
        wanted = sorted(plain_items(text) | (plain_items(rng.choice(sample)) if number % 2 else set()))
        wanted = rng.sample(wanted, min(len(wanted), 20))
        if number % 2:
            wanted += [w[:-1] for w in wanted[:4]] + [w + "é" for w in wanted[:4]] + ["main.py x", "", "🙂 src"]
        rng.shuffle(wanted)
        full = risk.Full(text)
        for item in wanted[:risk.LOCATE_AFTER]:  # the finds before the automaton pays
            full.has_item(item)
        full.locate_ahead([wanted[i:i + 5] for i in range(0, len(wanted), 5)])
        located += bool(full._located)
        for item in wanted:
            got = full.has_item(item)
            assert got == plain_has_item(full, item), (text[:200], item)
            hits += got
    assert located > 0.85 * len(sample) and hits > 500 and hits < len(sample) * 25


def plain_parses(text: str) -> bool:
    """risk._parses before orjson tried first: json.loads alone."""
    if text.lstrip()[:1] not in ("{", "["):
        return False
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


JSON_PARTS = ['{', '}', '[', ']', ',', ':', '"a"', '"\\u00e9"', '"\\ud800"', '"\\ud83d\\ude00"', '"\ud800"', '"é🙂"',
              '1', '-0', '01', '1.', '1.5e3', '1e400', '-1E-2', str(2**64), str(-2**63 - 1), '1' * 30, 'NaN',
              'Infinity', '-Infinity', 'true', 'false', 'null', 'nul', '"\\x"', '"\\/"', '"a\tb"', '"a\nb"', '"\x00"',
              '"\x7f"', ' ', '\t', '\n', '\r', '\x0c', '\x0b', '\u00a0', '\u3000', '\ufeff', '//', '/*', '#', "'a'"]


def test_parses_is_json_loads():
    """risk._parses asks orjson first: it says what json.loads says, on JSON and near-JSON texts."""
    rng = random.Random(12)
    sample = [json.dumps(value) for value in ({"a": [1, 2.5, None, True]}, [], {}, ["é", "🙂", "\ud800"], {"k": 10**30},
                                              [float("nan")], [[[[]]]], {"a": {"b": {"c": "x" * 100}}})]
    for _ in range(6000):
        parts = [rng.choice(JSON_PARTS) for _ in range(rng.randint(1, 12))]
        shape = rng.choice(('{"k": %s}', '[%s]', '%s', ' [%s] ', '{"k": [%s], "j": %s}'))
        sample.append(shape % ((" ".join(parts),) * shape.count("%s")))
    # valid documents with one character changed, dropped or added
    for _ in range(3000):
        text = rng.choice(sample[:8])
        at = rng.randrange(len(text) + 1)
        sample.append(text[:at] + rng.choice(JSON_PARTS + [""]) + text[at + rng.randint(0, 1):])
    got = [risk._parses(text) for text in sample]
    assert got == [plain_parses(text) for text in sample]
    assert sum(got) > 500 and len(got) - sum(got) > 5000


def test_items_drop_each_kind_of_gutter_alone():
    """items and missing_from skip the gutter regex on a text without `→`, `|` or a tab: texts
    holding one kind of gutter only, or none."""
    rng = random.Random(13)
    sample = []
    for _ in range(600):
        ends = rng.choice((("→",), ("|",), ("\t",), (" ",), (":",), ("→", "|", "\t")))
        lines = (rng.choice(("", " ", "  ", "\t")) + str(rng.randint(0, 99999)) + rng.choice(ends)
                 + rng.choice(("", "main.py", "12345", "x = parse_args()", "  src/app.py:3")) for _ in range(rng.randint(1, 8)))
        sample.append("\n".join(lines))
    found = [risk.items(text) for text in sample]
    assert found == [plain_items(text) for text in sample]
    assert [risk.missing_from(text, {"12345", "main.py"}) for text in sample] == \
        [{item for item in ("12345", "main.py") if item not in plain_items(text)} for text in sample]
    assert sum(1 for f in found if f) > 300
