"""Entire's own folder (.entire/) is left out of the start state's doubt, as the agents' own folders are."""

from __future__ import annotations

import json

from toolaudit.model import ToolCall
from toolaudit.replay.start_state import read

CWD = "/Users/alisha/Projects/agent-plugins"
# cut from entireio/skills, entire/checkpoints/v1 6c/fb81c05ca9 (Codex 0.118.0): the recorder's own log is listed
STATUS = ("Command: /bin/zsh -lc 'git status --short'\nChunk ID: f11ee0\nWall time: 0.0000 seconds\n"
          "Process exited with code 0\nOriginal token count: 19\nOutput:\n M .entire/logs/entire.log\n M README.md\n"
          "?? plugins/entire/skills/search/\n")


def test_entire_s_log_listed_by_git_status_is_not_work_the_session_started_on():
    call = ToolCall("s.jsonl", 1, "codex", "s", "exec_command", STATUS, "c1",
                    args=json.dumps({"cmd": "git status --short"}))
    assert read([call], CWD).changed == ("README.md", "plugins/entire/skills/search/")


def test_entire_s_settings_are_the_users_work():
    """entireio/entire-graph's Codex 0.135 sessions changed the committed .entire/settings.json: their `git diff`
    shows it, and it is taken like any file."""
    status = "Chunk ID: 1\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\n" \
             " M .entire/settings.json\n M .entire/logs/entire.log\n"
    call = ToolCall("s.jsonl", 1, "codex", "s", "exec_command", status, "c1", args=json.dumps({"cmd": "git status -s"}))
    assert read([call], CWD).changed == (".entire/settings.json",)
