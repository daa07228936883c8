"""The table, the identity line and the error counts tell one story (issue 28, point 4): a call replayed in an
uncertain state whose identity replay still matched its recording is counted in the table and said beside the
identity line; a call replay refused (a path outside the working folder) is no new error of the variant.
Shapes cut from a PackmindHub/context-evaluator session (Claude Code 2.1.45: `bun run lint:fix`, then Reads of
files it did not touch, and a Read of ~/.claude/plans outside the working folder), rewritten small."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_reasons import claude_session

from toolaudit.cli import cli


def _session(path: Path, repo: Path) -> Path:
    return claude_session(path, str(repo), [
        ("Read", {"file_path": f"{repo}/a.txt"}, "     1→hi\n     2→", False),
        ("Bash", {"command": "bun run lint:fix"}, "ok", False),
        ("Read", {"file_path": f"{repo}/a.txt"}, "     1→hi\n     2→", False),
        ("Read", {"file_path": "/elsewhere/plans/notes.md"}, "     1→x\n     2→", False)])


def _run(tmp_path: Path, *extra: str) -> tuple[str, dict]:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "a.txt").write_text("hi\n", encoding="utf-8")
    session = _session(tmp_path / "s.jsonl", repo)
    args = ["replay", str(session), "--workspace", str(repo), "--no-checkout", "--identity", *extra]
    table = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert table.exit_code == 0, table.output
    doc = CliRunner().invoke(cli, [*args, "-f", "json"], catch_exceptions=False)
    assert doc.exit_code == 0, doc.output
    return table.output, json.loads(doc.output)


def test_the_table_and_the_identity_line_count_the_same_replayed_calls(tmp_path: Path) -> None:
    out, doc = _run(tmp_path, "--tool", "Read=agent:claude-code/Read?limit=1")
    read = next(t for t in doc["tools"] if t["tool"] == "Read")
    ident = next(t for t in doc["identity"]["tools"] if t["tool"] == "Read")
    assert read["replayed"] == 2  # the Read before `bun run lint:fix`, and the one after it that still matched
    assert (ident["replayed"], ident["uncertain_reproduced"]) == (1, 1)
    assert read["replayed"] == ident["replayed"] + ident["uncertain_reproduced"]
    assert doc["identity"]["uncertain_reproduced"] == 1
    assert "also replayed: 1 in an uncertain state" in out


def test_a_call_replay_refused_is_no_new_error(tmp_path: Path) -> None:
    for extra in ((), ("--tool", "Read=agent:claude-code/Read?limit=1")):
        out, doc = _run(tmp_path, *extra)
        assert (doc["new_errors"], doc["fixed_errors"]) == (0, 0)
        assert doc["totals"]["errors_before"] == doc["totals"]["errors_after"]
        assert {"reason": "refused", "calls": 1} in doc["not_replayed"]  # counted under its own reason instead
        assert "became errors" not in out and "new error:" not in out


def _one_reproduced_two_drifted(tmp_path: Path) -> tuple[Path, Path]:
    """A Read the identity replay reproduces (a.txt) and two of a file changed since (b.txt): drifted."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("hi\nthere\n", encoding="utf-8")
    (repo / "b.txt").write_text("now\n", encoding="utf-8")
    return repo, claude_session(tmp_path / "s.jsonl", str(repo), [
        ("Read", {"file_path": f"{repo}/a.txt"}, "     1→hi\n     2→there\n     3→", False),
        ("Read", {"file_path": f"{repo}/b.txt"}, "     1→then, a longer line the file held\n     2→", False),
        ("Read", {"file_path": f"{repo}/b.txt", "offset": 1}, "     1→then, a longer line the file held\n     2→",
         False)])


def test_a_verdict_beside_more_drifted_calls_than_replayed_ones_still_states_its_saving(tmp_path: Path) -> None:
    """entireio/git-sync 2.1.91 with Grep?head_limit=50: 76 calls replayed and measured (Grep 9.2% smaller), 83 set
    aside as drifted; the verdict said "nothing to compare: all 83 replayed calls drifted"."""
    repo, session = _one_reproduced_two_drifted(tmp_path)
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--no-checkout", "--identity",
                                      "--tool", "Read=agent:claude-code/Read?limit=1", "-f", "json"],
                                catch_exceptions=False)
    doc = json.loads(result.output)
    assert (doc["totals"]["replayed"], doc["totals"]["drifted"]) == (1, 2)
    out = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--no-checkout", "--identity",
                                   "--tool", "Read=agent:claude-code/Read?limit=1"], catch_exceptions=False).output
    verdict = next(line for line in out.splitlines() if line.startswith("verdict:"))
    assert "smaller" in verdict and "over 1 replayed calls" in verdict and "all 2 replayed calls drifted" not in verdict


def test_a_parameter_the_tool_does_not_use_is_an_error_before_any_call(tmp_path: Path) -> None:
    """A session without a shell_command call (entireio/git-sync's Codex 0.130 runs exec_command) asked for
    `shell_command?max_output_tokens=100` replayed silently with exit 0; the parameter means nothing there."""
    repo = tmp_path / "repo"
    repo.mkdir()
    session = claude_session(tmp_path / "s.jsonl", str(repo), [("Bash", {"command": "ls"}, "a.txt", False)])
    for spec, takes in (("codex/shell_command?max_output_tokens=100", "it takes:"),
                        ("claude-code/Read?limt=100", "did you mean 'limit'")):
        result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--no-checkout",
                                          "--tool", f"X=agent:{spec}"], catch_exceptions=False)
        assert result.exit_code == 2, result.output
        assert "takes no parameter" in result.output and takes in result.output


def test_calls_in_an_unknown_state_keep_their_action_and_say_they_matched(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("hi\n", encoding="utf-8")
    session = claude_session(tmp_path / "s.jsonl", str(repo), [
        ("Bash", {"command": "bun run lint:fix"}, "ok", False),
        ("Read", {"file_path": f"{repo}/a.txt"}, "     1→hi\n     2→", False)])
    out = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--no-checkout", "--identity"],
                             catch_exceptions=False).output
    verdict = next(line for line in out.splitlines() if line.startswith("verdict:"))
    # the action for the call in an unknown state stays, with what its re-run showed
    assert "1 × not replayable" in verdict and "1 × unknown state" in verdict and "--commit REV" in verdict
    assert "(1 of those in an unknown state, re-run anyway, matched the recording)" in verdict


def test_keep_drifted_counts_the_drifted_calls_but_never_as_checked(tmp_path: Path) -> None:
    """PackmindHub/context-evaluator 2.1.45 with Read?limit=200 --keep-drifted: '98 replayed calls, 98 of them
    checked against the identity replay' while 9 of them were drifted (their identity replay did not match)."""
    repo, session = _one_reproduced_two_drifted(tmp_path)
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(repo), "--no-checkout", "--identity",
                                      "--tool", "Read=agent:claude-code/Read?limit=1", "--keep-drifted", "-f", "json"],
                                catch_exceptions=False)
    totals = json.loads(result.output)["totals"]
    assert (totals["replayed"], totals["checked"]) == (3, 1)  # b.txt's two drifted: counted, not checked


def test_a_parameter_error_names_apart_what_identity_copies_from_the_recording() -> None:
    """Read's `saved_path`, `redacted`… are identity's plumbing: listed with what a user may set, they read as
    knobs (helper review: 'it takes: …, start_cwd, unchanged, prefix, home, saved_path, redacted')."""
    from toolaudit.errors import UsageError
    from toolaudit.replay.agents import parse_spec

    with pytest.raises(UsageError) as caught:
        parse_spec("claude-code/Read?limt=3")
    settable, _, copied = str(caught.value).partition("(identity copies")
    assert "limit" in settable and "max_tokens" in settable
    assert "saved_path" not in settable and "saved_path" in copied and "redacted" in copied
