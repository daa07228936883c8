"""Claude Code's settings for output sizes and compaction (read from its npm package's cli.js, per version)."""

from __future__ import annotations

from math import ceil

from .base import Known, Setting

AGENT = "claude-code"
COLLECTORS = ("claude-code",)
_CLI = "npm @anthropic-ai/claude-code {v}, package/cli.js"

BASH = Known(AGENT, "BASH_MAX_OUTPUT_LENGTH", "environment variable", "chars", "30000 (at most 150000)", "1.0.0",
             _CLI.format(v="2.1.112") + ": Lp(\"BASH_MAX_OUTPUT_LENGTH\",…,B47,m47) with m47=150000,B47=30000",
             "Bash output: the first N chars are kept")
TASK = Known(AGENT, "TASK_MAX_OUTPUT_LENGTH", "environment variable", "chars", "32000 (at most 160000)", "2.0.77",
             _CLI.format(v="2.1.112") + ": Lp(\"TASK_MAX_OUTPUT_LENGTH\",…,A37,Y37) with Y37=160000,A37=32000",
             "background task output (TaskOutput, BashOutput): the last N chars are kept")
MCP = Known(AGENT, "MAX_MCP_OUTPUT_TOKENS", "environment variable", "tokens", "25000", "1.0.30",
            _CLI.format(v="2.1.112") + ": process.env.MAX_MCP_OUTPUT_TOKENS … vZY=25000",
            "MCP tool results: before 2.0.44 an error over the limit, from 2.0.44 cut to it with a notice")
READ = Known(AGENT, "CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS", "environment variable", "tokens", "25000", "2.0.77",
             _CLI.format(v="2.1.112") + ": process.env.CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS … JMz=25000",
             "Read: a file over the limit is refused (the agent then reads it in parts), not cut")
AUTOCOMPACT = Known(AGENT, "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "environment variable", "% of the effective window",
                    "unset (trigger = window − min(max output, 20000) − 13000: 167000 of 200000; before 2.1.21 "
                    "min(max output, 32000): 155000)", "2.0.20",
                    _CLI.format(v="2.1.112") + ": if(!isNaN(A)&&A>0&&A<=100){let O=Math.floor(_*(A/100));"
                    "return Math.min(O,z)}", "auto-compact trigger, as a share of the window less the output "
                    "reserve; it can only lower the default")
WINDOW = Known(AGENT, "autoCompactWindow", "settings.json (or CLAUDE_CODE_AUTO_COMPACT_WINDOW)", "tokens",
               "unset; 100000-1000000", "2.1.89", _CLI.format(v="2.1.112") +
               ": autoCompactWindow:y.number().int().min(1e5).max(1e6).optional()",
               "the window auto-compact counts against (its trigger is 33000 below it)")
KNOWN = (BASH, TASK, MCP, READ, AUTOCOMPACT, WINDOW)
EFFECTIVE_WINDOW = 200_000 - 20_000  # a 200k model less the output reserve (2.1.21 on)


def for_cap(tool: str, chars: int, tokens: int) -> Setting | None:
    """The setting that caps `tool`'s outputs near `chars` (`tokens`), or None."""
    if tool == "Bash":
        return Setting.of(BASH, str(chars), "keeps the head (from 2.1.2 a longer output is saved and previewed)")
    if tool in ("TaskOutput", "BashOutput"):
        return Setting.of(TASK, str(chars), "keeps the tail")
    if tool.startswith("mcp__"):
        return Setting.of(MCP, str(tokens), "applies to every MCP tool")
    if tool == "Read":
        return Setting.of(READ, str(tokens), "a larger file is refused and read in parts, not cut")
    return None


def for_context(policy) -> Setting | None:
    """Compaction maps onto the auto-compact trigger; masking and clearing have no Claude Code setting."""
    if policy.name != "compact":
        return None
    pct = min(100, ceil(100 * policy.at / EFFECTIVE_WINDOW))
    return Setting.of(AUTOCOMPACT, str(pct), f"{pct}% of {EFFECTIVE_WINDOW:,} ≈ {policy.at:,} tokens on a 200k model")


def for_mcp(tokens_per_call: int) -> Setting | None:
    """The MCP output limit, for a server whose calls are this large."""
    return Setting.of(MCP, str(max(1000, tokens_per_call // 2)), "a ceiling; trimming the server's fields is better")
