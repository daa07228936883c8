"""Presets: the real output caps of real agents, with their own marker texts.

Numbers and marker texts come from ../shared/docs/harness-caps.md (and the agents'
sources it cites). A preset maps tool-name globs (matched case-insensitively, first
match wins) to a Chain; "*" is the default. Tool groups name the equivalent tools of
other agents too (Claude Code's Bash is Codex's shell), so a preset can be simulated on
any agent's transcripts. Where harness-caps.md leaves a detail open, the choice is
written in the preset's `notes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Callable

from ..errors import UsageError
from ..model import OutputCap, strip_mcp_prefix
from ..registry import did_you_mean
from ..scan.families import SHELL
from .policies import (Chain, CodexLegacy, CodexMiddle, FirstOf, HeadTail, LineClip, OpenCodeCut, Refusal,
                       SearchPreview)
from .policies.base import CountTokens, Policy
from .policies.refusal import CLAUDE_MCP_MESSAGE, CLAUDE_READ_MESSAGE

# Equivalent tools across agents (lower case; globs); the shell list is the families table's (scan.families).
READ = ("read", "read_file")
SEARCH = ("grep", "search_file_content", "search_files", "ripgrep")


@dataclass(frozen=True)
class Preset:
    """An agent's caps: (glob, Chain) rules in order, "*" last; a one-line description and the choices made."""

    key: str
    description: str
    rules: tuple[tuple[str, Chain], ...]
    notes: str = ""
    # (the session's recorded cap or None, the call's model) -> the cap that replaces the rules'
    # own; None: the preset's caps are fixed
    cap_for: Callable[[OutputCap | None, str | None], Policy] | None = None

    def chain_for(self, tool: str, cap: Policy | None = None) -> Chain:
        """The chain for `tool` (first matching glob; unchanged when none matches), `cap` replacing its cap."""
        name = tool.lower()
        for glob, chain in self.rules:
            if fnmatchcase(name, glob):
                chain = chain.bind_tool(strip_mcp_prefix(tool))  # Claude Code's error names only the tool
                return chain.override(cap) if cap is not None else chain
        return Chain()

    def apply(self, tool: str, text: str, count_tokens: CountTokens | None = None) -> str:
        """What the model would have seen from `tool` under this preset."""
        return self.chain_for(tool).apply(text, count_tokens)


def _preset(key: str, description: str, rules: dict, notes: str = "", cap_for=None) -> Preset:
    flat = []
    for globs, policy in rules.items():
        chain = policy if isinstance(policy, Chain) else Chain.of(policy)
        flat.extend((glob, chain) for glob in ((globs,) if isinstance(globs, str) else globs))
    return Preset(key, description, tuple(flat), notes, cap_for)


def codex_session_cap(recorded: OutputCap | None, model: str | None) -> CodexMiddle:
    """The session's recorded `truncation_policy`, else the model family's default.

    Codex models (a slug with `codex`: gpt-5-codex, gpt-5.1-codex-max...) default to
    Tokens(10_000), the GPT-4/5 families to Bytes(10_000) (harness-caps.md: Codex CLI — current).
    """
    if recorded is not None:
        return CodexMiddle(recorded.limit, recorded.unit)
    return CodexMiddle(10_000, "tokens" if model and "codex" in model.lower() else "bytes")


MINI_SWE_WARNING = (
    "<warning>\n"
    "The output of your last command was too long.\n"
    "Please try a different command that produces less output.\n"
    "If you're looking at a file you can try use head, tail or sed to view a smaller number of lines selectively.\n"
    "If you're using grep or find and it produced too much output, you can use a more selective search pattern.\n"
    "If you really need to see something from the full command's output, you can redirect output to a file "
    "and then search in that file.\n"
    "</warning>"
)
SWE_AGENT_NOTE = (
    "<response clipped><NOTE>Observations should not exceeded {limit} characters. {omitted} characters were "
    "elided. Please try a different command that produces less output or use head/tail/grep/redirect the output "
    "to a file. Do not use interactive pagers.</NOTE>"
)

PRESETS: dict[str, Preset] = {p.key: p for p in (
    _preset(
        "codex",
        "Codex CLI (current): the session's recorded truncation_policy, else Bytes(10_000) (GPT-4/5 families) "
        "or Tokens(10_000) (Codex models), 50/50 middle cut on UTF-8 boundaries, `…N chars|tokens truncated…` "
        "(harness-caps.md: Codex CLI — current)",
        {"*": CodexMiddle(10_000, "bytes")},
        "Each session gets the cap its rollout records (turn_context.truncation_policy, the latest before the "
        "call); without one, a model slug containing `codex` gets Tokens(10_000), any other Bytes(10_000). "
        "Marker after the budget: half the budget head + half tail, marker and header on top. Header is "
        "formatted_truncate_text's `Warning: truncated output (original token count: T)\\nTotal output lines: N"
        "\\n\\n` (T = ceil(bytes/4), N = Rust str::lines). Every tool, MCP included; the 1 MiB exec capture "
        "and the x1.2 history allowance are not simulated.",
        codex_session_cap,
    ),
    _preset(
        "codex-tokens",
        "Codex CLI (current, Codex models): Tokens(10_000) = 40,000 bytes at 4 bytes/token, 50/50 middle cut, "
        "`…N tokens truncated…` (harness-caps.md: Codex CLI — current)",
        {"*": CodexMiddle(10_000, "tokens")},
        "Marker after the budget: 20,000 B head + 20,000 B tail; N = ceil((bytes - 40,000) / 4); same header "
        "as codex. Tokens are Codex's bytes/4 estimate, not the scan's tokenizer.",
    ),
    _preset(
        "codex-legacy",
        "Codex CLI legacy (<= v0.5x): 10 KiB (10,240 B) AND 256 lines, 128 head + 128 tail lines, head <= 5,120 B "
        "(harness-caps.md: Codex CLI — legacy)",
        {"*": CodexLegacy()},
        "Marker inside the 10,240-byte budget (head + marker + tail), `Total output lines: N\\n\\n` on top. "
        "`[... omitted k of N lines ...]` when lines were dropped, else `[... output truncated to fit 10240 "
        "bytes ...]`. Multi-item outputs (`[omitted n text items ...]`) are not simulated.",
    ),
    _preset(
        "claude-code",
        "Claude Code: Bash 30,000 chars middle cut; Read 2,000 lines + 25,000-token refusal; Grep 250 lines, "
        "matches over 500 columns omitted; MCP 25,000-token refusal (harness-caps.md: Claude Code rows)",
        {
            SHELL: HeadTail(max_chars=30_000, head_ratio=0.5,
                              marker="\n\n... [{omitted} characters truncated] ...\n\n"),
            READ: Chain.of(LineClip(2000, suffix=""), HeadTail(head_lines=2000, marker=""),
                           Refusal(25_000, CLAUDE_READ_MESSAGE)),
            SEARCH: Chain.of(SearchPreview(500, replacement="[Omitted long matching line]"),
                             HeadTail(head_lines=250, marker="")),
            "mcp__*": Refusal(25_000, CLAUDE_MCP_MESSAGE),
            "*": Chain(),
        },
        "Closed source: Bash keeps 15,000 + 15,000 chars with the marker on top (as public copies of its "
        "output limits do). Read: first 2,000 lines, lines over 2,000 chars cut, no marker (none is documented), "
        "then the whole result refused over 25,000 tokens, counted with the scan's tokenizer. Grep: match and "
        "context content over 500 chars (ripgrep counts bytes) replaced, then head_limit 250 lines, no marker. "
        "mcp__* tools: refused over 25,000 tokens with Claude Code's MCP error. Other tools unchanged (oversize "
        "results persisted to disk with a 2 KB preview are not simulated).",
    ),
    _preset(
        "gemini-cli",
        "Gemini CLI: 40,000 chars, 20% head / 80% tail, `Output too large. Showing first 8,000 and last 32,000 "
        "characters…` (harness-caps.md: Gemini CLI — shell & single-text MCP outputs)",
        {"*": HeadTail(
            max_chars=40_000, head_ratio=0.2,
            header="Output too large. Showing first {head:,} and last {tail:,} characters. "
                   "For full output see: <file>\n",
            marker="\n\n... [{omitted:,} characters omitted] ...\n\n")},
        "Marker after the budget: 8,000 + 32,000 chars, the notice and marker on top; numbers with thousands "
        "separators (toLocaleString); <file> stands for the saved file's path. Applied to every tool (Gemini "
        "applies it to shell and MCP outputs; read_file's 2,000-line paging and the dynamic "
        "min(threshold, 4 x remaining tokens) budget are not simulated).",
    ),
    _preset(
        "openhands",
        "OpenHands (V0): every observation at 30,000 chars, 50/50 middle cut, "
        "`[... Observation truncated due to length ...]` (harness-caps.md: OpenHands (V0))",
        {"*": HeadTail(max_chars=30_000, head_ratio=0.5,
                         marker="\n[... Observation truncated due to length ...]\n")},
        "Marker after the budget: 15,000 + 15,000 chars. Condensers (observation masking, summaries) are not "
        "simulated.",
    ),
    _preset(
        "swe-agent",
        "SWE-agent (default template): max_observation_length 100,000 chars, head only, `<response clipped>"
        "<NOTE>…` (harness-caps.md: SWE-agent)",
        {"*": HeadTail(max_chars=100_000, head_ratio=1.0, marker=SWE_AGENT_NOTE)},
        "Marker after the budget: the first 100,000 chars, then the note ({omitted} = chars - 100,000). The "
        "`Observation: ` prefix is on every observation, cut or not, so it is left out; last_n_observations is "
        "not simulated.",
    ),
    _preset(
        "swe-agent-bash-only",
        "SWE-agent bash_only.yaml: 10,000 chars, 5,000 head + 5,000 tail in <observation_head>/<elided_chars>/"
        "<observation_tail> (harness-caps.md: SWE-agent bash_only.yaml)",
        {"*": HeadTail(
            max_chars=10_000, head_ratio=0.5,
            header=MINI_SWE_WARNING + "\n\n<observation_head>\n",
            marker="\n</observation_head>\n\n<elided_chars>\n{omitted} characters elided\n</elided_chars>\n\n"
                   "<observation_tail>\n",
            footer="\n</observation_tail>")},
        "Marker after the budget. harness-caps.md abridges the warning; its full text and the blank lines "
        "between blocks follow bash_only.yaml's template as quoted in public copies (the same warning as "
        "mini-swe-agent's).",
    ),
    _preset(
        "mini-swe-agent",
        "mini-swe-agent: outputs of 10,000 chars or more become the first 5,000 + last 5,000 in <warning>"
        "<output_head><elided_chars><output_tail> (harness-caps.md: mini-swe-agent)",
        {"*": HeadTail(
            max_chars=10_000, head_ratio=0.5, cut_at_limit=True,
            header=MINI_SWE_WARNING + "<output_head>\n",
            marker="\n</output_head>\n<elided_chars>\n{omitted} characters elided\n</elided_chars>\n<output_tail>\n",
            footer="\n</output_tail>")},
        "Marker after the budget. The template's test is `length < 10000`, so exactly 10,000 chars is cut "
        "(0 elided). Layout copied from a rendered swebench.yaml observation in the corpus; the <returncode> "
        "line and the <output> wrapper of short outputs are on every observation and left out.",
    ),
    _preset(
        "opencode",
        "OpenCode: 2,000 lines / 50 KiB (51,200 B), whichever is hit first, whole lines from the head, saved-"
        "file hint (harness-caps.md: OpenCode)",
        {"*": OpenCodeCut(2000, 51_200)},
        "Marker and hint after the budget: `...N lines|bytes truncated...` and OpenCode's hint without the "
        "task tool, <file> standing for the saved output's path. Grep's 100-match limit is not simulated.",
    ),
    _preset(
        "roo",
        "Roo Code terminal: 50,000 chars (20/80, `[...N characters omitted...]`) taking precedence over 500 "
        "lines (20/80, `[...N lines omitted...]`) (harness-caps.md: Roo Code)",
        {
            SHELL: FirstOf((
                HeadTail(max_chars=50_000, head_ratio=0.2, marker="\n[...{omitted} characters omitted...]\n"),
                HeadTail(max_lines=500, head_ratio=0.2, count_empty_last_line=True,
                           marker="\n[...{omitted} lines omitted...]\n\n"),
            )),
            "*": Chain(),
        },
        "Markers after the budget: 10,000 + 40,000 chars, or 100 + 400 lines (a final newline counts as one "
        "more, empty line, as Roo counts). Only command output is capped; read_file's own paging and the "
        "run-length encoding of repeated lines are not simulated.",
    ),
)}


def get_preset(name: str) -> Preset:
    """The preset named `name`, or a UsageError naming the closest one."""
    try:
        return PRESETS[name]
    except KeyError:
        raise UsageError(
            f"unknown preset {name!r}{did_you_mean(name, PRESETS)}; see `toolaudit list policies`",
            slug="unknown-preset",
        ) from None

