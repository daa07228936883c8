"""calibrate: Claude tokens per o200k token from usage, on sessions built with known answers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from toolaudit.calibrate.engine import MIN_O200K, Turn, calibrate, fit, turns_from_file
from toolaudit.errors import ToolauditError, UsageError
from toolaudit.tokenizers import DEFAULT_FACTOR, default_factor, get_tokenizer

OPUS = "claude-opus-4-5-20251101"
SONNET = "claude-sonnet-4-5-20250929"
O200K = get_tokenizer()


def words(n: int, word: str = "alpha") -> str:
    """A text of exactly n o200k tokens."""
    text = word + f" {word}" * (n - 1)
    assert O200K.count(text) == n
    return text


class Session:
    """Writes a Claude Code JSONL whose usage grows by factor × o200k of what each turn added."""

    def __init__(self, path: Path, factor: float, agent: str | None = None, model: str = OPUS):
        self.path, self.factor, self.agent, self.model = path, factor, agent, model
        self.lines: list[dict] = []
        self.input = 20_000
        self.requests = 0
        self.pending: list[str] = []  # tool ids of the last request
        self.grow = 0  # what the next request's input adds to this one's
        self.user("please look")

    def _line(self, kind: str, **fields) -> None:
        line = {"type": kind, "sessionId": "sess-1", "uuid": f"u{len(self.lines)}", "parentUuid": None,
                "timestamp": f"2026-01-01T00:00:{len(self.lines) % 60:02d}Z", **fields}
        if self.agent:
            line.update(isSidechain=True, agentId=self.agent)
        self.lines.append(line)

    def user(self, text: str) -> None:
        self._line("user", message={"role": "user", "content": text})

    def request(self, output: int = 50, thinking: bool = False, model: str | None = None, calls: int = 1) -> None:
        """One assistant message (split into one line per block, as Claude Code writes it)."""
        self.input += self.grow
        self.grow = 0
        message_id = f"msg_{self.requests}"
        blocks = [{"type": "thinking", "thinking": "hmm", "signature": "sig"}] if thinking else []
        self.pending = [f"toolu_{self.requests}_{i}" for i in range(calls)]
        blocks += [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": "ls"}} for tid in self.pending]
        usage = {"input_tokens": 7, "cache_creation_input_tokens": 100, "cache_read_input_tokens": self.input - 107,
                 "output_tokens": output}
        for block in blocks:
            self._line("assistant", message={"model": model or self.model, "id": message_id, "type": "message",
                                             "role": "assistant", "content": [block], "usage": usage})
        self.requests += 1
        self.output = output

    def results(self, *texts: str, image: bool = False, extra_claude: int = 0) -> None:
        """Tool results for the pending calls; the next request grows by output + factor × their size."""
        for tid, text in zip(self.pending, texts):
            content: object = text
            if image:
                content = [{"type": "text", "text": text},
                           {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]
            self._line("user", message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tid, "content": content}]})
        added = sum(O200K.count(t) for t in texts)
        self.grow = self.output + round(self.factor * added) + extra_claude

    def compact(self) -> None:
        self._line("system", subtype="compact_boundary", compactMetadata={"trigger": "auto", "preTokens": 1})
        self._line("user", isCompactSummary=True, message={"role": "user", "content": "summary"})
        self.grow = -self.input // 2

    def write(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(json.dumps(line) + "\n" for line in self.lines), encoding="utf-8")
        return self.path


def build(folder: Path) -> Path:
    """A session with 3 clean turns at f = 1.3, one of each skip, and a subagent with 2 turns at f = 1.5."""
    s = Session(folder / "sess-1.jsonl", 1.3)
    s.request()
    s.results(words(1000))  # clean: recorded output 50 >= what it visibly wrote
    s.request(calls=2)
    s.results(words(600), words(400, "beta"))  # clean: parallel calls, results summed
    s.request()
    s.results(words(2000))  # clean
    s.request(thinking=True)
    s.results(words(1000))  # skip: thinking
    s.request()
    s.results(words(1000))
    s.user("[Request interrupted by user]")  # skip: user text
    s.request()
    s.results(words(1000), image=True)  # skip: image
    s.request()
    s.results(words(MIN_O200K - 1))  # skip: small
    s.request()
    s.results(words(1000))
    s.compact()  # skip: compaction
    s.request()
    s.results(words(1000))
    s.request(model=SONNET)  # skip: model switch
    s.write()
    sub = Session(folder / "sess-1" / "subagents" / "agent-abc123.jsonl", 1.5, agent="abc123")
    sub.request()
    sub.results(words(800))
    sub.request()
    sub.results(words(1200))
    sub.request()
    sub.write()
    return folder


# --- the fit ------------------------------------------------------------------------------------


def test_known_factor_and_every_skip(tmp_path):
    turns, skipped = turns_from_file(build(tmp_path) / "sess-1.jsonl", O200K)
    assert [t.request_index for t in turns] == [0, 1, 2]
    assert all(t.factor == pytest.approx(1.3) for t in turns)
    assert [t.o200k for t in turns] == [1000, 1000, 2000]
    assert skipped == {"thinking": 1, "user text": 1, "image": 1, f"under {MIN_O200K} o200k tokens": 1,
                       "compaction": 1, "model switch": 1}


def test_rows_per_model_and_subagents_apart(tmp_path):
    folder = build(tmp_path)
    cal = calibrate(sorted(folder.rglob("*.jsonl")), O200K)
    rows = {f.key: f for f in cal.fits}
    assert set(rows) == {OPUS, f"{OPUS} (subagents)"}
    main, sub = rows[OPUS], rows[f"{OPUS} (subagents)"]
    assert (main.n, main.f, main.p25, main.p75, main.mape) == (3, pytest.approx(1.3), pytest.approx(1.3),
                                                               pytest.approx(1.3), pytest.approx(0))
    assert main.mape_o200k == pytest.approx(100 * 0.3 / 1.3)
    assert (sub.n, sub.f, sub.mape) == (2, pytest.approx(1.5), pytest.approx(0))
    assert cal.pooled.n == 5 and cal.pooled.f == pytest.approx(1.3) and cal.files == 2


def test_streaming_start_output_is_counted_with_the_results(tmp_path):
    # output_tokens 1 is below what the request visibly wrote: that output joins the o200k base
    s = Session(tmp_path / "s.jsonl", 1.2)
    s.request(output=1)
    visible = O200K.count('Bash{"command": "ls"}')
    s.results(words(1000 - visible))
    s.grow = round(1.2 * 1000)  # the output, in Claude tokens, is in the growth too
    s.request()
    (turn,), _ = turns_from_file(s.write(), O200K)
    assert (turn.o200k, turn.claude, turn.factor) == (1000, 1200, pytest.approx(1.2))


def test_noise_is_not_a_factor_change(tmp_path):
    # a few tokens of harness overhead move one turn, not the median
    s = Session(tmp_path / "s.jsonl", 1.3)
    for extra in (0, 40, 0):
        s.request()
        s.results(words(1000), extra_claude=extra)
    s.request()
    cal = calibrate([s.write()], O200K)
    assert cal.pooled.f == pytest.approx(1.3) and cal.pooled.p75 == pytest.approx(1.34)
    # left out, the clean turns are predicted at 1.32 (20 tokens off), the noisy one at 1.3
    assert cal.pooled.mape == pytest.approx(100 * (20 / 1300 + 40 / 1340 + 20 / 1300) / 3)


def test_leave_one_out_mape_and_nearest_rank():
    turns = [Turn("f", "main", OPUS, i, 1, claude, 1000) for i, claude in enumerate((1000, 1200, 1400))]
    got = fit(OPUS, turns)
    assert (got.f, got.p25, got.p75) == (pytest.approx(1.2), 1.0, 1.4)
    # each turn predicted by the median of the others: 1.3, 1.2, 1.1
    assert got.mape == pytest.approx(100 * (0.3 + 0 + 300 / 1400) / 3)
    assert fit(OPUS, turns[:1]).mape is None


# --- the claude tokenizer ------------------------------------------------------------------------


def test_claude_tokenizer_default_and_calibrated(tmp_path):
    text = words(1000)
    default = get_tokenizer("claude")
    assert default.estimated and default.count(text) == 1250
    assert f"estimated (default factor {DEFAULT_FACTOR})" in default.label
    saved = tmp_path / "fit.json"
    saved.write_text(json.dumps({"base_encoding": "o200k_base", "pooled": {"f": 1.3, "n": 7}}))
    fitted = get_tokenizer("claude", calibration=saved)
    assert fitted.count(text) == 1300 and fitted.count(words(3)) == math.ceil(3.9)
    assert "estimated (calibrated on 7 turns)" in fitted.label and "× 1.3" in fitted.label


def test_claude_tokenizer_refuses_bad_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(ToolauditError, match="not a calibration file"):
        get_tokenizer("claude", calibration=bad)
    with pytest.raises(ToolauditError, match="cannot read"):
        get_tokenizer("claude", calibration=tmp_path / "missing.json")
    with pytest.raises(UsageError, match="only to --tokenizer claude"):
        get_tokenizer("o200k_base", calibration=bad)


@pytest.mark.parametrize("model, factor", [
    ("claude-opus-4-7", 1.5), ("claude-opus-4-7-20260301", 1.5), ("claude-sonnet-5", 1.5),
    ("claude-opus-4-6", 1.25), ("claude-opus-4-20250514", 1.25), ("claude-3-5-sonnet-20241022", 1.25),
    ("claude-haiku-4-5-20251001", 1.25), (None, 1.25), ("gpt-5", 1.25),
])
def test_default_factors(model, factor):
    assert default_factor(model) == factor


# --- the command line ---------------------------------------------------------------------------


def test_cli_prints_and_saves_the_fit(run, tmp_path):
    folder = build(tmp_path / "logs")
    saved = tmp_path / "fit.json"
    result = run("calibrate", folder, "--save", saved)
    assert result.exit_code == 0, result.output
    assert OPUS in result.stdout and f"{OPUS} (subagents)" in result.stdout and "MAPE" in result.stdout
    doc = json.loads(saved.read_text())
    assert doc["base_encoding"] == "o200k_base" and doc["schema_version"] >= 1 and doc["version"]
    assert doc["models"][OPUS] == {"f": 1.3, "p25": 1.3, "p75": 1.3, "n": 3, "mape": 0.0,
                                   "mape_o200k": round(100 * 0.3 / 1.3, 2)}
    assert doc["pooled"]["n"] == 5
    as_json = run("calibrate", folder, "-f", "json")
    assert as_json.exit_code == 0 and json.loads(as_json.stdout)["models"] == doc["models"]


def test_cli_without_turns_is_one_line_error(run, tmp_path):
    s = Session(tmp_path / "s.jsonl", 1.3)
    s.request()
    s.results(words(10))
    s.request()
    result = run("calibrate", s.write())
    assert result.exit_code == 1
    assert result.stderr.startswith("error: no qualifying turns") and len(result.stderr.splitlines()) == 1


def test_scan_with_the_saved_fit(run, scan_json, tmp_path):
    folder = build(tmp_path / "logs")
    saved = tmp_path / "fit.json"
    assert run("calibrate", folder, "--save", saved, "-q").exit_code == 0
    exact = scan_json(folder)
    doc = scan_json(folder, "--tokenizer", "claude", "--calibration", saved)
    meta = doc["meta"]
    assert meta["estimated"] is True and meta["tokenizer"] == "claude"
    assert "estimated (calibrated on 5 turns)" in meta["tokenizer_label"]
    by_tool = {t["tool"]: t["tokens"] for t in exact["tools"]}
    for tool in doc["tools"]:  # ceil per call: at most one token above o200k x 1.3 per call
        low = 1.3 * by_tool[tool["tool"]]
        assert low - 0.001 <= tool["tokens"] <= low + tool["calls"]
    table = run("scan", folder, "--tokenizer", "claude", "--calibration", saved, "-j", "1", "-q")
    assert table.exit_code == 0
    assert "tokens (estimated)" in table.stdout and "estimated (calibrated on 5 turns)" in table.stdout


def test_scan_claude_default_says_default(run, scan_json, tmp_path):
    folder = build(tmp_path / "logs")
    meta = scan_json(folder, "--tokenizer", "claude")["meta"]
    assert meta["estimated"] is True and "default factor 1.25" in meta["tokenizer_label"]
    table = run("scan", folder, "--tokenizer", "claude", "-j", "1", "-q")
    assert table.exit_code == 0 and "estimated (default factor 1.25)" in table.stdout


def test_calibration_needs_the_claude_tokenizer(run, tmp_path):
    saved = tmp_path / "fit.json"
    saved.write_text("{}")
    result = run("scan", build(tmp_path / "logs"), "--calibration", saved)
    assert result.exit_code == 2 and "only to --tokenizer claude" in result.stderr


def test_corpus_gives_a_fit_with_its_error(run, corpus):
    result = run("calibrate", corpus / "claude-code", "-f", "json", "-q")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["pooled"]["n"] > 0 and doc["pooled"]["mape"] is not None
    assert all(1.0 < row["f"] < 2.0 for row in doc["models"].values())
    table = run("calibrate", corpus / "claude-code", "-q")
    assert table.exit_code == 0 and "MAPE" in table.stdout


def test_default_factor_follows_each_calls_model():
    from toolaudit.tokenizers import get_tokenizer

    tok = get_tokenizer("claude")
    text = "alpha " * 1000
    base = get_tokenizer("o200k_base").count(text)
    assert tok.count_for(text, "claude-opus-4-7") == math.ceil(base * 1.5)
    assert tok.count_for(text, "claude-sonnet-4-5-20250929") == math.ceil(base * 1.25) == tok.count(text)


# --- odd values (issue 9) ---------------------------------------------------------------------------


@pytest.mark.parametrize("content", [[{"type": {"x": 1}}], [{"type": ["tool_result"]}], {"type": "text"}, 7])
def test_a_user_line_of_odd_types_costs_its_turn_not_the_file(tmp_path, content, monkeypatch):
    # `[{"type": {"x": 1}}]` once ended calibrate with `TypeError: unhashable type`
    s = Session(tmp_path / "sess-1.jsonl", 1.3)
    s.request()
    s.results(words(1000))  # clean
    s.request()
    s.results(words(1000))
    s.lines.append({**s.lines[-1], "uuid": "odd", "message": {"role": "user", "content": content}})
    s.request()
    s.results(words(2000))  # clean
    s.request()
    turns, skipped = turns_from_file(s.write(), O200K)
    odd = isinstance(content, list)  # a string or a number is no block list: read as before
    assert [t.request_index for t in turns] == ([0, 2] if odd else [0, 1, 2])
    assert skipped == ({"unreadable line": 1} if odd else {})
    from toolaudit.collectors import base

    if odd and isinstance(content[0]["type"], dict):
        monkeypatch.setattr(base, "DEBUG", True)  # --debug: the trip is raised, as in the collectors
        with pytest.raises(TypeError):
            turns_from_file(s.path, O200K)


# --- through the collector (issue 16) ---------------------------------------------------------------


def test_nested_subagent_turns_line_up_with_the_collectors_naming(tmp_path):
    # a subagent's lines nested in its parent's progress lines, with an agentId that is no string: the
    # collector names the context by the parent's tool_use id, and so do the facts calibrate reads
    sub = Session(tmp_path / "unused.jsonl", 1.5)
    sub.request()
    sub.results(words(800))
    sub.request()
    path = tmp_path / "sess-1.jsonl"
    path.write_text("".join(json.dumps({"type": "progress", "sessionId": "sess-1", "uuid": f"p{i}",
                                        "parentToolUseID": "toolu_T",
                                        "data": {"type": "agent_progress", "agentId": 7, "message": line}}) + "\n"
                            for i, line in enumerate(sub.lines)), encoding="utf-8")
    (turn,), skipped = turns_from_file(path, O200K)
    assert (turn.agent, turn.request_index, turn.o200k) == ("toolu_T", 0, 800) and not skipped
    assert turn.factor == pytest.approx(1.5)


def test_calibrate_reads_no_file_itself():
    # what it knows of a transcript comes from the collector's records (ContextEvent included)
    import ast

    from toolaudit.calibrate import engine

    tree = ast.parse(Path(engine.__file__).read_text(encoding="utf-8"))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "read_lines" not in names and "base" not in names and "collectors.base" not in modules
    assert "json" not in {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
