"""Seed "repository search": a recorded `grep -rn` in Bash replayed through a dedicated, capped grep.

Known answers are computed here independently: the recorded session is read with json, the
matches are found by walking search_repo/ in Python, and the replayed outputs come from the
--calls-out file, not from the report's own arithmetic.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from toolaudit.cli import cli
from toolaudit.tokenizers import get_tokenizer

FIXTURES = Path(__file__).parent.parent / "fixtures"
REPO = FIXTURES / "search_repo"
SESSION = FIXTURES / "search_session.jsonl"
GREP = "grep=builtin:grep?max_matches=100&max_bytes=10000"


def _replay(tmp_path: Path, *extra: str) -> tuple[dict, list[dict]]:
    out = tmp_path / "replayed.jsonl"
    result = CliRunner().invoke(cli, ["replay", str(SESSION), "--workspace", str(REPO), "--translate", "shell-search",
                                      "--tool", GREP, "--tool", "glob=builtin:glob", "--calls-out", str(out),
                                      "-f", "json", "-q", *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output), [json.loads(line) for line in out.read_text().splitlines()]


def _recorded() -> list[tuple[str, str]]:
    """(command, output) of each recorded Bash call, read straight from the transcript."""
    calls, outputs = {}, {}
    for line in SESSION.read_text().splitlines():
        obj = json.loads(line)
        for part in obj["message"]["content"] if isinstance(obj["message"]["content"], list) else ():
            if part.get("type") == "tool_use" and part["name"] == "Bash":
                calls[part["id"]] = part["input"]["command"]
            elif part.get("type") == "tool_result":
                outputs[part["tool_use_id"]] = part["content"]
    return [(calls[k], outputs[k]) for k in calls]


def _all_matches() -> list[str]:
    """Every `path:line:content` match of RETRY_LIMIT in *.py and *.md, sorted by path."""
    found = []
    for path in sorted(p for p in REPO.rglob("*") if p.is_file() and p.suffix in (".py", ".md")):
        rel = path.relative_to(REPO).as_posix()
        for number, text in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            if "RETRY_LIMIT" in text:
                found.append(f"{rel}:{number}:{text}")
    return sorted(found, key=lambda m: m.split(":", 1)[0])


def test_the_recorded_search_is_large_and_the_replayed_one_is_capped(tmp_path):
    doc, calls = _replay(tmp_path)
    everything = _all_matches()
    assert len(everything) > 100 and sum(len(m.encode()) + 1 for m in everything) > 10_000
    grep_out = calls[0]
    assert grep_out["tool"] == "grep" and grep_out["replay_status"] == "replayed"
    text = grep_out["output"]
    assert len(text.encode("utf-8")) <= 10_000
    assert "narrow your search" in text.splitlines()[-1]
    results = text.splitlines()[:-1]
    assert 0 < len(results) <= 100
    # the results are the first matches in path order, none invented; the byte cut may end
    # inside the last one (on a character boundary), which is then a prefix of the match
    assert results[:-1] == everything[: len(results) - 1]
    assert everything[len(results) - 1].startswith(results[-1])
    paths = [r.split(":", 1)[0] for r in results]
    assert paths == sorted(paths)


def test_the_report_before_after_bytes_equal_independent_figures(tmp_path):
    doc, calls = _replay(tmp_path)
    recorded = _recorded()
    bash = next(t for t in doc["tools"] if t["tool"] == "Bash")
    assert bash["calls"] == len(recorded)
    assert bash["bytes_before"] == sum(len(out.encode("utf-8")) for _, out in recorded)
    bash_after = [c for c in calls if c["replay_status"] in ("replayed", "not_translated") and c["tool"] != "Read"]
    assert bash["bytes_after"] == sum(len(c["output"].encode("utf-8")) for c in bash_after)
    tok = get_tokenizer("o200k_base")
    assert bash["tokens_before"] == sum(tok.count(out) for _, out in recorded)
    assert bash["tokens_after"] == sum(tok.count(c["output"]) for c in bash_after)
    assert (bash["replayed"], bash["not_translated"]) == (4, 2)
    reasons = {(r["status"], r["reason"]) for r in doc["reasons"]}
    assert ("not_translated", "pipe") in reasons and ("not_translated", "not a search") in reasons  # `cd src && python -m pytest 2>&1 | tail`


def test_glob_and_no_match_results(tmp_path):
    _, calls = _replay(tmp_path)
    by_command = {c["call_id"]: c for c in calls}
    toml = by_command["toolu_01Seed02"]
    assert toml["tool"] == "glob"
    expected = sorted(p.relative_to(REPO).as_posix() for p in REPO.rglob("*.toml"))
    assert toml["output"].splitlines() == expected
    nothing = by_command["toolu_01Seed06"]
    assert nothing["tool"] == "grep" and not nothing["is_error"]
    assert "RETRY" not in nothing["output"] and nothing["output"]  # an empty result says so


def test_read_through_the_recorded_cwd_is_mapped_into_the_workspace(tmp_path):
    doc, calls = _replay(tmp_path, "--tool", "Read=builtin:read_file?max_chars=5000")
    read = next(c for c in calls if c["call_id"] == "toolu_01Seed03")
    assert read["replay_status"] == "replayed"
    assert "RETRY_LIMIT = 7" in read["output"]


def test_the_capped_grep_hides_the_file_the_agent_then_read(tmp_path):
    """Sorted by path, the first 100 results are old docs and configs: src/delivery/webhook.py, which the
    recorded output showed and the agent then opened with Read, is not among them."""
    doc, calls = _replay(tmp_path, "--explain", "1")
    grep_out = calls[0]["output"]
    recorded = _recorded()[0][1]
    assert "src/delivery/webhook.py" in recorded and "src/delivery/webhook.py" not in grep_out
    bash = next(t for t in doc["tools"] if t["tool"] == "Bash")
    assert bash["later_used"] == 1
    explained = doc["explain"][0]
    assert explained["used_at"] and explained["used_at"].startswith(str(SESSION))
    # the place named is the Read call's line, after the grep's output
    line = int(explained["used_at"].rsplit(":", 1)[1])
    read_call = json.loads(SESSION.read_text().splitlines()[line - 1])
    assert read_call["message"]["content"][0]["name"] == "Read"


def test_a_saving_made_of_new_errors_is_called_out(tmp_path):
    """Replayed against the wrong folder, every search fails short: the verdict must not sell that as a saving."""
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["replay", str(SESSION), "--workspace", str(empty), "--tool",
                                      "Read=builtin:read_file", "--before", "recorded"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    verdict = next(line for line in result.output.splitlines() if line.startswith("verdict:"))
    assert "2 replayed calls became errors" in verdict and "--workspace" in verdict
    # measured against Claude Code's own Read re-run there, the call is drifted: nothing to compare
    result = CliRunner().invoke(cli, ["replay", str(SESSION), "--workspace", str(empty), "--tool",
                                      "Read=builtin:read_file"], catch_exceptions=False)
    verdict = next(line for line in result.output.splitlines() if line.startswith("verdict:"))
    assert "nothing was replayed: 2 × drifted" in verdict and "--workspace" in verdict
