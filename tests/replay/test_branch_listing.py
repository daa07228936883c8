"""A session's own `git diff --stat BASE...HEAD` names its branch's files; when the replay runs on another commit,
they are uncertain. The listing is cut from EntityProcess/agentv's Codex 0.142.4 session
(entire/checkpoints/v1:96/eca76f596a/0, begun on 669232e, a commit its clone lacks)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from toolaudit.model import ToolCall
from toolaudit.replay.branch_listing import doubt_branch, listed
from toolaudit.replay.start_state import printed
from toolaudit.replay.state import SessionState

CWD = "/home/entity/projects/EntityProcess/agentv"
STAT = (" README.md                                          |  16 +-\n"
        " apps/cli/src/commands/eval/run-eval.ts             |   4 +-\n"
        " .../content/docs/docs/evaluation/eval-files.mdx    |   6 +-\n"
        " packages/core/src/evaluation/yaml-parser.ts        |   8 +-\n"
        " 40 files changed, 1543 insertions(+), 98 deletions(-)\n")
OUTPUT = ("Chunk ID: e65362\nWall time: 0.0135 seconds\nProcess exited with code 0\nOriginal token count: 637\nOutput:\n"
          + STAT)


def _call(command: str, output: str, line: int = 1, tool: str = "exec_command") -> ToolCall:
    return ToolCall("s.jsonl", line, "codex", "s", tool, output, f"c{line}", args=json.dumps({"cmd": command}))


def test_the_listings_paths_and_what_is_no_listing():
    assert listed("git diff --stat origin/main...HEAD", STAT) == [
        "README.md", "apps/cli/src/commands/eval/run-eval.ts", ".../content/docs/docs/evaluation/eval-files.mdx",
        "packages/core/src/evaluation/yaml-parser.ts"]
    assert listed("git diff --name-only main..HEAD", "a.py\nb/c.py\n") == ["a.py", "b/c.py"]
    for other in ("git diff --stat", "git diff origin/main...HEAD", "git diff --stat HEAD~1", "git log --stat",
                  "git diff --stat origin/main...HEAD | head"):
        assert listed(other, STAT) is None, other


def test_the_branch_files_are_uncertain_the_rest_stays_certain(tmp_path: Path):
    root = tmp_path / "agentv"
    for rel in ("README.md", "apps/cli/src/commands/eval/run-eval.ts", "docs/a.md",
                "apps/web/src/content/docs/docs/evaluation/eval-files.mdx"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    state = SessionState(root, CWD)
    patch = _call("apply_patch", "Done", 3, tool="apply_patch")
    assert doubt_branch(state, [_call("git diff --stat origin/main...HEAD", OUTPUT, 2), patch], printed) == 4
    assert "on its branch" in state.doubt([f"{CWD}/apps/web/src/content/docs/docs/evaluation/eval-files.mdx"])
    assert "on its branch" in state.doubt([f"{CWD}/README.md"])
    assert state.doubt([f"{CWD}/docs/a.md"]) is None
    later = SessionState(root, CWD)  # a listing after the session's own edit is of its own work too: not read
    assert doubt_branch(later, [_call("ls", "", 1, tool="apply_patch"), _call("git diff --stat a...HEAD", OUTPUT, 2)],
                        printed) == 0
