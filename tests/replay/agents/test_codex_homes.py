"""The agents' own folders, which replay leaves out of the start state, as a recorded Codex call showed them: the
recordings are blackgirlbytes/planetfall-seed-signalkit's (Codex 0.140, entire/checkpoints/v1:5b/ee34acb370/1:
`git status --short` printing `?? .codex/`, the folder where Entire installs its Codex hooks, and
`find .codex -maxdepth 3 -type f -print`), on a small tree of ours."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import committed_repo, run_git

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand
from toolaudit.replay.agents.codex_homes import recorded_homes, with_homes
from toolaudit.replay.agents.codex_reads import reads
from toolaudit.replay.base import Sandbox

CWD = "/Users/goose-guest/Documents/work/planetfall-seed-signalkit"
HEAD = "Chunk ID: 1c3f0e\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: {}\nOutput:\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "planetfall"
    root.mkdir()
    committed_repo(root, {"index.html": "<html></html>\n", "src/main.js": "main();\n"})
    run_git(root, "checkout", "-q", "--detach")
    return root


def _replay(root: Path, command: str, recorded: str):
    c = Call(tool="exec_command", args={"cmd": command, "workdir": CWD}, root=root, cwd=CWD, version="0.140.0",
             sandbox=Sandbox(root), session="s", call_id="c1", model="gpt-5.5")
    params = ExecCommand().from_recording(recorded, c)
    return ExecCommand().run(Call(**{**c.__dict__, "params": params}))


def test_a_recorded_untracked_codex_folder_is_put_back(repo: Path) -> None:
    (repo / "index.html").write_text("<html>changed</html>\n")
    recorded = HEAD.format(7) + " M index.html\n?? .codex/\n"
    assert _replay(repo, "git status --short", recorded).output == recorded
    branch = HEAD.format(12) + "## main...origin/main\n M index.html\n?? .codex/\n"
    assert _replay(repo, "git status --short --branch", branch).output == branch
    # alone, first in the output
    (repo / "index.html").write_text("<html></html>\n")
    alone = HEAD.format(3) + "?? .codex/\n"
    assert _replay(repo, "git status --short", alone).output == alone


def test_only_the_agents_folders_and_only_when_missing() -> None:
    assert recorded_homes(" M a\n?? notes/\n") == {}  # the user's own untracked work stays a start-state question
    params = recorded_homes(" M a\n?? .codex/\n")
    assert with_homes(" M a\n?? .codex/\n", params) == " M a\n?? .codex/\n"
    assert with_homes(" M a\n?? b\n", params) == " M a\n?? .codex/\n?? b\n"
    assert with_homes("unrelated\n", params) == "unrelated\n"  # neither neighbour: left as replayed


def test_a_read_under_the_agents_folder_is_not_replayable(repo: Path) -> None:
    got = _replay(repo, "find .codex -maxdepth 3 -type f -print 2>/dev/null | sed -n '1,80p'", HEAD.format(10)
                  + ".codex/agents/entire-search.toml\n.codex/hooks.json\n")
    assert got.status == "refused" and got.reason.startswith("not replayable: reads .codex: the agents' own folder")
    got = _replay(repo, f"sed -n '1,240p' {CWD}/.codex/skills/trail/SKILL.md", HEAD.format(1) + "---\n")
    assert got.status == "refused" and "reads .codex/skills/trail/SKILL.md" in got.reason
    (repo / ".codex").mkdir()
    (repo / ".codex/hooks.json").write_text("{}\n")  # the session's own edit made it: read as any other
    assert _replay(repo, "find .codex -type f", HEAD.format(5)).status == "replayed"


@pytest.mark.parametrize(("command", "read"), [
    ("find .codex -maxdepth 3 -type f -print", [".codex"]),
    ("find src api -name '*.js'", ["src", "api"]),
    ("find -name x", ["."]),
    ("find . \\( -name a -o -name b \\)", ["."]),
    ("find /w/src -maxdepth 2 -type f", ["src"]),  # an absolute start: that folder
    ("find ../other -name x", None),
])
def test_find_reads_its_start_folders(command: str, read) -> None:
    got = reads(command, "/w")
    assert got == (None if read is None else [f"/w/{p}" if p != "." else "/w" for p in read])


def test_git_dash_c_reads_in_its_folder() -> None:
    """kv-248/TeacherEvaluation's Codex 0.115 sessions ran `git -C /workspace/TeacherEvaluation status --short`
    from `/workspace`: the tree read is the repository's, not the folder above it."""
    assert reads("git -C /workspace/TeacherEvaluation status --short", "/workspace") == ["/workspace/TeacherEvaluation"]
    assert reads("git -C sub diff -- a.py", "/w") == ["/w/sub"]
    assert reads("git -C /w log -3", "/") == []
    assert reads("git -C /w push", "/") is None


def test_a_walk_of_a_folder_holding_the_agents_runtime_folders_is_not_replayable(repo: Path) -> None:
    """EntityProcess/agentv 0.140 (its session 019ed836…): `find .entire -maxdepth 3 -type f
    -print` listed `.entire/logs/entire.log` and `.entire/tmp/pre-prompt-….json`, the recorder's runtime files."""
    (repo / ".entire").mkdir()
    (repo / ".entire/settings.json").write_text("{}\n")  # the user's, committed
    got = _replay(repo, "find .entire -maxdepth 3 -type f -print", HEAD.format(20) + ".entire/settings.json\n"
                  ".entire/logs/entire.log\n")
    assert got.status == "refused" and got.reason.startswith("not replayable: reads .entire/logs/"), got.reason
    assert _replay(repo, "find src -type f", HEAD.format(3) + "src/main.js\n").status == "replayed"


def test_an_agents_folder_the_recording_also_lacked_is_read_as_any_path(repo: Path) -> None:
    """entireio/external-agents 0.123 (agents/entire-agent-kiro): `rg --files .claude/skills DIR` printed rg's own
    `No such file or directory` for the folder the recording machine lacked too."""
    recorded = HEAD.format(20) + "rg: .claude/skills: No such file or directory (os error 2)\nindex.html\nsrc/main.js\n"
    got = _replay(repo, "rg --files .claude/skills", recorded)
    assert got.status == "replayed", got.reason
