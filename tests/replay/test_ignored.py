"""A file git ignores that the checkout lacks is the recording machine's alone: a call that shows it was there is set
aside as in an unknown state, with the path named, never compared as if the file were missing.

Written by us in the shape of 1curafu/Fitcheck's checkpoint 32/9aa9447cb632 (Claude Code 2.1.220; GPL-3.0, so
nothing of it is copied): its `.gitignore` holds `/docs`, and the session read `docs/STATE.md` and the plans under
`docs/superpowers/plans/` whole, files no commit of the repository holds (its own `git check-ignore -v` printed
`.gitignore:34:/docs	docs/STATE.md`)."""

from __future__ import annotations

import json

import pytest

from conftest import committed_repo

import toolaudit
from toolaudit.replay.ignored import ignored

CWD = "/Users/u/fit"
STATE = "1\t# Session Handoff / Project State\n2\t\n3\t_Last updated: 2026-07-27._"


def _line(kind: str, ts: str, content: list, cwd: str = CWD) -> dict:
    message = {"role": kind, "content": content, **({"model": "claude-opus-4-7", "id": f"msg_{ts}",
                                                      "type": "message"} if kind == "assistant" else {})}
    return {"type": kind, "message": message, "uuid": f"u-{ts}", "timestamp": ts, "cwd": cwd, "sessionId": "s-1",
            "version": "2.1.220", "gitBranch": "main"}


def _session(path, reads: list[tuple[str, str, bool]], cwd: str = CWD) -> str:
    lines = []
    for n, (rel, result, error) in enumerate(reads, 1):
        ts = f"2026-07-27T21:12:{10 + n:02d}.000Z"
        lines += [_line("assistant", ts, [{"type": "tool_use", "id": f"toolu_{n}", "name": "Read",
                                           "input": {"file_path": f"{cwd}/{rel}"}}], cwd),
                  _line("user", ts.replace(".000Z", ".100Z"), [{"tool_use_id": f"toolu_{n}", "type": "tool_result",
                                                                "content": result, **({"is_error": True} if error
                                                                                      else {})}], cwd)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _identity(tmp_path, reads, cwd: str = CWD):
    repo = tmp_path / "repo"
    repo.mkdir()
    commit = committed_repo(repo, {".gitignore": "/docs\n", "app/page.tsx": "export default 1;\n"})
    result = toolaudit.replay([_session(tmp_path / "s.jsonl", reads, cwd)], workspace=str(repo), identity=True,
                              commit=commit)
    return result.identity.totals


def test_a_read_of_an_ignored_file_the_checkout_lacks_is_set_aside_with_the_path_named(tmp_path):
    totals = _identity(tmp_path, [("docs/STATE.md", STATE, False)])
    assert totals.replayed == 0
    assert [why for why, _ in totals.reasons] == [
        "uncertain: docs/STATE.md: git ignores it and the checkout lacks it (a local file no commit holds: the "
        "recording machine's)"]


def test_its_text_is_taken_from_the_whole_file_read_so_a_later_read_is_compared(tmp_path):
    totals = _identity(tmp_path, [("docs/STATE.md", STATE, False), ("docs/STATE.md", STATE, False)])
    assert (totals.replayed, totals.within_1pct) == (1, 1)


def test_a_recorded_missing_file_is_compared_as_it_is(tmp_path):
    missing = f"File does not exist. Note: your current working directory is {CWD}."
    totals = _identity(tmp_path, [("docs/STATE.md", missing, True)])
    assert (totals.replayed, totals.within_1pct) == (1, 1)


def test_a_missing_file_git_does_not_ignore_stays_a_difference(tmp_path):
    totals = _identity(tmp_path, [("notes/STATE.md", STATE, False)])
    assert (totals.replayed, totals.within_1pct) == (1, 0)


def test_ignored_asks_git_and_says_nothing_outside_a_repository(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {".gitignore": "/docs\ndist/\n"})
    assert ignored(repo, ["docs/a/b.md", "dist/x.py", "src/y.py"]) == {"docs/a/b.md", "dist/x.py"}
    assert ignored(tmp_path / "nothing", ["docs/a.md"]) == set()


def test_the_verdict_of_a_session_replaying_none_names_the_file_and_what_to_do(tmp_path):
    from toolaudit.reports.replay_view import ReplayView

    repo = tmp_path / "repo"
    repo.mkdir()
    commit = committed_repo(repo, {".gitignore": "/docs\n"})
    session = _session(tmp_path / "s.jsonl", [("docs/STATE.md", STATE, False)])
    result = toolaudit.replay([session], workspace=str(repo), identity=True, commit=commit)
    verdict = ReplayView().headline(result)[1][0]
    assert verdict.startswith("verdict: no call of a known agent tool could be re-run: 1 × unknown state (Read 1), "
                              "docs/STATE.md: git ignores it and the checkout lacks it")
    assert verdict.endswith("replay on a folder that holds them with --no-checkout")


def test_a_codex_command_reading_a_file_git_ignores_that_the_checkout_lacks_is_the_recording_machines(tmp_path):
    from toolaudit.replay.agents.base import Call
    from toolaudit.replay.agents.codex_local import local_state
    from toolaudit.replay.sandbox import Sandbox

    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {".gitignore": ".env.local\nlogs/\n", "app.py": "print(1)\n"})

    def why(cmd: str) -> str | None:
        return local_state(Call("exec_command", {"cmd": cmd}, repo, "/home/u/app", "0.120.0",
                                Sandbox(workspace=repo, timeout=60)))

    assert why("cat .env.local") == "reads .env.local, which git ignores: a local file no commit holds"
    assert why("cat app.py logs/run.log") == "reads logs/run.log, which git ignores: a local file no commit holds"
    assert why("cat app.py") is None and why("cat notes.md") is None  # tracked; missing but not ignored


def test_a_file_a_commit_written_after_the_session_began_adds_is_work_not_yet_committed(tmp_path):
    # shaped on bricerising/specify-poker's Codex 0.77 sessions: `sed -n '1,200p' <a file of a feature committed
    # hours later>`, its text recorded, the start commit without it
    import json as _json

    from click.testing import CliRunner

    from conftest import run_git
    from test_worktree_replay import CWD, _session

    from toolaudit.cli import cli

    repo = tmp_path / "repo"
    start = committed_repo(repo, {"src/rates.py": "RATE = 1\n"}, "start")
    run_git(repo, "checkout", "-qb", "feature")
    (repo / "src" / "early.py").write_text("EARLY = 1\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "early", "--date=2025-10-21T13:00:00Z")  # before the call at 14:02
    run_git(repo, "checkout", "-q", "main" if "main" in run_git(repo, "branch") else "master")
    (repo / "src" / "profile.py").write_text("PROFILE = 1\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "the feature", "--date=2025-10-21T17:30:00Z")  # after it

    def reasons(command: str, recorded: str) -> list[str]:
        return _identity_reasons(tmp_path, repo, start, command, recorded)

    assert reasons("cat src/profile.py", "PROFILE = 1\n") == [
        "uncertain: src/profile.py: the checkout lacks it and a commit written after the session began adds it "
        "(work not committed when it began)"]
    said = CliRunner().invoke(cli, ["replay", str(tmp_path / "rollout.jsonl"), "--workspace", str(repo), "--identity"],
                              catch_exceptions=False, env={"COLUMNS": "400"}).output
    assert "work no commit held when the session began: replay it on a copy of that folder with --no-checkout" in said
    assert "dollars: not priced" in said and "dollars: dollars:" not in said  # nothing sized: said once
    # a listing that names it (rg --files, rg -n's `path:line:`): the same
    assert reasons("rg -n PROFILE src", "src/profile.py:1:PROFILE = 1\n")[0].startswith("uncertain: src/profile.py:")
    assert reasons("rg --files src", "src/profile.py\nsrc/rates.py\n")[0].startswith("uncertain: src/profile.py:")
    # a commit written while the session waited between turns (its user's), before a later call: the same
    run_git(repo, "checkout", "-q", "feature")
    (repo / "src" / "between.py").write_text("BETWEEN = 1\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "between", "--date=2025-10-21T16:00:00Z")  # its first call: 14:02:35
    rollout = _session(tmp_path / "rollout.jsonl", start, "RATE = 1\n")
    later = {"command": ["bash", "-lc", "cat src/between.py"], "workdir": CWD}
    rollout.write_text(rollout.read_text().replace("grep -rn 'RATE' src", "cat src/rates.py") + "".join(
        _json.dumps(line) + "\n" for line in (
            {"timestamp": "2025-10-21T18:00:00.000Z", "type": "response_item", "payload": {
                "type": "function_call", "name": "shell", "arguments": _json.dumps(later), "call_id": "call_2"}},
            {"timestamp": "2025-10-21T18:00:00.100Z", "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": "call_2", "output": _json.dumps(
                    {"output": "BETWEEN = 1\n", "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}})))
    done = CliRunner().invoke(cli, ["replay", str(rollout), "--workspace", str(repo), "--identity", "-f", "json",
                                    "-q"], catch_exceptions=False)
    said = [r["reason"] for r in _json.loads(done.output)["identity"]["reasons"]]
    assert "uncertain: src/between.py: the checkout lacks it and a commit written after the session began adds it " \
        "(work not committed when it began)" in said
    # a commit before the session began (another branch): the start commit may be the wrong one: it stays a miss
    assert reasons("cat src/early.py", "EARLY = 1\n") == ["path absent now (created outside the recorded edits)"]
    # the recording says it was not there: compared, not set aside
    said = reasons("cat src/profile.py", "cat: src/profile.py: No such file or directory\n")
    assert not any(r.startswith("uncertain") for r in said)


def test_what_the_review_found(tmp_path):
    """Found by reviewing 7b3c26b: a recorded output nested past Python's stack crashed the replay; one pathspec-like
    path lost a whole check-ignore batch; a 300-character line made the call FAILED (ENAMETOOLONG)."""
    from toolaudit.replay.ignored import _listed, _missing
    from toolaudit.replay.state import SessionState

    assert _listed('{"output": ' + "[" * 50_000, "/w") == []  # RecursionError: no listing, no crash
    from toolaudit.replay.agents.codex_noise import _body

    assert _body('{"output": ' + "[" * 50_000) == ""  # the shared peel: every Codex recording goes through it
    repo = tmp_path / "repo"
    repo.mkdir()
    committed_repo(repo, {".gitignore": "dist/\n", "a.txt": "a\n"})
    assert ignored(repo, [":(glob)x", "dist/y"]) == {"dist/y"}  # `:(glob)x` is a file's name here
    state = SessionState(repo, "/w")
    assert _missing(state, ["/w/" + "a" * 300]) == []  # a name the disk refuses: no file, no OSError


def test_only_a_listings_lines_are_read_as_paths(tmp_path):
    # a file's text that names a file a later commit adds says nothing of the state: only listings are read so
    from conftest import run_git

    repo = tmp_path / "repo"
    start = committed_repo(repo, {"README.md": "see src/new.py\n", "src/a.py": "A = 1\n"}, "start")
    (repo / "src" / "new.py").write_text("NEW = 1\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "later", "--date=2025-10-21T17:30:00Z")
    run_git(repo, "checkout", "-q", start)

    def reasons(command: str, recorded: str) -> list[str]:
        return _identity_reasons(tmp_path, repo, start, command, recorded)

    assert not any(r.startswith("uncertain") for r in reasons("cat README.md", "src/new.py\n"))
    assert reasons("rg --files src", "src/a.py\nsrc/new.py\n")[0].startswith("uncertain: src/new.py:")
    # a file's own text saying "not found" further on is no error saying it was not there (kv-248/TeacherEvaluation's
    # Codex 0.115 sessions read gemini_api.py, committed later, whose code raises "… not found"; it was compared)
    text = "import os\n" + "x = 1\n" * 60 + "raise KeyError('GEMINI_API_KEY not found')\n"
    assert reasons("cat src/new.py", text)[0].startswith("uncertain: src/new.py:")


def _identity_reasons(tmp_path, repo, start: str, command: str, recorded: str) -> list[str]:
    """The identity reasons of a Codex 0.50 rollout (test_worktree_replay's) whose one shell call ran `command` and
    printed `recorded`, replayed on `repo` at `start`."""
    import json as _json

    from click.testing import CliRunner

    from test_worktree_replay import _session

    from toolaudit.cli import cli

    rollout = _session(tmp_path / "rollout.jsonl", start, recorded)
    rollout.write_text(rollout.read_text().replace("grep -rn 'RATE' src", command))
    done = CliRunner().invoke(cli, ["replay", str(rollout), "--workspace", str(repo), "--identity", "-f", "json", "-q"],
                              catch_exceptions=False)
    return [r["reason"] for r in _json.loads(done.output)["identity"]["reasons"]]


def test_the_files_added_since_are_read_without_the_blobs_a_rename_would_need(tmp_path):
    """nate-hart-di/di-form-buddy's snapshot lacks a blob of 4 MiB or more: `git log` looking for renames read it and
    failed, so no file its later commit added was known (its Codex 0.97 session: 17 reads of work committed 85
    minutes after it began, compared as misses). A renamed file is added under its new name for the checkout too."""
    import os
    import subprocess

    from conftest import run_git

    from toolaudit.replay.ignored import added_since

    repo = tmp_path / "repo"
    committed_repo(repo, {"notes.md": "line\n" * 400, "a.py": "A = 1\n"})
    run_git(repo, "reset", "-q", "--soft", "HEAD")
    tree = run_git(repo, "write-tree")
    old = subprocess.run(["git", "commit-tree", tree, "-m", "start"], cwd=repo, check=True, capture_output=True,
                         text=True, env={**os.environ, "GIT_COMMITTER_DATE": "@1700000000 +0000",  # long before
                                         "GIT_AUTHOR_DATE": "@1700000000 +0000", "GIT_AUTHOR_NAME": "t",
                                         "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
                                         "GIT_COMMITTER_EMAIL": "t@e"}).stdout.strip()
    run_git(repo, "reset", "-q", "--soft", old)
    since = 1750000000  # between the two commits: the later one is written now
    run_git(repo, "mv", "notes.md", "docs.md")
    (repo / "docs.md").write_text("line\n" * 399 + "changed\n")
    (repo / "b.py").write_text("B = 1\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "later")
    blob = run_git(repo, "rev-parse", "HEAD~1:notes.md")
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # the snapshot lacks it
    assert sorted(added_since(repo, since) or {}) == ["b.py", "docs.md"]


SETTINGS = '1\t{\n2\t  "permissions": {\n3\t    "allow": ["Bash(npm run build)"]\n4\t  }\n5\t}'
CONDUCTOR = "/Users/u/conductor/workspaces/app/sao-paulo"


@pytest.mark.parametrize(("rel", "cwd", "why", "other", "other_cwd"), [
    # Safecast/safecast-map-MCP's 2.1.3x session read `.claude/settings.local.json` (591 tokens), which no
    # `.gitignore` of the repository names: Claude Code keeps it out of git by design; the project's shared
    # `.claude/settings.json` is the repository's, and missing stays a difference
    (".claude/settings.local.json", CWD, "Claude Code's per-machine settings, which no commit is meant to hold, and "
     "the checkout lacks it (the recording machine's)", ".claude/settings.json", CWD),
    # theexperiencecompany/gaia's 2.1.12x sessions ran in Conductor workspaces and read the review comments the app
    # keeps in `.context/attachments/comments/` (18 misses before); elsewhere a `.context/` is a project's own
    (".context/attachments/comments/6c", CONDUCTOR, "the folder Conductor keeps in its workspace for attachments and "
     "notes, which no commit holds, and the checkout lacks it (the recording machine's)",
     ".context/attachments/comments/6c", CWD),
])
def test_an_agents_local_file_the_checkout_lacks_is_the_recording_machines(tmp_path, rel, cwd, why, other,
                                                                           other_cwd):
    totals = _identity(tmp_path, [(rel, SETTINGS, False)], cwd=cwd)
    assert totals.replayed == 0  # before: replayed, and a miss (`File does not exist`)
    assert [reason for reason, _ in totals.reasons] == [f"uncertain: {rel}: {why}"]
    (tmp_path / "other").mkdir()
    totals = _identity(tmp_path / "other", [(other, SETTINGS, False)], cwd=other_cwd)
    assert (totals.replayed, totals.within_1pct) == (1, 0)
