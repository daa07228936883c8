"""Codex on Windows: yashpunmiya/Solsmile's rollout (Codex 0.142.5 in VS Code, its committed codex-session.jsonl)
records its cwd as `c:\\Users\\yyash\\Coding\\Solsmile` and each call's workdir as `C:\\Users\\yyash\\Coding\\Solsmile`: one
folder, the drive letter's case aside."""

from __future__ import annotations

from pathlib import Path

from toolaudit.replay.agents.shell_readonly import Workspace


def test_a_windows_workdir_maps_onto_the_replay_folder_whatever_its_drive_letters_case(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    ws = Workspace(tmp_path, "c:\\Users\\yyash\\Coding\\Solsmile")
    ws.enter("C:\\Users\\yyash\\Coding\\Solsmile", "workdir")
    assert ws.cwd == tmp_path
    assert ws.root_path("C:\\Users\\yyash\\Coding\\Solsmile\\src") == f"{tmp_path}/src"
    assert ws.root_path("C:\\Users\\yyash\\.agents\\skills") == "/C:/Users/yyash/.agents/skills"  # outside: as it is


CWD = "D:\\Desktop\\MedAI\\mini-simclr-assignment"


def _get_content(root: Path, command: str):
    from toolaudit.replay.agents.base import Call
    from toolaudit.replay.agents.codex import ShellCommand
    from toolaudit.replay.base import Sandbox

    return ShellCommand().run(Call(tool="shell_command", args={"command": command, "workdir": CWD}, root=root,
                                   cwd=CWD, version="0.142.4", sandbox=Sandbox(root), params={"duration": "2.8"},
                                   session="s", call_id="c1"))


def test_get_content_prints_the_files_lines_as_powershell_does(tmp_path: Path) -> None:
    """Real-s/mini-simclr-assignment (Codex 0.142.4 on Windows, entire/checkpoints/v1:3d/78d3170b07/0) read its code
    with `Get-Content -Encoding UTF8 code\\model.py`: each line ends with `\\r\\n`, whatever the file's own breaks."""
    (tmp_path / "code").mkdir()
    (tmp_path / "code/model.py").write_bytes("\ufefffrom torch import nn\nimport torch\n\n\nclass CNNModel(nn.Module):\n"
                                             "    \"\"\"\n    feature_dim 特征维数\n\"\"\"\n".encode())
    got = _get_content(tmp_path, "Get-Content -Encoding UTF8 code\\model.py")
    assert got.output == ("Exit code: 0\nWall time: 2.8 seconds\nOutput:\nfrom torch import nn\r\nimport torch\r\n\r\n"
                          "\r\nclass CNNModel(nn.Module):\r\n    \"\"\"\r\n    feature_dim 特征维数\r\n\"\"\"\r\n")
    first = _get_content(tmp_path, "Get-Content -Encoding UTF8 code\\model.py | Select-Object -First 2")
    assert first.output.endswith("Output:\nfrom torch import nn\r\nimport torch\r\n")
    assert _get_content(tmp_path, "Get-Content -Raw code\\model.py").status == "refused"  # -Raw: not emulated
    missing = _get_content(tmp_path, "Get-Content -Encoding UTF8 weekly-plan.md")
    assert missing.status == "refused" and "weekly-plan.md, which the replay folder lacks" in missing.reason
    outside = _get_content(tmp_path, "Get-Content -Encoding UTF8 C:\\Users\\13416\\.codex\\memories\\MEMORY.md")
    assert outside.status == "refused" and "outside the workspace" in outside.reason
