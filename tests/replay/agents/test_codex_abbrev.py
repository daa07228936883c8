"""git abbreviates commit ids to a length that grows with the repository's objects: EntityProcess/agentv's Codex
0.140.0 session (entire/checkpoints/v1:1f/4427577930) ran `git show --name-only --format='%h %s' 40e2e948` and saw
8-digit ids, where the benchmark's clone (every ref, Entire's checkpoints included) prints 9. Replay gives git the
recorded length."""

from __future__ import annotations

import subprocess
from pathlib import Path

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand
from toolaudit.replay.agents.shell_argv import abbrev
from toolaudit.replay.base import Sandbox

CWD = "/home/entity/projects/EntityProcess/agentv"
RECORDED = ("Chunk ID: 5b1c2e\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 24\n"
            "Output:\n40e2e948 docs: checkpoint push notes\napps/web/src/content/docs/docs/tools/results.mdx\n")


def test_the_recorded_length_is_read_from_ids_at_line_starts():
    assert abbrev("40e2e948 docs: checkpoint push notes\napps/web/x.mdx\n") == 8
    assert abbrev("> 669232e1 add evaluate options budget\n< ea3ce9db docs(adr): stabilize\n") == 8
    assert abbrev("index 885cc30a5..f7dea8b12 100644\n") == 9
    assert abbrev("apps/web/x.mdx\n") is None


def test_git_prints_the_recorded_length(tmp_path: Path):
    root = tmp_path / "agentv"
    root.mkdir()
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b",
           "PATH": "/usr/bin:/bin"}
    (root / "README.md").write_text("x\n")
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "docs: notes"]):
        subprocess.run(argv, cwd=root, check=True, env=env)
    emulation = ExecCommand()
    args = {"cmd": "git log --oneline -1", "workdir": CWD}
    call = Call(tool="exec_command", args=args, root=root, cwd=CWD, version="0.140.0", sandbox=Sandbox(root),
                session="s", call_id="c1")
    params = emulation.from_recording(RECORDED, call)
    assert params["abbrev"] == "8"
    got = emulation.run(Call(**{**call.__dict__, "params": {**params, "duration": "0"}}))
    line = got.output.partition("\nOutput:\n")[2]
    assert len(line.split(" ")[0]) == 8 and line.endswith(" docs: notes\n")
