"""The statusline's resident server: one process that stays loaded between Claude Code's statusline calls.

Claude Code runs its status command after every message. A fresh `toolaudit statusline` pays Python's start,
toolaudit's imports and the tokenizer's vocabulary before any work, which itself takes milliseconds from the
scan cache. So a call that finds no server starts one in the background (its own answer is computed in the
call, as before): one per user and toolaudit version, listening on a Unix socket in the cache folder, made
with mode 0600 so that only the user connects. It answers each request with the line the command would
print, reading only the transcript the request names, through the same scan cache, and exits after IDLE_S
seconds without a request or when toolaudit's own code changed (looked at before every answer). It answers
CLIENTS clients at once, each in a thread, and gives each READ_S to send a request of at most MAX_REQUEST
bytes nested at most MAX_DEPTH deep. The socket lives in the cache folder only when that folder is the user's
own and no one else can write it (files.private_folder), and each end checks the other's user (SO_PEERCRED),
so no one can put a socket of theirs between a check and a connect. A call that finds it sends its request
and prints the answer; any problem (a stale socket, a slow or broken answer) falls back to computing in the
call, which gives up after FALLBACK_S with one line.
`TOOLAUDIT_NO_RESIDENT=1` (or `statusline --no-resident`) never starts or asks one.

This module's client half imports only the standard library: `toolaudit.entry` answers `toolaudit statusline`
through it before the command line (click, every collector) is imported.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import threading
import time

IDLE_S = 900.0  # a server with no request for this long exits
ASK_TIMEOUT_S = 2.0  # a server slower than this is not waited for: the call computes its own answer
MAX_REQUEST = 65536  # a request or an answer larger than this is refused (a real one is a few hundred bytes)
MAX_STDIN = 1 << 20  # Claude Code's statusline JSON is a few KB: more is refused with one line
MAX_DEPTH = 64  # JSON nested deeper is refused before it is parsed (json recurses: 100,000 '[' overflowed it)
READ_S = 1.0  # a client has this long to send its whole request (one sending a byte a second blocks no one)
CLIENTS = 8  # requests answered at once; one more is closed at once (its call computes its own line)
REQUEST_S = 30  # a request the server has not answered in this long is given up (it goes back to listening)
FALLBACK_S = 20.0  # a line computed in the call itself gives up after this long, with one line, exit 0
OFF = "TOOLAUDIT_NO_RESIDENT"
TOKENIZERS = ("claude", "o200k_base", "cl100k_base", "approx")  # what `statusline --tokenizer` accepts


def socket_path() -> str | None:
    """The server's socket: in the cache folder, named by toolaudit's version and where it is installed (a
    development checkout and an installed copy of one version are two servers), or None: no server, when the
    path is too long for a Unix socket, or the cache folder is not private (files.private_folder: the user's
    own, 0700). In a folder no one else can write, no one can swap the socket between a check and a connect."""
    from hashlib import sha256

    from . import __version__
    from .files import cache_dir, private_folder

    where = sha256(os.path.dirname(os.path.abspath(__file__)).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    folder = cache_dir()
    path = os.path.join(folder, f"statusline-{__version__}-{where}.sock")
    if len(path.encode()) >= 100 or private_folder(folder) is not None:  # sun_path holds 104-108 bytes
        return None
    return path


def request_of(stdin: str, transcript: str | None, top: int = 2, tokenizer: str = "claude",
               calibration: str | None = None) -> dict:
    """What one statusline asks for, from Claude Code's statusline JSON (`stdin`) or a TRANSCRIPT given by hand:
    the transcript (absolute: a server runs in another folder), the options, the context size Claude Code
    gave (context_window.current_usage)."""
    doc: dict = {}
    problem = None
    if transcript is None:
        if len(stdin or "") > MAX_STDIN:
            problem = f"the statusline JSON on stdin is over {MAX_STDIN // 1024} KB"
        else:
            try:
                doc = loads(stdin or "{}")
            except TooDeep as exc:
                problem = f"the statusline JSON on stdin is {exc}"
            except ValueError:  # not JSON: no transcript_path, said as such
                doc = {}
        doc = doc if isinstance(doc, dict) else {}
        transcript = doc.get("transcript_path")
    given = transcript if isinstance(transcript, str) and transcript and "\0" not in transcript else None
    request = {"transcript": os.path.abspath(given) if given else None, "top": top, "tokenizer": tokenizer,
               "calibration": os.path.abspath(calibration) if calibration else None, "context": _context(doc)}
    if problem:
        request["problem"] = problem
    return request


def read_stdin(stream=None) -> str:
    """stdin, at most MAX_STDIN bytes and one more (request_of says when there were more; a stream without end
    must not fill the memory of a command that prints one line), bytes that are not UTF-8 replaced."""
    stream = stream or sys.stdin
    raw = getattr(stream, "buffer", None)
    if raw is None:
        return stream.read(MAX_STDIN + 1)
    return raw.read(MAX_STDIN + 1).decode("utf-8", "replace")


class TooDeep(ValueError):
    """JSON nested deeper than MAX_DEPTH."""


def loads(data: str | bytes):
    """json.loads of `data`, refused (ValueError) when it nests deeper than MAX_DEPTH: the json module recurses,
    and 100,000 '[' overflowed Python's stack (a RecursionError, a traceback, a dead server)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub('""', text)):  # brackets inside strings are text
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            raise TooDeep(f"nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except RecursionError:
        raise TooDeep(f"nested deeper than {MAX_DEPTH} levels") from None


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def _context(doc: dict) -> int | None:
    window = doc.get("context_window")
    usage = window.get("current_usage") if isinstance(window, dict) else None
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
            if not there:  # none listening (a busy or stuck one still has the socket: another would not bind)
                start(path)
    return computed_within(request, FALLBACK_S)


def computed_within(request: dict, seconds: float) -> str:
    """compute(request), or after `seconds` the one line a status bar shows (a 1 MB gzip of newlines read for
    two minutes would hold the bar that long)."""
    try:
        return _bounded(compute, request, seconds)
    except TimeoutError:
        return f"toolaudit: no answer in {seconds:g} s"
    except Exception as exc:  # the bar gets one line and exit 0 whatever happened (a traceback with --debug only)
        return f"toolaudit: {type(exc).__name__}: {exc}"


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
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(path)
            connected = True
            if not _ours(conn):  # a server another user runs: never asked, nor replaced
                return None, True
            conn.sendall(json.dumps(request).encode() + b"\n")
            conn.shutdown(socket.SHUT_WR)
            data = _read(conn, time.monotonic() + timeout)
        answer = loads(data).get("line")
    except (OSError, ValueError, AttributeError):
        return None, connected
    return (answer if isinstance(answer, str) else None), True


def _ours(conn: socket.socket) -> bool:
    """Whether the process at the other end of `conn` runs as this user (SO_PEERCRED, where Linux has it;
    elsewhere the private folder alone keeps others out)."""
    if not hasattr(socket, "SO_PEERCRED") or not hasattr(os, "getuid"):
        return True
    import struct

    _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return uid == os.getuid()


def _read(conn: socket.socket, deadline: float) -> bytes:
    """What `conn` sends until it closes its end: at most MAX_REQUEST bytes (ValueError past it), within
    `deadline` (time.monotonic(); socket.timeout past it), however slowly it sends."""
    chunks, size = [], 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout("too slow")
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST:
            raise ValueError(f"over {MAX_REQUEST // 1024} KB")


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

    if request.get("problem"):
        return f"toolaudit: {request['problem']}"
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
    asks it to stop, or toolaudit's code changes; another live server on `path` means this one is not needed.

    Each client is answered in a thread of its own (CLIENTS at once), and has READ_S to send its request: a
    slow or stuck one keeps no other waiting."""
    server = _bind(path)
    if server is None:
        return
    from .scan.cache import code_digest

    state = _State(code_digest())
    ours = os.stat(path).st_ino
    try:
        server.settimeout(min(idle_s, 0.5))  # wakes to see a stop asked, or the idle time gone
        while not state.stop.is_set():
            try:
                conn, _ = server.accept()
            except socket.timeout:
                if state.idle() >= idle_s:
                    break
                continue
            state.touch()
            if not state.slots.acquire(blocking=False):
                conn.close()  # as many answered at once as it takes: this call computes its own line
                continue
            threading.Thread(target=_client, args=(conn, state), daemon=True).start()
    finally:
        server.close()
        try:
            if os.stat(path).st_ino == ours:
                os.unlink(path)
        except OSError:
            pass


class _State:
    """What the server's threads share: the code digest it started with, a stop flag, the free client slots and
    when the last request came."""

    def __init__(self, digest: str):
        self.digest = digest
        self.stop = threading.Event()
        self.slots = threading.BoundedSemaphore(CLIENTS)
        self._last = time.monotonic()
        self._busy = 0
        self._lock = threading.Lock()

    def touch(self) -> None:
        with self._lock:
            self._last = time.monotonic()

    def idle(self) -> float:
        """Seconds since the last request, or 0 while one is being answered."""
        with self._lock:
            return 0.0 if self._busy else time.monotonic() - self._last

    def busy(self, more: int) -> None:
        with self._lock:
            self._busy += more
            self._last = time.monotonic()

    def code_changed(self) -> bool:
        """Whether toolaudit's code changed since the server started: asked before every answer, so that no
        line is computed by old code (one stat per module, about 1 ms)."""
        from .scan import cache

        cache.code_digest.cache_clear()
        return cache.code_digest() != self.digest


def _client(conn: socket.socket, state: _State) -> None:
    """Read one request within READ_S, answer it, let go of its slot (before the answer is sent, so that the
    caller's next request finds it free; a line given up after REQUEST_S keeps its slot until its work ends:
    never more than CLIENTS lines computed at once)."""
    state.busy(1)
    held = [True]  # the slot and the busy mark, handed to the line's own thread once one runs
    with conn:
        try:
            reply, last = _reply_to(conn, state, held)
        finally:
            if held[0]:
                state.busy(-1)
                state.slots.release()
        if reply is not None:
            _send(conn, reply)
    if last:  # after the answer is sent: the server's process may end as soon as it sees this
        state.stop.set()


def _reply_to(conn: socket.socket, state: _State, held: list) -> tuple[dict | None, bool]:
    """(the answer to the request on `conn` or None: no answer (another user's client, new code), whether the
    server stops after it)."""
    if not _ours(conn):
        return None, False
    try:
        request = loads(_read(conn, time.monotonic() + READ_S) or b"{}")
    except (OSError, ValueError) as exc:  # too slow, too large, too deep, not JSON: one line, then closed
        return {"line": f"toolaudit: request refused: {exc}"}, False
    if state.code_changed():  # no answer: the call computes its own, and the next starts new code
        return None, True
    if not isinstance(request, dict):
        return {"line": "toolaudit: request refused: not a JSON object"}, False
    if request.get("stop"):
        return {"line": "stopped"}, True
    if request.get("ping"):
        return {"line": "pong", "at": time.time()}, False
    return {"line": _line(request, state, held), "at": time.time()}, False


def _line(request: dict, state: _State, held: list) -> str:
    """compute(request) in a thread of its own, which lets go of the client's slot when it ends; its line, or
    after REQUEST_S the line that says it was given up."""
    done: list[str] = []
    ended = threading.Event()

    def work() -> None:
        try:
            done.append(compute(request))
        except Exception as exc:  # a malformed request or an unexpected failure: an answer, never a dead server
            done.append(f"toolaudit: {type(exc).__name__}: {exc}")
        finally:
            state.busy(-1)
            state.slots.release()
            ended.set()

    threading.Thread(target=work, daemon=True).start()
    held[0] = False  # the thread lets go of the slot
    if not ended.wait(REQUEST_S):
        return f"toolaudit: no answer in {REQUEST_S:g} s"
    return done[0]


def _bind(path: str) -> socket.socket | None:
    """A listening socket on `path` that only this user can connect to (None: a live server already has it, or
    its folder is not private)."""
    from pathlib import Path

    from .files import private_folder

    if private_folder(Path(os.path.dirname(path) or ".")) is not None:
        return None
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


class _Late(BaseException):
    """Raised by the alarm: a BaseException, so that no `except Exception` on the way (a reader that counts a
    bad line and goes on) takes it for a problem of the data."""


def _bounded(work, request: dict, seconds: float | None = None) -> str:
    """`work(request)`, given up after `seconds` (a TimeoutError): a stuck request must not hold the server's
    slot, nor a status bar. In the main thread an alarm interrupts it; in another, it goes on in a thread of
    its own, which is left behind."""
    import signal

    seconds = REQUEST_S if seconds is None else seconds
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        def late(*_: object) -> None:
            raise _Late()

        previous = signal.signal(signal.SIGALRM, late)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return work(request)
        except _Late:
            raise TimeoutError(f"no answer in {seconds:g} s") from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    done: list = []

    def run() -> None:
        try:
            done.append((True, work(request)))
        except BaseException as exc:  # told to the caller's thread
            done.append((False, exc))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if not done:
        raise TimeoutError(f"no answer in {seconds:g} s")
    ok, value = done[0]
    if not ok:
        raise value
    return value


def _send(conn: socket.socket, reply: dict) -> None:
    try:
        conn.settimeout(ASK_TIMEOUT_S)
        conn.sendall(json.dumps(reply).encode())
    except OSError:
        pass  # the caller gave up waiting: it computed its own line


if __name__ == "__main__":  # `python -m toolaudit.resident PATH [IDLE_S]`: what `start` runs
    serve(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else IDLE_S)
