"""cmd: and python: implementations: a real child process per call, arguments as data, the workspace as
working folder, a scrubbed environment, timeouts and output caps that leave the run going."""

from __future__ import annotations

import base64
import json
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from toolaudit.errors import UsageError
from toolaudit.replay.base import FAILED, REPLAYED, Sandbox, implementations
from toolaudit.replay.cmd import Command
from toolaudit.replay.python import PythonFunction

ECHO = ("import json, os, sys; d = json.load(sys.stdin); "
        "print(json.dumps({'tool': os.environ.get('TOOLAUDIT_TOOL'), 'args': d, 'cwd': os.getcwd(), "
        "'secret': os.environ.get('SECRET_TOKEN')}))")
NASTY = "x; touch PWNED && $(touch PWNED2) `touch PWNED3` | rm -rf ~ > out"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("from the workspace")
    return ws


def python_cmd(code: str, sandbox: Sandbox) -> Command:
    return Command(shlex.join([sys.executable, "-c", code]), sandbox)


def test_both_kinds_are_registered():
    assert implementations.get("cmd") is Command and implementations.get("python") is PythonFunction


# ------------------------------------------------------------------ cmd:

def test_cmd_gets_the_arguments_as_json_on_stdin_in_the_workspace(workspace):
    args = {"pattern": "RETRY_LIMIT", "path": ".", "n": [1, 2], "é": "ü", "lone": "\ud83d"}
    out = python_cmd(ECHO, Sandbox(workspace)).call("grep", args, workspace)
    assert (out.status, out.is_error, out.reason) == (REPLAYED, False, "")
    assert json.loads(out.output) == {"tool": "grep", "args": args, "cwd": str(workspace), "secret": None}


def test_cmd_environment_is_scrubbed_unless_a_name_is_passed(workspace, monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "s3cr3t")
    assert json.loads(python_cmd(ECHO, Sandbox(workspace)).call("t", {}, workspace).output)["secret"] is None
    passed = python_cmd(ECHO, Sandbox(workspace, env=("SECRET_TOKEN",))).call("t", {}, workspace)
    assert json.loads(passed.output)["secret"] == "s3cr3t"


def test_cmd_nonzero_exit_is_an_error_result(workspace):
    out = python_cmd("import sys; print('no such file'); sys.exit(2)", Sandbox(workspace)).call("t", {}, workspace)
    assert (out.status, out.is_error, out.output) == (REPLAYED, True, "no such file\n")


def test_cmd_timeout_fails_the_call_and_the_next_call_runs(workspace):
    sandbox = Sandbox(workspace, timeout=1)
    out = python_cmd("import time; time.sleep(60)", sandbox).call("t", {}, workspace)
    assert (out.status, out.is_error, out.reason) == (FAILED, True, "timed out after 1 s")
    assert python_cmd("print('next')", sandbox).call("t", {}, workspace).output == "next\n"


def test_cmd_100_mb_of_output_is_capped(workspace):
    cap = 1_000_000
    code = "import sys\nchunk = b'x' * 1048576\nfor _ in range(100):\n    sys.stdout.buffer.write(chunk)"
    out = python_cmd(code, Sandbox(workspace, max_output_bytes=cap)).call("t", {}, workspace)
    assert len(out.output.encode()) <= cap and out.output == "x" * cap
    assert (out.status, out.is_error, out.reason) == (REPLAYED, False, f"output capped at {cap} bytes")


def test_cmd_cap_never_splits_a_character(workspace):
    out = python_cmd("print('é' * 100, end='')", Sandbox(workspace, max_output_bytes=51)).call("t", {}, workspace)
    assert out.output == "é" * 25 and out.reason == "output capped at 51 bytes"


def test_shell_metacharacters_are_inert_data(workspace, tmp_path):
    out = python_cmd(ECHO, Sandbox(workspace)).call("t", {"pattern": NASTY}, workspace)
    assert json.loads(out.output)["args"] == {"pattern": NASTY}
    # in the spec too: one argument to printf, never a shell command
    printf = Command(f"printf %s {shlex.quote(NASTY)}", Sandbox(workspace)).call("t", {}, workspace)
    assert printf.output == NASTY
    assert not [p for p in tmp_path.rglob("PWNED*")] and not (workspace / "out").exists()


def test_cmd_bad_specs_are_usage_errors(workspace):
    with pytest.raises(UsageError, match="needs a command"):
        Command("", Sandbox(workspace))
    with pytest.raises(UsageError, match="cmd:python 'x"):
        Command("python 'x", Sandbox(workspace))
    with pytest.raises(UsageError, match="cannot run 'no-such-program-xyz'"):
        Command("no-such-program-xyz --flag", Sandbox(workspace)).call("t", {}, workspace)


# ------------------------------------------------------------------ python:

IMAGE = bytes(range(256)) + bytes(44)  # 300 bytes
TOOLS = f'''
import json, os, sys, time
from pathlib import Path

def echo(args, workspace):
    return json.dumps({{"args": args, "workspace": str(workspace), "cwd": os.getcwd(),
                       "read": (workspace / "a.txt").read_text(), "tool": os.environ.get("TOOLAUDIT_TOOL")}})

def parts(args, workspace):
    data = {base64.b64encode(IMAGE).decode()!r}
    return ["first", {{"type": "text", "text": "second"}},
            {{"type": "image", "source": {{"type": "base64", "media_type": "image/png", "data": data}}}},
            {{"type": "image", "data": data, "mimeType": "image/png"}}]

def noisy(args, workspace):
    print("debug line")
    os.write(1, b"raw debug")
    return "the result"

def boom(args, workspace):
    raise ValueError("bad input " + args["x"])

def hang(args, workspace):
    time.sleep(60)

def crash(args, workspace):
    os._exit(3)

def big(args, workspace):
    return "y" * 5_000_000

def wrong(args, workspace):
    return 42
'''


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch) -> Path:
    """A folder holding the user's module `mytools`, made the current folder (as the user would run toolaudit)."""
    folder = tmp_path / "user"
    folder.mkdir()
    (folder / "mytools.py").write_text(textwrap.dedent(TOOLS))
    monkeypatch.chdir(folder)
    return folder


def test_python_function_gets_args_and_workspace(user_dir, workspace):
    out = PythonFunction("mytools:echo", Sandbox(workspace)).call("read_file", {"path": "a.txt", "n": 2}, workspace)
    assert (out.status, out.is_error, out.reason) == (REPLAYED, False, "")
    assert json.loads(out.output) == {"args": {"path": "a.txt", "n": 2}, "workspace": str(workspace),
                                      "cwd": str(workspace), "read": "from the workspace", "tool": "read_file"}


def test_python_parts_are_joined_and_images_counted(user_dir, workspace):
    out = PythonFunction("mytools:parts", Sandbox(workspace)).call("t", {}, workspace)
    assert (out.output, out.images, out.image_bytes) == ("first\nsecond", 2, 2 * len(IMAGE))


def test_python_prints_never_enter_the_output(user_dir, workspace):
    out = PythonFunction("mytools:noisy", Sandbox(workspace)).call("t", {}, workspace)
    assert (out.status, out.output) == (REPLAYED, "the result")


def test_python_exception_is_a_failed_call(user_dir, workspace):
    out = PythonFunction("mytools:boom", Sandbox(workspace)).call("t", {"x": "here"}, workspace)
    assert (out.status, out.is_error, out.reason) == (FAILED, True, "ValueError: bad input here")


def test_python_hang_crash_and_wrong_type_fail_and_the_run_goes_on(user_dir, workspace):
    sandbox = Sandbox(workspace, timeout=1)
    hang = PythonFunction("mytools:hang", sandbox).call("t", {}, workspace)
    assert (hang.status, hang.is_error, hang.reason) == (FAILED, True, "timed out after 1 s")
    crash = PythonFunction("mytools:crash", Sandbox(workspace)).call("t", {}, workspace)
    assert (crash.status, crash.reason) == (FAILED, "crashed (exit code 3)")
    wrong = PythonFunction("mytools:wrong", Sandbox(workspace)).call("t", {}, workspace)
    assert wrong.status == FAILED and wrong.reason.startswith("returned int")
    assert PythonFunction("mytools:echo", sandbox).call("t", {}, workspace).status == REPLAYED


def test_python_output_is_capped(user_dir, workspace):
    out = PythonFunction("mytools:big", Sandbox(workspace, max_output_bytes=100_000)).call("t", {}, workspace)
    assert out.output == "y" * 100_000 and out.reason == "output capped at 100000 bytes"


def test_workspace_files_never_shadow_modules(user_dir, workspace):
    (workspace / "json.py").write_text("raise SystemExit('the workspace json.py was imported')\n")
    (workspace / "mytools.py").write_text("def echo(args, workspace):\n    return 'the workspace copy'\n")
    out = PythonFunction("mytools:echo", Sandbox(workspace)).call("t", {}, workspace)
    assert out.status == REPLAYED and json.loads(out.output)["read"] == "from the workspace"


def test_python_missing_module_or_function_is_a_usage_error_naming_it(user_dir, workspace):
    with pytest.raises(UsageError, match="no module named 'nosuchmod'"):
        PythonFunction("nosuchmod:f", Sandbox(workspace)).call("t", {}, workspace)
    with pytest.raises(UsageError, match="module 'mytools' has no function 'nope'"):
        PythonFunction("mytools:nope", Sandbox(workspace)).call("t", {}, workspace)
    for spec in ("mytools", "mytools:", "my-tools:f", ":f"):
        with pytest.raises(UsageError, match="expected python:package.module:function"):
            PythonFunction(spec, Sandbox(workspace))


def test_python_calls_share_one_worker_until_one_fails(user_dir, workspace):
    # one interpreter start and import per mapping, not per call (issue 17 §5: ~190 ms a call before)
    (user_dir / "pidtool.py").write_text("import os\nCALLS = []\n"
                                         "def pid(args, workspace):\n    CALLS.append(1)\n"
                                         "    return f'{os.getpid()} {len(CALLS)}'\n"
                                         "def die(args, workspace):\n    os._exit(5)\n")
    impl = PythonFunction("pidtool:pid", Sandbox(workspace))
    try:
        answers = [impl.call("t", {}, workspace).output.split() for _ in range(5)]
        assert len({pid for pid, _ in answers}) == 1 and [n for _, n in answers] == ["1", "2", "3", "4", "5"]
    finally:
        impl.close()
    assert impl._worker is None
    crashing = PythonFunction("pidtool:die", Sandbox(workspace))
    try:
        assert crashing.call("t", {}, workspace).reason == "crashed (exit code 5)"
        assert crashing.call("t", {}, workspace).reason == "crashed (exit code 5)"  # a fresh worker each time
    finally:
        crashing.close()
