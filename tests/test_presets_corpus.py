"""A preset applied to its own agent's real recordings changes (almost) nothing (issue 18 §5).

Each preset reproduces an agent's caps; on that agent's recordings (../shared/corpus), every
output the agent left whole was within its caps, so the preset must leave it whole too. Per
file, the tokens the preset saves stay within 1% of the tokens of the outputs the agent had
not cut itself (those it cut carry its marker: simulate leaves them as they were, `agent_truncated`).
A versioned preset (claude-code, codex) applies to each session the range of the version it recorded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import toolaudit
from toolaudit.simulate.policies import Chain, LineClip, SearchPreview
from toolaudit.simulate.presets import PRESETS, Preset, Versioned
pytestmark = pytest.mark.slow  # make test-all only: every preset over its agent's real corpus

BOUND = 0.01  # saved / tokens of the outputs the agent had not cut

# each preset's own agent's recordings, under ../shared/corpus (SOURCES.md says what each file is)
RECORDINGS: dict[str, tuple[str, ...]] = {
    "claude-code": ("claude-code", "openai-responses/nemo-gym/anyswe_agent.example_rollouts_claude_code.jsonl"),
    "codex": ("codex",),
    "codex-tokens": ("codex",),
    "codex-legacy": ("codex",),
    "gemini-cli": ("gemini-cli",),
    "openhands": ("openhands", "atif/inspect_scout/openhands_hello-world.trajectory.json"),
    "swe-agent": ("swe-agent",),
    "mini-swe-agent": ("mini-swe-agent",),
}
NO_RECORDINGS: dict[str, str] = {
    "swe-agent-bash-only": "the corpus has no run of SWE-agent's bash_only.yaml config (its SWE-agent runs use the "
                           "default template, whose cap is the swe-agent preset's 100,000 chars)",
    "opencode": "the corpus has no OpenCode recording",
    "roo": "the corpus has no Roo Code recording",
}


def recordings(corpus: Path, name: str) -> list[Path]:
    """The files of the preset's agent (folders walked), sorted."""
    files: list[Path] = []
    for entry in RECORDINGS[name]:
        path = corpus / entry
        files += sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return files


def own_saving(path: Path, preset: str) -> tuple[int, int]:
    """(tokens of the outputs the agent had not cut, tokens the preset saves) of one recording."""
    result = toolaudit.simulate([path], preset=preset, jobs=1)
    saved = result.variants[0].totals.tokens_saved
    before = result.variants[0].totals.tokens_before
    agent_cut = sum(c.tokens for c in toolaudit.scan([path], calls=True, jobs=1).calls if c.agent_truncated)
    return before - agent_cut, saved


def over_bound(files: list[Path], preset: str) -> list[str]:
    """The files where the preset saved more than BOUND, with the figures."""
    over = []
    for path in files:
        before, saved = own_saving(path, preset)
        if saved > BOUND * before:
            over.append(f"{path.name}: {saved:,} of {before:,} tokens saved ({100 * saved / before:.1f}%)")
    return over


def test_every_preset_is_checked_or_says_why_not():
    assert set(RECORDINGS) | set(NO_RECORDINGS) == set(PRESETS)
    assert not set(RECORDINGS) & set(NO_RECORDINGS)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_preset_changes_almost_nothing_on_its_own_agents_recordings(name, corpus):
    if name in NO_RECORDINGS:
        pytest.skip(f"{name}: {NO_RECORDINGS[name]}")
    files = recordings(corpus, name)
    assert files and all(path.is_file() for path in files), RECORDINGS[name]
    assert not over_bound(files, name)


def _old_claude_code_read() -> Preset:
    """The claude-code preset's Read before issue 18: lines clipped at 2,000 chars and 2,000 lines kept,
    caps Claude Code 2.0.64-2.1.112 never had."""
    from toolaudit.simulate.policies import HeadTail

    newest = PRESETS["claude-code"].newest
    read = Chain.of(LineClip(2000, suffix=""), HeadTail(head_lines=2000, marker=""))
    return Preset("claude-code-old", "the claude-code preset before issue 18 (harness-caps.md)",
                  (("read", read), *((g, c) for g, c in newest.rules if g not in ("read", "read_file"))))


def test_the_check_fails_a_preset_that_cuts_what_the_agent_left_whole(corpus, monkeypatch):
    """The 2.1.38 Read of 6,081 tokens whose lines of 2,114-2,741 chars Claude Code left whole: the old preset's
    line clip made it 5,471 tokens (3.3% of the file), which the check refuses; the preset now leaves it whole."""
    path = corpus / "claude-code" / "spotter" / "subagent.jsonl"
    monkeypatch.setitem(PRESETS, "claude-code-old", _old_claude_code_read())
    result = toolaudit.simulate([path], preset="claude-code-old", jobs=1, explain=1)
    cut = result.explained[0]
    assert (cut.tool, cut.tokens_before, cut.tokens_after) == ("Read", 6081, 5471)
    assert over_bound([path], "claude-code-old") == ["subagent.jsonl: 610 of 18,676 tokens saved (3.3%)"]
    assert over_bound([path], "claude-code") == []


def test_no_claude_code_range_clips_lines():
    """Nor is another agent's one-line JSON read result clipped (hermes' read_file holds the file in one line)."""
    text = '{"content": "' + "x = 1  # " * 400 + '", "total_lines": 1}'
    for _, found in PRESETS["claude-code"].ranges:
        assert found.apply("read_file", text, len) is text
        assert found.apply("Read", "     1→" + "y" * 5000, len).endswith("y" * 5000)


def test_the_sessions_of_the_corpus_get_their_own_ranges(corpus):
    """Claude Code 2.0.76 (before 2.1.2) and 2.1.14-2.1.38; Codex 0.58 (legacy) and 0.104 (TruncationPolicy)."""
    claude, codex = PRESETS["claude-code"], PRESETS["codex"]
    assert isinstance(claude, Versioned) and isinstance(codex, Versioned)
    assert claude.at("2.0.76", "claude-code").versions == "2.0.71-2.1.1"
    assert claude.at("2.1.38", "claude-code").versions == "2.1.6-2.1.70"
    assert claude.at("2.1.38", "codex").versions == claude.newest.versions  # another agent's version: the newest
    assert codex.at("0.58.0", "codex").versions == "0.45-0.58"
    assert codex.at("0.104.0-alpha.1", "codex").versions == "0.59-0.140"
    assert codex.at(None, "codex").versions == "0.141+"


def test_search_preview_is_not_what_changed():
    """Grep's [Omitted long matching line] (ripgrep --max-columns 500) is Claude Code's in every version read."""
    for _, found in PRESETS["claude-code"].ranges:
        grep = found.chain_for("Grep")
        assert any(isinstance(p, SearchPreview) and p.preview_chars == 500 for p in grep.policies)
