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
        assert "docs/caps.md" in preset.description and "\n" not in preset.description and preset.notes


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


CLAUDE_RANGES = ("2.0.64-2.0.70", "2.0.71-2.1.1", "2.1.2-2.1.5", "2.1.6-2.1.70", "2.1.71-2.1.78", "2.1.79-2.1.83",
                 "2.1.84+")


def claude(version: str):
    return get_preset(f"claude-code@{version}")


def test_claude_code_ranges_and_how_a_version_is_named():
    family = PRESETS["claude-code"]
    assert tuple(p.versions for _, p in family.ranges) == CLAUDE_RANGES
    assert family.newest is claude("2.1.84+") is claude("2.1.112") is claude("2.1.300")
    assert claude("2.1.5") is claude("2.1.2-2.1.5") and claude("2.1.6").versions == "2.1.6-2.1.70"
    assert claude("1.0.30").versions == "2.0.64-2.0.70"  # before the oldest read: the oldest
    assert get_preset("codex@0.58.0") is get_preset("codex@0.45-0.58")
    for label in CLAUDE_RANGES:
        assert label in family.description
    with pytest.raises(UsageError, match="no version of claude-code"):
        get_preset("claude-code@latest")
    with pytest.raises(UsageError, match="has no version ranges"):
        get_preset("roo@3.0")


def test_claude_code_bash_head_before_2_1_2_then_persisted():
    text = "".join(f"{i:05d} " + "b" * 93 + "\n" for i in range(400))  # 40,000 chars, 400 lines of 100
    out = claude("2.0.76").apply("Bash", text)
    assert out == text[:30_000] + "\n\n... [101 lines truncated] ..."  # the rest: 100 lines and the empty last
    assert truncated_by(out) == "claude-code"
    out = claude("2.1.38").apply("Bash", text)
    assert out == ("<persisted-output>\nOutput too large (39.1KB). Full output saved to: <file>\n\n"
                   "Preview (first 2KB):\n" + text[:1999] + "\n...\n</persisted-output>")
    assert truncated_by(out) == "claude-code"
    for label in CLAUDE_RANGES:
        assert claude(label).apply("Bash", text[:30_000]) is not None
        assert claude(label).apply("Bash", text[:30_000]) == text[:30_000]


def test_claude_code_bash_failure_keeps_5000_at_each_end_in_every_version():
    text = "Exit code 2\n" + "".join(chr(0x61 + i % 26) for i in range(20_000))
    for label in CLAUDE_RANGES:
        out = claude(label).apply("Bash", text)
        assert out == text[:5000] + "\n\n... [10012 characters truncated] ...\n\n" + text[-5000:]


def test_claude_code_read_keeps_every_line_whole_and_refuses_over_25000_tokens():
    lines = "\n".join(f"{i:6d}→" + "w" * 2500 for i in range(1, 3001))  # 3,000 lines of 2,500 chars
    for label in CLAUDE_RANGES:  # no version read has a default line count or a line clip
        assert claude(label).apply("Read", lines[:50_000], lambda t: len(t) // 8) == lines[:50_000]
    huge = "\n".join(f"{i:6d}→" + "w" * 120 for i in range(1, 1001))  # 1,000 lines of 120 chars
    content = "\n".join("w" * 120 for _ in range(1000))
    out = claude("2.1.38").apply("Read", huge, lambda t: len(t) // 4)
    assert out == (f"File content ({len(content) // 4} tokens) exceeds maximum allowed tokens (25000). Please use "
                   "offset and limit parameters to read specific portions of the file, or use the GrepTool to search "
                   "for specific content.")
    assert truncated_by(out) == "claude-code"
    out = claude("2.1.71").apply("Read", huge, lambda t: len(t) // 4)
    assert out.endswith("(25000). Use offset and limit parameters to read specific portions of the file, or search "
                        "for specific content instead of reading the whole file.")
    big = "x" * 300_000
    assert claude("2.0.76").apply("Read", big, lambda t: 1).startswith(
        "File content (293KB) exceeds maximum allowed size (256KB). Please use offset")


def test_claude_code_read_persisted_from_2_1_2_until_2_1_78():
    text = "\n".join(f"{i:6d}→" + "r" * 150 for i in range(1, 1001))  # 157,999 chars, few tokens
    few = lambda t: len(t) // 10  # noqa: E731
    assert claude("2.1.1").apply("Read", text, few) == text
    assert claude("2.1.5").apply("Read", text, few) == text  # 400,000 then
    assert claude("2.1.6").apply("Read", text, few).startswith("<persisted-output>\nOutput too large (154.3KB)")
    assert claude("2.1.78").apply("Read", text, few).startswith("<persisted-output>")
    assert claude("2.1.79").apply("Read", text, few) == text


def test_claude_code_grep_long_lines_omitted_and_head_limit_250_from_2_1_84():
    for label in CLAUDE_RANGES:
        out = claude(label).apply("Grep", "src/min.js:1:" + "v" * 501 + "\nsrc/a.py:2:ok")
        assert out == "src/min.js:1:[Omitted long matching line]\nsrc/a.py:2:ok"
    text = "\n".join(f"src/f{i}.py:{i}:hit" for i in range(300))
    assert claude("2.1.83").apply("Grep", text) == text
    out = claude("2.1.84").apply("Grep", text)
    assert out == "\n".join(f"src/f{i}.py:{i}:hit" for i in range(250)) + (
        "\n\n[Showing results with pagination = limit: 250]")
    assert claude("2.1.84").apply("Grep", out) is out
    files = "Found 300 files\n" + "\n".join(f"src/f{i}.py" for i in range(300))
    assert claude("2.1.84").apply("Grep", files) == "Found 250 files limit: 250\n" + "\n".join(
        f"src/f{i}.py" for i in range(250))
    counts = "\n".join(f"src/f{i}.py:2" for i in range(300)) + "\n\nFound 600 total occurrences across 300 files."
    assert claude("2.1.84").apply("Grep", counts).endswith(
        "src/f249.py:2\n\nFound 500 total occurrences across 250 files. with pagination = limit: 250")


def test_claude_code_grep_cut_at_20000_chars_then_persisted():
    text = "\n".join(f"src/f{i:04d}.py:{i}:" + "g" * 80 for i in range(300))  # 300 lines of ~97 chars
    note = "\n\n[Showing results with pagination = limit: 300, offset: 0]"
    out = claude("2.0.76").apply("Grep", text + note)
    assert out.startswith(text[:20_000] + "\n\n... [") and out.endswith(" lines truncated] ..." + note)
    assert claude("2.1.2").apply("Grep", text).startswith("<persisted-output>\nOutput too large (28.6KB)")


def test_claude_code_glob_100_paths():
    text = "\n".join(f"/w/src/f{i}.py" for i in range(101))
    for label in CLAUDE_RANGES:
        out = claude(label).apply("Glob", text)
        assert out == "\n".join(f"/w/src/f{i}.py" for i in range(100)) + (
            "\n(Results are truncated. Consider using a more specific path or pattern.)")
        assert claude(label).apply("Glob", out) is out


def test_claude_code_mcp_cut_then_saved_to_a_file_from_2_0_71():
    text = "q" * 200_000
    out = claude("2.0.64").apply("mcp__binja__fetch_disassembly", text)
    assert out.startswith("q" * 100_000 + "\n\n[OUTPUT TRUNCATED - exceeded 25000 token limit]\n\nThe tool output")
    out = claude("2.1.38").apply("mcp__binja__fetch_disassembly", text)
    assert out.startswith("Error: result (200,000 characters) exceeds maximum allowed tokens. Output has been saved "
                          "to <file>.\nFormat: Plain text\nUse offset and limit parameters to read specific portions "
                          "of the file, the Grep tool to search for specific content, and jq")
    assert "search within it for specific content" in claude("2.1.71").apply("mcp__s__t", text)
    assert claude("2.1.38").apply("mcp__ide__getDiagnostics", text) is text
    assert claude("2.1.38").apply("mcp__s__t", "q" * 99_000) == "q" * 99_000  # 24,750 tokens
    other = "t" * 200_000
    assert claude("2.1.38").apply("WebFetch", other) is other


def _claude_session(path: Path, version: str, output: str) -> Path:
    base = {"sessionId": path.stem, "cwd": "/w", "version": version, "timestamp": "2026-01-01T00:00:00Z"}
    lines = [
        {**base, "type": "assistant", "uuid": "1", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": f"t-{path.stem}", "name": "Bash", "input": {"command": "cat big.log"}}]}},
        {**base, "type": "user", "uuid": "2", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t-{path.stem}", "content": output}]}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_simulate_gives_each_claude_code_session_its_versions_range(run, tmp_path):
    output = "".join(f"{i:05d} " + "c" * 94 + "\n" for i in range(400)).strip()  # ~40,000 chars
    _claude_session(tmp_path / "old.jsonl", "2.0.76", output)
    _claude_session(tmp_path / "new.jsonl", "2.1.38", output)

    def chars_after(*preset: str) -> int:
        result = run("simulate", tmp_path, *preset, "-f", "json", "-j", "1", "-q")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["totals"]["chars_after"]

    head, preview = 30_000 + 31, 1_919 + 120  # the 2.0.76 head cut; the 2.1.38 <persisted-output> preview
    assert abs(chars_after("--preset", "claude-code") - (head + preview)) < 100
    assert abs(chars_after("--preset", "claude-code@2.0.76") - 2 * head) < 100
    assert abs(chars_after("--preset", "claude-code@2.1.38") - 2 * preview) < 100


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


RANGES = sorted(p.key for family in PRESETS.values() for _, p in getattr(family, "ranges", ()))
FREEFORM = "Exit code: 1\nWall time: 0 seconds\nOutput:\n"


@given(texts, st.sampled_from(sorted(PRESETS) + RANGES),
       st.sampled_from(["Bash", "shell", "Read", "Grep", "Glob", "mcp__s__t", "x", "shell_command"]),
       st.sampled_from(["", "Exit code 1\n", FREEFORM]))
def test_presets_never_split_a_character(text, name, tool, prefix):
    text = prefix + text * 40  # long enough to cross the smaller caps sometimes
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


def _rollout(path: Path, session: str, model: str, policy: dict | None, output: str,
             version: str = "0.104.0") -> Path:
    def env(kind, payload):
        return {"timestamp": "2026-02-01T00:00:00.000Z", "type": kind, "payload": payload}

    turn = {"cwd": "/w", "model": model, **({"truncation_policy": policy} if policy else {})}
    lines = [env("session_meta", {"id": session, "cwd": "/w", "cli_version": version, "source": "cli"}),
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


def test_simulate_codex_applies_each_sessions_versions_cut(run, tmp_path):
    from toolaudit.simulate.policies import CodexLegacy, CodexMiddle

    output = "".join(f"row {i:05d} value\n" for i in range(3000))  # 48,000 bytes, 3,000 lines
    expected = {"0.58.0": CodexLegacy().apply(output), "0.104.0": CodexMiddle(warning=False).apply(output),
                "0.150.0": CodexMiddle().apply(output), "": CodexMiddle().apply(output)}
    for version, cut in expected.items():  # "": no version recorded, the newest range
        folder = tmp_path / (version or "none")
        folder.mkdir()
        _rollout(folder / "a.jsonl", f"s-{version}", "gpt-5.2", None, output, version)
        result = run("simulate", folder, "--preset", "codex", "-f", "json", "-j", "1", "-q")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["totals"]["bytes_after"] == nbytes(cut), version
    cut = {v: get_preset(f"codex@{v}").apply("exec_command", output) for v in ("0.58.0", "0.104.0", "0.150.0")}
    assert cut["0.58.0"].startswith("Total output lines: 3000\n\nrow 00000") and "omitted 2744 of 3000" in cut["0.58.0"]
    assert cut["0.104.0"].startswith("Total output lines: 3000\n\nrow 00000")
    assert cut["0.150.0"].startswith("Warning: truncated output (original token count: 12000)\nTotal output lines")
    freeform = "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n" + output
    out = get_preset("codex@0.104.0").apply("shell_command", freeform)
    assert out.startswith("Exit code: 0\nWall time: 0.1 seconds\nTotal output lines: 3000\nOutput:\nrow 00000")
    assert "…38000 chars truncated…" in out
    unified = "Chunk ID: ab12cd\nWall time: 0.2000 seconds\nProcess exited with code 0\nOriginal token count: 12000\nOutput:\n"
    out = get_preset("codex@0.104.0").apply("exec_command", unified + output)
    assert out.startswith(unified + "Total output lines: 3000\n\nrow 00000") and "…2000 tokens truncated…" in out


def test_simulate_codex_recorded_policy_on_the_corpus(run, corpus):
    # sessions with a simulated call: the two 0.104 ones record Tokens(10_000); the 0.58 one records
    # none (it is cut the legacy way: codex@0.45-0.58), nor does the schema fixture (its mode is "[trimmed…]")
    result = run("simulate", corpus / "codex", "--preset", "codex", "-f", "json", "-j", "1", "-q")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["meta"]["session_caps"] == {"recorded": 2, "default": 2}


def test_the_presets_cite_a_page_in_the_repository():
    # their facts and sources live in docs/caps.md; the research notes they came from are not shipped
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    texts = [*root.joinpath("toolaudit").rglob("*.py"), *root.joinpath("docs").rglob("*.md"), root / "README.md"]
    assert not [str(p) for p in texts if "harness-caps" in p.read_text(encoding="utf-8")]
    assert (root / "docs" / "caps.md").is_file()
