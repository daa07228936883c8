"""PowerShell's Get-ChildItem where it prints names (agents.codex_listing). The recorded shapes are those of
devangshupandey2025-stack/DevSage (Codex 0.104) and KongJin/JG (Codex 0.118), which have no licence: the folders here
are written in their shape, and the expected outputs follow what their recordings printed (a name per line with
`\\r\\n`, folders before files, `_config` before `bmm` in a listing, `bmm` before `_memory` in a walk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolaudit.replay.agents.codex_listing import listing, run_listing
from toolaudit.replay.agents.shell_readonly import Workspace
from toolaudit.replay.agents.shell_words import NotReplayable

CWD = "C:\\Users\\dev\\work\\shop"


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    for folder in ("_bmad/bmm", "_bmad/core", "_bmad/_memory", "_bmad/_config", "src/cron", "src/lib"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("_bmad/bmm/config.yaml", "_bmad/core/config.yaml", "_bmad/_memory/config.yaml", "src/index.ts",
                 "src/cron/index.ts", "src/lib/audit.ts", "src/lib/Allowed.ts", "README.md"):
        (tmp_path / name).write_text("x\n")
    (tmp_path / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git: a folder on the recording machine
    return Workspace(tmp_path, CWD)


def _run(ws: Workspace, command: str) -> str:
    found = listing(command)
    assert found is not None, command
    return run_listing(ws, found).out.decode()


def test_names_and_full_names_as_powershell_prints_them(ws: Workspace) -> None:
    assert _run(ws, f'Get-ChildItem -Path "{CWD}\\_bmad" -Directory | Select-Object -ExpandProperty Name') == \
        "_config\r\n_memory\r\nbmm\r\ncore\r\n"
    assert _run(ws, f'Get-ChildItem -Path "{CWD}\\_bmad" -Recurse -Filter "config.yaml" | '
                    'Select-Object -ExpandProperty FullName') == (
        f"{CWD}\\_bmad\\bmm\\config.yaml\r\n{CWD}\\_bmad\\core\\config.yaml\r\n{CWD}\\_bmad\\_memory\\config.yaml\r\n")
    assert _run(ws, "Get-ChildItem -Recurse -File 'src' | Select-Object -ExpandProperty FullName") == (
        f"{CWD}\\src\\index.ts\r\n{CWD}\\src\\cron\\index.ts\r\n{CWD}\\src\\lib\\Allowed.ts\r\n"
        f"{CWD}\\src\\lib\\audit.ts\r\n")
    assert _run(ws, "Get-ChildItem 'src/lib' -File | ForEach-Object { $_.Name }") == "Allowed.ts\r\naudit.ts\r\n"


def test_full_names_under_a_folder_given_with_slashes_or_a_small_drive_letter(ws: Workspace) -> None:
    # KongJin/JG's Codex was given `C:/Users/SOL/Documents/JG` and printed `C:\Users\SOL\Documents\JG\agent\…`;
    # LAF-US/IDAHO-VAULT's `c:\Users\loganf\…` printed `C:\Users\loganf\…`
    for given in ("C:/Users/dev/work/shop", "c:\\Users\\dev\\work\\shop"):
        slashed = Workspace(ws.root, given)
        assert _run(slashed, "Get-ChildItem -Path src/lib -Recurse -File | Select-Object -ExpandProperty FullName") == (
            f"{CWD}\\src\\lib\\Allowed.ts\r\n{CWD}\\src\\lib\\audit.ts\r\n")


def test_name_hides_git_unless_forced_and_counts_and_cuts(ws: Workspace) -> None:
    assert _run(ws, "Get-ChildItem -Name") == "_bmad\r\nsrc\r\nREADME.md\r\n"
    assert _run(ws, "Get-ChildItem -Force -Name") == ".git\r\n_bmad\r\nsrc\r\nREADME.md\r\n"
    assert _run(ws, "Get-ChildItem src -Recurse -Name -File") == \
        "index.ts\r\ncron\\index.ts\r\nlib\\Allowed.ts\r\nlib\\audit.ts\r\n"
    assert _run(ws, "Get-ChildItem -Path . -Recurse -Filter *.yaml | Measure-Object | "
                    "Select-Object -ExpandProperty Count") == "3\r\n"
    assert _run(ws, "Get-ChildItem . -Recurse -Filter *.ts | Select-Object -First 1 -ExpandProperty Name") == \
        "index.ts\r\n"
    with pytest.raises(NotReplayable, match="recording machine's .git"):
        _run(ws, "Get-ChildItem -Recurse -Force -File | Select-Object -ExpandProperty FullName")
    with pytest.raises(NotReplayable, match="which the replay folder lacks"):
        _run(ws, "Get-ChildItem docs -Name")


@pytest.mark.parametrize("command", [
    "Get-ChildItem -Force -Recurse",  # the default table of several folders (agents.codex_table)
    "Get-ChildItem -Force | Select-Object FullName,Name,Mode",
    "Get-ChildItem -Recurse -File | Where-Object { $_.Name -like 'a*' } | Select-Object -ExpandProperty Name",
    "Get-ChildItem -Path $env:USERPROFILE -Name",
    "Get-ChildItem -Include *.md -Name",  # -Include without -Recurse lists the folder itself
    "Get-ChildItem src\\*.ts -Name",
])
def test_other_forms_are_not_emulated(command: str) -> None:
    assert listing(command) is None


def test_powershells_own_ls_and_cat_are_its_cmdlets(tmp_path: Path) -> None:
    """On Windows `ls`, `dir`, `cat` and `type` are PowerShell's names for Get-ChildItem and Get-Content: a form
    emulated runs as the cmdlet, any other is refused by name, never run as GNU's ls or cat."""
    from toolaudit.replay.agents.codex_listing import run_powershell

    (tmp_path / "a.md").write_text("one\ntwo\n")
    ws = Workspace(tmp_path, CWD)
    assert run_powershell(ws, "cat a.md", {}).out == b"one\r\ntwo\r\n"
    assert run_powershell(ws, "ls -Name", {}).out == b"a.md\r\n"
    with pytest.raises(NotReplayable, match="Get-ChildItem \\(ls\\) in a form not emulated"):
        run_powershell(ws, "ls -la", {})
    with pytest.raises(NotReplayable, match="culture and console width"):  # its table, no recorded one to read
        run_powershell(ws, "ls a.md", {})
    with pytest.raises(NotReplayable, match="Get-Content \\(cat\\)"):
        run_powershell(ws, "cat -n a.md", {})
    assert run_powershell(ws, "rg -n one", {}) is None  # a program: run as it is
