"""The session's state: which files a recorded shell command leaves uncertain for the calls after it."""

from __future__ import annotations

import json

from toolaudit.model import ToolCall
from toolaudit.replay.state import SessionState

CWD = "/home/dev/proj"


def _bash(command: str) -> ToolCall:
    return ToolCall("s.jsonl", 1, "claude-code", "s", "Bash", "", "c1", args=json.dumps({"command": command}))


def test_a_file_under_a_folder_a_command_removed_is_uncertain(tmp_path):
    state = SessionState(tmp_path, CWD)
    state.record(_bash("rm -rf build/gen"))
    assert state.doubt([f"{CWD}/build/gen/api.go"]) == \
        "uncertain: build/gen: `rm -rf build/gen` may have written it"
    assert state.doubt([f"{CWD}/build"]) is not None  # a folder holding it: its listing changed
    assert state.doubt([f"{CWD}/build/other.go"]) is None
    assert state.doubt([f"{CWD}/build/generated.go"]) is None  # a prefix of the name is not the folder


def test_mkdir_changes_no_file_and_a_command_that_writes_anything_doubts_everything(tmp_path):
    state = SessionState(tmp_path, CWD)
    state.record(_bash("mkdir -p docs/plans && ls docs"))
    assert state.doubt([f"{CWD}/docs/plans/a.md", f"{CWD}/docs"]) is None
    state.record(_bash("go generate ./..."))
    assert state.doubt([f"{CWD}/main.go"]) == "uncertain: after `go generate ./...` (go generate may rewrite files)"


def test_a_formatter_doubts_the_files_the_session_changed_and_no_other(tmp_path):
    (tmp_path / "a.go").write_text("package a\n")
    (tmp_path / "b.go").write_text("package b\n")
    state = SessionState(tmp_path, CWD)
    state.record(_bash("gofmt -w ."))
    assert state.doubt([f"{CWD}/a.go"]) is None  # nothing changed yet: the committed tree is formatted
    edit = ToolCall("s.jsonl", 2, "claude-code", "s", "Edit", "ok", "c2", args=json.dumps(
        {"file_path": f"{CWD}/a.go", "old_string": "package a", "new_string": "package  a"}))
    state.record(edit)
    state.record(_bash("mise run fmt && mise run lint"))
    assert state.doubt([f"{CWD}/a.go"]) == \
        "uncertain: a.go: `mise run fmt && mise run lint`: mise fmt may have reformatted the files the session changed"
    assert state.doubt([f"{CWD}/a.go", f"{CWD}"]) is not None  # a search over the folder holding it too
    assert state.doubt([f"{CWD}/b.go"]) is None


def test_a_secret_in_a_command_never_reaches_a_reason(tmp_path):
    state = SessionState(tmp_path, CWD)
    key = "AKIA" + "Q3EGRQXZ7VNHDA5M"
    state.record(_bash(f"aws configure set aws_access_key_id {key} > creds.txt"))
    why = state.doubt([f"{CWD}/creds.txt"])
    assert why is not None and key not in why and "REDACTED" in why


def test_a_call_is_fresh_until_the_session_edited_or_read_as_recorded_what_it_reads(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.go").write_text("package a\n")
    (tmp_path / "src" / "b.go").write_text("package b\n")
    state = SessionState(tmp_path, CWD)
    assert state.fresh([f"{CWD}/src/a.go"]) and state.fresh([f"{CWD}/src"])
    state.confirm([f"{CWD}/src/a.go"])  # read as the recording shows it
    assert not state.fresh([f"{CWD}/src/a.go"]) and state.fresh([f"{CWD}/src/b.go"])
    edit = ToolCall("s.jsonl", 2, "claude-code", "s", "Edit", "ok", "c2", args=json.dumps(
        {"file_path": f"{CWD}/src/b.go", "old_string": "package b", "new_string": "package bee"}))
    state.record(edit)
    assert not state.fresh([f"{CWD}/src/b.go"])
    assert not state.fresh([f"{CWD}/src"])  # a folder after an edit: what differs may be the edit


def _write_call(path: str, content: str = "x\n") -> ToolCall:
    return ToolCall("s.jsonl", 2, "claude-code", "s", "Write", "", "c2",
                    args=json.dumps({"file_path": path, "content": content}))


def test_a_write_into_gits_own_folder_is_not_applied_and_the_run_goes_on(tmp_path):
    # rommeld/leeson: a session wrote .git/hooks/pre-commit; in a scratch worktree .git is a file
    (tmp_path / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")
    state = SessionState(tmp_path, CWD)
    state.record(_write_call(f"{CWD}/.git/hooks/pre-commit"))
    assert (tmp_path / ".git").read_text() == "gitdir: /elsewhere/.git/worktrees/x\n"
    state.record(_write_call(f"{CWD}/src/a.py"))
    assert (tmp_path / "src" / "a.py").read_text() == "x\n" and state.applied == 1


def test_an_edit_the_disk_cannot_take_leaves_its_file_uncertain(tmp_path):
    (tmp_path / "notes").write_text("a file where the session had a folder\n")
    state = SessionState(tmp_path, CWD)
    state.record(_write_call(f"{CWD}/notes/today.md"))
    assert state.failed == 1
    assert state.doubt([f"{CWD}/notes/today.md"]).startswith("uncertain: notes/today.md: a recorded edit could not")


def _read(path: str, listing: str) -> ToolCall:
    return ToolCall("s.jsonl", 3, "claude-code", "s", "Read", listing, "c3", args=json.dumps({"file_path": path}))


def test_a_whole_file_read_in_a_folder_the_commit_lacks_makes_the_folder(tmp_path):
    """ShamsiievDmytro/entire-bmad, 2.1.81: the session read src/lib/types.ts whole (a project scaffolded outside
    the transcript), then read it four more times; the start commit has no src/lib. The file is taken from the
    listing, its folder made, so the later reads see it. A file where a folder should be is left alone."""
    state = SessionState(tmp_path, CWD)
    listing = "     1→export interface PriceTick {\n     2→  price: number;\n     3→}"
    assert state.learn(_read(f"{CWD}/src/lib/types.ts", listing), {"file_path": f"{CWD}/src/lib/types.ts"})
    assert (tmp_path / "src/lib/types.ts").read_text() == "export interface PriceTick {\n  price: number;\n}"
    (tmp_path / "notes").write_text("a file\n")
    assert not state.learn(_read(f"{CWD}/notes/x.ts", listing), {"file_path": f"{CWD}/notes/x.ts"})
    assert (tmp_path / "notes").read_text() == "a file\n"
