"""The statusline's resident server: the same line as the command computes, only the user's socket, and it
always ends (idle, asked to stop, or its code changed). Every server here is started by its test and stopped."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from toolaudit import entry, resident

from conftest import SAMPLES

SHOP = SAMPLES / "claude-code" / "-home-dev-shop" / "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11.jsonl"
# servers in threads and processes, seconds in all: make test-all runs them, make test does not
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not hasattr(__import__("socket"), "AF_UNIX"), reason="no Unix sockets here")]


@pytest.fixture
def tmp_path():
    """A short private folder: a Unix socket's path holds about 100 bytes, and pytest's own tmp_path under a
    worker of `pytest -n` (popen-gw0/...) is longer than that."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="ta-"))  # 0700, the user's own
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def server(tmp_path, monkeypatch):
    """A server in a thread of this process on a socket of its own; stopped and joined after the test."""
    monkeypatch.setenv("TOOLAUDIT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TOOLAUDIT_NO_RESIDENT", raising=False)
    path = resident.socket_path()
    thread = threading.Thread(target=resident.serve, args=(path, 60.0), daemon=True)
    thread.start()
    for _ in range(500):  # until it listens (a liveness wait, not a timing check)
        if resident.ask(path, {"ping": True}) == "pong":
            break
        threading.Event().wait(0.01)
    yield path
    resident.ask(path, {"stop": True})
    thread.join(30)
    assert not thread.is_alive()


def _request(**extra) -> dict:
    return resident.request_of(json.dumps({"transcript_path": str(SHOP), **extra}), None)


def test_the_server_answers_the_line_the_command_computes(server):
    assert resident.ask(server, _request()) == resident.compute(_request())
    given = _request(context_window={"current_usage": {"input_tokens": 10, "cache_read_input_tokens": 99_990}})
    assert given["context"] == 100_000 and resident.ask(server, given) == resident.compute(given)
    missing = resident.request_of(json.dumps({"transcript_path": "/no/such/file.jsonl"}), None)
    assert resident.ask(server, missing).startswith("toolaudit: ")  # a problem is a line, never a failure


def test_only_the_user_can_connect_and_the_socket_goes_with_the_server(server):
    assert stat.S_IMODE(os.stat(server).st_mode) == 0o600
    assert resident.ask(server, {"stop": True}) == "stopped"
    for _ in range(500):
        if not os.path.exists(server):
            break
        threading.Event().wait(0.01)
    assert not os.path.exists(server) and resident.ask(server, _request()) is None


def test_a_second_server_leaves_the_live_one_alone_and_a_stale_socket_is_taken(server, tmp_path):
    resident.serve(server, 60.0)  # returns at once: a live server holds the socket
    assert resident.ask(server, {"ping": True}) == "pong"
    stale = str(tmp_path / "stale.sock")
    Path(stale).touch()  # a socket file whose server died (any file there)
    assert resident.ask(stale, _request()) is None
    thread = threading.Thread(target=resident.serve, args=(stale, 60.0), daemon=True)
    thread.start()
    for _ in range(500):
        if resident.ask(stale, {"ping": True}) == "pong":
            break
        threading.Event().wait(0.01)
    assert resident.ask(stale, {"stop": True}) == "stopped"
    thread.join(30)
    assert not thread.is_alive()


def test_an_idle_server_exits_and_so_does_one_whose_code_changed(tmp_path, monkeypatch):
    path = str(tmp_path / "idle.sock")
    done = threading.Thread(target=resident.serve, args=(path, 0.2), daemon=True)
    done.start()
    done.join(30)
    assert not done.is_alive() and not os.path.exists(path)

    from toolaudit.scan import cache

    digests = iter(["old", "new"])

    def changing():
        return next(digests, "new")

    changing.cache_clear = lambda: None
    monkeypatch.setattr(cache, "code_digest", changing)
    path = str(tmp_path / "code.sock")
    thread = threading.Thread(target=resident.serve, args=(path, 60.0), daemon=True)
    thread.start()
    for _ in range(500):  # until it listens
        if os.path.exists(path):
            break
        threading.Event().wait(0.01)
    # the code changed before the first request: no line of the old code, not even once (it answered for 6 s)
    assert resident.reply(path, {"ping": True}) == (None, True)
    thread.join(30)
    assert not thread.is_alive()


def test_the_console_script_asks_the_server_and_falls_back_to_the_command_line(server, monkeypatch, capsys):
    stdin = json.dumps({"transcript_path": str(SHOP)})
    monkeypatch.setattr(sys, "argv", ["toolaudit", "statusline", "--top", "1"])
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    entry.main()
    assert capsys.readouterr().out.strip() == resident.compute({**_request(), "top": 1})

    # no server for these options (a calibration file): the command line reads the same stdin and answers
    monkeypatch.setattr(sys, "argv", ["toolaudit", "statusline", "--no-resident"])
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    with pytest.raises(SystemExit) as done:
        entry.main()
    assert done.value.code == 0 and capsys.readouterr().out.strip() == resident.compute(_request())


def test_a_first_call_computes_its_line_and_starts_a_server(tmp_path, monkeypatch, run):
    monkeypatch.setenv("TOOLAUDIT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TOOLAUDIT_NO_RESIDENT", raising=False)
    started = []
    real = resident.start
    monkeypatch.setattr(resident, "start", lambda path: started.append(real(path)) or started[-1])
    try:
        line = run("statusline", input=json.dumps({"transcript_path": str(SHOP)})).output.strip()
        assert line == resident.compute(_request()) and len(started) == 1 and started[0] is not None
        path = resident.socket_path()
        for _ in range(3000):  # the server loads toolaudit in the background
            if resident.ask(path, {"ping": True}) == "pong":
                break
            threading.Event().wait(0.01)
        assert resident.ask(path, _request()) == line
        assert run("statusline", "--stop").output.strip() == "stopped the resident server"
        assert started[0].wait(60) == 0
    finally:
        for process in started:
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


def test_a_malformed_request_is_answered_and_the_server_lives_on(server):
    assert resident.ask(server, {"transcript": str(SHOP), "top": "a"}).startswith("toolaudit: ")
    assert resident.ask(server, {"transcript": str(SHOP), "context": "12", "top": None}).startswith("toolaudit: ")
    assert resident.ask(server, {"ping": True}) == "pong"


def test_a_busy_server_keeps_its_socket(server):
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as held:  # a request that never ends: the server waits
        held.connect(server)
        resident.serve(server, 60.0)  # a second server finds the socket live (not refused) and leaves
        inode = os.stat(server).st_ino
    assert os.stat(server).st_ino == inode and resident.ask(server, {"ping": True}) == "pong"


def test_a_project_or_variables_that_configure_the_statusline_go_through_the_command_line(server, tmp_path,
                                                                                             monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"transcript_path": str(SHOP)})))
    monkeypatch.chdir(tmp_path)
    assert entry._resident_statusline([]) is not None  # no settings here: the server answers
    (tmp_path / "pyproject.toml").write_text("[tool.toolaudit.statusline]\ntop = 0\n")
    assert entry._resident_statusline([]) is None
    (tmp_path / "pyproject.toml").write_text("[tool.toolaudit]\ntokenizer = 'o200k_base'\n")
    assert entry._resident_statusline([]) is None  # a top-level option the statusline has
    (tmp_path / "pyproject.toml").write_text("[tool.toolaudit.scan]\nby = 'session'\n[tool.toolaudit.families]\n")
    assert entry._resident_statusline([]) is not None  # another command's table: the server still answers
    (tmp_path / "pyproject.toml").unlink()
    monkeypatch.setenv("TOOLAUDIT_STATUSLINE_TOP", "0")
    assert entry._resident_statusline([]) is None


def test_a_stuck_request_is_given_up(monkeypatch):
    # the server answers one request at a time: one that hangs must not keep it from the next, nor from its exit
    import time

    monkeypatch.setattr(resident, "REQUEST_S", 1)
    with pytest.raises(TimeoutError):
        resident._bounded(lambda request: time.sleep(30), {})
    assert resident._bounded(lambda request: "line", {}) == "line"


def test_a_call_that_found_no_line_does_not_ask_twice_and_starts_a_server_only_when_none_listens(tmp_path,
                                                                                                 monkeypatch):
    started: list[str] = []
    monkeypatch.setattr(resident, "start", lambda path: started.append(path))
    monkeypatch.setattr(resident, "compute", lambda request: "computed")
    monkeypatch.setattr(resident, "socket_path", lambda: str(tmp_path / "s.sock"))
    monkeypatch.delenv(resident.OFF, raising=False)
    asked: list[str] = []
    monkeypatch.setattr(resident, "reply", lambda path, request: asked.append(path) or (None, False))
    resident.asked_in_vain(str(tmp_path / "s.sock"), True)  # the console script asked: a busy server listens
    assert resident.line({}) == "computed" and asked == [] and started == []
    assert resident.line({}) == "computed" and asked == [str(tmp_path / "s.sock")] and started == asked  # none


def test_the_console_script_knows_the_tokenizers_the_command_line_knows():
    # resident keeps its own list so that the console script imports no tokenizer module: it must not drift
    from toolaudit.tokenizers import TOKENIZERS

    assert set(resident.TOKENIZERS) == set(TOKENIZERS)


# ------------------------------------------------------------------ issue 29, item 7: bounded, concurrent, private

def _raw(path: str, data: bytes) -> dict | None:
    """What the server answers to `data` sent as it is (None: the connection closed without an answer)."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(path)
        conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)
        got = b""
        while chunk := conn.recv(65536):
            got += chunk
    return json.loads(got) if got else None


def test_a_large_or_deep_request_is_refused_in_one_line_and_the_server_lives_on(server):
    for data in (b"[" * 70_000, b"[" * 100 + b"]" * 100, b'{"transcript": "' + b"x" * 70_000 + b'"}'):
        answer = _raw(server, data)
        assert answer["line"].startswith("toolaudit: request refused")
        assert resident.ask(server, {"ping": True}) == "pong"  # it died on the first of them (RecursionError)
    deep_in_a_string = json.dumps({"transcript": str(SHOP), "note": "[" * 1000}).encode()
    assert _raw(server, deep_in_a_string)["line"] == resident.compute(_request())


def test_a_slow_client_keeps_no_other_waiting(server):
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as slow:  # a byte now and then, never the end
        slow.connect(server)
        slow.sendall(b"{")
        assert resident.ask(server, _request()) == resident.compute(_request())  # answered while it is connected
        assert resident.ask(server, {"ping": True}) == "pong"
        slow.settimeout(30)
        assert b"request refused" in slow.recv(1000)  # given READ_S to send its request, then let go


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not hasattr(os, "fork"),
                    reason="a server of another user needs root to drop to that user")
def test_a_socket_that_looks_like_ours_served_by_another_user_is_never_asked(tmp_path):
    # what a swap between the owner check and the connect did: the file passes the check, the server is theirs
    import socket

    path = str(tmp_path / "theirs.sock")
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the other user's server: bound as root (the file is root's), listening as nobody
        code = 2
        try:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(path)
            os.setgid(65534)
            os.setuid(65534)
            listener.listen(1)
            os.write(ready_w, b"1")
            listener.settimeout(30)
            conn, _ = listener.accept()
            conn.settimeout(5)
            try:
                asked = conn.recv(1000)
            except OSError:
                asked = b""
            try:
                conn.sendall(b'{"line": "hijacked"}')
            except OSError:
                pass  # the caller had already gone
            code = 3 if asked else 0
        finally:
            os._exit(code)
    os.close(ready_w)
    try:
        assert os.read(ready_r, 1) == b"1"
        assert os.stat(path).st_uid == os.getuid()
        assert resident.reply(path, _request()) == (None, True)
    finally:
        os.close(ready_r)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0  # it was sent nothing: not the transcript's path either


def test_no_server_in_a_cache_folder_others_can_write(tmp_path, monkeypatch, run):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("TOOLAUDIT_CACHE_DIR", str(shared))
    monkeypatch.delenv(resident.OFF, raising=False)
    started: list = []
    monkeypatch.setattr(resident, "start", lambda path: started.append(path))
    assert resident.socket_path() is None
    result = run("statusline", input=json.dumps({"transcript_path": str(SHOP)}))
    assert result.exit_code == 0 and result.output.strip() == resident.compute(_request()) and started == []


def test_a_line_given_up_keeps_its_slot_until_its_work_ends(tmp_path, monkeypatch):
    # a request stuck in its work is answered after REQUEST_S, but its work still runs: it keeps its slot, so
    # that stuck requests (a pathological transcript asked after every message) never pile up past CLIENTS
    release = threading.Event()

    def stuck(request):
        release.wait(60)
        return "late"

    monkeypatch.setattr(resident, "compute", stuck)
    monkeypatch.setattr(resident, "REQUEST_S", 0.2)
    monkeypatch.setattr(resident, "CLIENTS", 1)
    path = str(tmp_path / "one.sock")
    thread = threading.Thread(target=resident.serve, args=(path, 60.0), daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if resident.ask(path, {"ping": True}) == "pong":
                break
            threading.Event().wait(0.01)
        assert resident.ask(path, _request(), timeout=30) == "toolaudit: no answer in 0.2 s"
        assert resident.reply(path, {"ping": True}) == (None, True)  # its one slot is still taken
        release.set()
        for _ in range(500):
            if resident.ask(path, {"ping": True}) == "pong":  # free again once the work ended
                break
            threading.Event().wait(0.01)
        assert resident.ask(path, {"ping": True}) == "pong"
    finally:
        release.set()
        resident.ask(path, {"stop": True})
        thread.join(30)
    assert not thread.is_alive()
