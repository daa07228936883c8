"""OpenHands' read-only tools emulated: the editor's `view` per openhands-aci and SDK release, folder views,
errors as the model got them, the terminal's rendering, and byte identity with a real V0 trajectory
(tests/fixtures/agents/openhands)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.collectors.openhands import OpenHandsCollector
from toolaudit.model import ToolCall
from toolaudit.replay.agents import openhands  # noqa: F401  (registers its emulations)
from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.base import Outcome, Sandbox

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "openhands"
SHOWN = "/workspace"  # the working folder the agent saw
HEAD = "Here's the result of running `cat -n` on "


def run(root: Path, tool: str, args: dict, version: str | None = None, **params: str) -> Outcome:
    """One recorded call of `tool`, answered by its emulation in `root` (seen by the agent as SHOWN)."""
    call = Call(tool=tool, args=args, root=root, cwd=SHOWN, version=version, sandbox=Sandbox(root), params=params)
    return EMULATIONS[("openhands", tool)]().run(call)


def view(root: Path, path: str, tool: str = "str_replace_editor", version: str | None = None, span=None,
         **params: str) -> str:
    args = {"command": "view", "path": path, **({"view_range": span} if span is not None else {})}
    got = run(root, tool, args, version, **params)
    assert got.status == "replayed", got.reason
    return got.output


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace: a file with a tab, one without a final newline, folders, hidden entries, a binary."""
    root = tmp_path / "workspace"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "a").mkdir()
    (root / ".git").mkdir()
    (root / "a.txt").write_text("x\n")
    (root / "a" / "x").write_text("")
    (root / "a" / ".hid").write_text("")
    (root / "main.py").write_text("def f():\n\treturn 1\n")
    (root / "nonl.txt").write_text("one\ntwo")
    (root / "pkg" / "sub" / "deep.txt").write_text("")
    (root / ".env").write_text("")
    (root / "blob.bin").write_bytes(b"\0\1\2\3")
    (tmp_path / "secret.txt").write_text("secret\n")
    return root


# ------------------------------------------------------------------ byte identity with a real trajectory

def test_views_are_byte_identical_to_a_real_trajectory(tmp_path):
    path = FIXTURES / "view-trajectory.json"
    calls = [r for r in OpenHandsCollector().collect(path, json.loads(path.read_text())) if isinstance(r, ToolCall)]
    first, moved, second = calls
    (tmp_path / "game_2048.py").write_text("print('2048')\n")
    got = run(tmp_path, first.tool, json.loads(first.args), version="0.21.0")
    assert (got.output, got.is_error) == (first.output, first.is_error)
    (tmp_path / "game_2048.py").rename(tmp_path / "2048.py")  # what the recorded `mv` did
    for version in ("0.21.0", None):
        got = run(tmp_path, second.tool, json.loads(second.args), version=version)
        assert (got.output, got.is_error) == (second.output, second.is_error)
    assert moved.tool == "execute_bash"


# ------------------------------------------------------------------ file views

def test_file_view_numbering_per_release(ws):
    newest_aci = view(ws, f"{SHOWN}/main.py")
    assert newest_aci == HEAD + f"{SHOWN}/main.py:\n     1\tdef f():\n     2\t\treturn 1\n     3\t\n"
    assert view(ws, f"{SHOWN}/main.py", version="0.30.0") == \
        HEAD + f"{SHOWN}/main.py:\n     1\tdef f():\n     2\t        return 1\n     3\t\n"  # aci 0.2.x: tabs expanded
    assert view(ws, f"{SHOWN}/main.py", tool="file_editor", version="1.53.0") == newest_aci
    assert view(ws, f"{SHOWN}/main.py", tool="file_editor") == \
        HEAD + f"{SHOWN}/main.py:\n     1\tdef f():\n     2\t\treturn 1\n"  # SDK 1.54: no empty last line
    assert view(ws, f"{SHOWN}/nonl.txt", tool="file_editor", version="1.40.0") == \
        HEAD + f"{SHOWN}/nonl.txt:\n     1\tone\n     2\ttwo\n"


def test_view_ranges_per_release(ws):
    assert view(ws, f"{SHOWN}/main.py", span=[2, 2]) == HEAD + f"{SHOWN}/main.py:\n     2\t\treturn 1\n"
    assert view(ws, f"{SHOWN}/main.py", span=[2, 2], version="0.30.0") == \
        HEAD + f"{SHOWN}/main.py:\n     2\t        return 1\n     3\t\n"  # before aci 0.2.10: the newline's line
    assert view(ws, f"{SHOWN}/main.py", span=[1, -1], tool="file_editor") == \
        HEAD + f"{SHOWN}/main.py:\n     1\tdef f():\n     2\t\treturn 1\n"
    assert view(ws, f"{SHOWN}/main.py", span=[2, 9]) == \
        "NOTE: We only show up to 2 since there're only 2 lines in this file.\n" + HEAD + \
        f"{SHOWN}/main.py:\n     2\t\treturn 1\n"
    assert view(ws, f"{SHOWN}/main.py", span=[2, 9], version="0.50.0") == \
        "ERROR:\nInvalid `view_range` parameter: [2, 9]. Its second element `9` should be smaller than the number " \
        "of lines in the file: `2`."
    assert view(ws, f"{SHOWN}/main.py", span=[3, 3]) == \
        "ERROR:\nInvalid `view_range` parameter: [3, 3]. Its first element `3` should be within the range of lines " \
        "of the file: [1, 2]."


def test_long_files_are_cut_with_the_editors_notice(ws):
    (ws / "long.txt").write_text("y" * 20000)
    text = view(ws, f"{SHOWN}/long.txt")
    assert text == HEAD + f"{SHOWN}/long.txt:\n     1\t" + "y" * 16000 + "<response clipped><NOTE>Due to the max " \
        "output limit, only part of this file has been shown to you. You should retry this tool after you have " \
        "searched inside the file with `grep -n` in order to find the line numbers of what you are looking " \
        "for.</NOTE>\n"
    notice = text[len(HEAD) + len(f"{SHOWN}/long.txt:\n     1\t") + 16000:-1]
    room = 16000 - len(notice)  # the SDK keeps head and tail around the notice, within 16,000 characters
    assert view(ws, f"{SHOWN}/long.txt", tool="file_editor") == HEAD + f"{SHOWN}/long.txt:\n     1\t" + \
        "y" * (room // 2 + room % 2) + notice + "y" * (room // 2) + "\n"


# ------------------------------------------------------------------ folder views

def test_folder_views_find_sort_and_python_order(ws):
    hidden = "\n\n2 hidden files/directories in this directory are excluded. You can use 'ls -la /workspace' to see them."
    head = "Here's the files and directories up to 2 levels deep in /workspace, excluding hidden items:\n"
    sorted_bytes = ["/workspace/", "/workspace/a/", "/workspace/a.txt", "/workspace/a/x", "/workspace/blob.bin",
                    "/workspace/main.py", "/workspace/nonl.txt", "/workspace/pkg/", "/workspace/pkg/sub/"]
    assert view(ws, SHOWN + "/") == head + "\n".join(sorted_bytes) + hidden
    assert view(ws, SHOWN, tool="file_editor", version="1.19.0") == head + "\n".join(sorted_bytes) + hidden
    grouped = ["/workspace/", "/workspace/a/", "/workspace/a/x", "/workspace/a.txt", "/workspace/blob.bin",
               "/workspace/main.py", "/workspace/nonl.txt", "/workspace/pkg/", "/workspace/pkg/sub/"]
    assert view(ws, SHOWN, tool="file_editor") == head + "\n".join(grouped) + hidden


# ------------------------------------------------------------------ errors

def test_errors_as_each_runtime_showed_them(ws):
    missing = "Invalid `path` parameter: /workspace/nope. The path /workspace/nope does not exist. Please provide " \
              "a valid path."
    assert view(ws, f"{SHOWN}/nope") == "ERROR:\n" + missing
    v1 = run(ws, "file_editor", {"command": "view", "path": f"{SHOWN}/nope"})
    assert (v1.output, v1.is_error) == ("[An error occurred during execution.]\n\n" + missing, True)
    assert view(ws, "main.py") == "ERROR:\nInvalid `path` parameter: main.py. The path should be an absolute path, " \
                                  "starting with `/`. Maybe you meant /workspace/main.py?"
    assert view(ws, "main.py", tool="file_editor").endswith(
        "Invalid `path` parameter: main.py. The path should be an absolute path. Maybe you meant /workspace/main.py?")
    binary = run(ws, "str_replace_editor", {"command": "view", "path": f"{SHOWN}/blob.bin"})
    assert (binary.output, binary.is_error) == ("ERROR_BINARY_FILE", True)
    assert view(ws, f"{SHOWN}/blob.bin", tool="file_editor").endswith(
        "File validation failed for /workspace/blob.bin: File appears to be binary and this file type cannot be "
        "read or edited by this tool.")
    assert view(ws, SHOWN, span=[1, 2]) == "ERROR:\nInvalid `view_range` parameter: [1, 2]. The `view_range` " \
                                           "parameter is not allowed when `path` points to a directory."


def test_what_is_not_a_read_or_leaves_the_folder_is_refused(ws):
    for args in ({"command": "view", "path": "/etc/passwd"}, {"command": "view", "path": f"{SHOWN}/../secret.txt"},
                 {"command": "str_replace", "path": f"{SHOWN}/a.txt", "old_str": "x", "new_str": "y"}):
        got = run(ws, "str_replace_editor", args)
        assert got.status == "refused" and got.output == ""
    assert (ws / "a.txt").read_text() == "x\n"


# ------------------------------------------------------------------ the terminal

def test_terminal_renders_read_only_commands_as_the_sdk(ws):
    got = run(ws, "terminal", {"command": "cat a.txt nonl.txt"})
    assert got.output == "x\none\ntwo\n[The command completed with exit code 0.]\n[Current working directory: " \
                         "/workspace]\n[Command finished with exit code 0]"
    failed = run(ws, "execute_bash", {"command": "cd pkg && cat missing"}, python="/usr/bin/python")
    assert failed.is_error and failed.output == (
        "cat: missing: No such file or directory\n[The command completed with exit code 1.]\n[Current working "
        "directory: /workspace/pkg]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 1]")
    assert run(ws, "execute_bash", {"command": "cat a.txt"}, version="0.40.0").output == "x"  # V0: output alone
    call = Call(tool="terminal", args={"command": "pwd; cat deep.txt"}, root=ws, cwd=SHOWN, version=None,
                sandbox=Sandbox(ws), here=f"{SHOWN}/pkg/sub")  # the folder an earlier `cd` left the terminal in
    assert EMULATIONS[("openhands", "terminal")]().run(call).output == \
        "/workspace/pkg/sub\n[The command completed with exit code 0.]\n[Current working directory: " \
        "/workspace/pkg/sub]\n[Command finished with exit code 0]"


def test_terminal_refuses_what_it_cannot_replay(ws):
    for args in ({"command": "rm -rf pkg"}, {"command": "ls", "is_input": "true"}, {"command": "cat $HOME/x"}):
        got = run(ws, "terminal", args)
        assert got.status == "refused" and got.reason.startswith("not replayable")
    assert (ws / "pkg").is_dir()


def test_every_openhands_emulation_says_what_it_reproduces():
    tools = {tool for agent, tool in EMULATIONS if agent == "openhands"}
    assert tools == {"str_replace_editor", "file_editor", "terminal", "execute_bash"}
    for tool in tools:
        cls = EMULATIONS[("openhands", tool)]
        assert cls.versions and "version" in cls.params and cls.__doc__
