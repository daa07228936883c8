"""`sort` in a read-only shell command: plain, -r, -u, bytes' order; a cut after it is not replayable (its order is
the recording machine's locale's). The commands are cut from inspi-writer001/gildore-arena's committed Codex 0.130
rollout (`find app -maxdepth 3 -type f | sort`) and entireio/skills' Codex 0.125 rollout (`rg --files plugins/entire
| sort`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolaudit.replay.agents.codex_reads import reads
from toolaudit.replay.agents.shell_readonly import Workspace, run_script
from toolaudit.replay.agents.shell_words import NotReplayable
from toolaudit.replay.base import Sandbox

FILES = ("app/page.tsx", "app/arena/page.tsx", "app/api/pyth/route.ts", "app/B.tsx", "app/a-b.ts", "app/a_b.ts")


def _run(tmp_path: Path, script: str):
    for name in FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    return run_script(Workspace(tmp_path, "/home/inspiration-gx/gildore-arena"), Sandbox(tmp_path), script)


def test_a_walk_sorted_prints_its_lines_in_bytes_order(tmp_path):
    got = _run(tmp_path, "find app -maxdepth 3 -type f | sort")
    assert got.code == 0 and got.out.decode().splitlines() == sorted(FILES)
    assert _run(tmp_path, "find app -type f | sort -ru").out.decode().splitlines() == sorted(FILES, reverse=True)


@pytest.mark.parametrize(("script", "why"), [
    ("find app -type f | sort | head -2", "head cut find's output"),
    ("cat app/page.tsx app/B.tsx | sort | tail -1", "tail cut sort's output"),
    ("sort -o sorted.txt app/page.tsx", "unsupported sort option -o"),
    ("find app -type f | sort -t/ -k2", "unsupported sort option -t"),
])
def test_what_is_not_replayed(tmp_path, script, why):
    with pytest.raises(NotReplayable, match=why):
        _run(tmp_path, script)


def test_sort_reads_its_files():
    assert reads("sort notes.md", "/w") == ["/w/notes.md"]
    assert reads("find app -type f | sort", "/w") == ["/w/app"]
