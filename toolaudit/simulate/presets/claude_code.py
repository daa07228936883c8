"""Claude Code's caps, one preset per range of versions whose caps differ.

Read in the npm package's `cli.js`: 2.0.64 - 2.1.42 for replay's emulation of Read, Grep, Glob
and Bash (replay/agents/claude_code, the versions it lists), and for each gate below the
versions on both sides of it (2.0.70/2.0.71, 2.1.70/2.1.71, 2.1.78/2.1.79, 2.1.83/2.1.84) and
2.1.112, the newest read. None of these versions has a default line count or a per-line clip
in Read (the tool description's "2000 lines" is the @-mention's), nor a default head_limit in
Grep before 2.1.84. Gates (the first version with the behaviour):

- 2.0.71: an MCP result over 25,000 tokens is saved to a file and replaced by an error naming
  it (before: cut to 100,000 chars with `[OUTPUT TRUNCATED - exceeded 25000 token limit]`);
- 2.1.2: outputs over a tool's size become a <persisted-output> preview (Bash 30,000 chars,
  Grep 20,000, the others 400,000); before, Bash kept its first 30,000 chars and Grep its first
  20,000 with `... [N lines truncated] ...`;
- 2.1.6: the size is the tool's maxResultSizeChars (Read 100,000, Glob 100,000);
- 2.1.71: Read's errors and the MCP error reworded ("Use offset and limit parameters…");
- 2.1.79: Read's maxResultSizeChars is Infinity: a Read result is never persisted;
- 2.1.84: Grep's head_limit defaults to 250 entries, with `[Showing results with pagination = limit: 250]`.
"""

from __future__ import annotations

from ...scan.families import SHELL
from ..policies import Chain, SearchPreview
from ..policies.claude_code import (
    MCP_SAVED,
    MCP_SAVED_OLD,
    READ_HINT,
    READ_HINT_OLD,
    ClaudeBash,
    ClaudeGlob,
    ClaudeGrepCut,
    ClaudeHeadLimit,
    ClaudeMcp,
    ClaudePersisted,
    ClaudeRead,
)
from .base import GLOB, READ, SEARCH, Preset, Versioned, preset

COMMON_NOTES = (
    "Lengths in UTF-16 code units, as Claude Code counted. Bash: a failure (`Exit code N` first) over "
    "10,000 chars keeps 5,000 at each end with `... [N characters truncated] ...` (every version). Read: "
    "the file text (line numbers and the malware reminder taken off) over 256 KB, or over 25,000 tokens "
    "(counted with the scan's tokenizer where Claude Code asked its API), is refused with Claude Code's "
    "error. Grep: ripgrep's --max-columns 500 replaces a longer matching line by `[Omitted long matching "
    "line]` (counted in chars: ripgrep counts bytes). Glob: 100 paths, then `(Results are truncated. …)`. "
    "MCP (mcp__*, not mcp__ide__*): over 25,000 tokens. `<file>` stands for a saved file's path. Not "
    "simulated: other tools' persistence (WebFetch…), images, the JSON format name of MCP results (all "
    "are `Plain text`)."
)


def _range(first: tuple[int, ...], label: str, what: str, **caps) -> tuple[tuple[int, ...], Preset]:
    """One range's preset from its caps: bash_persist, grep_cut, read_persist, glob_persist, read_hint,
    mcp_saved, head_limit (see _range's callers)."""
    grep = [SearchPreview(500, replacement="[Omitted long matching line]")]
    grep += [ClaudeHeadLimit(250)] if caps.get("head_limit") else []
    grep += [ClaudeGrepCut(20_000) if caps["grep_cut"] else ClaudePersisted(20_000)]
    glob = [ClaudeGlob(100)] + ([ClaudePersisted(caps["glob_persist"])] if caps["glob_persist"] else [])
    rules = {
        SHELL: ClaudeBash(persist=caps["bash_persist"]),
        READ: ClaudeRead(persist=caps["read_persist"], hint=caps["read_hint"]),
        SEARCH: Chain.of(*grep),
        GLOB: Chain.of(*glob),
        "mcp__ide__*": Chain(),
        "mcp__*": ClaudeMcp(saved=caps["mcp_saved"]),
        "*": Chain(),
    }
    key = f"claude-code@{label}"
    return first, preset(key, f"Claude Code {label}: {what} (cli.js of these versions)", rules, COMMON_NOTES,
                         versions=label)


OLD_SIZE = 400_000  # 2.1.2 - 2.1.5: the persistence size of every tool but Bash and Grep

CLAUDE_CODE = Versioned(
    "claude-code", "claude-code",
    "Claude Code: Bash 30,000 chars, Grep 20,000 chars (cut, then persisted from 2.1.2; 250 entries from "
    "2.1.84), Read refused over 25,000 tokens (persisted over 100,000 chars 2.1.6-2.1.78), Glob 100 paths, "
    "MCP over 25,000 tokens (docs/caps.md: Claude Code rows; cli.js per version)",
    (
        _range((2, 0, 64), "2.0.64-2.0.70",
               "Bash head 30,000 + `... [N lines truncated] ...`; Grep head 20,000 likewise; Read refused over "
               "25,000 tokens; Glob 100; MCP cut to 100,000 chars + `[OUTPUT TRUNCATED …]`",
               bash_persist=False, grep_cut=True, read_persist=None, glob_persist=None, read_hint=READ_HINT_OLD,
               mcp_saved=None),
        _range((2, 0, 71), "2.0.71-2.1.1",
               "Bash head 30,000 + `... [N lines truncated] ...`; Grep head 20,000 likewise; Read refused over "
               "25,000 tokens; Glob 100; MCP over 25,000 tokens saved to a file",
               bash_persist=False, grep_cut=True, read_persist=None, glob_persist=None, read_hint=READ_HINT_OLD,
               mcp_saved=MCP_SAVED_OLD),
        _range((2, 1, 2), "2.1.2-2.1.5",
               "<persisted-output> over Bash 30,000 / Grep 20,000 / Read and Glob 400,000 chars; Read refused "
               "over 25,000 tokens; Glob 100; MCP saved to a file",
               bash_persist=True, grep_cut=False, read_persist=OLD_SIZE, glob_persist=OLD_SIZE,
               read_hint=READ_HINT_OLD, mcp_saved=MCP_SAVED_OLD),
        _range((2, 1, 6), "2.1.6-2.1.70",
               "<persisted-output> over Bash 30,000 / Grep 20,000 / Read and Glob 100,000 chars; Read refused "
               "over 25,000 tokens; Glob 100; MCP saved to a file",
               bash_persist=True, grep_cut=False, read_persist=100_000, glob_persist=100_000,
               read_hint=READ_HINT_OLD, mcp_saved=MCP_SAVED_OLD),
        _range((2, 1, 71), "2.1.71-2.1.78",
               "as 2.1.6-2.1.70, Read's and MCP's errors reworded",
               bash_persist=True, grep_cut=False, read_persist=100_000, glob_persist=100_000,
               read_hint=READ_HINT, mcp_saved=MCP_SAVED),
        _range((2, 1, 79), "2.1.79-2.1.83",
               "<persisted-output> over Bash 30,000 / Grep 20,000 / Glob 100,000 chars, Read never; Read "
               "refused over 25,000 tokens; Glob 100; MCP saved to a file",
               bash_persist=True, grep_cut=False, read_persist=None, glob_persist=100_000,
               read_hint=READ_HINT, mcp_saved=MCP_SAVED),
        _range((2, 1, 84), "2.1.84+",
               "as 2.1.79-2.1.83, and Grep's head_limit 250 by default (read up to 2.1.112)",
               bash_persist=True, grep_cut=False, read_persist=None, glob_persist=100_000,
               read_hint=READ_HINT, mcp_saved=MCP_SAVED, head_limit=True),
    ),
    COMMON_NOTES + " Versions before 2.0.64 get the oldest range and versions after 2.1.112 the newest: "
    "neither was read.",
)
