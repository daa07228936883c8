"""zsh, the login shell of EntityProcess/agentv's Codex sessions (`<shell>zsh</shell>`), stops a script at a glob
that matches nothing. Its 0.141.0 session (entire/checkpoints/v1:88/8ba8f699fb/1) ran
`rg -n '"name"\\s*:' package.json packages/*/package.json apps/*/package.json plugins/*/package.json` and got
`zsh:1: no matches found: plugins/*/package.json`, exit code 1; bash would have run rg over the other files."""

from __future__ import annotations

from pathlib import Path

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand
from toolaudit.replay.base import Sandbox

CWD = "/home/entity/projects/EntityProcess/agentv"
COMMAND = "rg -n '\"name\"\\s*:' package.json packages/*/package.json apps/*/package.json plugins/*/package.json"
RECORDED = ("Chunk ID: 7b09fe\nWall time: 0.0003 seconds\nProcess exited with code 1\nOriginal token count: 12\n"
            "Output:\nzsh:1: no matches found: plugins/*/package.json\n")


def _tree(tmp_path: Path, plugins: bool) -> Path:
    root = tmp_path / "agentv"
    for rel in ("package.json", "packages/core/package.json", "apps/cli/package.json",
                *(["plugins/x/package.json"] if plugins else [])):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text('{\n  "name": "x"\n}\n')
    return root


def _replay(root: Path, recorded: str):
    emulation = ExecCommand()
    call = Call(tool="exec_command", args={"cmd": COMMAND, "workdir": CWD}, root=root, cwd=CWD, version="0.141.0",
                sandbox=Sandbox(root), session="s", call_id="c1", model="gpt-5.5")
    params = {**emulation.from_recording(recorded, call), "duration": "0.0003"}
    return emulation.run(Call(**{**call.__dict__, "params": params}))


def test_the_recorded_zsh_error_is_given_again_when_the_glob_matches_nothing_here_too(tmp_path: Path):
    got = _replay(_tree(tmp_path, plugins=False), RECORDED)
    assert got.output == RECORDED and got.is_error


def test_a_glob_that_matches_here_runs_and_bash_passes_an_unmatched_one_on(tmp_path: Path):
    assert "package.json:2:" in _replay(_tree(tmp_path, plugins=True), RECORDED).output  # the state differs
    plain = RECORDED.replace("zsh:1: no matches found: plugins/*/package.json\n", "")
    assert "packages/core/package.json:2:" in _replay(_tree(tmp_path / "b", plugins=False), plain).output
