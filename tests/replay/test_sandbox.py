"""The sandbox: paths confined to the workspace, and the runner's scrubbed env, caps, timeout and no shell."""

from __future__ import annotations

import os
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from toolaudit.replay.base import Sandbox
from toolaudit.replay.sandbox import OutsideWorkspace, relative, resolve, run, run_in

PY = sys.executable


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with a file and a folder, and a folder beside it that is outside."""
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret\n")
    return root


@pytest.mark.parametrize("path", ["src/a.py", "src/../src/a.py", "./src", "src/missing.py", ".", ""])
def test_resolve_keeps_paths_inside(ws: Path, path: str) -> None:
    got = resolve(ws, path)
    assert got == Path(os.path.normpath(ws.resolve() / path))


def test_resolve_accepts_an_absolute_path_inside(ws: Path) -> None:
    assert resolve(ws, str(ws / "src" / "a.py")) == (ws / "src" / "a.py").resolve()
    assert relative(ws, resolve(ws, str(ws / "src"))) == "src"
    assert relative(ws, resolve(ws, ".")) == "."


@pytest.mark.parametrize("path", ["..", "../outside/secret.txt", "src/../../outside", "missing/../../outside",
                                  "/etc/passwd", "/", "src/\0x"])
def test_resolve_refuses_paths_outside(ws: Path, path: str) -> None:
    with pytest.raises(OutsideWorkspace) as info:
        resolve(ws, path)
    assert info.value.path == path


def test_resolve_refuses_a_symlink_pointing_out_and_keeps_one_pointing_in(ws: Path, tmp_path: Path) -> None:
    (ws / "out_dir").symlink_to(tmp_path / "outside")
    (ws / "out_file").symlink_to(tmp_path / "outside" / "secret.txt")
    (ws / "in_link").symlink_to(ws / "src")
    for path in ("out_dir", "out_dir/secret.txt", "out_file"):
        with pytest.raises(OutsideWorkspace):
            resolve(ws, path)
    assert resolve(ws, "in_link/a.py") == (ws / "src" / "a.py").resolve()


def test_resolve_refuses_a_symlink_loop(ws: Path) -> None:
    (ws / "loop").symlink_to(ws / "loop")
    with pytest.raises(OutsideWorkspace):
        resolve(ws, "loop/x")


def test_run_passes_stdin_and_returns_output(tmp_path: Path) -> None:
    data = b"abc\n" * 250_000  # 1 MB: more than a pipe holds, so reading and writing must interleave
    got = run([PY, "-c", "import sys; d = sys.stdin.buffer.read(); sys.stdout.buffer.write(d.upper())"],
              cwd=tmp_path, stdin=data, timeout=60)
    assert (got.exit_code, got.timed_out, got.capped) == (0, False, False)
    assert got.stdout == data.upper()


def test_run_scrubs_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TOOLAUDIT_TEST_SECRET", "s3cr3t")
    monkeypatch.setenv("TOOLAUDIT_TEST_PASSED", "yes")
    code = "import json, os; print(json.dumps(dict(os.environ)))"
    import json

    env = json.loads(run([PY, "-c", code], cwd=tmp_path, env_names=["TOOLAUDIT_TEST_PASSED"],
                         env={"EXTRA": "1"}, timeout=60).stdout)
    assert "TOOLAUDIT_TEST_SECRET" not in env
    assert env["TOOLAUDIT_TEST_PASSED"] == "yes" and env["EXTRA"] == "1"
    assert env.get("PATH") == os.environ.get("PATH")
    allowed = {"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TOOLAUDIT_TEST_PASSED", "EXTRA",
               "PWD", "SHLVL", "_"}  # PWD and friends: set by the child's own runtime, if at all
    assert set(env) <= allowed


def test_run_uses_cwd(tmp_path: Path) -> None:
    got = run([PY, "-c", "import os; print(os.getcwd())"], cwd=tmp_path, timeout=60)
    assert Path(got.stdout.decode().strip()).resolve() == tmp_path.resolve()


@pytest.mark.parametrize("arg", ["x; touch {marker}", "$(touch {marker})", "`touch {marker}`", "a && touch {marker}",
                                 "x | touch {marker}"])
def test_shell_metacharacters_are_data(tmp_path: Path, arg: str) -> None:
    marker = tmp_path / "pwned"
    text = arg.format(marker=marker)
    got = run([PY, "-c", "import sys; sys.stdout.write(sys.argv[1])", text], cwd=tmp_path, timeout=60)
    assert got.exit_code == 0
    assert got.stdout.decode() == text  # the argument arrived whole, as data
    assert not marker.exists()


def test_run_caps_a_100_mb_output_without_reading_it_all(tmp_path: Path) -> None:
    finished = tmp_path / "finished"
    code = ("import sys\nchunk = b'x' * 1_000_000\nfor _ in range(100):\n    sys.stdout.buffer.write(chunk)\n"
            f"sys.stdout.buffer.flush()\nopen({str(finished)!r}, 'w').close()\n")
    cap = 1_000_000
    tracemalloc.start()
    try:
        got = run([PY, "-c", code], cwd=tmp_path, max_output_bytes=cap, timeout=120)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got.capped and not got.timed_out
    assert got.stdout == b"x" * cap
    assert got.exit_code != 0  # killed, not finished
    assert not finished.exists()  # the child never got to write the rest: it was not read
    assert peak < 20_000_000  # far below the 100 MB the child meant to write


def test_run_keeps_only_the_start_of_stderr(tmp_path: Path) -> None:
    code = "import sys\nsys.stderr.write('e' * 1_000_000)\nsys.stdout.write('ok')\n"
    got = run([PY, "-c", code], cwd=tmp_path, max_stderr_bytes=1000, timeout=60)
    assert (got.exit_code, got.stdout, got.capped, got.timed_out) == (0, b"ok", False, False)
    assert got.stderr == b"e" * 1000


def _gone(pid: int) -> bool:
    """Whether `pid` has ended (absent, or a zombie waiting for its reaper), allowing the kernel a moment
    to deliver the SIGKILL already sent; this waits for an outcome, it measures no time."""
    for _ in range(200):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:
            return True
        if stat.rsplit(")", 1)[1].split()[0] in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to look at the grandchild")
def test_run_kills_a_hanging_child_and_its_group_on_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    code = ("import subprocess, sys, time\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
            "print('started', flush=True)\ntime.sleep(600)\n")
    got = run([PY, "-c", code], cwd=tmp_path, timeout=1)
    assert got.timed_out and not got.capped
    assert got.exit_code != 0
    if pid_file.exists():  # the child got that far within the second: its child must be gone too
        assert _gone(int(pid_file.read_text()))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to look at the straggler")
def test_run_does_not_wait_for_a_background_straggler(tmp_path: Path) -> None:
    pid_file = tmp_path / "bg.pid"
    got = run(["sh", "-c", f"echo hi; sleep 600 & echo $! > {pid_file}"], cwd=tmp_path, timeout=30)
    assert (got.exit_code, got.stdout, got.timed_out) == (0, b"hi\n", False)
    assert _gone(int(pid_file.read_text()))  # what it left running in its group was killed


def test_run_raises_when_the_program_is_missing(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        run([str(tmp_path / "no-such-program")], cwd=tmp_path)


def test_run_in_takes_the_sandbox_limits(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TOOLAUDIT_TEST_PASSED", "yes")
    sandbox = Sandbox(workspace=tmp_path, timeout=60, max_output_bytes=5, env=("TOOLAUDIT_TEST_PASSED",))
    got = run_in(sandbox, [PY, "-c", "import os; print(os.environ['TOOLAUDIT_TEST_PASSED'] * 10)"])
    assert got.capped and got.stdout == b"yesye"
    got = run_in(Sandbox(workspace=tmp_path, timeout=60), [PY, "-c", "import os; print(os.getcwd())"])
    assert Path(got.stdout.decode().strip()).resolve() == tmp_path.resolve()


def test_a_signal_while_the_program_starts_still_ends_it(tmp_path: Path, monkeypatch) -> None:
    # a Ctrl-C or SIGTERM landing after Popen's fork and exec, before Popen returned, left the program running with
    # nothing to end it (test_trust's signal test saw the tool alive after toolaudit exited, on a busy machine)
    import subprocess

    import toolaudit.replay.sandbox as sandbox

    started: list[subprocess.Popen] = []

    class Interrupted(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)
            raise KeyboardInterrupt  # as the signal's handler raises it, before run() holds the process

    monkeypatch.setattr(sandbox.subprocess, "Popen", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(["sleep", "300"], cwd=tmp_path, timeout=600)
    (child,) = started
    try:
        assert child.poll() is not None  # ended and reaped (by run's end_orphans: Popen sees no status, 0)
        try:
            running = Path(f"/proc/{child.pid}/cmdline").read_bytes() == b"sleep\0" + b"300\0"
        except OSError:
            running = False
        assert not running  # no `sleep 300` left behind
    finally:
        if child.poll() is None:  # the test failed: end it anyway
            child.kill()
            child.wait()
