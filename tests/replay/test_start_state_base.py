"""A recorded `git diff COMMIT` (a review against the commit a branch started from) gives the start text of each
file it shows: the diff applied to that commit's text, not to the checked-out one's; Entire's REDACTED stands for
the text it replaced when a diff's context is matched. Fixture: tests/fixtures/agents/codex/README.md."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

import toolaudit
from toolaudit.model import ToolCall
from toolaudit.replay.agents.codex import without_noise
from toolaudit.replay.start_base import listing
from toolaudit.replay.start_state import apply, read, sections

FIXTURE = Path(__file__).parents[1] / "fixtures" / "agents" / "codex" / "diff-base-0.139.json"
LATER = "// a line a later commit added (the replay's checkout is not the commit the session began on)\n"


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_AUTHOR_DATE": "2026-06-16T17:00:00Z", "GIT_COMMITTER_DATE": "2026-06-16T17:00:00Z",
           "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def _repo(tmp_path: Path, recorded: dict) -> tuple[Path, str, str]:
    """A repository whose first commit holds the files as the recorded base commit did, and a second commit that
    changed one of them again: (folder, base commit, head commit)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for rel, text in recorded["base_files"].items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD")
    with open(repo / "internal/gitproto/ssh_test.go", "a") as fh:
        fh.write(LATER)
    (repo / "internal/gitproto/later.go").write_text("package gitproto\n" + LATER)  # a file the session never had
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "later")
    return repo, base, _git(repo, "rev-parse", "HEAD")


def _rollout(path: Path, recorded: dict, head: str, base: str) -> Path:
    """The fixture's calls as a Codex rollout that began on `head`; the recorded base commit's id is replaced by the
    test repository's."""
    lines = [{"timestamp": recorded["calls"][0]["timestamp"], "type": "session_meta", "payload": {
        "id": "019ed470-d472-7f21-8692-d4d90887a5ae", "timestamp": recorded["calls"][0]["timestamp"],
        "cwd": recorded["cwd"], "originator": "codex_exec", "cli_version": recorded["version"],
        "git": {"commit_hash": head, "branch": "fix/ssh-argument-injection"}}},
        {"timestamp": recorded["calls"][0]["timestamp"], "type": "turn_context",
         "payload": {"cwd": recorded["cwd"], "model": recorded["model"]}}]
    for i, call in enumerate(recorded["calls"]):
        arguments = call["arguments"].replace(recorded["base_commit"], base)
        lines.append({"timestamp": call["timestamp"], "type": "response_item", "payload": {
            "type": "function_call", "name": call["name"], "arguments": arguments, "call_id": f"call_{i}"}})
        lines.append({"timestamp": call["timestamp"], "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"call_{i}", "output": call["output"]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(FIXTURE.read_text())


def test_a_read_after_a_diff_against_the_base_commit_sees_the_base_with_the_diff_applied(tmp_path, recorded):
    repo, base, head = _repo(tmp_path, recorded)
    session = _rollout(tmp_path / "rollout.jsonl", recorded, head, base)
    out = tmp_path / "calls.jsonl"
    result = toolaudit.replay([str(session)], workspace=str(repo), identity=True, calls_out=out)
    assert any("started with the uncommitted work" in note for note in result.notes), result.notes
    diff, sed = [json.loads(line) for line in out.read_text().splitlines()]
    assert sed["replay_status"] == "replayed", sed.get("replay_reason")
    assert without_noise(sed["output"]) == without_noise(recorded["calls"][1]["output"])
    # the whole diff lists every file the session's tree differed in from the base: the file a later commit added
    # is not in the start state (the diff's blob ids are abbreviated to the length each repository's size asks)
    abbreviated = re.compile(r"^index [0-9a-f]+\.\.[0-9a-f]+", re.MULTILINE)
    recorded_diff = recorded["calls"][0]["output"].replace(recorded["base_commit"], base)
    assert "later.go" not in diff["output"]
    body = [abbreviated.sub("index", text.partition("\nOutput:\n")[2]) for text in (diff["output"], recorded_diff)]
    assert body[0] == body[1]


def _exec(command: str, output: str, line: int) -> ToolCall:
    return ToolCall("r.jsonl", line, "codex", "s", "exec_command", output, f"c{line}",
                    args=json.dumps({"cmd": command}))


@pytest.mark.parametrize(("command", "base"), [
    ("git diff 368750cee35f31935640a34ad199e889fc60f1a8", "368750cee35f31935640a34ad199e889fc60f1a8"),
    ("git diff 368750c -- internal/gitproto/ssh.go", "368750c"),
    ("git diff HEAD", None), ("git diff main", None), ("git diff 368750c..HEAD", None), ("git diff HEAD~1", None),
    ("git diff --stat 368750c", None),
])
def test_only_a_diff_of_the_working_tree_against_one_commit_id_takes_that_commit_as_its_base(recorded, command, base):
    output = recorded["calls"][0]["output"]
    if " -- " in command:  # the output of a diff naming one file shows only that file
        output = output[:output.index("diff --git a/internal/gitproto/ssh_test.go")]
    found = read([_exec(command, output, 1)], recorded["cwd"])
    if base is None:
        assert found.bases == {}
    else:
        assert found.bases["internal/gitproto/ssh.go"] == base
        assert found.diffs["internal/gitproto/ssh.go"].startswith("diff --git a/internal/gitproto/ssh.go")


# cut from entireio/git-sync entire/checkpoints/v1:de/15fe82f1f3/8/full.jsonl (Codex 0.139, session
# 019edb4d-2590-7201-b2d8-cabffc75ea4f): the go.sum section of its `git diff 368750c…`, as Entire stored it
GO_SUM = """diff --git a/go.sum b/go.sum
index bc7b5d32..5cd8b7cd 100644
--- a/go.sum
+++ b/go.sum
@@ -1,5 +1,3 @@
 github.com/cpuguy83/go-md2man/v2 v2.0.6/go.mod h1:REDACTED
-github.com/danieljoos/wincred v1.2.3 h1:v7dZC2x32Ut3nEfRH+vhoZGvN72+dQ/snVXo/vMFLdQ=
-github.com/danieljoos/wincred v1.2.3/go.mod h1:REDACTED
 github.com/davecgh/go-spew v1.1.0/go.mod h1:J7Y8YcW2NihsgmVo/mv3lAwl/skON4iLHjSsI+c5H38=
 github.com/davecgh/go-spew v1.1.1 h1:vj9j/REDACTED
"""
GO_SUM_BASE = """github.com/cpuguy83/go-md2man/v2 v2.0.6/go.mod h1:Oo+Fo2b6obzxNx9xmQfrmyHNGxdVplHCEJBdEkTDu3Y=
github.com/danieljoos/wincred v1.2.3 h1:v7dZC2x32Ut3nEfRH+vhoZGvN72+dQ/snVXo/vMFLdQ=
github.com/danieljoos/wincred v1.2.3/go.mod h1:6qqX0WNrS4RzPZ1tnroDzq9kY3fu1KwE7MRLQK4X0bs=
github.com/davecgh/go-spew v1.1.0/go.mod h1:J7Y8YcW2NihsgmVo/mv3lAwl/skON4iLHjSsI+c5H38=
github.com/davecgh/go-spew v1.1.1 h1:vj9j/u1bqnvCEfJOwUhtlOARqs3+rkHYY13jYWTU97c=
"""


def test_a_redacted_context_line_matches_the_base_line_it_stands_for():
    section = sections(GO_SUM)["go.sum"]
    lines = GO_SUM_BASE.splitlines(keepends=True)
    assert apply(section, GO_SUM_BASE) == lines[0] + lines[3] + lines[4]
    assert apply(section, GO_SUM_BASE.replace("h1:vj9j/u1", "h1:XXXX/u1")) is None  # the visible part must match
    added = GO_SUM.replace("+", "").replace(" github.com/davecgh/go-spew v1.1.1 h1:vj9j/REDACTED",
                                            "+github.com/x v1 h1:REDACTED")
    assert apply(sections(added)["go.sum"], GO_SUM_BASE) is None  # an added line's hidden text is nowhere to read


# cut from entireio/git-sync entire/checkpoints/v1:de/15fe82f1f3/8/full.jsonl (Codex 0.139, session
# 019edb4d-2590-7201-b2d8-cabffc75ea4f): `git diff --stat 368750c… && git diff --name-status 368750c…`, its first lines
STAT_AND_NAMES = """ CHANGELOG.md                                       |   6 +
 .../internal/sha256convert/sha256convert.go        |   5 +-
 internal/auth/entiredb.go                          | 223 ------------
 3 files changed, 8 insertions(+), 226 deletions(-)
M\tCHANGELOG.md
M\tcmd/git-sync/internal/sha256convert/sha256convert.go
D\tinternal/auth/entiredb.go
"""


def test_a_name_status_listing_against_a_commit_id_is_complete_and_other_listings_are_not():
    both = [["diff", "--stat", "368750c"], ["diff", "--name-status", "368750c"]]
    assert listing(both, STAT_AND_NAMES) == ("368750c", {"CHANGELOG.md", "internal/auth/entiredb.go",
                                                         "cmd/git-sync/internal/sha256convert/sha256convert.go"})
    assert listing([["diff", "--name-only", "368750c"]], "a.go\nb/c.go\n") == ("368750c", {"a.go", "b/c.go"})
    assert listing(both, STAT_AND_NAMES + "…1200 tokens truncated…\n") is None  # a line of neither form: cut
    assert listing([["diff", "--stat", "368750c"]], STAT_AND_NAMES) is None  # --stat shortens paths
    assert listing([["diff", "--name-status", "main"]], STAT_AND_NAMES) is None  # a branch: where it was then?
    assert listing([["diff", "--name-status", "368750c", "--", "a.go"]], STAT_AND_NAMES) is None
    assert listing([["diff", "--name-status", "368750c"], ["diff", "--name-status", "1111111"]], "") is None
    calls = [_exec("git diff --stat 368750c && git diff --name-status 368750c", "Chunk ID: dd5936\nWall time: 0.0000 "
                   "seconds\nProcess exited with code 0\nOriginal token count: 319\nOutput:\n" + STAT_AND_NAMES, 1)]
    assert read(calls, "/Users/soph/Work/entire/devenv/git-sync").listed["368750c"][0] == {
        "CHANGELOG.md", "cmd/git-sync/internal/sha256convert/sha256convert.go", "internal/auth/entiredb.go"}
