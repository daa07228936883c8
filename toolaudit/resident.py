"""The statusline's resident server: one process that stays loaded between Claude Code's statusline calls.

Claude Code runs its status command after every message. A fresh `toolaudit statusline` pays Python's start,
toolaudit's imports and the tokenizer's vocabulary before any work, which itself takes milliseconds from the
scan cache. So a call that finds no server starts one in the background (its own answer is computed in the
call, as before): one per user and toolaudit version, listening on a Unix socket in the cache folder, made
with mode 0600 so that only the user connects. It answers each request with the line the command would
print, reading only the transcript the request names, through the same scan cache, and exits after IDLE_S
seconds without a request or when toolaudit's own code changed. A call that finds it sends its request and
prints the answer; any problem (a stale socket, a slow or broken answer) falls back to computing in the call.
`TOOLAUDIT_NO_RESIDENT=1` (or `statusline --no-resident`) never starts or asks one.

This module's client half imports only the standard library: `toolaudit.entry` answers `toolaudit statusline`
through it before the command line (click, every collector) is imported.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time

IDLE_S = 900.0  # a server with no request for this long exits
ASK_TIMEOUT_S = 2.0  # a server slower than this is not waited for: the call computes its own answer
MAX_REQUEST = 65536
CODE_CHECK_S = 5.0  # how often the server looks whether toolaudit's code changed
REQUEST_S = 30  # a request the server has not answered in this long is given up (it goes back to listening)
OFF = "TOOLAUDIT_NO_RESIDENT"
TOKENIZERS = ("claude", "o200k_base", "cl100k_base", "approx")  # what `statusline --tokenizer` accepts


def socket_path() -> str | None:
    """The server's socket: in the cache folder, named by toolaudit's version and where it is installed (a
    development checkout and an installed copy of one version are two servers), or None: the path is too long
    for a Unix socket, so no server."""
    from hashlib import sha256

    from . import __version__
    from .files import cache_dir

    where = sha256(os.path.dirname(os.path.abspath(__file__)).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    path = os.path.join(cache_dir(), f"statusline-{__version__}-{where}.sock")
    return path if len(path.encode()) < 100 else None  # sun_path holds 104-108 bytes


def request_of(stdin: str, transcript: str | None, top: int = 2, tokenizer: str = "claude",
               calibration: str | None = None) -> dict:
    """What one statusline asks for, from Claude Code's statusline JSON (`stdin`) or a TRANSCRIPT given by hand:
    the transcript (absolute: a server runs in another folder), the options, the context size Claude Code
    gave (context_window.current_usage)."""
    doc: dict = {}
    if transcript is None:
        try:
            doc = json.loads(stdin or "{}")
        except ValueError:
            doc = {}
        doc = doc if isinstance(doc, dict) else {}
        transcript = doc.get("transcript_path")
    given = transcript if isinstance(transcript, str) and transcript else None
    return {"transcript": os.path.abspath(given) if given else None, "top": top, "tokenizer": tokenizer,
            "calibration": os.path.abspath(calibration) if calibration else None, "context": _context(doc)}


def _context(doc: dict) -> int | None:
    usage = (doc.get("context_window") or {}).get("current_usage")
    if not isinstance(usage, dict):
        return None
    parts = [usage.get(k) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
    numbers = [p for p in parts if isinstance(p, int)]
    return sum(numbers) if numbers else None


def enabled() -> bool:
    """Whether the resident server may be asked and started (TOOLAUDIT_NO_RESIDENT unset, a Unix socket)."""
    return not os.environ.get(OFF) and hasattr(socket, "AF_UNIX")


def line(request: dict, resident: bool = True) -> str:
    """The statusline for `request` ({transcript, top, tokenizer, calibration, context}): from the resident
    server when one answers, else computed here (and a server started for the next call)."""
    if resident and enabled():
        path = socket_path()
        if path is not None:
            answer, there = _asked.pop(path, None) or reply(path, request)
            if answer is not None:
                return answer
            text = compute(request)
            if not there:  # none listening (a busy or stuck one still has the socket: another would not bind)
                start(path)
            return text
    return compute(request)


_asked: dict[str, tuple[None, bool]] = {}  # a socket this process asked already, in vain (toolaudit.entry)


def asked_in_vain(path: str, there: bool) -> None:
    """Say that `path`'s server was asked and gave no line (`there`: one was listening), so that the command
    line this process goes on to does not wait for it a second time."""
    _asked[path] = (None, there)


def stop_server() -> bool:
    """Stop this version's resident server; whether one was running."""
    path = socket_path()
    return path is not None and ask(path, {"stop": True}) == "stopped"


def ask(path: str, request: dict, timeout: float = ASK_TIMEOUT_S) -> str | None:
    """The server's answer to `request`, or None (no server, one another user made, or it failed to answer in
    time)."""
    return reply(path, request, timeout)[0]


def reply(path: str, request: dict, timeout: float = ASK_TIMEOUT_S) -> tuple[str | None, bool]:
    """(the server's answer or None, whether a server of ours was listening: it took the connection)."""
    connected = False
    try:
        if hasattr(os, "getuid") and os.stat(path).st_uid != os.getuid():
            return None, True  # a socket someone else put where ours goes: never trusted, nor replaced
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(path)
            connected = True
            conn.sendall(json.dumps(request).encode() + b"\n")
            conn.shutdown(socket.SHUT_WR)
            data = _read(conn)
        answer = json.loads(data).get("line")
    except (OSError, ValueError, AttributeError):
        return None, connected
    return (answer if isinstance(answer, str) else None), True


def _read(conn: socket.socket) -> bytes:
    chunks, size = [], 0
    while size <= MAX_REQUEST:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def start(path: str):
    """Start a server on `path` in the background, detached from this call (it outlives it); its process, or
    None when it could not start (every call then computes its own line, as without one)."""
    import subprocess

    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        return subprocess.Popen([sys.executable, "-m", "toolaudit.resident", path], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                                start_new_session=True, cwd=os.path.dirname(path))  # not the caller's folder
    except OSError:
        return None


def compute(request: dict) -> str:
    """The statusline for `request`, computed in this process (what the command prints; never raises for a
    problem with the transcript: a short `toolaudit: ...` line instead)."""
    from .errors import ToolauditError
    from .options import InputOptions
    from .reports.statusline import statusline
    from .scan.job import context_now

    transcript = request.get("transcript")
    if not isinstance(transcript, str) or not transcript:
        return "toolaudit: no transcript_path on stdin (Claude Code's statusline JSON)"
    try:
        read = InputOptions(tokenizer=request.get("tokenizer") or "claude", calibration=request.get("calibration"))
        now = context_now(transcript, read, context=request.get("context"))
    except (ToolauditError, OSError, ValueError) as exc:
        return f"toolaudit: {exc}"
    return statusline(now, int(request.get("top", 2)))


def serve(path: str, idle_s: float = IDLE_S) -> None:
    """Answer statusline requests on the Unix socket `path` until `idle_s` seconds pass without one, a request
    asks it to stop, or toolaudit's code changes; another live server on `path` means this one is not needed."""
    from .scan.cache import code_digest

    server = _bind(path)
    if server is None:
        return
    digest, checked = code_digest(), time.monotonic()
    ours = os.stat(path).st_ino
    try:
        server.settimeout(idle_s)
        while True:
            try:
                conn, _ = server.accept()
            except socket.timeout:
                break
            with conn:
                if not _answer(conn):
                    break
            if time.monotonic() - checked >= CODE_CHECK_S:  # not on every request: it stats every module
                checked = time.monotonic()
                code_digest.cache_clear()
                if code_digest() != digest:
                    break  # an upgraded toolaudit: the next call starts a server of the new code
    finally:
        server.close()
        try:
            if os.stat(path).st_ino == ours:
                os.unlink(path)
        except OSError:
            pass


def _bind(path: str) -> socket.socket | None:
    """A listening socket on `path` that only this user can connect to (None: a live server already has it)."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # the socket file is made 0600: no moment when another user could connect
    try:
        try:
            server.bind(path)
        except OSError:
            if not _stale(path):
                server.close()
                return None  # a live server (answering or busy): this one is not needed
            os.unlink(path)  # a stale socket (its server died): take its place
            server.bind(path)
    except OSError:
        server.close()
        return None
    finally:
        os.umask(old)
    server.listen(16)
    return server


def _stale(path: str) -> bool:
    """Whether the socket at `path` has no server: a connection is refused (a busy server still accepts)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(1.0)
            probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        return True
    except OSError:
        return False
    return False


def _answer(conn: socket.socket) -> bool:
    """Answer one request; False when it asked the server to stop."""
    conn.settimeout(ASK_TIMEOUT_S)
    try:
        request = json.loads(_read(conn)[:MAX_REQUEST] or b"{}")
    except (OSError, ValueError):
        return True
    if not isinstance(request, dict):
        return True
    if request.get("stop"):
        _send(conn, {"line": "stopped"})
        return False
    try:
        text = "pong" if request.get("ping") else _bounded(compute, request)
    except Exception as exc:  # a malformed request or an unexpected failure: an answer, never a dead server
        text = f"toolaudit: {type(exc).__name__}: {exc}"
    _send(conn, {"line": text, "at": time.time()})
    return True


def _bounded(work, request: dict) -> str:
    """`work(request)`, given up after REQUEST_S seconds (a TimeoutError): a stuck request must not keep the
    server from its next one, nor from exiting when idle."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():  # only there can an alarm interrupt it
        return work(request)

    def late(*_: object) -> None:
        raise TimeoutError(f"no answer in {REQUEST_S} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(REQUEST_S)
    try:
        return work(request)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _send(conn: socket.socket, reply: dict) -> None:
    try:
        conn.sendall(json.dumps(reply).encode())
    except OSError:
        pass  # the caller gave up waiting: it computed its own line


if __name__ == "__main__":  # `python -m toolaudit.resident PATH [IDLE_S]`: what `start` runs
    serve(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else IDLE_S)
