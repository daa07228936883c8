"""Get-ChildItem's default table (agents.codex_table). The shapes are those Windows PowerShell 5.1 recorded for Codex
in the tuning set: KongJin/JG (ko-KR), Real-s/mini-simclr-assignment (zh-CN), LAF-US/IDAHO-VAULT and obitoo2005/Solit
(en-US). Those repositories have no licence: the folders here are written in their shape, and each expected row is
written out as their recordings printed such a row (a line padded to 119 characters, the console's 120 less one)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from toolaudit.replay.agents.codex_listing import listing, recorded_settings, run_listing
from toolaudit.replay.agents.codex_table import settings
from toolaudit.replay.agents.shell_readonly import Workspace
from toolaudit.replay.agents.shell_words import NotReplayable

HEADER = "Mode                 LastWriteTime         Length Name"
DASHES = "----                 -------------         ------ ----"


def _lines(*lines: str) -> str:
    return "".join(line.ljust(119) + "\r\n" for line in lines)


def _file(root: Path, name: str, size: int, when: tuple[int, ...]) -> None:
    path = root / name
    if size < 0:
        path.mkdir(parents=True)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)
    stamp = datetime(*when).timestamp()  # local time, as the table prints it
    os.utime(path, (stamp, stamp))


def _run(ws: Workspace, command: str, recorded: str) -> str:
    found = listing(command)
    assert found is not None and found.show == "table", command
    return run_listing(ws, found, recorded_settings(command, recorded)).out.decode()


def test_a_korean_machine_s_table(tmp_path: Path) -> None:
    _file(tmp_path, "agent/anti_patterns.md", 11277, (2026, 4, 2, 21, 55))
    _file(tmp_path, "agent/event_rules.md", 2997, (2026, 3, 31, 23, 15))
    _file(tmp_path, "agent/state_ownership.md", 3958, (2026, 4, 2, 10, 8))
    ws = Workspace(tmp_path, "C:/Users/dev/Documents/JG")
    recorded = "\r\n\r\n    디렉터리: C:\\Users\\dev\\Documents\\JG\\agent\r\n\r\n\r\n" + _lines(
        HEADER, DASHES, "-a----        2026-04-02   오후 9:55          11277 anti_patterns.md")
    assert _run(ws, "Get-ChildItem -Path .\\agent", recorded) == (
        "\r\n\r\n    디렉터리: C:\\Users\\dev\\Documents\\JG\\agent\r\n\r\n\r\n" + _lines(
            HEADER, DASHES,
            "-a----        2026-04-02   오후 9:55          11277 anti_patterns.md",
            "-a----        2026-03-31  오후 11:15           2997 event_rules.md",
            "-a----        2026-04-02  오전 10:08           3958 state_ownership.md") + "\r\n\r\n")


def test_a_chinese_machine_s_table_with_force_shows_the_hidden_git_folder(tmp_path: Path) -> None:
    _file(tmp_path, ".git", -1, (2026, 6, 29, 14, 14))
    _file(tmp_path, "code", -1, (2026, 6, 30, 16, 16))
    _file(tmp_path, "README.md", 9229, (2026, 6, 29, 14, 13))
    ws = Workspace(tmp_path, "D:\\Desktop\\MedAI\\mini-simclr")
    recorded = "\r\n\r\n    目录: D:\\Desktop\\MedAI\\mini-simclr\r\n\r\n\r\n" + _lines(
        HEADER, DASHES, "d-----         2026/6/29     14:14                .codex")
    expected = "\r\n\r\n    目录: D:\\Desktop\\MedAI\\mini-simclr\r\n\r\n\r\n" + _lines(
        HEADER, DASHES,
        "d--h--         2026/6/29     14:14                .git",
        "d-----         2026/6/30     16:16                code",
        "-a----         2026/6/29     14:13           9229 README.md") + "\r\n\r\n"
    assert _run(ws, "Get-ChildItem -Force", recorded) == expected
    assert ".git" not in _run(ws, "dir", recorded)  # hidden without -Force


def test_an_american_machine_s_table_of_a_folder_and_of_a_file(tmp_path: Path) -> None:
    _file(tmp_path, "app/src", -1, (2026, 4, 26, 4, 2))
    _file(tmp_path, "app/tsconfig.json", 630, (2026, 4, 7, 22, 0))
    _file(tmp_path, "app/notes.txt", 44, (2026, 4, 26, 0, 5))
    ws = Workspace(tmp_path, "d:\\solit")
    recorded = "\r\n\r\n    Directory: D:\\solit\\app\r\n\r\n\r\n" + _lines(
        HEADER, DASHES, "d--h--         4/26/2026   9:21 AM                .git")
    assert _run(ws, "Get-ChildItem app", recorded) == "\r\n\r\n    Directory: D:\\solit\\app\r\n\r\n\r\n" + _lines(
        HEADER, DASHES,
        "d-----         4/26/2026   4:02 AM                src",
        "-a----         4/26/2026  12:05 AM             44 notes.txt",
        "-a----          4/7/2026  10:00 PM            630 tsconfig.json") + "\r\n\r\n"
    assert _run(ws, "ls app/notes.txt", recorded) == "\r\n\r\n    Directory: D:\\solit\\app\r\n\r\n\r\n" + _lines(
        HEADER, DASHES, "-a----         4/26/2026  12:05 AM             44 notes.txt") + "\r\n\r\n"
    assert _run(ws, "Get-ChildItem app -Directory -Filter x*", recorded) == ""  # nothing listed: nothing printed


def test_the_settings_are_read_only_from_a_5_1_table() -> None:
    table = _lines(HEADER, DASHES, "-a----         4/26/2026  12:05 AM             44 notes.txt")
    assert settings("\r\n\r\n    Directory: C:\\x\r\n\r\n\r\n" + table) == {"culture": "en-US", "width": "120"}
    assert settings("\r\n\r\n    Directory: C:\\x\r\n\r\n\r\n" + table.replace(" " * 40 + "\r\n", "\r\n")) == {
        "culture": "en-US", "width": "80"}
    # PowerShell 7's coloured table (devangshupandey2025-stack/DevSage), another culture's dates, no table: none
    assert settings("\r\n    Directory: C:\\x\r\n\r\n\x1b[32;1mMode   \x1b[0m\x1b[32;1m              LastWriteTime"
                    "\x1b[0m\r\nd----          21-02-2026 12:00 PM                x\r\n") == {}
    assert settings("\r\n\r\n    Verzeichnis: C:\\x\r\n\r\n\r\n" + _lines(
        HEADER, DASHES, "-a----        26.04.2026     00:05             44 notes.txt")) == {}
    assert settings("notes.txt\r\n") == {}


def test_what_is_not_emulated(tmp_path: Path) -> None:
    _file(tmp_path, "n" * 70 + ".md", 1, (2026, 4, 26, 0, 5))
    ws = Workspace(tmp_path, "C:\\x")
    with pytest.raises(NotReplayable, match="culture and console width"):
        run_listing(ws, listing("Get-ChildItem"), {})
    with pytest.raises(NotReplayable, match="wider than"):  # 50 columns before the name leave 69 of 119
        run_listing(ws, listing("Get-ChildItem"), {"culture": "en-US", "width": "120"})
    with pytest.raises(NotReplayable, match="culture and console width"):  # no console is a billion columns wide
        run_listing(ws, listing("Get-ChildItem"), {"culture": "en-US", "width": "1000000000"})
    assert listing("Get-ChildItem -Recurse") is None  # a group per folder
    assert listing("Get-ChildItem a,b") is None
    assert listing("Get-ChildItem | Format-Table") is None


def test_powershell_s_pwd_is_get_location_s_table(tmp_path: Path) -> None:
    # LAF-US/IDAHO-VAULT's `pwd` and `Get-Location` (Codex 0.118), whose Codex was given `c:\Users\loganf\…`
    from toolaudit.replay.agents.codex_listing import run_powershell
    from toolaudit.replay.agents.codex_reads import shell_reads

    ws = Workspace(tmp_path, "c:\\Users\\dev\\Documents\\VAULT")
    printed = ("\r\nPath" + " " * 24 + "\r\n----" + " " * 24 + "\r\nC:\\Users\\dev\\Documents\\VAULT\r\n\r\n\r\n")
    for command in ("pwd", "Get-Location", "gl;"):
        assert run_powershell(ws, command, {}).out.decode() == printed
        assert shell_reads("shell_command", {"command": command}, ws.shown) == []  # it reads no file
    assert run_powershell(ws, "Get-Location | Format-List", {}) is None  # run as a program: unknown there
    # PowerShell 7's, its header coloured as DevSage's tables are: not Windows PowerShell 5.1's, so not emulated
    coloured = "\r\n\x1b[32;1mPath\x1b[0m\r\n\x1b[32;1m----\x1b[0m\r\nC:\\x\r\n\r\n"
    with pytest.raises(NotReplayable, match="PowerShell 7"):
        run_powershell(ws, "pwd", recorded_settings("pwd", coloured))
