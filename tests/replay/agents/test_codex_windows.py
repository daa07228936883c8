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
