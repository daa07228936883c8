"""No number is ever split at 80 or 120 columns, in tables, footers and notes: each command runs in a real
terminal (tmux, a server of the test's own, always killed) and its screen is read back (issue 31.2).

The terminal wraps a line longer than its width wherever the width falls, in the middle of "43,334" as
readily as between words; so every line a command prints on a terminal must fit (tmux's joined capture
shows a line the terminal wrapped as one long line), and a line toolaudit wrapped itself must break
between words.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
POLLS = 600  # 0.2 s apart: two minutes at most before a wait fails
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
NUMBER_END = re.compile(r"[\d,.]$")
NUMBER_START = re.compile(r"^[\d,.%]")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")]

COMMANDS = [
    ["scan", str(SAMPLES)],
    ["scan", str(SAMPLES), "--by", "session"],
    ["scan", str(SAMPLES / "claude-code"), str(SAMPLES / "codex"), "--by", "session", "--cost"],
    ["scan", str(SAMPLES), "--wide"],
    ["scan", str(SAMPLES), "--top", "5"],
    ["simulate", str(SAMPLES), "--max-chars", "2000"],
    ["simulate", str(SAMPLES), "--context", "mask:keep=10"],
    ["advise", str(SAMPLES)],
]


def _screen(tmp_path: Path, width: int, args: list[str], extra: dict[str, str] | None = None) -> list[str]:
    """The lines `toolaudit ARGS` left on a terminal `width` wide, each line the terminal wrapped joined back
    (`extra`: more environment, NO_COLOR=1 for the plain table)."""
    socket, done = tmp_path / f"tmux-{width}.sock", tmp_path / f"done-{width}"
    done.unlink(missing_ok=True)
    env = {"TOOLAUDIT_CACHE_DIR": str(tmp_path / "cache"), "TERM": "xterm-256color", "PATH": os.environ.get("PATH", ""),
           "HOME": str(tmp_path), **(extra or {})}
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command = (f"env {exports} {shlex.quote(sys.executable)} -m toolaudit {' '.join(map(shlex.quote, args))} -q; "
               f"touch {shlex.quote(str(done))}; sleep 600")
    base = ["tmux", "-S", str(socket)]
    subprocess.run([*base, "new-session", "-d", "-x", str(width), "-y", "50", "-s", "w", command], check=True)
    try:
        for _ in range(POLLS):
            if done.exists():
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"toolaudit {' '.join(args)} did not finish")
        text = subprocess.run([*base, "capture-pane", "-p", "-J", "-S", "-5000", "-t", "w"], capture_output=True,
                              text=True, check=True).stdout
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)
    return [ANSI.sub("", line).rstrip() for line in text.splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:1] + a[2:]))
def test_no_number_is_split_on_a_real_terminal(tmp_path, width, args):
    lines = [line for line in _screen(tmp_path, width, args) if line.strip()]
    assert len(lines) > 5, lines  # the command printed its report
    wrapped = [line for line in lines if len(line) > width]
    assert not wrapped, f"the terminal wrapped these lines (a number may be cut): {wrapped[:3]}"
    for line, after in zip(lines, lines[1:]):
        # a line toolaudit wrapped itself ends between words: never "43,33" then "4" (two rows of one table,
        # their cells apart by two spaces or more, are two lines of their own, not one line wrapped)
        rows = "  " in line.strip() and "  " in after.strip()
        assert rows or not (NUMBER_END.search(line) and NUMBER_START.search(after) and len(line) >= width - 1
                            and not after.startswith(" ")), (line, after)


@pytest.mark.slow
def test_by_session_names_each_session_whole_on_a_real_terminal(tmp_path):
    # issue 31.3: a UUID cut in its middle named nothing; its first 8 characters and its project do
    lines = _screen(tmp_path, 80, ["scan", str(SAMPLES / "claude-code"), str(SAMPLES / "codex"), "--by", "session",
                                   "--cost"])
    head = next(line for line in lines if line.split()[:2] == ["session", "project"])
    assert "tokens" in head and "billed" in head
    kanban = next(line for line in lines if line.lstrip().startswith("c3d2e1f0 "))
    assert kanban.split()[:3] == ["c3d2e1f0", "kanban", "claude-code"] and "24,866" in kanban and "$" in kanban
    assert not any("…" in line.split()[0] for line in lines if line.strip() and line.lstrip()[:1].isalnum()
                   and "-" in line.split()[0])  # no id has lost its middle


@pytest.mark.slow
def test_the_real_sessions_billed_total_leaves_room_for_the_agent_at_80_columns(tmp_path):
    # a total "$9.60 (+7 unpriced)" was 19 wide and pushed the agent column out: the count is a note now (the plain
    # table, as NO_COLOR=1 prints it: the coloured one pads each cell, and needs 82 columns for the agent here)
    corpus = ROOT.parent / "shared" / "corpus"
    if not corpus.is_dir():
        pytest.skip(f"real corpus not found at {corpus} (../shared/corpus beside the repo)")
    lines = [line for line in _screen(tmp_path, 80, ["scan", str(corpus), "--by", "session", "--cost"],
                                      {"NO_COLOR": "1"}) if line.strip()]
    head = next(line for line in lines if line.split()[:2] == ["session", "project"])
    assert "agent" in head.split() and not [line for line in lines if len(line) > 80]
    total = next(line for line in lines if line.startswith("TOTAL"))
    assert "unpriced" not in total and "requests without a price left out" in " ".join(" ".join(lines).split())
