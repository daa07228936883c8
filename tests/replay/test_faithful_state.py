"""Faithful replay on real Claude Code sessions: `replay --identity` reproduces Read, Grep and Glob byte for byte,
applies the session's edits in order, keeps the calls that never ran, and reports drift.

The fixtures are lines cut verbatim from sessions of github.com/entireio/cli (MIT) and the files those calls read
at the session's start commit (tests/fixtures/replay-entire/README.md). Each test copies what it replays into
tmp_path (a fixture folder sits inside this repository, whose ignore files ripgrep would read), and the last one
checks that a replay run on the fixture folder itself leaves it as it was.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from toolaudit.cli import cli
from toolaudit.collectors.claude_code import ClaudeCodeCollector
from toolaudit.model import ToolCall
from toolaudit.replay.fidelity import START_REASON
from toolaudit.replay.state import SessionState

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "replay-entire"


# --- helpers -----------------------------------------------------------------------------------------


def _lines(case: str) -> list[str]:
    return (FIXTURES / case / "session.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def _blocks(line: str) -> list[dict]:
    entry = json.loads(line)
    if entry.get("type") == "progress":  # a subagent's message, inside its parent's progress line
        entry = entry.get("data", {}).get("message", {})
    content = entry.get("message", {}).get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _uses(case: str) -> dict[str, dict]:
    """call id -> the recorded tool_use block (name, input)."""
    return {b["id"]: b for line in _lines(case) for b in _blocks(line) if b.get("type") == "tool_use"}


def _recorded(case: str) -> dict[str, str]:
    """call id -> the tool_result text the model saw."""
    found = {}
    for line in _lines(case):
        for block in _blocks(line):
            if block.get("type") == "tool_result":
                content = block["content"]
                found[block["tool_use_id"]] = content if isinstance(content, str) else "".join(
                    part["text"] for part in content if part.get("type") == "text")
    return found


def _session(case: str, tmp_path: Path, *, drop: tuple[str, ...] = (), replace: tuple[str, str] | None = None) -> Path:
    """A copy of the case's session in tmp_path, without the lines of the calls `drop` names (call and result),
    with `replace` = (old, new) applied to every line."""
    kept = []
    for line in _lines(case):
        ids = {b.get("id") or b.get("tool_use_id") for b in _blocks(line)}
        if ids & set(drop):
            continue
        kept.append(line.replace(*replace) if replace else line)
    assert len(kept) == len(_lines(case)) - 2 * len(drop)  # each dropped call took its call and its result line
    path = tmp_path / f"{case}.jsonl"
    path.write_text("".join(kept), encoding="utf-8")
    return path


def _workspace(case: str, tmp_path: Path) -> Path:
    """The case's files at the session's start commit, copied (an empty folder when the session read none)."""
    target = tmp_path / "repo"
    if (FIXTURES / case / "repo").is_dir():
        shutil.copytree(FIXTURES / case / "repo", target)
    else:
        target.mkdir()
    return target


def _replay(session: Path, workspace: Path, *extra: str, fmt: str = "json"):
    args = ["replay", str(session), "--workspace", str(workspace), "--identity", *(() if "--commit" in extra else ("--no-checkout",)), "-q", "-f", fmt,
            *extra]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if fmt == "json" else result.stdout


def _calls_out(path: Path) -> dict[str, dict]:
    """call id -> its line in a --calls-out file."""
    return {row["call_id"]: row for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def _tool(report: dict, name: str) -> dict:
    return next(row for row in report["tools"] if row["tool"] == name)


def _identity(report: dict, name: str) -> dict:
    return next(row for row in report["identity"]["tools"] if row["tool"] == name)


def _ids(case: str, tool: str) -> list[str]:
    return [call_id for call_id, use in _uses(case).items() if use["name"] == tool]


def _tree(folder: Path) -> dict[str, tuple[str, int]]:
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


# --- 1. identity: Read, Grep and Glob re-run give the recorded bytes ---------------------------------------


def test_read_grep_and_glob_replay_the_recorded_output_byte_for_byte(tmp_path):
    """Claude Code 2.1.25 in a worktree folder (/Users/alex/workspace/cli/.worktrees/...): two Reads, two content
    Greps with -C 10 over one file, a Glob, each reproduced exactly from the files at the session's start commit."""
    case = "identity"
    report = _replay(FIXTURES / case / "session.jsonl", _workspace(case, tmp_path),
                     "--calls-out", str(tmp_path / "calls.jsonl"))

    ident = report["identity"]
    assert (ident["calls"], ident["replayed"], ident["identical"], ident["reasons"]) == (5, 5, 5, [])
    assert [(_identity(report, t)["replayed"], _identity(report, t)["identical"]) for t in ("Read", "Grep", "Glob")] \
        == [(2, 2), (2, 2), (1, 1)]
    assert report["totals"]["drifted"] == 0 and report["drifted"] == []
    assert report["notes"] == []  # no edit in these lines: the folder is read as it is

    # byte for byte, call by call: the output replay produced is the tool_result the model saw
    out, recorded = _calls_out(tmp_path / "calls.jsonl"), _recorded(case)
    assert sorted(out) == sorted(recorded) and len(out) == 5
    for call_id, text in recorded.items():
        assert out[call_id]["replay_status"] == "replayed"
        assert out[call_id]["output"] == text, call_id
    glob = out[_ids(case, "Glob")[0]]["output"]
    assert glob == ("/Users/alex/workspace/cli/.worktrees/alex/test-explain-checkpoint-boundaries/"
                    "cmd/entire/cli/transcript/parse_test.go")  # printed under the recorded folder, not tmp_path


# --- 2. the session's edits, applied in order --------------------------------------------------------------


EDIT = "toolu_01HThi7T71D97p5AB6urNxnt"  # edit-then-read: the Edit of cmd/entire/cli/types.go
WRITE = "toolu_01SR559XwedGkTs1gkTh8Fs2"  # write-then-read: the Write creating wingman_spawn_other.go


def test_the_second_read_matches_because_the_edit_was_applied_before_it(tmp_path):
    """Claude Code 2.1.7: Read types.go, Edit it, Read it again. Both Reads are byte-identical; the second shows the
    edit's text, which the start commit's file does not hold."""
    case = "edit-then-read"
    workspace = _workspace(case, tmp_path)
    report = _replay(FIXTURES / case / "session.jsonl", workspace, "--calls-out", str(tmp_path / "calls.jsonl"))

    read = _identity(report, "Read")
    assert (read["calls"], read["replayed"], read["identical"], read["reasons"]) == (2, 2, 2, [])
    assert report["totals"]["drifted"] == 0
    edit = _tool(report, "Edit")
    assert (edit["calls"], edit["replayed"], edit["kept"]) == (1, 0, 1)  # an edit is applied, never re-run
    assert report["notes"] == [("session eb4bcc15-3ff5-4d73-bac5-9bc1d786b2bb: replayed in a scratch copy of the "
                                "workspace as it is")]

    new_text = _uses(case)[EDIT]["input"]["new_string"]
    added = next(line for line in new_text.splitlines() if line.strip() and line not in
                 _uses(case)[EDIT]["input"]["old_string"])
    first, second = _ids(case, "Read")
    out = _calls_out(tmp_path / "calls.jsonl")
    assert out[first]["output"] == _recorded(case)[first] and added not in out[first]["output"]
    assert out[second]["output"] == _recorded(case)[second] and added in out[second]["output"]
    assert added not in (workspace / "cmd/entire/cli/types.go").read_text(encoding="utf-8")  # scratch copy only


def test_without_the_edit_the_second_read_is_reported_drifted(tmp_path):
    """The control: the same lines with the Edit (its call and its result) removed. The first Read still matches;
    the second reads the start commit's file and is drifted, with the reason, and left out of the sizes."""
    case = "edit-then-read"
    report = _replay(_session(case, tmp_path, drop=(EDIT,)), _workspace(case, tmp_path))

    read = _identity(report, "Read")
    assert (read["calls"], read["replayed"], read["identical"]) == (2, 2, 1)
    assert read["reasons"] == [{"reason": "changed since the session's state", "calls": 1}]
    assert report["drifted"] == [{"reason": "changed since the session's state", "calls": 1}]
    assert (_tool(report, "Read")["drifted"], report["totals"]["drifted"]) == (1, 1)
    assert report["notes"] == []  # nothing to apply: no scratch copy


def test_a_write_creates_the_file_a_later_read_sees(tmp_path):
    """Claude Code 2.1.39: a Read of a file at the start commit, a Write creating another, a Read of that one.
    Without the Write the last Read finds no file, and says so."""
    case = "write-then-read"
    report = _replay(FIXTURES / case / "session.jsonl", _workspace(case, tmp_path))
    read = _identity(report, "Read")
    assert (read["calls"], read["replayed"], read["identical"], read["reasons"]) == (2, 2, 2, [])
    assert (_tool(report, "Write")["kept"], report["totals"]["drifted"]) == (1, 0)

    control = _replay(_session(case, tmp_path, drop=(WRITE,)), _workspace(case, tmp_path / "control"))
    read = _identity(control, "Read")
    assert (read["replayed"], read["identical"]) == (2, 1)
    assert control["drifted"] == [{"reason": "path absent now (created outside the recorded edits)", "calls": 1}]


def test_an_edit_that_deletes_text_also_deletes_the_newline_after_it_as_claude_code_did(tmp_path):
    """Claude Code 2.1.5 deleted two lines of setup.go with an Edit whose new_string is "" and whose old_string ends
    without a newline: Claude Code deletes the newline after it too (cli.js, every version 2.0.0 to 2.1.112). The
    file before the edit is the Edit's recorded toolUseResult.originalFile, the file after it the next Edit's; the
    session's state, given the first and the recorded Edit, must hold the second."""
    case = "edit-delete"
    lines = [json.loads(line) for line in _lines(case)]
    before, after = lines[1]["toolUseResult"]["originalFile"], lines[3]["toolUseResult"]["originalFile"]
    target = tmp_path / "cmd/entire/cli/setup.go"
    target.parent.mkdir(parents=True)
    target.write_text(before, encoding="utf-8")
    calls = [r for r in ClaudeCodeCollector().records(FIXTURES / case / "session.jsonl") if isinstance(r, ToolCall)]
    edit = next(c for c in calls if json.loads(c.args)["new_string"] == "")

    state = SessionState(tmp_path, "/Users/soph/Work/entire/devenv/cli")
    assert state.record(edit) == "applied to the session's state"
    assert (state.applied, state.failed, state.uncertain) == (1, 0, {})
    assert target.read_text(encoding="utf-8") == after  # both lines gone, not one left blank in their place


# --- 3. calls that never ran -------------------------------------------------------------------------------


def test_a_sibling_errored_call_keeps_its_recording_and_is_never_replayed(tmp_path):
    """Claude Code 2.1.39: a Grep of a missing .golangci.yml errors, so its sibling Read of that file never ran
    (`<tool_use_error>Sibling tool call errored</tool_use_error>`); then a Glob and a Read find .golangci.yaml.
    The Read is never replayed: its recording stands (re-run now, it would answer 'File does not exist. Did you
    mean .golangci.yaml?')."""
    case = "never-ran-sibling"
    report = _replay(FIXTURES / case / "session.jsonl", _workspace(case, tmp_path),
                     "--calls-out", str(tmp_path / "calls.jsonl"))

    totals = report["totals"]
    assert (totals["calls"], totals["replayed"], totals["never_ran"], totals["drifted"]) == (4, 3, 1, 0)
    read = _tool(report, "Read")
    assert (read["calls"], read["replayed"], read["never_ran"]) == (2, 1, 1)
    assert {"status": "never_ran", "reason": "never ran: a sibling call's error", "calls": 1} in report["reasons"]
    assert (report["new_errors"], report["fixed_errors"], totals["errors_before"], totals["errors_after"]) == \
        (0, 0, 2, 2)  # the Grep's error replayed as recorded; the Read's recorded error stands
    ident = report["identity"]
    assert (ident["calls"], ident["replayed"], ident["identical"]) == (4, 3, 3)
    assert ident["reasons"] == [{"reason": "never ran: a sibling call's error", "calls": 1}]

    never = next(i for i, use in _uses(case).items() if use["input"].get("file_path", "").endswith(".golangci.yml"))
    row = _calls_out(tmp_path / "calls.jsonl")[never]
    assert (row["replay_status"], row["replay_reason"]) == ("never_ran", "never ran: a sibling call's error")
    assert row["output"] == _recorded(case)[never] == "<tool_use_error>Sibling tool call errored</tool_use_error>"


def test_a_call_the_user_rejected_keeps_its_recording(tmp_path):
    """Claude Code 2.1.32: a Grep the user rejected ("The user doesn't want to proceed with this tool use"). Its
    recording stands; re-run, it would have been refused (its path, the main checkout's .git, lies outside the
    session's folder, a worktree), so only never_ran says why it was not replayed."""
    case = "never-ran-rejected"
    report = _replay(FIXTURES / case / "session.jsonl", _workspace(case, tmp_path),
                     "--calls-out", str(tmp_path / "calls.jsonl"))
    assert (report["totals"]["calls"], report["totals"]["replayed"], report["totals"]["never_ran"]) == (1, 0, 1)
    assert report["reasons"] == [{"status": "never_ran", "reason": "never ran: the user rejected it", "calls": 1}]
    assert (report["identity"]["calls"], report["identity"]["replayed"]) == (1, 0)
    (call_id, recorded), = _recorded(case).items()
    row = _calls_out(tmp_path / "calls.jsonl")[call_id]
    assert row["replay_status"] == "never_ran" and row["output"] == recorded
    assert recorded.startswith("The user doesn't want to proceed with this tool use.")


def test_a_call_whose_program_could_not_start_is_never_replayed(tmp_path):
    """Claude Code 2.1.14 after its binary was replaced mid-session: a Grep and a Glob answered
    "ENOENT: no such file or directory, posix_spawn '/opt/homebrew/Caskroom/claude-code/2.1.14/claude'" (the ripgrep
    it runs could not start). Neither tool ran; a re-run that answers is no 'fixed error'. The folders they name
    exist here, so that a re-run would answer."""
    case = "never-ran-spawn"
    workspace = _workspace(case, tmp_path)
    (workspace / "cmd/entire/cli/strategy").mkdir(parents=True)
    (workspace / "cmd/entire/cli/agent").mkdir()
    (workspace / "cmd/entire/cli/agent/agent.go").write_text("package agent\n", encoding="utf-8")
    report = _replay(FIXTURES / case / "session.jsonl", workspace, "--tool", "Grep=builtin:grep",
                     "--tool", "Glob=builtin:glob", "--calls-out", str(tmp_path / "calls.jsonl"))

    totals = report["totals"]
    assert (totals["calls"], totals["replayed"], totals["never_ran"]) == (2, 0, 2)
    assert (report["new_errors"], report["fixed_errors"]) == (0, 0)
    assert report["reasons"] == [{"status": "never_ran", "reason": "never ran: its program could not start",
                                  "calls": 2}]
    assert (report["identity"]["calls"], report["identity"]["replayed"]) == (2, 0)
    out = _calls_out(tmp_path / "calls.jsonl")
    assert [row["output"] for row in out.values()] == list(_recorded(case).values())


# --- 4. outputs the agent cut, and drift ----------------------------------------------------------------------


PERSISTED = "toolu_01LuVyRSj6VW3CSHgd9ruzz6"
REDACTED = "/Users/alex/.REDACTED.txt"  # the transcript pipeline's redaction of the saved output's path
SAVED = ("/Users/alex/.claude/projects/-Users-alex-workspace-cli/4de02c81-2bd4-4ea2-9370-f1f32de9248e/tool-results/"
         f"{PERSISTED}.txt")  # where Claude Code saved it: ~/.claude/projects/<folder>/<session>/tool-results/<id>.txt


def test_a_persisted_grep_preview_is_reproduced(tmp_path):
    """Claude Code 2.1.42: a content Grep with -C 2 over checkpoint.go gave 24.8KB, over Grep's 20,000 characters:
    the model saw the <persisted-output> preview, and the identity replay prints the same preview. The recording's
    saved path was redacted by the transcript pipeline; the copy replayed has it put back."""
    case = "persisted-grep"
    assert REDACTED in _recorded(case)[PERSISTED]
    session = _session(case, tmp_path, replace=(REDACTED, SAVED))
    report = _replay(session, _workspace(case, tmp_path), "--calls-out", str(tmp_path / "calls.jsonl"))

    grep = _identity(report, "Grep")
    assert (grep["calls"], grep["replayed"], grep["identical"], grep["reasons"]) == (1, 1, 1, [])
    output = _calls_out(tmp_path / "calls.jsonl")[PERSISTED]["output"]
    assert output == _recorded(case)[PERSISTED].replace(REDACTED, SAVED)
    assert output.startswith(f"<persisted-output>\nOutput too large (24.8KB). Full output saved to: {SAVED}\n\n"
                             "Preview (first 2KB):\n1:// Package checkpoint")
    assert output.endswith("\n...\n</persisted-output>")


def test_a_variant_of_a_persisted_call_is_cut_as_the_agent_cut_it(tmp_path):
    """The recording shows Claude Code persisted this call's output; a variant answering with more than 20,000
    characters is measured after the same cut (a preview), not whole."""
    case = "persisted-grep"
    session = _session(case, tmp_path, replace=(REDACTED, SAVED))
    _replay(session, _workspace(case, tmp_path), "--tool", "Grep=builtin:grep?max_matches=10000&max_bytes=100000",
            "--calls-out", str(tmp_path / "calls.jsonl"))
    cut = _calls_out(tmp_path / "calls.jsonl")[PERSISTED]["output"]
    assert cut.startswith("<persisted-output>\n") and f"Full output saved to: {SAVED}\n" in cut
    assert len(cut) < 3000  # the preview, not the variant's whole answer


def test_the_saved_path_a_recording_redacted_is_taken_from_the_recording(tmp_path):
    """Entire's pipeline redacted every persisted output's path: identity takes the path as recorded, so the
    preview is still byte-identical, and a variant's cut names the same path."""
    case = "persisted-grep"
    doc = _replay(FIXTURES / case / "session.jsonl", _workspace(case, tmp_path), "--tool",
                  "Grep=builtin:grep?max_matches=10000&max_bytes=100000", "--calls-out", str(tmp_path / "c.jsonl"))
    grep = _identity(doc, "Grep")
    assert grep["identical"] == grep["replayed"] >= 1
    assert f"Full output saved to: {REDACTED}\n" in _calls_out(tmp_path / "c.jsonl")[PERSISTED]["output"]


def test_a_file_changed_since_the_session_is_drifted_and_left_out_of_the_saving(tmp_path):
    """parse_test.go cut to its first 20 lines in the workspace: its Read no longer reproduces the recording, is
    reported drifted with the reason, and its saving is left out unless --keep-drifted."""
    case = "identity"
    session = FIXTURES / case / "session.jsonl"
    variant = ("--tool", "Read=builtin:read_file?max_chars=500")
    clean = _replay(session, _workspace(case, tmp_path / "clean"), *variant)

    workspace = _workspace(case, tmp_path / "changed")
    changed_file = workspace / "cmd/entire/cli/transcript/parse_test.go"
    changed_file.write_text("".join(changed_file.read_text(encoding="utf-8").splitlines(keepends=True)[:20]),
                            encoding="utf-8")
    drifted = _replay(session, workspace, *variant)
    kept = _replay(session, workspace, *variant, "--keep-drifted")

    # the session's first look at the file: the difference is in the state it started from
    reason = [{"reason": START_REASON, "calls": 1}]
    assert drifted["drifted"] == kept["drifted"] == reason
    assert _identity(drifted, "Read")["identical"] == 1 and _identity(drifted, "Read")["reasons"] == reason
    assert (_identity(drifted, "Glob")["identical"], _identity(drifted, "Grep")["identical"]) == (1, 2)

    read_clean, read_drifted, read_kept = (_tool(r, "Read") for r in (clean, drifted, kept))
    assert (read_clean["drifted"], read_drifted["drifted"], read_kept["drifted"]) == (0, 1, 0)
    # a drifted call is set aside: counted as drifted, not replayed (the table and the identity line agree)
    assert (read_clean["replayed"], read_drifted["replayed"], read_kept["replayed"]) == (2, 1, 2)
    assert 0 < read_drifted["tokens_before"] < read_kept["tokens_before"]
    assert 0 < read_drifted["tokens_saved"] < read_kept["tokens_saved"]
    assert read_drifted["tokens_saved"] < read_clean["tokens_saved"]
    assert (drifted["totals"]["drifted"], kept["totals"]["drifted"]) == (1, 0)

    table = _replay(session, workspace, *variant, fmt="table")
    assert (f"drifted: 1 calls left out of the sizes and the saving (1 × {START_REASON}; "
            "--keep-drifted counts them)") in table


def test_a_read_only_git_command_run_in_another_folder_casts_no_doubt(tmp_path):
    """Claude Code 2.1.39: `git -C /Users/dip/Repositories/cli log --oneline -5` (the session's own folder), then a
    Read of lines 35 to 59 of wingman_spawn_unix.go. A `git -C DIR log` writes nothing: with the file cut to 40
    lines in the workspace, the Read drifts for that reason, not for a doubt the git command would have cast on
    the whole workspace (`-C`'s folder read as git's subcommand). The git command itself is run too (`git -C DIR`
    in the replay folder): the fixture's folder holds no history, so its log differs, and only there."""
    case = "git-c-read"
    workspace = _workspace(case, tmp_path)
    clean = _replay(FIXTURES / case / "session.jsonl", workspace)
    read = _identity(clean, "Read")
    assert (read["identical"], read["reasons"]) == (1, [])
    assert _identity(clean, "Bash")["replayed"] == 1

    changed = workspace / "cmd/entire/cli/wingman_spawn_unix.go"
    changed.write_text("".join(changed.read_text(encoding="utf-8").splitlines(keepends=True)[:40]), encoding="utf-8")
    report = _replay(FIXTURES / case / "session.jsonl", workspace)
    assert _identity(report, "Read")["reasons"] == [{"reason": START_REASON, "calls": 1}]


# --- the fixtures are never written ------------------------------------------------------------------------


def test_a_replay_that_applies_edits_leaves_the_fixture_folder_as_it_was(tmp_path):
    """Run on the fixture folder itself: the Edit goes to replay's scratch copy, not to tests/fixtures."""
    folder = FIXTURES / "edit-then-read"
    before = _tree(folder)
    report = _replay(folder / "session.jsonl", folder / "repo")
    assert _identity(report, "Read")["identical"] == 2  # the edit was applied (to the copy)
    assert _tree(folder) == before


def test_a_whole_file_read_the_state_did_not_reproduce_teaches_the_calls_after_it(tmp_path):
    """The session began with uncommitted work: the workspace's types.go lacks a comment line the first Read
    shows. That Read stays a difference at the session's first look; the file is taken from its listing, so
    the Edit applies to what the agent saw and the second Read is byte-identical. Without the listing
    (the first Read dropped) the second Read differs."""
    case = "edit-then-read"
    workspace = _workspace(case, tmp_path)
    source = workspace / "cmd/entire/cli/types.go"
    text = source.read_text(encoding="utf-8")
    first_comment = next(line for line in text.splitlines() if line.startswith("//"))
    source.write_text(text.replace(first_comment + "\n", "", 1), encoding="utf-8")  # the start state as committed
    report = _replay(FIXTURES / case / "session.jsonl", workspace, "--calls-out", str(tmp_path / "calls.jsonl"))

    read = _identity(report, "Read")
    assert (read["calls"], read["replayed"], read["identical"]) == (2, 2, 1)
    assert read["reasons"] == [{"reason": START_REASON, "calls": 1}]
    first, second = _ids(case, "Read")
    out = _calls_out(tmp_path / "calls.jsonl")
    assert out[second]["output"] == _recorded(case)[second] and first_comment in out[second]["output"]
    assert first_comment not in source.read_text(encoding="utf-8")  # learnt in the scratch copy only
    assert any("1 file(s) taken from a whole-file Read" in note for note in report["notes"])  # and said so

    control = _replay(_session(case, tmp_path, drop=(first,)), _workspace(case, tmp_path / "control"))
    assert _identity(control, "Read")["identical"] == 1  # the committed file is the start state there: it matches


# --- 6. the start state from the session's own `git diff`, and a subagent's Read -------------------------


def _committed(case: str, tmp_path: Path) -> tuple[Path, str]:
    """The case's files committed in a fresh git repository (the session's start commit, as far as they go), and
    that commit's id."""
    from conftest import committed_repo, run_git

    repo = _workspace(case, tmp_path)
    run_git(repo, "init", "-q")
    run_git(repo, "config", "core.abbrev", "8")  # the recording's repository abbreviated blob ids to 8 digits
    return repo, committed_repo(repo)


def test_the_uncommitted_work_a_later_git_diff_shows_is_in_the_start_state(tmp_path):
    """Claude Code 2.1.39 (fc64fce284b3): a subagent runs `git diff HEAD .entire/settings.json | head -50` early
    on; much later the main thread runs `git -C … diff`, whose recorded output shows the uncommitted change to
    .entire/settings.json the session started with (the session never edited it). Replayed at the commit, the
    early diff is reproduced byte for byte only because the start state takes that change; without the later
    diff (its lines dropped) it differs at the session's first look. The subagent's Read of config.go carries
    no malware reminder: the session's model is Opus 4.6 though the subagent's own is Haiku."""
    case = "git-diff-start"
    early, late = (call_id for call_id, use in _uses(case).items() if use["name"] == "Bash")
    repo, commit = _committed(case, tmp_path)
    report = _replay(FIXTURES / case / "session.jsonl", repo, "--commit", commit,
                     "--calls-out", str(tmp_path / "calls.jsonl"))
    out, recorded = _calls_out(tmp_path / "calls.jsonl"), _recorded(case)
    assert "local_dev" in recorded[early] and out[early]["output"] == recorded[early]
    assert any("1 file(s) started with the uncommitted work its own recorded `git diff` showed" in note
               for note in report["notes"])
    read = _identity(report, "Read")
    assert (read["replayed"], read["identical"]) == (1, 1)
    assert not recorded[_ids(case, "Read")[0]].endswith(read_reminder())
    assert (repo / ".entire/settings.json").read_text(encoding="utf-8") == \
        (FIXTURES / case / "repo/.entire/settings.json").read_text(encoding="utf-8")  # primed in the scratch only

    repo, commit = _committed(case, tmp_path / "control")
    control = _replay(_session(case, tmp_path, drop=(late,)), repo, "--commit", commit,
                      "--calls-out", str(tmp_path / "control.jsonl"))
    assert _calls_out(tmp_path / "control.jsonl")[early]["output"] != recorded[early]
    assert not any("git diff" in note for note in control["notes"])


def read_reminder() -> str:
    from toolaudit.replay.agents.claude_code.common import MALWARE_REMINDER

    return MALWARE_REMINDER
