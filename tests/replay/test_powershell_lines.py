"""Codex on Windows runs each command line in PowerShell: a first `Set-Location`, numbered reads with a counter,
PowerShell code judged by the commands it runs (replay.inline_powershell), and Codex's own refusal of a command
its policy declined. The IDAHO-VAULT lines are cut from LAF-US/IDAHO-VAULT (MIT; Codex 0.116 - 0.119); the others are
written here in the shape of devangshupandey2025-stack/DevSage's (Codex 0.104) and KongJin/JG's (Codex 0.118), which
have no licence."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolaudit.model import ToolCall
from toolaudit.replay.inline_powershell import judge_powershell, located
from toolaudit.replay.never_ran import never_ran
from toolaudit.replay.shell_effects import effect

CWD = "C:\\Users\\dev\\work\\shop"


def test_a_first_set_location_is_the_folder_the_rest_runs_in() -> None:
    from toolaudit.replay.agents.codex import command_of

    line = f"Set-Location -Path '{CWD}'; Get-Content -Path 'apps/api/src/index.ts'"
    assert located(line) == (CWD, "Get-Content -Path 'apps/api/src/index.ts'")
    assert command_of("shell_command", {"command": line}) == ("Get-Content -Path 'apps/api/src/index.ts'", CWD)
    below = command_of("shell_command", {"command": "sl apps\\api\nrg -n auth src", "workdir": CWD})
    assert below == ("rg -n auth src", CWD + "/apps/api")
    assert located("Set-Location -Path $root; ls") is None  # a folder it builds: no folder to enter
    assert located("cd src && ls") is None  # a POSIX shell's cd: the shell emulation runs it


def _replayed(root: Path, line: str) -> str:
    from toolaudit.replay.agents.base import Call
    from toolaudit.replay.agents.codex import ShellCommand
    from toolaudit.replay.base import Sandbox

    return ShellCommand().run(Call(tool="shell_command", args={"command": line}, root=root, cwd=CWD,
                                   version="0.104.0", sandbox=Sandbox(root), params={"duration": "0.4"},
                                   session="s", call_id="c1")).output


def test_a_set_location_line_replays_in_its_folder(tmp_path: Path) -> None:
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps/index.ts").write_text("export {}\nconst a = 1\n")
    got = _replayed(tmp_path, f"Set-Location -Path '{CWD}'; Get-Content -Path 'apps/index.ts'")
    assert got == "Exit code: 0\nWall time: 0.4 seconds\nOutput:\nexport {}\r\nconst a = 1\r\n"
    listed = _replayed(tmp_path, f"Set-Location -Path '{CWD}'; Get-ChildItem 'apps' -File | "
                                 "Select-Object -ExpandProperty Name")  # agents.codex_listing
    assert listed == "Exit code: 0\nWall time: 0.4 seconds\nOutput:\nindex.ts\r\n"


def test_a_set_location_into_the_working_folder_changes_nothing_and_out_of_it_nothing_here() -> None:
    assert effect(f"Set-Location -Path '{CWD}'; Get-Content -Path 'pnpm-workspace.yaml'", CWD).none
    assert effect(f"Set-Location -Path '{CWD}'; git show dd924ff:apps/api/src/routes/auth.ts", CWD).none
    assert effect("Set-Location -Path 'C:\\Users\\dev\\other'; Remove-Item -Recurse dist", CWD).none
    assert effect(f"Set-Location -Path '{CWD}'; Remove-Item -Recurse dist", CWD).paths == ("dist",)


def test_powershell_is_judged_by_the_commands_it_runs_never_by_words_in_strings_or_comments() -> None:
    numbered = ("$i=1; Get-Content '.github/workflows/vault-ingest.yml' | "
                "ForEach-Object { '{0,4}: {1}' -f $i, $_; $i++ }")
    assert effect(numbered, CWD).none  # IDAHO-VAULT
    assert effect("$x = 'Remove-Item -Recurse docs'; Write-Output $x # Set-Content a.md", CWD).none
    script = ("@'\n$projectRoot = 'C:\\Users\\dev\\work\\shop'\nfunction Parse-Yaml([string]$path) {\n  $map = @{}\n"
              "  if (!(Test-Path $path)) { return $map }\n  Get-Content $path | ForEach-Object { $map[$_] = 1 }\n"
              "  return $map\n}\nGet-ChildItem -Path (Join-Path $projectRoot '_bmad') -Directory |\n"
              "  ForEach-Object { Parse-Yaml (Join-Path $_.FullName 'config.yaml') }\n"
              "'@ | powershell -NoProfile -Command -")
    assert effect(script, CWD).none  # a script fed to PowerShell: its cmdlets only read


def test_powershell_that_writes_names_its_files_or_is_an_unknown_program() -> None:
    found = effect("New-Item -ItemType Directory -Force -Path 'docs\\notes' | Out-Null; 'x' > out.md", CWD)
    assert found.paths == ("docs/notes", "out.md")
    assert effect("Set-Content -Encoding UTF8 -Path notes\\a.md -Value 'x'; git status", CWD).paths == ("notes/a.md",)
    for line in ("$dst = 'b'; Remove-Item $dst -Force", "[IO.File]::WriteAllText($p, 'x')", "$doc.Save($p)",
                 "& $exe --build", "Invoke-Expression $code",
                 "@'\nRemove-Item $x\n'@ | powershell -NoProfile -Command -"):
        assert effect(line, CWD).unknown, line
    assert effect("Copy-Item -Path a.md -Destination docs\\b.md", CWD).paths == ("a.md", "docs/b.md")
    assert effect("Rename-Item docs\\a.md c.md", CWD).paths == ("docs/a.md", "docs/c.md")  # in its folder
    assert effect("git log | Tee-Object -FilePath log.txt", CWD).paths == ("log.txt",)
    assert effect("Get-Content a.md; npm install", CWD).paths  # a program: judged as a shell line
    assert effect("Get-Content a.md; git checkout main", CWD).paths == ("*",)
    assert judge_powershell("[IO.File]::ReadAllText('a.md').Length").unknown == ""


def test_powershell_is_read_left_to_right_as_powershell_reads_it() -> None:
    """A quote in a comment opens no string, a `#` in a string starts no comment, the code of a double-quoted string's
    `$( … )` runs, `$x=cmd` runs cmd, and a hashtable's `key=value` runs nothing."""
    assert effect("Get-Content a.md # it's fine\nRemove-Item 'b.md'", CWD).paths == ("b.md",)
    assert effect("Write-Output 'a # b'; Remove-Item c", CWD).paths == ("c",)
    assert effect('Write-Output "$(Remove-Item x)"', CWD).paths == ("x",)
    assert effect("$null=New-Item -ItemType Directory -Path docs", CWD).paths == ("docs",)
    matches = ("Get-ChildItem -Recurse -File | Select-String -Pattern 'LAF-19' | "  # IDAHO-VAULT
               'ForEach-Object { "$($_.Path):$($_.LineNumber): $($_.Line)" }')
    assert effect(matches, CWD).none
    assert judge_powershell("Get-ChildItem | Select-Object @{ n='Dir'; e={ $_.Name } }") == judge_powershell("")


@pytest.mark.parametrize("line", [
    "Get-ChildItem -Force | Select-Object FullName,Name,Mode",
    "$rootNames = [System.Collections.Generic.HashSet[string]]::new([StringComparer]::OrdinalIgnoreCase)",
    "C:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe -NoProfile -Command 'Get-Content ''a b.md'''",
])
def test_powershell_that_only_reads(line: str) -> None:
    assert effect(line, CWD).none, effect(line, CWD)


def test_a_posix_line_on_windows_is_read_as_before() -> None:
    assert effect("rg -n 'x' src | sort", CWD).none
    assert effect("rm -rf dist", CWD).paths == ("dist",)


def test_a_counted_numbering_reads_the_file() -> None:
    from toolaudit.replay.agents.codex_powershell import get_content

    line = "$i=1; Get-Content 'swarm/app.py' | ForEach-Object { '{0,4}: {1}' -f $i, $_; $i++ }"  # IDAHO-VAULT
    assert get_content(line) == ("swarm/app.py", None, False, False, (1, 4, ": "))
    assert get_content("$i=1; Get-Content 'swarm/app.py'") is None  # a counter nothing uses: not this form


def test_a_command_codex_declined_never_ran() -> None:
    output = ("`\"C:\\\\WINDOWS\\\\System32\\\\WindowsPowerShell\\\\v1.0\\\\powershell.exe\" -Command \"rg -n "
              "\\\"$modelA =\\\" tools/discuss.ps1\"` rejected: blocked by policy")
    call = ToolCall(session="s", source="s.jsonl", line=1, collector="codex", tool="shell_command", call_id="c",
                    args="{}", output=output)
    assert never_ran(call) == "never ran: Codex's policy declined it"
    ran = ToolCall(session="s", source="s.jsonl", line=2, collector="codex", tool="shell_command", call_id="d",
                   args="{}",
                   output="Exit code: 0\nWall time: 0.1 seconds\nOutput:\n`x` rejected: blocked by policy\n")
    assert never_ran(ran) is None  # the words printed by a program that ran


def test_a_program_powershell_ran_reads_its_paths_in_the_folder_made_posix() -> None:
    from toolaudit.replay.agents.codex_reads import shell_reads

    assert shell_reads("shell_command", {"command": "rg -n auth src/lib"}, CWD) == ["/C:/Users/dev/work/shop/src/lib"]
    line = f"Set-Location -Path '{CWD}'; git show HEAD:apps/a.ts"
    assert shell_reads("shell_command", {"command": line}, CWD) == []  # a commit's file: nothing in the folder
    assert shell_reads("shell_command", {"command": "rg -n auth .\\src"}, CWD) is None  # its backslash: the folder
    assert shell_reads("shell_command", {"command": "Get-ChildItem -Force"}, CWD) == ["/C:/Users/dev/work/shop"]
    assert shell_reads("shell_command", {"command": "Get-ChildItem -Force | Format-List"}, CWD) is None


def test_a_program_powershell_could_not_start_never_ran() -> None:
    output = ("Exit code: 1\nWall time: 0.3 seconds\nOutput:\nProgram 'rg.exe' failed to run: Access is denied"
              "At line:2 char:1\n+ rg -n \"IDE\" .\n")  # LAF-US/IDAHO-VAULT, Codex 0.118
    call = ToolCall(session="s", source="s.jsonl", line=1, collector="codex", tool="shell_command", call_id="c",
                    args="{}", output=output)
    assert never_ran(call) == "never ran: its program could not start"
