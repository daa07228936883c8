"""PowerShell's Select-String on Windows (agents.codex_select), on fixtures cut from the tuning set's rollouts:
KongJin/JG (Codex 0.118), LAF-US/IDAHO-VAULT (Codex 0.116 - 0.121), Real-s/mini-simclr-assignment (Codex 0.142)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolaudit.replay.agents.codex_reads import shell_reads
from toolaudit.replay.agents.codex_select import Search, select_string, wrap

from .test_codex_windows import _get_content

JG = "C:\\Users\\SOL\\Documents\\JG"


def _run(root: Path, command: str, cwd: str = JG):
    return _get_content(root, command, cwd, duration="0.3")


def test_a_wildcard_path_prints_each_match_relative_to_the_working_folder(tmp_path: Path) -> None:
    """JG's `Select-String -Path .\\tools\\*.ps1 -Pattern "…"` printed an empty line, `tools\\discuss.ps1:28:…` with
    `\\r\\n` each, then two empty lines."""
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools/discuss.ps1").write_text('param(\n    [string]$ProviderA = "codex",\n)\n'
                                                'function Invoke-ClaudeApi {\n')
    (tmp_path / "tools/a.ps1").write_text("# providera, case aside\n")
    (tmp_path / "tools/notes.md").write_text("ProviderA\n")
    got = _run(tmp_path, 'Select-String -Path .\\tools\\*.ps1 -Pattern "Invoke-ClaudeApi|ProviderA"')
    assert got.output == ("Exit code: 0\nWall time: 0.3 seconds\nOutput:\n\r\n"
                          "tools\\a.ps1:1:# providera, case aside\r\n"
                          'tools\\discuss.ps1:2:    [string]$ProviderA = "codex",\r\n'
                          "tools\\discuss.ps1:4:function Invoke-ClaudeApi {\r\n\r\n\r\n")
    nothing = _run(tmp_path, "Select-String -Path 'tools\\discuss.ps1' -Pattern 'ClaudeModel' -CaseSensitive")
    assert nothing.output == "Exit code: 0\nWall time: 0.3 seconds\nOutput:\n"  # no match: not even the empty lines
    lacking = _run(tmp_path, "Select-String -Path .\\agent\\*.ps1 -Pattern x")
    assert lacking.status == "refused" and "lacks" in lacking.reason


def test_a_line_longer_than_the_console_is_wrapped_at_words() -> None:
    """IDAHO-VAULT's AGENTS.md:4 as recorded: 119 display cells a line, the space kept at the end of the first."""
    line = ("AGENTS.md:4:> This file exists at repo root because OpenAI Codex CLI, GitHub Copilot, and Qodo auto-load "
            "`AGENTS.md` from the repository root.")
    assert wrap(line) == ["AGENTS.md:4:> This file exists at repo root because OpenAI Codex CLI, GitHub Copilot, and "
                          "Qodo auto-load `AGENTS.md` ", "from the repository root."]
    assert wrap("x" * 130) == ["x" * 119, "x" * 11]  # a word longer than a line: cut where it ends
    assert wrap("图" * 60) == ["图" * 59, "图"]  # two cells each


def test_context_lines_are_shown_once_with_their_marks(tmp_path: Path) -> None:
    """mini-simclr-assignment's `Select-String -Path code\\linear_probe.py -Pattern "…" -Context 0,3`."""
    (tmp_path / "code").mkdir()
    (tmp_path / "code/linear_probe.py").write_text("import json\nDATA_ROOT = 1\nRESULTS_DIR = 2\nx = 3\ny = 4\nz = 5\n")
    got = _run(tmp_path, 'Select-String -Path code\\linear_probe.py -Pattern "DATA_ROOT|RESULTS_DIR" -Context 0,2',
               "D:\\Desktop\\MedAI\\mini-simclr-assignment")
    assert got.output.endswith("Output:\n\r\n> code\\linear_probe.py:2:DATA_ROOT = 1\r\n"
                               "> code\\linear_probe.py:3:RESULTS_DIR = 2\r\n  code\\linear_probe.py:4:x = 3\r\n"
                               "  code\\linear_probe.py:5:y = 4\r\n\r\n\r\n")


def test_lines_piped_from_get_content_print_alone(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Title\n## Setup\ntext\n## Use\n")
    got = _run(tmp_path, "Get-Content README.md | Select-String -Pattern '^## '")
    assert got.output.endswith("Output:\n\r\n## Setup\r\n## Use\r\n\r\n\r\n")


@pytest.mark.parametrize("command, search", [
    ("Select-String -Path AGENTS.md,!\\AGENTS.md -Pattern \"agent:codex|Codex\"",
     Search(("agent:codex|Codex",), ("AGENTS.md", "!\\AGENTS.md"))),
    ('Select-String -Path AGENTS.md -Pattern "Claude Code \\|"', Search(("Claude Code \\|",), ("AGENTS.md",))),
    ("Select-String -Path .gitignore -Pattern '^\\.DS_Store$', '^desktop\\.ini$'",  # a list written apart
     Search(("^\\.DS_Store$", "^desktop\\.ini$"), (".gitignore",))),
    ("Select-String 'foo' x.md -SimpleMatch -List", Search(("foo",), ("x.md",), simple=True, first=True)),
    ("Select-String -Path x -Pattern '-B$'", Search(("-B$",), ("x",))),  # a quoted pattern is no option
    ("Select-String -Path x -Pattern a -CaseSensitive:$false", None),
    ("Get-ChildItem -Recurse -File | Select-String -Pattern x", None),
    ("git log | Select-String x", None),
    ("Select-String -Path x -Pattern a | Select-Object -First 3", None),
    ("Select-String -Path x -Pattern a -Quiet", None),
    ("Select-String -Path x -Pattern a -Encoding Unicode", None),
    (",", None),  # a word with no value: no crash
])
def test_the_forms_read(command: str, search) -> None:
    assert select_string(command) == search


def test_a_select_string_reads_its_files() -> None:
    read = shell_reads("shell_command", {"command": "Select-String -Path .\\tools\\*.ps1,README.md -Pattern x",
                                         "workdir": JG}, JG)
    assert read == ["/C:/Users/SOL/Documents/JG/tools", "/C:/Users/SOL/Documents/JG/README.md"]
