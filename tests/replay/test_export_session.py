"""The apply-grant skill's `export-session.sh .` writes the two session files there, nothing else (its SKILL.md
documents `./` only; another folder is judged as any unknown program); and a
Codex-on-Windows `Get-Content FILE` reads that file alone.

Cut from the committed `codex-session.jsonl` of kunalcode12/openclaw_agent (Codex 0.118: `bash
~/.claude/skills/apply-grant/export-session.sh .`, then `sed -n '1,220p' README.md`), nikhilxhub/x402-agent (0.120
on Windows: `bash $HOME/.claude/…`, then `Get-Content package.json` in `D:\\web3projects\\test\\x402-umbra`) and
CryptoSodi/Battle-Cities (0.142: the script under `C:\\Users\\tassa\\.agents\\skills`). Only command lines and
paths are quoted: the first two repositories state no licence, Battle-Cities is MIT (its LICENSE.md); the rest is ours.
"""

from __future__ import annotations

import json

import pytest

from toolaudit.model import ToolCall
from toolaudit.replay.agents.codex_reads import shell_reads
from toolaudit.replay.calls import _paths
from toolaudit.replay.shell_effects import effect
from toolaudit.replay.state import SessionState

WIN = "D:\\web3projects\\test\\x402-umbra"


@pytest.mark.parametrize(("command", "paths"), [
    ("bash ~/.claude/skills/apply-grant/export-session.sh .", ("claude-session.jsonl", "codex-session.jsonl")),
    ("bash $HOME/.claude/skills/apply-grant/export-session.sh .", ("claude-session.jsonl", "codex-session.jsonl")),
    ('bash "C:\\Users\\tassa\\.agents\\skills\\apply-grant\\export-session.sh" .',
     ("claude-session.jsonl", "codex-session.jsonl")),
    ("bash ~/.codex/skills/apply-grant/export-session.sh", ("claude-session.jsonl", "codex-session.jsonl")),
    # another folder is not what its SKILL.md documents: judged as any unknown program, by the path it names
    ("bash ~/.codex/skills/apply-grant/export-session.sh out/", ("out/",)),
    ("bash scripts/export-session.sh .", (".",)),  # another script of that name: a program replay does not know
])
def test_the_export_script_writes_the_session_files(command, paths):
    assert effect(command, "/Users/ayush/Desktop/openclaw_agent").paths == paths


def test_a_read_after_the_export_is_still_compared(tmp_path):
    (tmp_path / "README.md").write_text("# x\n")
    state = SessionState(tmp_path, "/Users/ayush/Desktop/openclaw_agent")
    state.record(ToolCall("r.jsonl", 1, "codex", "s", "exec_command", "Process exited with code 0\nOutput:\n", "c1",
                          args=json.dumps({"cmd": "bash ~/.claude/skills/apply-grant/export-session.sh ."})))
    assert state.doubt(["/Users/ayush/Desktop/openclaw_agent/README.md"]) is None
    assert "export-session.sh" in state.doubt(["/Users/ayush/Desktop/openclaw_agent/claude-session.jsonl"])


@pytest.mark.parametrize(("command", "read"), [
    ("Get-Content package.json", ["/D:/web3projects/test/x402-umbra/package.json"]),
    ("Get-Content -Path web\\src\\lib\\payment.ts", ["/D:/web3projects/test/x402-umbra/web/src/lib/payment.ts"]),
    ("Get-ChildItem -Force", ["/D:/web3projects/test/x402-umbra"]),  # its table (agents.codex_table): the folder
    ("Get-ChildItem -Force | Format-List", None),  # not emulated: what it reads is not said
])
def test_get_content_reads_its_file(command, read):
    assert shell_reads("shell_command", {"command": command, "workdir": WIN}, WIN) == read


def test_a_windows_get_content_is_doubted_by_its_own_file(tmp_path):
    (tmp_path / "package.json").write_text("{}\n")
    state = SessionState(tmp_path, WIN)
    state.uncertain["claude-session.jsonl"] = "the export script may have written it"
    state.uncertain["README.md"] = "listed changed"
    state.recorded_base = True
    assert _paths({"command": "Get-Content package.json", "workdir": WIN}, "shell_command", state) == \
        ["/D:/web3projects/test/x402-umbra/package.json"]
    assert state.doubt(["/D:/web3projects/test/x402-umbra/package.json"]) is None
    assert state.doubt(["/D:/web3projects/test/x402-umbra/README.md"]) is not None
