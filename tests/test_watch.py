"""`toolaudit watch` in a real terminal: tmux runs it at 80 columns, the test appends to a session, reads the
pane until the view shows it, and quits with q. Waits poll the pane up to a generous count (no timing
is asserted); the tmux server is the test's own and is always killed."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import SAMPLES
pytestmark = pytest.mark.slow  # make test-all only: watch driven in a real terminal (tmux)

KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban" / "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5.jsonl"
POLLS = 600  # 0.2 s apart: two minutes at most before a wait fails

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")


class Pane:
    """One tmux server (its own socket) running one command in an 80×24 window."""

    def __init__(self, socket: Path, command: str, env: dict):
        self.base = ["tmux", "-S", str(socket)]
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        subprocess.run([*self.base, "new-session", "-d", "-x", "80", "-y", "24", "-s", "w",
                        f"env {exports} {command}; sleep 600"], check=True)

    def text(self) -> str:
        return subprocess.run([*self.base, "capture-pane", "-p", "-t", "w"], capture_output=True, text=True).stdout

    def wait_for(self, found) -> str:
        """The pane's text once `found(text)` holds (polled; fails after POLLS polls)."""
        for _ in range(POLLS):
            text = self.text()
            if found(text):
                return text
            time.sleep(0.2)
        pytest.fail(f"the pane never showed what was awaited:\n{self.text()}")

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", "-t", "w", *keys], check=True)

    def kill(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True)


def _lines(n: int, session: str) -> str:
    """n tool calls (Grep) in toolaudit's own JSONL, with outputs of a known size."""
    return "".join(json.dumps({"session": session, "call_id": f"{session}-{uuid.uuid4().hex[:8]}", "tool": "Grep",
                               "args": {"pattern": "x"}, "output": "match line\n" * 200}) + "\n" for _ in range(n))


@needs_tmux
def test_watch_follows_a_growing_session_and_quits_on_q(tmp_path):
    folder = tmp_path / "projects" / "-home-dev-kanban"
    folder.mkdir(parents=True)
    shutil.copy(KANBAN, folder / "kanban.jsonl")
    live = folder / "live.jsonl"
    live.write_text(_lines(2, "livesession"))
    marker = tmp_path / "exited"
    env = {"TOOLAUDIT_CACHE_DIR": str(tmp_path / "cache"), "TERM": "xterm-256color", "COLUMNS": "80",
           "PATH": os.environ.get("PATH", "")}
    command = (f"{shlex.quote(sys.executable)} -m toolaudit watch {shlex.quote(str(tmp_path / 'projects'))} "
               f"--interval 0.3 --since 1h; touch {shlex.quote(str(marker))}")
    pane = Pane(tmp_path / "tmux.sock", command, env)
    try:
        first = pane.wait_for(lambda t: "livesess" in t and "q quits" in t)
        assert "2 sessions in 1h" in first and "Grep" in first
        assert all(len(line) <= 80 for line in first.splitlines())
        row = next(line for line in first.splitlines() if line.startswith("livesess"))
        assert row.split()[2] == "2"  # calls
        with live.open("a") as fh:  # the session goes on
            fh.write(_lines(3, "livesession"))
        grown = pane.wait_for(lambda t: any(l.startswith("livesess") and l.split()[2] == "5" for l in t.splitlines()))
        assert "Read" in grown  # the kanban session is still listed
        pane.keys("q")
        for _ in range(POLLS):
            if marker.exists():
                break
            time.sleep(0.2)
        assert marker.exists(), pane.text()
    finally:
        pane.kill()


def test_watch_once_prints_one_view(run, tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLAUDIT_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "s.jsonl").write_text(_lines(4, "oncesession"))
    result = run("watch", str(folder), "--once")
    assert result.exit_code == 0
    assert "1 sessions in 2h" in result.output and "oncesess" in result.output and "Grep" in result.output
    old = (folder / "s.jsonl").stat().st_mtime - 3 * 3600
    os.utime(folder / "s.jsonl", (old, old))
    assert "no transcript written in the last 2h" in run("watch", str(folder), "--once").output
    assert run("watch", str(folder), "--since", "soon").exit_code == 2
