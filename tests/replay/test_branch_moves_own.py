"""A branch change the session's own `git checkout -b` made leaves its later calls compared, end to end.

Written by us in the shape of Esdeveniments/esdeveniments-frontend's checkpoint 16/5ffd8c340f16 (Claude Code 2.1.221;
it states no licence, nothing of it is copied): the text line of the response holding `git checkout -b feat/x` is
stamped with the new branch half a second before the command's own call."""

from __future__ import annotations

import json

from conftest import committed_repo

import toolaudit

CWD = "/home/u/site"


def _line(kind: str, ts: str, branch: str, content: list, extra: dict | None = None) -> dict:
    message = {"role": kind, "content": content, **({"model": "claude-opus-4-6", "id": f"msg_{ts}",
                                                      "type": "message"} if kind == "assistant" else {})}
    return {"type": kind, "message": message, "uuid": f"u-{ts}", "timestamp": ts, "cwd": CWD, "sessionId": "s-1",
            "version": "2.1.91", "gitBranch": branch, **(extra or {})}


def _call(tool: str, args: dict, result: str, ts: str, done: str, branch: str, n: int) -> list[dict]:
    return [_line("assistant", ts, branch, [{"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": args}]),
            _line("user", done, branch, [{"tool_use_id": f"toolu_{n}", "type": "tool_result", "content": result}])]


def _session(path, command: str) -> str:
    glob = {"pattern": "src/*.ts"}
    lines = [*_call("Glob", glob, "src/a.ts", "2026-08-04T08:07:40.000Z", "2026-08-04T08:07:40.100Z", "develop", 1),
             _line("assistant", "2026-08-04T08:07:49.270Z", "feat/x", [{"type": "text", "text": "A branch first."}]),
             *_call("Bash", {"command": command}, "Switched to a new branch 'feat/x'", "2026-08-04T08:07:49.767Z",
                    "2026-08-04T08:07:49.900Z", "feat/x", 2),
             *_call("Glob", glob, "src/a.ts", "2026-08-04T08:08:00.000Z", "2026-08-04T08:08:00.100Z", "feat/x", 3)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _globs_replayed(tmp_path, command: str) -> int:
    repo = tmp_path / "repo"
    committed_repo(repo, {"src/a.ts": "export const a = 1;\n"})
    result = toolaudit.replay([_session(tmp_path / "s.jsonl", command)], workspace=str(repo), identity=True)
    return next(row.replayed for row in result.identity.tools if row.tool == "Glob")


def test_the_glob_after_the_sessions_own_checkout_is_compared(tmp_path):
    assert _globs_replayed(tmp_path, "git checkout -b feat/x") == 2


def test_the_glob_after_a_branch_change_no_command_made_is_not(tmp_path):
    assert _globs_replayed(tmp_path, "git status") == 1
