"""An allow-listed interpreter for the read-only shell commands agents run, with no shell anywhere.

A script is cut into words by POSIX quoting rules (shlex's, done by hand so that quoted `|`, `*` or `>`
stay data) and into `&&` / `||` / `;` lists of `|` pipelines. Each command must be an allow-listed
program with options it knows; each path it names must resolve inside the replay folder. Real
programs run through `sandbox.run` from an argument list (`pwd`, `echo`, `printf`, `cd`, `true`, `false` are
done here, `printf` by agents.shell_printf).
Unquoted globs are expanded in the workspace as bash would (no dotfiles, sorted, the word kept when
nothing matches). Anything else raises `NotReplayable` with a short, stable reason.

What differs from the agent's shell, on purpose: the locale is C.UTF-8 (bytewise `ls` and glob
order, English messages); `rg` gets `--sort path` (its parallel walk has no stable order) and, with
no path named, `./` whose prefix is removed again (our stdin is an empty pipe, which rg would search).
Sorting makes rg walk on one thread, whose errors read `rg: P: IO error for operation on P: …`; where rg
would have walked in parallel (more than one path, or a folder) they are printed as it prints them, `rg: P: …`.
Output is all stdout then all stderr, as Codex aggregates it. Each program's options are read by
replay.agents.shell_options, its argument list prepared by replay.agents.shell_argv.
"""

from __future__ import annotations

import glob as globlib
import posixpath
import re
import shutil
from pathlib import Path

from ..base import Sandbox
from ..builtin.ripgrep import rg_path
from ..git import NO_FETCH
from ..sandbox import OutsideWorkspace, resolve, run, scrubbed_env
from ..winpath import below, is_windows, posix_form
from .shell_argv import PREPARE, PROGRAMS, long_listing
from .shell_printf import printf
from .shell_options import scan
from .shell_words import Command, NotReplayable, Result, Word, parse

__all__ = ["CannotRun", "Workspace", "run_script", "run_argv", "walk_order", "PROGRAMS"]


class CannotRun(Exception):
    """The replay could not run a command (program missing, timed out): nothing to compare."""


class Workspace:
    """Where commands run: the replay folder, the path the agent knew it by, and the current folder."""

    def __init__(self, root: Path, shown: str | None, cwd: Path | None = None):
        self.root = Path(root).resolve()
        self.shown = (shown or str(self.root)).rstrip("/") or "/"
        self.cwd = cwd or self.root
        self.abbrev: int | None = None  # git's abbreviated ids' length on the recording machine (shell_argv.abbrev)
        self.nomatch = False  # zsh's NOMATCH: a glob matching nothing stops the script (the recording shows zsh's)
        self.above: str | None = None  # a recorded folder above the repository the command runs in (`enter`)
        self._ceiling: str | None = None  # git_ceiling's answer

    def enter(self, folder: str, what: str, above: bool = False) -> None:
        """Make the recorded `folder` (the agent's `what`: workdir, the shell's folder) the current one. With
        `above`, a folder above the repository is taken too: commands run in the replay folder and may name only
        absolute paths inside it (the folder's other contents were the recording machine's: the caller checks what
        the command reads)."""
        try:
            target = resolve(self.root, self.root_path(folder))
        except OutsideWorkspace:
            norm = posixpath.normpath(folder) if folder.startswith("/") else ""
            if above and norm and not is_windows(self.shown) and self.shown.startswith(norm.rstrip("/") + "/"):
                self.above, self.cwd = norm, self.root
                return
            raise NotReplayable(f"{what} outside the workspace: {folder}") from None
        if not target.is_dir():
            raise NotReplayable(f"{what} missing in the replay folder: {folder}")
        self.cwd = target

    def inside(self, text: str) -> str:
        """The operand to pass for path `text` (recorded absolute paths moved into the replay folder)."""
        mapped = self.root_path(text)
        if self.above and not mapped.startswith("/"):  # relative to a folder the replay does not hold
            raise NotReplayable(f"a relative path in {self.above}, above the repository: {text}")
        try:
            resolve(self.root, self.cwd / mapped)
        except OutsideWorkspace:
            raise NotReplayable(f"path outside the workspace: {text}") from None
        return mapped

    def root_path(self, text: str) -> str:
        """`text` with the recorded working folder replaced by the replay folder (a Windows one compared in one
        form, its drive letter's case aside: Codex in VS Code records `c:\\Users\\…` as its cwd and
        `C:\\Users\\…` as the workdir)."""
        if is_windows(self.shown) and is_windows(text):
            inside = below(text, self.shown)
            return posix_form(text) if inside is None else str(self.root) + ("" if inside == "." else "/" + inside)
        if text == self.shown or text.startswith(self.shown + "/"):
            return str(self.root) + text[len(self.shown):]
        return text

    def show(self, data: bytes) -> bytes:
        """Program output with the replay folder printed as the recorded working folder."""
        root = str(self.root).encode()
        return data.replace(root, self.shown.encode()) if root != self.shown.encode() else data

    def git_ceiling(self) -> str:
        """The folder above the replay folder's own repository (the nearest `.git` at or above it), where git stops
        looking for one; found once."""
        if self._ceiling is None:
            top = next((d for d in (self.root, *self.root.parents) if (d / ".git").exists()), self.root)
            self._ceiling = str(top.parent)
        return self._ceiling

    def shown_cwd(self) -> str:
        """The current folder as the agent would have seen it (what `pwd` prints)."""
        if self.above:
            return self.above
        rel = self.cwd.relative_to(self.root).as_posix()
        return self.shown if rel == "." else f"{self.shown.rstrip('/')}/{rel}"

    def expand(self, word: Word) -> list[str]:
        """The word after pathname expansion: sorted matches, or the word itself when none match."""
        if not word.glob:
            return [word.text]
        pattern = self.root_path(word.pattern)
        if self.above and not pattern.startswith("/"):
            raise NotReplayable(f"a relative glob in {self.above}, above the repository: {word.text}")
        matches = sorted(globlib.glob(pattern, root_dir=self.cwd))
        for match in matches:  # what a glob names is read (even `echo` prints it): the replay folder's only
            try:
                resolve(self.root, self.cwd / match)
            except OutsideWorkspace:
                raise NotReplayable(f"a glob outside the workspace: {word.text}") from None
        root = str(self.root)
        if not matches and self.nomatch:
            raise NoMatch(f"zsh:{word.line}: no matches found: {word.text}\n")
        return [self.shown + m[len(root):] if m.startswith(root) else m for m in matches] or [word.text]


class NoMatch(Exception):
    """zsh's error for a glob that matched nothing: it runs nothing more of the script, and exits 1."""

# a fixed locale and no user or system git config: the same output on every machine
ENV = {"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_CONFIG_NOSYSTEM": "1",
       "GIT_CONFIG_GLOBAL": "/dev/null", **NO_FETCH}  # a replayed `git show` fetches no blob a partial clone lacks


# ------------------------------------------------------------------ running

def run_script(ws: Workspace, sandbox: Sandbox, script: str) -> Result:
    """Run a shell script (a string) through the allow-list; raises NotReplayable or CannotRun."""
    return _Runner(ws, sandbox).lists(parse(script))


def run_argv(ws: Workspace, sandbox: Sandbox, argv: list[str]) -> Result:
    """Run one command given as an argument list: no shell, so no globbing, no operators."""
    words = [Word(text=a, pattern=globlib.escape(a), quoted=True) for a in argv]
    return _Runner(ws, sandbox).lists([(";", [Command(words=words)])])


class _Runner:
    """Runs parsed lists of pipelines, keeping what they print."""

    def __init__(self, ws: Workspace, sandbox: Sandbox):
        self.ws, self.sandbox, self.res, self.piped = ws, sandbox, Result(), False

    def lists(self, lists: list[tuple[str, list[Command]]]) -> Result:
        for connector, pipeline in lists:
            if (connector == "&&" and self.res.code) or (connector == "||" and not self.res.code):
                continue  # bash skips it, and the status stays
            try:
                self.pipeline(pipeline)
            except NoMatch as error:
                self.res.err, self.res.code = self.res.err + str(error).encode(), 1
                break
        return self.res

    def pipeline(self, cmds: list[Command]) -> None:
        data, code = b"", 0
        self.piped = len(cmds) > 1  # each part of a pipeline runs in a subshell: `cd` there changes nothing
        walker = ""  # a program before in the pipeline whose lines come in its walk's order
        for k, cmd in enumerate(cmds):
            words = [text for word in cmd.words for text in self.ws.expand(word)]
            out, err, code = self.command(words, data, k == 0, cmd.words[0].line)
            name = words[0].rsplit("/", 1)[-1]
            if walker and name in _CUTTERS and out.count(b"\n") < data.count(b"\n"):
                # which lines a cut keeps depends on the order the recording machine's walk gave them
                raise NotReplayable(f"{name} cut {walker}'s output, whose order is the recording machine's walk")
            walker = walker or (name if _walks(self.ws, name, words[1:]) else "")
            out, err = (out + err, b"") if cmd.err_to_out else (out, err)
            self.res.err += b"" if cmd.drop_err else err
            data = b"" if cmd.drop_out else out
        self.res.out += data
        self.res.code = code
        self.res.walked = self.res.walked or (walker if data else "")

    def command(self, words: list[str], stdin: bytes, first: bool, line: int) -> tuple[bytes, bytes, int]:
        name = words[0].rsplit("/", 1)[-1]
        if name not in PROGRAMS:
            raise NotReplayable(f"unknown program {words[0]}")
        builtin = _BUILTINS.get(name)
        if builtin is not None:
            return builtin(self, words[1:], line)
        argv, strip = PREPARE[name](self.ws, words[1:], first)
        result = self.execute(name, argv, stdin)
        if name == "ls" and result.stdout.strip() and long_listing(words[1:]):
            # what it listed, it listed with the recording machine's owners and groups, and times no commit keeps
            raise NotReplayable("ls -l: the recording machine's owners, groups and times")
        out = re.sub(rb"(?m)^\./", b"", result.stdout) if strip else result.stdout
        out = walk_order(name, words[1:], out)
        err = result.stderr
        if name == "rg" and err and _parallel_walk(self.ws, words[1:]):
            err = _SORTED_WALK_ERROR.sub(rb"rg: \1: ", err)
        code = result.exit_code if result.exit_code >= 0 else 128 - result.exit_code  # killed: as bash says
        return self.ws.show(out), self.ws.show(err), code

    def execute(self, name: str, argv: list[str], stdin: bytes):
        # by its bare name, found on the child's PATH: GNU tools print argv[0] in their messages
        exe = rg_path() if name == "rg" else name
        if name != "rg" and shutil.which(name, path=scrubbed_env(self.sandbox.env)["PATH"]) is None:
            raise CannotRun(f"{name} not found on PATH")
        box = self.sandbox
        env = ENV
        if name == "git":  # no fsmonitor program, and no repository looked for above the replay folder's own
            argv = ["-c", "core.fsmonitor=false", *argv]
            env = {**ENV, "GIT_CEILING_DIRECTORIES": self.ws.git_ceiling()}
        result = run([exe, *argv], cwd=self.ws.cwd, stdin=stdin, timeout=box.timeout,
                     max_output_bytes=box.max_output_bytes, env_names=box.env, env=env)
        if result.timed_out:
            raise CannotRun(f"{name} timed out after {box.timeout:g} s")
        if result.capped:
            self.res.note = f"{name} output passed {box.max_output_bytes} bytes: the rest was not read"
        return result


_CUTTERS = {"head", "tail", "sed"}


def _walks(ws: Workspace, name: str, args: list[str]) -> bool:
    """Whether a program prints its lines in the order it walked folders (rg in parallel, `grep -r`, find), an order
    the recording does not keep: replay sorts them (walk_order, rg --sort), which a later cut cannot undo. So does
    sort: its order is the recording machine's locale's collation (replay sorts bytes, `LC_ALL=C.UTF-8`), the same
    lines in another order where the locale collates otherwise."""
    if name == "sort":
        return True
    if name == "rg":
        return _parallel_walk(ws, args)
    flags = [a for a in (args[:args.index("--")] if "--" in args else args) if a.startswith("-")]
    return name == "find" or name in ("grep", "egrep", "fgrep") and any(
        a in ("--recursive", "--dereference-recursive") or not a.startswith("--") and ("r" in a or "R" in a)
        for a in flags)


# what rg's one-thread walk (which `--sort` makes it use) says of a path it cannot read
_SORTED_WALK_ERROR = re.compile(rb"^rg: (.+?): IO error for operation on \1: ", re.MULTILINE)


def _parallel_walk(ws: Workspace, args: list[str]) -> bool:
    """Whether rg, run as recorded (without our `--sort`), walks in parallel: not when the call sorts or runs one
    thread itself, nor for one search (a single path that is not a folder, or stdin), which rg does on one thread."""
    options, operands = scan("rg", args)
    keys = {option for option, _ in options}
    if keys & {"--sort", "--sortr"} or any(option in ("-j", "--threads") and value == "1" for option, value in options):
        return False
    named = keys & {"-e", "-f", "--regexp", "--file", "--files", "--type-list"}
    paths = operands if named else operands[1:]
    if len(paths) == 1:
        return paths[0] != "-" and (ws.cwd / ws.root_path(paths[0])).is_dir()
    return True


def walk_order(name: str, args: list[str], out: bytes) -> bytes:
    """`grep -r` and `find` output listed by path. They walk folders in the filesystem's own order, which differs
    from one disk to the next and which the recording does not keep: by path, a replay is the same on every
    machine, and a recording in another order is reported as reordered. Each file's lines keep their order."""
    flags = [a for a in args[:args.index("--")] if a.startswith("-")] if "--" in args else \
        [a for a in args if a.startswith("-")]
    if name == "find":
        if any(a in ("-print0", "-printf", "-ls", "-fprint", "-quit") for a in args):
            return out
        lines = out.split(b"\n")
        tail = lines.pop() if lines and lines[-1] == b"" else None
        lines.sort(key=lambda line: line.split(b"/"))
        return b"\n".join(lines + ([tail] if tail is not None else []))
    recursive = any(a in ("--recursive", "--dereference-recursive") or
                    (not a.startswith("--") and ("r" in a or "R" in a)) for a in flags)
    context = any(a.startswith(("-A", "-B", "-C", "--after", "--before", "--context", "-z", "-Z", "--null"))
                  or (not a.startswith("--") and re.search(r"[ABCzZ]", a[1:])) or a[1:].isdigit() for a in flags)
    if name not in ("grep", "egrep", "fgrep") or not recursive or context:
        return out
    groups: dict[bytes, list[bytes]] = {}
    lines = out.split(b"\n")
    tail = lines.pop() if lines and lines[-1] == b"" else None
    for line in lines:
        groups.setdefault(line.split(b":", 1)[0], []).append(line)
    ordered = [line for path in sorted(groups, key=lambda p: p.split(b"/")) for line in groups[path]]
    return b"\n".join(ordered + ([tail] if tail is not None else []))


def _echo(runner: _Runner, args: list[str], line: int) -> tuple[bytes, bytes, int]:
    newline = True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        if "e" in args[0]:
            raise NotReplayable("echo -e")
        newline = newline and "n" not in args[0]
        args = args[1:]
    return (" ".join(args) + ("\n" if newline else "")).encode(), b"", 0


def _pwd(runner: _Runner, args: list[str], line: int) -> tuple[bytes, bytes, int]:
    return (runner.ws.shown_cwd() + "\n").encode(), b"", 0


def _cd(runner: _Runner, args: list[str], line: int) -> tuple[bytes, bytes, int]:
    """`cd DIR` inside the workspace; bash's own message when DIR is missing."""
    if len(args) != 1 or args[0] == "-":
        raise NotReplayable("cd without one folder")
    target = Path(runner.ws.cwd, runner.ws.inside(args[0])).resolve()
    if not target.is_dir():
        why = "Not a directory" if target.exists() else "No such file or directory"
        return b"", f"bash: line {line}: cd: {args[0]}: {why}\n".encode(), 1
    if not runner.piped:
        runner.ws.cwd, runner.ws.above = target, None
    return b"", b"", 0


def _true(runner: _Runner, args: list[str], line: int) -> tuple[bytes, bytes, int]:
    return b"", b"", 0


def _false(runner: _Runner, args: list[str], line: int) -> tuple[bytes, bytes, int]:
    return b"", b"", 1


def _printf(runner: _Runner, args: list[str], line: int) -> tuple[bytes, bytes, int]:
    return printf(args), b"", 0


_BUILTINS = {"echo": _echo, "pwd": _pwd, "cd": _cd, "true": _true, "false": _false, "printf": _printf}
