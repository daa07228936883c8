"""Presets: each agent's cap, built from the numbers and marker texts in docs/harness-caps.md."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolaudit.scan.markers import truncated_by
from toolaudit.simulate.policies import nbytes
from toolaudit.simulate.presets import PRESETS, get_preset
from toolaudit.errors import UsageError

sys.path.insert(0, str(Path(__file__).parent / "policies"))
from strategies import encodes, texts  # noqa: E402


def numbered(n: int, width: int = 0) -> str:
    """n lines `line 1`, `line 2`..., each padded to `width` chars, newline-terminated."""
    return "".join(f"line {i}".ljust(width) + "\n" for i in range(1, n + 1))


def test_every_preset_cites_the_table():
    assert set(PRESETS) == {"codex", "codex-tokens", "codex-legacy", "claude-code", "gemini-cli", "openhands",
                            "swe-agent", "swe-agent-bash-only", "mini-swe-agent", "opencode", "roo"}
    for preset in PRESETS.values():
        assert "harness-caps.md" in preset.description and "\n" not in preset.description and preset.notes


def test_unknown_preset_is_a_usage_error_with_a_suggestion():
    with pytest.raises(UsageError, match="did you mean 'openhands'"):
        get_preset("open-hands")


def test_codex_10000_bytes_50_50():
    text = "".join(f"{i:05d} " + "x" * 93 + "\n" for i in range(250))  # 25,000 bytes, 250 lines
    out = get_preset("codex").apply("shell", text)
    header = "Warning: truncated output (original token count: 6250)\nTotal output lines: 250\n\n"
    assert out == header + text[:5000] + "…15000 chars truncated…" + text[-5000:]
    assert truncated_by(out) == "codex"
    small = "y" * 10_000
    assert get_preset("codex").apply("exec_command", small) is small
    wide = "é" * 12_500  # 25,000 bytes of 2-byte characters
    out = get_preset("codex").apply("shell", wide)
    assert out.endswith("é" * 2500 + "…7500 chars truncated…" + "é" * 2500) and encodes(out)


def test_codex_tokens_10000_tokens_is_40000_bytes():
    text = "z" * 50_000
    out = get_preset("codex-tokens").apply("shell", text)
    assert out.endswith("z" * 20_000 + "…2500 tokens truncated…" + "z" * 20_000)
    assert out.startswith("Warning: truncated output (original token count: 12500)\nTotal output lines: 1\n\n")
    assert get_preset("codex-tokens").apply("shell", "z" * 40_000) == "z" * 40_000


def test_codex_legacy_256_lines_128_plus_128():
    text = numbered(400)
    out = get_preset("codex-legacy").apply("shell", text)
    head, tail = numbered(128), "".join(f"line {i}\n" for i in range(273, 401))
    assert out == "Total output lines: 400\n\n" + head + "\n[... omitted 144 of 400 lines ...]\n\n" + tail
    assert truncated_by(out) == "codex"


def test_codex_legacy_10_kib_with_the_marker_inside():
    text = numbered(200, width=99)  # 200 lines of 100 bytes: 20,000 bytes, under 256 lines
    out = get_preset("codex-legacy").apply("shell", text)
    body = out.removeprefix("Total output lines: 200\n\n")
    marker = "\n[... output truncated to fit 10240 bytes ...]\n\n"
    assert marker in body and nbytes(body) == 10_240  # head 5,120 B + marker + tail: the whole body 10 KiB
    head, tail = body.split(marker)
    assert nbytes(head) == 5120 and text.startswith(head) and text.endswith(tail)
    big = numbered(400, width=99)  # over both limits: lines win the marker, bytes still bound
    body = get_preset("codex-legacy").apply("shell", big).removeprefix("Total output lines: 400\n\n")
    assert "[... omitted 144 of 400 lines ...]" in body and nbytes(body) <= 10_240


def test_claude_code_bash_30000_chars_middle_cut():
    text = "".join(chr(0x61 + i % 26) for i in range(40_000))
    out = get_preset("claude-code").apply("Bash", text)
    assert out == text[:15_000] + "\n\n... [10000 characters truncated] ...\n\n" + text[-15_000:]
    assert truncated_by(out) == "claude-code"
    assert get_preset("claude-code").apply("Bash", text[:30_000]) == text[:30_000]


def test_claude_code_read_2000_lines_and_the_25000_token_refusal():
    preset = get_preset("claude-code")
    text = "".join(f"{i:6d}\tx = {i}\n" for i in range(1, 3001))
    out = preset.apply("Read", text, lambda t: len(t) // 4)
    assert out == "".join(f"{i:6d}\tx = {i}\n" for i in range(1, 2001))
    huge = "".join(f"{i:6d}\t" + "w" * 120 + "\n" for i in range(1, 1001))  # 1,000 lines, ~128,000 chars
    out = preset.apply("Read", huge, lambda t: len(t) // 4)
    assert out == (f"File content ({len(huge) // 4} tokens) exceeds maximum allowed tokens (25000). Please use offset "
                   "and limit parameters to read specific portions of the file, or use the GrepTool to search for "
                   "specific content.")


def test_claude_code_grep_250_results_and_long_lines_omitted():
    preset = get_preset("claude-code")
    out = preset.apply("Grep", "src/min.js:1:" + "v" * 501 + "\nsrc/a.py:2:ok\n")
    assert out == "src/min.js:1:[Omitted long matching line]\nsrc/a.py:2:ok\n"
    text = "".join(f"src/f{i}.py:{i}:hit\n" for i in range(300))
    assert preset.apply("Grep", text) == "".join(f"src/f{i}.py:{i}:hit\n" for i in range(250))


def test_claude_code_mcp_refusal_and_other_tools_unchanged():
    preset = get_preset("claude-code")
    out = preset.apply("mcp__binja__fetch_disassembly", "q" * 200_000)
    assert out == ('MCP tool "fetch_disassembly" response (50000 tokens) exceeds maximum allowed tokens (25000). '
                   "Please use pagination, filtering, or limit parameters to reduce the response size.")
    text = "t" * 200_000
    assert preset.apply("WebFetch", text) is text


def test_gemini_cli_40000_chars_20_80():
    text = "".join(chr(0x41 + i % 26) for i in range(50_000))
    out = get_preset("gemini-cli").apply("run_shell_command", text)
    assert out == ("Output too large. Showing first 8,000 and last 32,000 characters. For full output see: <file>\n"
                   + text[:8000] + "\n\n... [10,000 characters omitted] ...\n\n" + text[-32_000:])


def test_openhands_30000_chars_50_50():
    text = "o" * 15_000 + "MIDDLE" + "p" * 15_000
    out = get_preset("openhands").apply("execute_bash", text)
    assert out == "o" * 15_000 + "\n[... Observation truncated due to length ...]\n" + "p" * 15_000
    assert truncated_by(out) == "openhands"


def test_swe_agent_100000_head_only():
    preset = get_preset("swe-agent")
    text = "s" * 100_000
    assert preset.apply("bash", text) is text
    out = preset.apply("bash", text + "t")
    assert out == text + ("<response clipped><NOTE>Observations should not exceeded 100000 characters. 1 characters "
                          "were elided. Please try a different command that produces less output or use "
                          "head/tail/grep/redirect the output to a file. Do not use interactive pagers.</NOTE>")
    assert truncated_by(out) == "swe-agent"


def test_swe_agent_bash_only_10000_chars_50_50():
    text = "h" * 5000 + "m" * 1 + "t" * 5000
    out = get_preset("swe-agent-bash-only").apply("bash", text)
    assert out.startswith("<warning>\nThe output of your last command was too long.\n")
    assert out.endswith("</warning>\n\n<observation_head>\n" + "h" * 5000 + "\n</observation_head>\n\n<elided_chars>\n"
                        "1 characters elided\n</elided_chars>\n\n<observation_tail>\n" + "t" * 5000
                        + "\n</observation_tail>")


def test_mini_swe_agent_cuts_at_10000_to_5000_plus_5000():
    preset = get_preset("mini-swe-agent")
    text = "a" * 9_999
    assert preset.apply("bash", text) is text
    text = "h" * 5_000 + "t" * 5_000
    out = preset.apply("bash", text)
    assert out.endswith("</warning><output_head>\n" + "h" * 5_000 + "\n</output_head>\n<elided_chars>\n"
                        "0 characters elided\n</elided_chars>\n<output_tail>\n" + "t" * 5_000 + "\n</output_tail>")
    out = preset.apply("bash", "h" * 5_000 + "m" * 2_345 + "t" * 5_000)
    assert "<elided_chars>\n2345 characters elided\n</elided_chars>" in out and "m" not in out.split("</warning>")[1]


def test_mini_swe_agent_layout_matches_a_real_trajectory(corpus):
    paths = sorted((corpus / "mini-swe-agent").rglob("*.traj.json"))
    for path in paths:
        for message in json.loads(path.read_text()).get("messages", []):
            content = message.get("content")
            if isinstance(content, str) and "<output_head>" in content:
                real = re.sub(r"(?s)<output_head>\n.*\n</output_head>", "<output_head>\nH\n</output_head>", content)
                real = re.sub(r"(?s)<output_tail>\n.*\n</output_tail>", "<output_tail>\nT\n</output_tail>", real)
                real = re.sub(r"\d+ characters elided", "N characters elided", real)
                ours = get_preset("mini-swe-agent").apply("bash", "H" * 5000 + "x" * 7 + "T" * 5000)
                ours = ours.replace("H" * 5000, "H").replace("T" * 5000, "T").replace("7 characters", "N characters")
                assert real.endswith(ours)  # the real one starts with <returncode>, which is not tool output
                return
    pytest.skip("no truncated mini-swe-agent observation in the corpus")


def test_opencode_2000_lines_or_50_kib_head():
    preset = get_preset("opencode")
    text = numbered(3000)
    out = preset.apply("bash", text)
    assert out.startswith(numbered(2000) + "\n...1001 lines truncated...\n\nThe tool call succeeded but the output "
                          "was truncated. Full output saved to: <file>\n")
    wide = numbered(600, width=99)  # 60,000 bytes in 601 pieces: the byte limit binds first
    out = preset.apply("read", wide)
    kept = out.split("\n\n...")[0]
    assert kept == numbered(512, width=99).removesuffix("\n") and nbytes(kept) <= 51_200
    assert f"...{nbytes(wide) - nbytes(kept)} bytes truncated..." in out


def test_roo_chars_take_precedence_over_lines():
    preset = get_preset("roo")
    text = "".join(chr(0x61 + i % 26) for i in range(60_000))
    out = preset.apply("execute_command", text)
    assert out == text[:10_000] + "\n[...10000 characters omitted...]\n" + text[-40_000:]
    lines = numbered(600)  # 601 pieces as Roo counts them
    out = preset.apply("execute_command", lines)
    tail = "".join(f"line {i}\n" for i in range(202, 601))
    assert out == numbered(100) + "\n[...101 lines omitted...]\n\n" + tail
    assert truncated_by(out) == "roo"
    assert preset.apply("read_file", text) is text  # only command output is capped


@given(texts, st.sampled_from(sorted(PRESETS)), st.sampled_from(["Bash", "shell", "Read", "Grep", "mcp__s__t", "x"]))
def test_presets_never_split_a_character(text, name, tool):
    text = text * 40  # long enough to cross the smaller caps sometimes
    out = get_preset(name).apply(tool, text, lambda t: len(t) // 3)
    assert encodes(out)
    if out == text:
        assert out is text


# ------------------------------------------------------------------ codex follows the session's recorded cap

def test_codex_cap_is_the_recorded_one_else_the_model_familys():
    from toolaudit.simulate.policies import CodexMiddle
    from toolaudit.simulate.presets import codex_session_cap
    from toolaudit.model import OutputCap

    recorded = OutputCap("f", 1, "s", "tokens", 2_500)
    assert codex_session_cap(recorded, "gpt-5.2") == CodexMiddle(2_500, "tokens")
    assert codex_session_cap(None, "gpt-5.1-codex-max") == CodexMiddle(10_000, "tokens")
    assert codex_session_cap(None, "gpt-5.2") == CodexMiddle(10_000, "bytes")
    assert codex_session_cap(None, None) == CodexMiddle(10_000, "bytes")
    # only the codex preset follows the session; the explicit ones keep their own cap
    assert PRESETS["codex"].cap_for is not None
    assert PRESETS["codex-tokens"].cap_for is None and PRESETS["codex-legacy"].cap_for is None


def _rollout(path: Path, session: str, model: str, policy: dict | None, output: str) -> Path:
    def env(kind, payload):
        return {"timestamp": "2026-02-01T00:00:00.000Z", "type": kind, "payload": payload}

    turn = {"cwd": "/w", "model": model, **({"truncation_policy": policy} if policy else {})}
    lines = [env("session_meta", {"id": session, "cwd": "/w", "cli_version": "0.104.0", "source": "cli"}),
             env("turn_context", turn),
             env("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{}",
                                    "call_id": f"{session}-c1"}),
             env("response_item", {"type": "function_call_output", "call_id": f"{session}-c1", "output": output})]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_simulate_codex_applies_each_sessions_recorded_policy(run, tmp_path):
    output = "".join(f"row {i:05d} value\n" for i in range(3000))  # 48,000 bytes
    _rollout(tmp_path / "a.jsonl", "sess-a", "gpt-5.2", {"mode": "bytes", "limit": 2_000}, output)
    _rollout(tmp_path / "b.jsonl", "sess-b", "gpt-5.2", {"mode": "tokens", "limit": 5_000}, output)
    _rollout(tmp_path / "c.jsonl", "sess-c", "gpt-5.2", None, output)  # no record: Bytes(10_000)
    result = run("simulate", tmp_path, "--preset", "codex", "-f", "json", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    # head + tail within each session's budget, the marker and header on top
    assert doc["totals"]["bytes_after"] - 3 * 150 < 2_000 + 20_000 + 10_000 < doc["totals"]["bytes_after"]
    assert doc["meta"]["session_caps"] == {"recorded": 2, "default": 1}
    table = run("simulate", tmp_path, "--preset", "codex", "-j", "1", "-q")
    assert table.exit_code == 0, table.output
    assert "recorded truncation_policy in 2 sessions, the model family's default in 1" in table.output


def test_simulate_codex_recorded_policy_on_the_corpus(run, corpus):
    # sessions with a simulated call: the two 0.104 ones record Tokens(10_000); the 0.58 one records
    # none (gpt-5.1-codex: Tokens(10_000) too), nor does the schema fixture (its mode is "[trimmed…]")
    result = run("simulate", corpus / "codex", "--preset", "codex", "-f", "json", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["meta"]["session_caps"] == {"recorded": 2, "default": 2}
