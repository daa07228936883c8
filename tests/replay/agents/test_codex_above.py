"""A Codex session started in a folder above its repository, its commands run there (`workdir`), as
kv-248/TeacherEvaluation's Codex 0.115 sessions ran in `/workspace` with the repository at
`/workspace/TeacherEvaluation` (`sed -n '1,220p' /workspace/TeacherEvaluation/evaluation/…`,
`git -C /workspace/TeacherEvaluation status --short`): on a small tree of ours. A command naming only absolute paths
inside the repository reads what the replay folder holds; one reading the folder above (its other contents were the
recording machine's) is not replayable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import committed_repo, run_git

from toolaudit.model import ToolCall
from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand, token_count
from toolaudit.replay.base import Sandbox
from toolaudit.replay.nested_repo import folder
from toolaudit.replay.state import SessionState

ABOVE = "/workspace"
CWD = "/workspace/app"  # where replay.nested_repo placed the repository
HEAD = "Chunk ID: 1c3f0e\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: {}\nOutput:\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    committed_repo(root, {"README.md": "# app\nalpha\nbeta\n", "src/a.py": "alpha = 1\n", ".codex/config.toml": "x\n"})
    run_git(root, "checkout", "-q", "--detach")
    return root


def _replay(root: Path, command: str, recorded: str, workdir: str = ABOVE):
    c = Call(tool="exec_command", args={"cmd": command, "workdir": workdir}, root=root, cwd=CWD, version="0.115.0",
             sandbox=Sandbox(root), session="s", call_id="c1", model="gpt-5.4")
    params = ExecCommand().from_recording(recorded, c)
    return ExecCommand().run(Call(**{**c.__dict__, "params": params}))


@pytest.mark.parametrize(("command", "printed"), [
    (f"sed -n '1,2p' {CWD}/README.md", "# app\nalpha\n"),
    (f"rg -n alpha {CWD}/src", f"{CWD}/src/a.py:1:alpha = 1\n"),
    (f"git -C {CWD} status --short", ""),
    (f"cd {CWD} && ls src", "a.py\n"),  # after `cd` into the repository, relative paths are its own
    ("pwd", f"{ABOVE}\n"),
])
def test_absolute_paths_inside_the_repository_are_replayed(repo: Path, command: str, printed: str) -> None:
    recorded = HEAD.format(token_count(printed)) + printed
    got = _replay(repo, command, recorded)
    assert got.status == "replayed" and got.output == recorded


@pytest.mark.parametrize(("command", "reason"), [
    ("ls", f"workdir {ABOVE} is above the repository, and the command reads {ABOVE} there"),
    ("rg -n alpha", f"the command reads {ABOVE} there"),
    (f"sed -n 1p {ABOVE}/tmp/notes.md", f"reads {ABOVE}/tmp/notes.md there"),
    ("sed -n 1p app/README.md", f"a relative path in {ABOVE}, above the repository: app/README.md"),
    ("python - <<'PY'\nprint(1)\nPY", "reads what it cannot name there"),
])
def test_reading_the_folder_above_is_not_replayable(repo: Path, command: str, reason: str) -> None:
    got = _replay(repo, command, HEAD.format(3) + "x\n")
    assert got.status == "refused" and reason in got.reason


def test_a_workdir_beside_the_repository_stays_outside(repo: Path) -> None:
    got = _replay(repo, "sed -n 1p /srv/other/README.md", HEAD.format(1) + "x\n", workdir="/srv/other")
    assert got.status == "refused" and "workdir outside the workspace: /srv/other" in got.reason


def _exec(command: str, workdir: str = ABOVE) -> ToolCall:
    return ToolCall(source="r.jsonl", line=1, collector="codex", session="s", tool="exec_command",
                    args=json.dumps({"cmd": command, "workdir": workdir}), output="")


def _patch(*lines: str) -> ToolCall:
    text = "\n".join(["*** Begin Patch", *lines, "*** End Patch"])
    return ToolCall(source="r.jsonl", line=1, collector="codex", session="s", tool="apply_patch", args=text,
                    output="Success.")


def test_the_paths_codex_commands_and_patches_name_place_the_repository(repo: Path) -> None:
    reads = [_exec(f"sed -n '1,40p' {ABOVE}/app/README.md"), _exec(f"rg -n alpha {ABOVE}/app/src/a.py")]
    assert folder(reads, ABOVE, repo) == CWD
    # the home folder's `.codex/` (the checkout holds one too) does not keep the session where it started
    home = [_exec(f"sed -n '1,80p' {ABOVE}/.codex/skills/playwright/SKILL.md")]
    assert folder(home + reads, ABOVE, repo) == CWD
    # a patch's updated files vote; its added ones count against none
    edits = [_patch(f"*** Update File: {ABOVE}/app/README.md", "@@", "-beta", "+gamma"),
             _patch(f"*** Update File: {ABOVE}/app/src/a.py", "@@", "-alpha = 1", "+alpha = 2")]
    added = [_patch(f"*** Add File: {ABOVE}/app/new{n}.md", "+x") for n in range(3)]
    assert folder(edits + added, ABOVE, repo) == CWD
    assert folder([_exec(f"sed -n 1p {ABOVE}/app/README.md")], ABOVE, repo) is None  # one path decides nothing


def test_a_patch_path_relative_to_the_folder_above_is_applied_in_the_repository(repo: Path) -> None:
    state = SessionState(repo, CWD)
    state.began = ABOVE
    heredoc = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: app/README.md\n@@\n-beta\n+gamma\n" \
              "*** End Patch\nEOF"
    call = ToolCall(source="r.jsonl", line=1, collector="codex", session="s", tool="exec_command",
                    args=json.dumps({"cmd": heredoc, "workdir": ABOVE}), output="Success. Updated the following files:")
    state.record(call)
    assert (repo / "README.md").read_text() == "# app\nalpha\ngamma\n"


# helper-52's review (a3106fe): each failed before its mend


@pytest.mark.parametrize("command", ["git log --oneline -1", "git show HEAD:README.md", "git rev-parse HEAD",
                                     "printf x | grep -rn alpha"])
def test_what_reads_the_folder_above_without_naming_it_is_not_replayable(repo: Path, command: str) -> None:
    got = _replay(repo, command, HEAD.format(1) + "x\n")
    assert got.status == "refused" and f"workdir {ABOVE} is above the repository" in got.reason


def test_agents_folders_do_not_vote(repo: Path) -> None:
    # a session at its repository's root reading `.claude/skills/…`, in a repository with its own `skills/`
    (repo / "skills/a").mkdir(parents=True)
    (repo / "skills/a/SKILL.md").write_text("x\n")
    (repo / "skills/b").mkdir()
    (repo / "skills/b/SKILL.md").write_text("x\n")
    calls = [_exec(f"sed -n 1p {CWD}/.claude/skills/a/SKILL.md", CWD), _exec(f"sed -n 1p {CWD}/.claude/skills/b/SKILL.md", CWD)]
    assert folder(calls, CWD, repo) is None  # at a3106fe: /workspace/app/.claude


def test_a_patch_path_relative_to_a_relative_workdir(repo: Path) -> None:
    state = SessionState(repo, CWD)
    state.began = ABOVE
    heredoc = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch\nEOF"
    call = ToolCall(source="r.jsonl", line=1, collector="codex", session="s", tool="exec_command",
                    args=json.dumps({"cmd": heredoc, "workdir": "app/src"}), output="Success.")
    state.record(call)
    assert (repo / "src/new.txt").read_text() == "x\n"  # at a3106fe: not written (a relative workdir ignored)


def test_a_nested_repositorys_git_files_are_never_written(repo: Path) -> None:
    # a recorded Write of `src/.git/config` would name a program git runs (core.fsmonitor) in `git -C src …`
    state = SessionState(repo, CWD)
    call = ToolCall(source="r.jsonl", line=1, collector="claude-code", session="s", tool="Write",
                    args=json.dumps({"file_path": f"{CWD}/src/.git/config", "content": "[core]\n"}),
                    output="File created successfully")
    state.record(call)
    assert not (repo / "src/.git").exists()
