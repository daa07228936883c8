"""Codex on Windows: yashpunmiya/Solsmile's rollout (Codex 0.142.5 in VS Code, its committed codex-session.jsonl)
records its cwd as `c:\\Users\\yyash\\Coding\\Solsmile` and each call's workdir as `C:\\Users\\yyash\\Coding\\Solsmile`: one
folder, the drive letter's case aside."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolaudit.replay.agents.shell_readonly import Workspace


def test_a_windows_workdir_maps_onto_the_replay_folder_whatever_its_drive_letters_case(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    ws = Workspace(tmp_path, "c:\\Users\\yyash\\Coding\\Solsmile")
    ws.enter("C:\\Users\\yyash\\Coding\\Solsmile", "workdir")
    assert ws.cwd == tmp_path
    assert ws.root_path("C:\\Users\\yyash\\Coding\\Solsmile\\src") == f"{tmp_path}/src"
    assert ws.root_path("C:\\Users\\yyash\\.agents\\skills") == "/C:/Users/yyash/.agents/skills"  # outside: as it is


CWD = "D:\\Desktop\\MedAI\\mini-simclr-assignment"


def _get_content(root: Path, command: str, cwd: str = CWD, **params: str):
    from toolaudit.replay.agents.base import Call
    from toolaudit.replay.agents.codex import ShellCommand
    from toolaudit.replay.base import Sandbox

    return ShellCommand().run(Call(tool="shell_command", args={"command": command, "workdir": cwd}, root=root,
                                   cwd=cwd, version="0.142.4", sandbox=Sandbox(root),
                                   params={"duration": "2.8", **params}, session="s", call_id="c1"))


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
    last = _get_content(tmp_path, "Get-Content -Encoding UTF8 code\\model.py | Select-Object -Last 2")
    assert last.output.endswith("Output:\n    feature_dim 特征维数\r\n\"\"\"\r\n")
    picked = _get_content(tmp_path, "Get-Content -Encoding UTF8 code\\model.py | Select-Object -Index (4..5)")
    assert picked.output.endswith("Output:\nclass CNNModel(nn.Module):\r\n    \"\"\"\r\n")
    raw = _get_content(tmp_path, "Get-Content -Raw -Encoding UTF8 code\\model.py")  # one string, then the host's \r\n
    assert raw.output.endswith("Output:\nfrom torch import nn\nimport torch\n\n\nclass CNNModel(nn.Module):\n    \"\"\"\n"
                               "    feature_dim 特征维数\n\"\"\"\n\r\n")
    missing = _get_content(tmp_path, "Get-Content -Encoding UTF8 weekly-plan.md")
    assert missing.status == "refused" and "weekly-plan.md, which the replay folder lacks" in missing.reason
    outside = _get_content(tmp_path, "Get-Content -Encoding UTF8 C:\\Users\\13416\\.codex\\memories\\MEMORY.md")
    assert outside.status == "refused" and "outside the workspace" in outside.reason


def test_windows_powershell_reads_a_file_without_a_bom_in_the_machines_ansi_code_page(tmp_path: Path) -> None:
    """LAF-US/IDAHO-VAULT (Codex 0.116 on Windows, `.codex/archived_sessions/rollout-2026-03-23T01-39-29-…`, MIT):
    `Get-Content -Raw VAULT-CONVENTIONS.md` of a UTF-8 note committed with \\n printed `# VAULT-CONVENTIONS â€” …\\r\\n`:
    read in cp1252, checked out with \\r\\n (core.autocrlf), then the host's \\r\\n. The code page and the checkout
    are read from the recorded output (from_recording), as its wall time is."""
    from toolaudit.replay.agents.codex import ShellCommand
    from toolaudit.replay.agents.codex_powershell import recorded_ansi

    cwd = "c:\\Users\\loganf\\Documents\\IDAHO-VAULT"
    (tmp_path / "!").mkdir()
    (tmp_path / "!" / "README.md").write_bytes("# VAULT-CONVENTIONS — Shared\n\nThe vault's canon.".encode())
    recorded = "Exit code: 0\nWall time: 0.7 seconds\nOutput:\n# VAULT-CONVENTIONS â€” Shared\r\n\r\nThe vault's canon.\r\n"
    from toolaudit.replay.agents.base import Call
    from toolaudit.replay.base import Sandbox

    call = Call(tool="shell_command", args={"command": "Get-Content -Raw '!\\\\README.md'", "workdir": cwd},
                root=tmp_path, cwd=cwd, version="0.116.0", sandbox=Sandbox(tmp_path))
    noise = ShellCommand().from_recording(recorded, call)
    assert noise["ansi"] == "cp1252" and noise["crlf"] == "1"
    lf = ShellCommand().from_recording("Exit code: 0\nWall time: 0.7 seconds\nOutput:\none\ntwo\n\r\n", call)
    assert "crlf" not in lf  # an LF checkout: only the host's \r\n after the text
    got = _get_content(tmp_path, "Get-Content -Raw '!\\\\README.md'", cwd, **noise)  # `\\\\`: one folder, as Windows reads it
    assert got.output == recorded
    # mini-simclr-assignment (Codex 0.142 on a Chinese Windows): `图像` read in cp936, line by line
    assert recorded_ansi("# Mini-SimCLR 鍥惧儚琛ㄥ緛") == "cp936" and recorded_ansi("plain text") is None
    assert recorded_ansi("# 게임 규칙 — 정리") == "utf-8"  # KongJin/JG: read whole (PowerShell 7, or a UTF-8 page)
    (tmp_path / "README.md").write_bytes("# Mini-SimCLR 图像表征\nnext\n".encode())
    lines = _get_content(tmp_path, "Get-Content README.md", ansi="cp936")
    assert lines.output.endswith("Output:\n# Mini-SimCLR 鍥惧儚琛ㄥ緛\r\nnext\r\n")
    assert _get_content(tmp_path, "Get-Content -Raw README.md | Select-Object -First 1").status == "refused"


@pytest.mark.parametrize("command, read", [
    # the forms LAF-US/IDAHO-VAULT's and KongJin/JG's rollouts use most (Codex 0.116 - 0.119)
    ("Get-Content -Path 'Assets\\Scripts\\README.md' -TotalCount 220",
     ("Assets\\Scripts\\README.md", (("first", 220),), False, False, None)),
    ("Get-Content notes.md -TotalCount 12", ("notes.md", (("first", 12),), False, False, None)),
    ("Get-Content -TotalCount 220 notes.md", ("notes.md", (("first", 220),), False, False, None)),
    ("Get-Content -Head 5 notes.md | Select-Object -First 3",
     ("notes.md", (("first", 5), ("first", 3)), False, False, None)),
    ("Get-Content -LiteralPath 'app\\[itemId]\\page.tsx'", ("app\\[itemId]\\page.tsx", None, False, False, None)),
    ("Get-Content -Raw '!\\\\README.md'", ("!\\\\README.md", None, True, False, None)),
    ("Get-Content -LiteralPath 'a.md' | ForEach-Object -Begin {$i=1} -Process { '{0,4}: {1}' -f $i++, $_ }",
     ("a.md", None, False, False, (1, 4, ": "))),
    ("Get-Content -Path 'app\\[itemId]\\page.tsx'", None),  # -Path reads [ ] as a wildcard
    ("Get-Content *.md", None),
    ("Get-Content $path", None),
    ("Get-Content -Raw notes.md -TotalCount 3", None),
    # IDAHO-VAULT's and mini-simclr-assignment's other ways to keep some lines
    ("Get-Content notes.md | Select-Object -Index (49..66)", ("notes.md", (("index", ((49, 66),)),),
                                                             False, False, None)),
    ("Get-Content -Encoding UTF8 logs\\pretrain.log | Select-Object -Last 30",
     ("logs\\pretrain.log", (("last", 30),), False, True, None)),
    ("Get-Content -Tail 5 x.log | Select-Object -Skip 1 -First 2", ("x.log", (("last", 5), ("skip", 1), ("first", 2)),
                                                                    False, False, None)),
    ("Get-Content x | Select-Object -Index 3,1", ("x", (("index", ((3, 3), (1, 1))),), False, False, None)),
    ("Get-Content x | Select-Object -Index (999999999..0)", ("x", (("index", ((0, 999999999),)),), False, False, None)),
    ("Get-Content x | Select-Object -Last 3 -First 1", None),  # a mix not emulated
    ("Get-Content x | Select-Object -First 1 -First 2", None),
    ("Get-Content x | Select-Object -First 1..3", None),  # a count is one number: no crash
    ("Get-Content x | Select-Object -Skip 1,2", None),
    ("Get-Content -Tail 3 -TotalCount 2 x", None),
    ("Get-Content -LiteralPath x | ForEach-Object -Begin {$i=1} -Process { '{0}' -f $i++, $_ }", None),
    ("Get-Content -Raw x | ForEach-Object -Begin {$i=1} -Process { '{0,4}: {1}' -f $i++, $_ }", None),
    ("Get-Content -Encoding Default notes.md", None),
    ("Get-Content notes.md -TotalCount ²", None),  # a digit int() refuses: not emulated, no crash
])
def test_the_get_content_forms_read(command: str, read) -> None:
    from toolaudit.replay.agents.codex_powershell import get_content

    assert get_content(command) == read


def test_total_count_keeps_the_first_lines(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_bytes(b"one\ntwo\nthree\n")
    assert _get_content(tmp_path, "Get-Content -Path notes.md -TotalCount 2").output.endswith("Output:\none\r\ntwo\r\n")


def test_a_foreach_numbering_numbers_the_lines(tmp_path: Path) -> None:
    # LAF-US/IDAHO-VAULT (Codex 0.118): `Get-Content -LiteralPath P | ForEach-Object -Begin {$i=1} -Process
    # { '{0,4}: {1}' -f $i++, $_ }`, 18 calls
    (tmp_path / "notes.md").write_bytes(b"one\ntwo\n")
    got = _get_content(tmp_path, "Get-Content -LiteralPath 'notes.md' | Select-Object -First 1 | ForEach-Object "
                                 "-Begin {$i=1} -Process { '{0,4}: {1}' -f $i++, $_ }")
    assert got.output.endswith("Output:\n   1: one\r\n")


def test_ripgrep_on_windows_joins_what_it_finds_with_backslashes() -> None:
    """devangshupandey2025-stack/DevSage (Codex 0.104; no licence, the lines here are written in its shape) recorded
    `rg --files apps/api/src/lib | sort` as `apps/api/src/lib\\allowed-origin.ts\\r\\n…` (PowerShell's Sort-Object and
    its host's line break) and `rg -n X packages/db/src/schema` as `packages/db/src/schema\\auth.ts:2:…\\n`."""
    from toolaudit.replay.agents.codex_windows import as_windows

    listed = as_windows("apps/api/src/lib/utils.ts\napps/api/src/lib/Audit.ts\n", 0,
                        "rg --files apps/api/src/lib | sort")
    assert listed == ("apps/api/src/lib\\Audit.ts\r\napps/api/src/lib\\utils.ts\r\n", 0)
    found = as_windows("src/schema/auth.ts:2:import { user } from './auth-user.js';\nsrc/schema/sub/a.ts:3:y\n", 0,
                       "rg -n 'auth-user' src/schema")
    assert found[0] == "src/schema\\auth.ts:2:import { user } from './auth-user.js';\nsrc/schema\\sub\\a.ts:3:y\n"
    assert as_windows("Assets/Scripts/README.md:9:a/b\n", 0, "rg -n Catalog")[0] == \
        "Assets\\Scripts\\README.md:9:a/b\n"
    assert as_windows("2:import x\n", 0, "rg -n x src/a.ts")[0] == "2:import x\n"  # one file: no path printed
    assert as_windows("a/b.txt\n", 0, "cat a/b.txt")[0] == "a/b.txt\n"  # not rg: as it is


def test_powershell_exits_1_for_any_failure() -> None:
    """KongJin/JG (Codex 0.118 on Windows) recorded rg's regex parse error with `Exit code: 1`; rg exits 2 for it.
    `powershell -Command` gives 0 or 1 from its last command's success: every Windows recording's code is 0, 1, or
    Codex's own 124 for a timeout."""
    from toolaudit.replay.agents.codex_windows import as_windows

    assert as_windows("rg: regex parse error:\n", 2, "rg -n '(' tools")[1] == 1
    assert as_windows("fatal: invalid object name\n", 128, "git show abc:x.ts")[1] == 1
    assert as_windows("", 0, "git status")[1] == 0
