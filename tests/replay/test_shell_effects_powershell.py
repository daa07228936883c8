"""What a PowerShell command line or a write under `~` changes in the workspace. The command lines are cut from
Real-s/mini-simclr-assignment (Codex 0.142 on Windows, entire/checkpoints/v1:3d/78d3170b07/0), yashpunmiya/Solsmile
(Codex 0.142, its committed codex-session.jsonl) and therealjhay/Soul (Codex 0.128, a skill's telemetry preamble)."""

from __future__ import annotations

import pytest

from toolaudit.replay.shell_effects import effect


@pytest.mark.parametrize("command", [
    "Get-Content -Encoding UTF8 weekly-plan.md",
    "Get-Content -Encoding UTF8 C:\\Users\\13416\\.codex\\memories\\MEMORY.md | Select-Object -Index 59..95",
    "Get-ChildItem -Recurse -File code,report,results,logs,checkpoints | Select-Object FullName,Length,LastWriteTime",
    "Select-String -Path code\\linear_probe.py -Pattern \"DATA_ROOT|RESULTS_DIR\" -Context 0,3",
    "if (Test-Path $HOME\\.superstack\\config.json) { Get-Content -Raw $HOME\\.superstack\\config.json }",
    "Get-Acl data\\cifar-10-batches-py\\data_batch_4 | Format-List",
])
def test_a_cmdlet_whose_verb_reads_changes_nothing(command: str) -> None:
    assert effect(command).none, effect(command)


def test_a_cmdlet_that_writes_names_its_file_with_its_folders() -> None:
    found = effect("(Get-Content -Encoding UTF8 code\\linear_probe.py) -replace 'a', 'b' | Set-Content -Encoding UTF8 "
                   "code\\linear_probe.py")
    assert found.paths == ("code/linear_probe.py",) and found.unknown == ("Set-Content",)


def test_a_write_under_the_home_folder_is_outside_the_workspace() -> None:
    preamble = "mkdir -p ~/.superstack\necho '{\"skill\":\"apply-grant\"}' >> ~/.superstack/telemetry.jsonl"
    assert effect(preamble, "/home/jhay/Desktop/Soul").paths == ("/home/jhay/.superstack/telemetry.jsonl",)
    assert effect(preamble, "/Users/ranaufal/MyWork/app").paths == ("/Users/ranaufal/.superstack/telemetry.jsonl",)
    assert effect(preamble, "/srv/app").paths == ("~/.superstack/telemetry.jsonl",)  # whose home: unknown
