"""A recorded code-mode `exec` cell is untrusted input: one replay cannot read (nested past any real cell, an
escape JavaScript itself rejects) is refused as not replayable, never a crash of the whole replay (a
RecursionError, a ValueError out of `chr`). Written by us."""

from __future__ import annotations

import pytest

from toolaudit.replay.agents.codex_cell import UNREAD, commands, parse, patch, shell_script
from toolaudit.replay.agents.shell_words import NotReplayable

DEEP = 5000  # past Python's recursion limit

CELLS = [
    "text(" + "(" * DEEP + "1" + ")" * DEEP + ")",  # parentheses
    "text(" + "!" * DEEP + "1)",  # unary operators
    "text(" + "[" * DEEP + "]" * DEEP + ")",  # arrays
    "text(" + "+".join(["1"] * DEEP) + ")",  # a left-deep chain, read without recursion but evaluated with it
    'text("\\u{110000}")',  # past the last code point: a SyntaxError in JavaScript
    'text("\\u{FFFFFFFFFFFF}")',
]


@pytest.mark.parametrize("code", CELLS, ids=range(len(CELLS)))
def test_a_cell_replay_cannot_read_is_refused_not_a_crash(code: str) -> None:
    with pytest.raises(NotReplayable):
        parse(code)
    assert commands(code) is None and patch(code) is None and shell_script(code) == UNREAD


def test_a_cell_nested_as_real_cells_are_is_read() -> None:
    code = 'const r = await tools.exec_command({cmd: "ls", workdir: "/w"}); text(((r.output + "\\u{1F600}")))'
    assert commands(code) == [("ls", "/w")] and parse(code).body
