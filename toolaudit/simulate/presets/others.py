"""The agents whose caps toolaudit knows in one version: Gemini CLI, OpenHands, SWE-agent, mini-swe-agent,
OpenCode, Roo Code (numbers and markers from docs/caps.md and the sources it cites).

Their transcripts in the corpus record no version, so each preset is one range: the caps the
table documents as current. Gemini CLI's 40,000-char cap is that of PR #18446 (2026-02) on;
earlier releases cut at 4,000,000 chars and 1,000 lines (not a preset: no recording says which).
"""

from __future__ import annotations

from ...scan.families import SHELL
from ..policies import Chain, FirstOf, HeadTail, OpenCodeCut
from .base import Preset, preset

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


OTHERS: tuple[Preset, ...] = (
    preset(
        "gemini-cli",
        "Gemini CLI: 40,000 chars, 20% head / 80% tail, `Output too large. Showing first 8,000 and last 32,000 "
        "characters…` (docs/caps.md: Gemini CLI — shell & single-text MCP outputs)",
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
    preset(
        "openhands",
        "OpenHands (V0): every observation at 30,000 chars, 50/50 middle cut, "
        "`[... Observation truncated due to length ...]` (docs/caps.md: OpenHands (V0))",
        {"*": HeadTail(max_chars=30_000, head_ratio=0.5,
                         marker="\n[... Observation truncated due to length ...]\n")},
        "Marker after the budget: 15,000 + 15,000 chars. Condensers (observation masking, summaries) are not "
        "simulated.",
    ),
    preset(
        "swe-agent",
        "SWE-agent (default template): max_observation_length 100,000 chars, head only, `<response clipped>"
        "<NOTE>…` (docs/caps.md: SWE-agent)",
        {"*": HeadTail(max_chars=100_000, head_ratio=1.0, marker=SWE_AGENT_NOTE)},
        "Marker after the budget: the first 100,000 chars, then the note ({omitted} = chars - 100,000). The "
        "`Observation: ` prefix is on every observation, cut or not, so it is left out; last_n_observations is "
        "not simulated.",
    ),
    preset(
        "swe-agent-bash-only",
        "SWE-agent bash_only.yaml: 10,000 chars, 5,000 head + 5,000 tail in <observation_head>/<elided_chars>/"
        "<observation_tail> (docs/caps.md: SWE-agent bash_only.yaml)",
        {"*": HeadTail(
            max_chars=10_000, head_ratio=0.5,
            header=MINI_SWE_WARNING + "\n\n<observation_head>\n",
            marker="\n</observation_head>\n\n<elided_chars>\n{omitted} characters elided\n</elided_chars>\n\n"
                   "<observation_tail>\n",
            footer="\n</observation_tail>")},
        "Marker after the budget. docs/caps.md's source abridges the warning; its full text and the blank lines "
        "between blocks follow bash_only.yaml's template as quoted in public copies (the same warning as "
        "mini-swe-agent's).",
    ),
    preset(
        "mini-swe-agent",
        "mini-swe-agent: outputs of 10,000 chars or more become the first 5,000 + last 5,000 in <warning>"
        "<output_head><elided_chars><output_tail> (docs/caps.md: mini-swe-agent)",
        {"*": HeadTail(
            max_chars=10_000, head_ratio=0.5, cut_at_limit=True,
            header=MINI_SWE_WARNING + "<output_head>\n",
            marker="\n</output_head>\n<elided_chars>\n{omitted} characters elided\n</elided_chars>\n<output_tail>\n",
            footer="\n</output_tail>")},
        "Marker after the budget. The template's test is `length < 10000`, so exactly 10,000 chars is cut "
        "(0 elided). Layout copied from a rendered swebench.yaml observation in the corpus; the <returncode> "
        "line and the <output> wrapper of short outputs are on every observation and left out.",
    ),
    preset(
        "opencode",
        "OpenCode: 2,000 lines / 50 KiB (51,200 B), whichever is hit first, whole lines from the head, saved-"
        "file hint (docs/caps.md: OpenCode)",
        {"*": OpenCodeCut(2000, 51_200)},
        "Marker and hint after the budget: `...N lines|bytes truncated...` and OpenCode's hint without the "
        "task tool, <file> standing for the saved output's path. Grep's 100-match limit is not simulated.",
    ),
    preset(
        "roo",
        "Roo Code terminal: 50,000 chars (20/80, `[...N characters omitted...]`) taking precedence over 500 "
        "lines (20/80, `[...N lines omitted...]`) (docs/caps.md: Roo Code)",
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
)
