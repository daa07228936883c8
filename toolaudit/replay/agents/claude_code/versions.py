"""Which Claude Code version printed what: the version gates of Read, Grep and Glob, and Windows paths.

Each gate is the first version with the behaviour; the version before it was read too (the npm package's
`cli.js` up to 2.1.112, the `@anthropic-ai/claude-code-linux-x64` binary's embedded JavaScript after, where the
package ships no `cli.js`). docs/replay.md ("Versions") lists where each one is in the code.
"""

from __future__ import annotations

from ...winpath import is_windows, posix_form, windows_form  # noqa: F401  (the emulations' names)

OLDEST = (2, 0, 64)  # the oldest version whose code and recordings were read; older ones replay as it
NEWEST = (2, 1, 332)  # the newest version read; a newer one replays as it, flagged in the report
VERSIONS = "2.0.64 - 2.1.332"

# every tool
SEMANTIC_INPUTS = (2, 1, 79)  # a number or boolean argument written as a string is read as one (zod preprocess)
# persistence of a large output (a <persisted-output> preview)
PERSIST_CAP = (2, 1, 51)  # the size is min(the tool's maxResultSizeChars, 50,000): Read and Glob 50,000 (2.1.50: 1e5)
PERSIST_CAP_CHARS = 50000
READ_UNBOUNDED = (2, 1, 79)  # Read's maxResultSizeChars is Infinity: a Read is never persisted (2.1.78: 1e5)
# Read
NEW_HINT = (2, 1, 72)  # the size and token errors end "Use offset and limit parameters … the whole file."
CWD_NOTE = (2, 1, 48)  # a missing file: "File does not exist. Note: your current working directory is X."
TAB_PREFIX = (2, 1, 86)  # `N\t` line prefixes (tengu_compact_line_prefix_killswitch off), not `%6d→`
FILE_UNCHANGED = (2, 1, 86)  # a Read of what an earlier Read showed, unchanged: a one-line stub
REMINDER_ALLOWLIST = (2, 1, 92)  # the malware reminder only for the older models of REMINDER_MODELS
NO_REMINDER = (2, 1, 126)  # no malware reminder at all
BLANK_WINDOW = (2, 1, 210)  # a blank window of a longer file prints `N\t`, not the shorter-than-offset warning
PARTIAL_VIEW = (2, 1, 162)  # a file over the token cap may be cut to a "[Truncated: PARTIAL view" page (not emulated)
# Glob
GLOB_RELATIVE = (2, 1, 84)  # paths shortened as Grep's: relative to the working folder unless that starts with `..`
GLOB_SHOWING = (2, 1, 191)  # a cut list ends "(Showing N of T matching files; R more are not listed. …)"
# Grep and Glob
RG_USAGE_ERROR = (2, 1, 208)  # ripgrep's exit 2 on a bad pattern, glob or type, with no result: the error thrown
RG_USAGE = (r"^rg: (?:regex parse error|error parsing glob|unrecognized file type|error parsing flag|"
            r"compiled regex exceeds size limit)")
RG_USAGE_TEXT = "Search failed \u2014 ripgrep rejected the pattern, glob, or file type without searching:\n"
# Grep
GREP_DEFAULT_HEAD = (2, 1, 84)  # head_limit 250 when unspecified (0: unlimited); pagination noted only when it cut
MORE_VCS = (2, 1, 86)  # .jj and .sl excluded beside .git, .svn, .hg, .bzr
GREP_ONLY_MATCHING = (2, 1, 141)  # the `-o` argument (content mode: rg -o)
GREP_COUNT_H = (2, 1, 140)  # count mode runs `rg -c -H`: a single file's count is `path:N`, not `N`
GREP_TOTALS = (2, 1, 210)  # count totals every count, not the page; an offset past the results says so

REMINDER_MODELS = frozenset({  # REMINDER_ALLOWLIST on: the models the reminder is still appended for
    "claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5-sonnet", "claude-3-5-haiku",
    "claude-3-7-sonnet", "claude-sonnet-4", "claude-sonnet-4-0", "claude-sonnet-4-5", "claude-opus-4",
    "claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-haiku-4-5"})
NEW_TOO_BIG_HINT = ("Use offset and limit parameters to read specific portions of the file, or search for specific "
                    "content instead of reading the whole file.")
SEEDED_STUB = "<system-reminder>This file is already in your context"  # 2.1.200 on, a file the context holds
UNCHANGED_STUBS = (
    "File unchanged since last read. The content from the earlier Read tool_result in this conversation is still "
    "current \u2014 refer to that instead of re-reading.",
    "Wasted call \u2014 file unchanged since your last Read. Refer to that earlier tool_result instead.",
)


def is_unchanged_stub(text: str) -> bool:
    """Whether a recorded Read output is one of the stubs an unchanged re-read printed (FILE_UNCHANGED on)."""
    return text in UNCHANGED_STUBS or text.startswith(SEEDED_STUB)
