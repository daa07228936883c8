"""Codex 0.118's `Command: …` line: the shlex crate's quoting, and byte identity with a real 0.118.0 rollout
(tests/fixtures/agents/codex/unified-0.118.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand, recorded_noise
from toolaudit.replay.agents.codex_command import recorded_shell, rust_join, rust_quote
from toolaudit.replay.base import Sandbox

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "codex" / "unified-0.118.json"
DOC = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize(("word", "quoted"), [
    ("pwd", "pwd"),
    ("", "''"),
    ("git status --short --branch", "'git status --short --branch'"),
    ("sed -n '1,240p' a.go", "\"sed -n '1,240p' a.go\""),
    # `^` ends a single-quoted chunk, and opens one of its own (a Bash quirk shlex works around)
    ("git show 5923020^:internal/syncer/syncer.go | sed -n '1,5p'",
     "'git show 5923020''^:internal/syncer/syncer.go | sed -n '\"'1,5p'\""),
    ("sed 's#^./##'", "\"sed 's#\"'^./##'\"'\""),
    ('rg -n "a|b\\(" x', '"rg -n \\"a|b\\\\(\\" x"'),  # a backslash: double quotes, escaped
    ("echo $HOME 'x'", "'echo $HOME '\"'x'\""),
    ("naïve", "'naïve'"),
])
def test_rust_shlex_quote(word: str, quoted: str) -> None:
    assert rust_quote(word) == quoted


def test_join_and_the_recorded_shell() -> None:
    assert rust_join(["/bin/zsh", "-lc", "ls -la"]) == "/bin/zsh -lc 'ls -la'"
    assert recorded_shell("Command: /bin/zsh -lc pwd\nChunk ID: 8c7cc0\n") == "/bin/zsh -lc"
    assert recorded_shell("Chunk ID: 8c7cc0\nWall time: 0.0000 seconds\n") is None
    assert recorded_noise("Command: /bin/bash -c true\nChunk ID: ab\nWall time: 0.1 seconds\nProcess exited with "
                          "code 0\nOriginal token count: 0\nOutput:\n")["command_shell"] == "/bin/bash -c"


def _call(root: Path, recorded: dict, version: str = DOC["version"], **params: str) -> Call:
    return Call(tool=DOC["tool"], args=recorded["arguments"], root=root, cwd=DOC["cwd"], version=version,
                sandbox=Sandbox(root), params={**recorded_noise(recorded["output"]), **params},
                call_id=recorded["call_id"])


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "git-sync"
    for path, text in DOC["files"].items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return folder


@pytest.mark.parametrize("recorded", DOC["calls"], ids=lambda c: c["arguments"]["cmd"][:30])
def test_byte_identical_to_the_0118_recording(root: Path, recorded: dict) -> None:
    got = ExecCommand().run(_call(root, recorded))
    assert got.status == "replayed", got.reason
    assert got.output == recorded["output"]


def test_the_line_belongs_to_0118_only(root: Path) -> None:
    recorded = DOC["calls"][0]  # pwd
    plain = {k: v for k, v in recorded_noise(recorded["output"]).items() if k != "command_shell"}
    for version, shown in (("0.118.0", True), ("0.118.2", True), ("0.120.0", False), ("0.117.0", False)):
        c = Call(tool="exec_command", args=recorded["arguments"], root=root, cwd=DOC["cwd"], version=version,
                 sandbox=Sandbox(root), params=plain)
        assert ExecCommand().run(c).output.startswith("Command: /bin/bash -lc pwd\n") is shown, version


def test_mises_warnings_before_every_output_are_the_login_shells(root: Path) -> None:
    """entireio/entire-graph's 0.135 sessions (zsh with mise activated, a Go version not installed) print mise's
    warning twice before every output: machine noise read from the recording, as Homebrew's profile line is."""
    recorded = ("Chunk ID: 5f1d2a\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 22\n"
                "Output:\nmise WARN  missing: go@1.24.13\nmise WARN  missing: go@1.24.13\n/Users/thomi/Projects/x\n")
    noise = recorded_noise(recorded)
    assert noise["preamble"] == "mise WARN  missing: go@1.24.13\n" * 2
    c = Call(tool="exec_command", args={"cmd": "pwd"}, root=root, cwd="/Users/thomi/Projects/x", version="0.135.0",
             sandbox=Sandbox(root), params=noise)
    assert ExecCommand().run(c).output == recorded
    # a command whose own first line is mise's is not a preamble when mise is not what printed it first
    assert "preamble" not in recorded_noise(recorded.replace("Output:\nmise", "Output:\nrun: mise"))


def test_the_branch_a_recorded_git_status_named(tmp_path: Path) -> None:
    """Replay's worktree is detached: `git status` names the recorded branch, read from the recording (0.118's
    `git status --short --branch` of entireio/git-sync said `## soph/add-bootstrap...origin/soph/add-bootstrap`)."""
    import subprocess

    from toolaudit.replay.agents.git_branch import recorded_branch, with_branch

    root = tmp_path / "repo"
    root.mkdir()
    run = lambda *a: subprocess.run(["git", *a], cwd=root, check=True, capture_output=True)  # noqa: E731
    run("init", "-q", "-b", "main")
    (root / "f").write_text("a\n")
    run("add", "f")
    run("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "c")
    run("checkout", "-q", "--detach")
    (root / "f").write_text("b\n")
    short = ("Chunk ID: 283125\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 14\n"
             "Output:\n## soph/add-bootstrap...origin/soph/add-bootstrap\n M f\n")
    c = Call(tool="exec_command", args={"cmd": "git status --short --branch"}, root=root, cwd=str(root),
             version="0.120.0", sandbox=Sandbox(root))
    params = ExecCommand().from_recording(short, c)
    assert params["status_branch"] == "## soph/add-bootstrap...origin/soph/add-bootstrap"
    assert ExecCommand().run(Call(**{**c.__dict__, "params": params})).output == short
    long = ("On branch main\nYour branch is ahead of 'origin/main' by 1 commit.\n  (use \"git push\" to publish your "
            "local commits)\n\nChanges not staged for commit:\n")
    assert with_branch("HEAD detached at 06fd2be\nChanges not staged for commit:\n", recorded_branch(long)) == long
    assert with_branch("Not currently on any branch.\nX\n", recorded_branch("On branch dev\nY\n")) == "On branch dev\nX\n"
    # a Markdown heading is no status line when the command ran no `git status`
    c2 = Call(tool="exec_command", args={"cmd": "sed -n '1,5p' README.md"}, root=root, cwd=str(root),
              version="0.120.0", sandbox=Sandbox(root))
    assert "status_branch" not in ExecCommand().from_recording(short.replace("## soph", "## Install"), c2)


@pytest.mark.parametrize(("command", "refused"), [
    ("git diff --stat origin/main...HEAD", "origin/main...HEAD"),  # 0.118, 0.135: refs of the recording machine
    ("git log --oneline main..HEAD", "main..HEAD"),
    ("git log --oneline --decorate -5", "--decorate"),
    ("git log --oneline --all --grep=ssh", "--all"),
    ("git show main:f", "main:f"),
    ("git log --oneline -n 12", None),  # an option's value is no revision
    ("git log --grep ssh --oneline", None),
    ("git show --stat HEAD~1", None),
    ("git diff 368750cee35f31935640a34ad199e889fc60f1a8 f", None),  # a commit id and an existing path
    ("git diff HEAD^ -- main", None),  # after `--` a path
])
def test_git_naming_refs_is_not_replayable(tmp_path: Path, command: str, refused: str | None) -> None:
    """The replay worktree is detached at the session's commit: where `main`, `origin/main` or a decoration pointed
    when the session ran, no commit keeps (a clone's branch has moved on, a mirror has no remotes)."""
    from toolaudit.replay.agents.shell_readonly import Workspace, run_script
    from toolaudit.replay.agents.shell_words import NotReplayable

    (tmp_path / "f").write_text("x\n")
    ws = Workspace(tmp_path, None)
    if refused is None:
        try:
            run_script(ws, Sandbox(tmp_path), command)
        except NotReplayable as why:
            assert "reads refs" not in str(why)
        except Exception:  # noqa: BLE001 (not a repository here: only the refusal is under test)
            pass
    else:
        with pytest.raises(NotReplayable, match=f"git \\w+ {refused.replace('.', '[.]')}: reads refs"):
            run_script(ws, Sandbox(tmp_path), command)


def test_a_partial_clone_offline_is_the_recording_machines_failure(root: Path) -> None:
    """entireio/git-sync's 0.120 `git show 3d6606d -- …` failed on its machine (a partial clone, offline): the
    replay's git has the objects and answers, so the call is not replayable rather than a difference."""
    recorded = ("Chunk ID: 1\nWall time: 0.1606 seconds\nProcess exited with code 128\nOriginal token count: 66\n"
                "Output:\nssh: Could not resolve hostname github.com: -65563\nfatal: Could not read from remote "
                "repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n"
                "fatal: could not fetch e01b3e347842acbe524ca2116852f501f265829a from promisor remote\n")
    c = Call(tool="exec_command", args={"cmd": "git show 3d6606d -- a.go"}, root=root, cwd=str(root),
             version="0.120.0", sandbox=Sandbox(root))
    params = ExecCommand().from_recording(recorded, c)
    got = ExecCommand().run(Call(**{**c.__dict__, "params": params}))
    assert got.status == "refused" and "partial clone" in got.reason


def test_a_cap_shell_command_does_not_take_is_a_usage_error(tmp_path: Path) -> None:
    """Issue 28.3: `?max_output_tokens=` on Codex's shell_command used to change nothing and report a saving; the
    command line now stops with exit 2, naming the parameters shell_command does take."""
    from click.testing import CliRunner

    from toolaudit.cli import cli

    session = tmp_path / "s.jsonl"
    session.write_text("\n".join(json.dumps(r) for r in (
        {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
         "payload": {"id": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w", "cli_version": "0.63.0"}},
        {"timestamp": "2026-01-01T00:00:01Z", "type": "response_item",
         "payload": {"type": "function_call", "name": "shell_command", "call_id": "c1",
                     "arguments": json.dumps({"command": "cat a.txt", "workdir": "/w"})}},
        {"timestamp": "2026-01-01T00:00:02Z", "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": "c1",
                     "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nhello\n"}})) + "\n")
    (tmp_path / "a.txt").write_text("hello\n")
    result = CliRunner().invoke(cli, ["replay", str(session), "--workspace", str(tmp_path), "--no-checkout", "--tool",
                                      "shell_command=agent:codex/shell_command?max_output_tokens=100"],
                                catch_exceptions=False)
    assert result.exit_code == 2
    assert "takes no parameter 'max_output_tokens'" in result.output and "truncation" in result.output
