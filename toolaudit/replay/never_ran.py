"""Calls that never ran: the agent answered them itself (a sibling call's error, permission denied, the user
rejected or cancelled it, a hook blocked it, the program the tool runs could not start). Their recording stands;
replaying them would report a change the tool never made ("fixed errors"), so they are never replayed. Read from
the recorded result's text.
"""

from __future__ import annotations

import re

from ..model import ToolCall

# (collector, pattern on the start of the recorded output) -> reason
_PATTERNS: dict[str, list[tuple[re.Pattern, str]]] = {
    "claude-code": [
        # 2.1.69 renamed it (cli.js): `Cancelled: parallel tool call Bash(grep …) errored`
        (re.compile(r"<tool_use_error>(?:Sibling tool call errored|Cancelled: parallel tool call .*?errored)", re.S),
         "never ran: a sibling call's error"),
        (re.compile(r"The user doesn't want to (?:proceed with|take) this"), "never ran: the user rejected it"),
        (re.compile(r"\[Request interrupted by user"), "never ran: cancelled by the user"),
        # a deny rule of the settings (`permissions.deny`: `Read(.entire/metadata/**)`) answers before the tool runs:
        # "File is in a directory that is denied by your permission settings." (gabadi/crap4py's 2.1.186 sessions)
        (re.compile(r"(?:Permission to use \S+ (?:has been|was) denied|Claude requested permissions? to .*? but you "
                    r"haven't granted|Permission for this tool use was denied|denied by your permission settings)",
                    re.S), "never ran: permission denied"),
        (re.compile(r"(?:PreToolUse:\S+ hook|Hook PreToolUse|blocked by (?:a |the )?\S*\s*hook)", re.I),
         "never ran: blocked by a hook"),
        (re.compile(r"<tool_use_error>(?:No such tool available|InputValidationError|Error: No such tool)"),
         "never ran: the call was invalid"),
        # the program the tool runs could not start (Grep and Glob spawn Claude Code's own binary as ripgrep: a
        # binary replaced mid-session by an update answers this for every later call)
        (re.compile(r"^ENOENT: no such file or directory, posix_spawn "), "never ran: its program could not start"),
    ],
    "codex": [
        (re.compile(r"(?:exec command rejected by user|patch rejected by user|command was rejected)", re.I),
         "never ran: the user rejected it"),
        (re.compile(r"^aborted(?: by user)?\b", re.I), "never ran: cancelled by the user"),
        # Codex's Linux sandbox (bubblewrap) failing to start, before the shell runs: the whole output is bwrap's
        # error (`bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted`, openai/codex#19235, #15982)
        (re.compile(r"^(?:[^\n]*\n){0,6}Output:\nbwrap: [^\n]*\s*$"), "never ran: Codex's sandbox could not start"),
        # PowerShell could not start the program (Windows: `Program 'rg.exe' failed to run: Access is denied`,
        # LAF-US/IDAHO-VAULT 0.118)
        (re.compile(r"^(?:[^\n]*\n){0,6}Output:\nProgram '[^'\n]+' failed to run: "),
         "never ran: its program could not start"),
    ],
    "gemini-cli": [
        (re.compile(r"(?:Tool execution (?:for .*? )?(?:denied|was cancelled)|\[Operation Cancelled\]|"
                    r"requires user approval)", re.I), "never ran: not approved or cancelled"),
        (re.compile(r"User (?:cancelled|rejected)", re.I), "never ran: the user rejected it"),
    ],
    "openhands": [
        (re.compile(r"(?:The user rejected|User rejected this action|action was rejected)", re.I),
         "never ran: the user rejected it"),
    ],
}
_PATTERNS["openhands-v1"] = _PATTERNS["openhands"]
HEAD = 600  # the reasons sit at the start of the result
# Codex's own refusal of a command its exec policy or approval reviewer declined, the whole recorded output:
# "`\"C:\\…\\powershell.exe\" -Command '…'` rejected: blocked by policy" (KongJin/JG, Codex 0.118 on Windows;
# codex-rs core's tool router, where the command is quoted whole, so the reason sits at the end)
_DECLINED = re.compile(r"` rejected: [^\n`]+\s*\Z")


def never_ran(call: ToolCall) -> str | None:
    """Why `call` never ran (the agent answered it itself), or None when it ran (or we cannot tell)."""
    if call.collector != "codex" and not call.is_error:  # the agent flags its own answers as errors
        return None
    if call.collector == "codex" and call.output.startswith("`") and _DECLINED.search(call.output[-HEAD:]):
        return "never ran: Codex's policy declined it"
    head = call.output[:HEAD]
    for pattern, reason in _PATTERNS.get(call.collector, ()):
        if pattern.search(head):
            return reason
    return None
