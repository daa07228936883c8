"""The shell's printf as Codex's commands use it between the parts of a chained command (entireio/git-sync's 0.139
sessions: `printf '\\n--- tests ---\\n'`; agentv's: `printf '%s\\n' …`), checked against bash's own printf."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from toolaudit.replay.agents.shell_printf import printf
from toolaudit.replay.agents.shell_words import NotReplayable

CASES = [["\\n--- tests ---\\n"], ["%s\\n", "a", "b"], ["%s ", "x"], ["%6d\\t%s\\n", "5", "ab"], ["%-4s|%3d\\n", "ab", "7"],
         ["100%%\\n"], ["a\\tb\\\\n"], [""], ["%s-%s\\n", "1", "2", "3"]]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is needed to compare with")
@pytest.mark.parametrize("args", CASES)
def test_printf_prints_what_bash_prints(args: list[str]) -> None:
    expected = subprocess.run(["bash", "-c", 'printf "$@"', "bash", *args], capture_output=True, check=True).stdout
    assert printf(args) == expected


@pytest.mark.parametrize("args", [["-v", "x", "%s", "a"], ["%b", "a"], ["%.2f", "1"], ["%d", "x"], []])
def test_other_forms_are_not_replayable(args: list[str]) -> None:
    with pytest.raises(NotReplayable):
        printf(args)
