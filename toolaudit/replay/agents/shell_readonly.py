"""An allow-listed interpreter for the read-only shell commands agents run, with no shell anywhere.

A script is cut into words by POSIX quoting rules (shlex's, done by hand so that quoted `|`, `*` or `>`
stay data) and into `&&` / `||` / `;` lists of `|` pipelines. Each command must be an allow-listed
program with options it knows; each path it names must resolve inside the replay folder. Real
programs run through `sandbox.run` from an argument list (`pwd`, `echo`, `cd`, `true`, `false` are done here).
Unquoted globs are expanded in the workspace as bash would (no dotfiles, sorted, the word kept when
nothing matches). Anything else raises `NotReplayable` with a short, stable reason.

What differs from the agent's shell, on purpose: the locale is C.UTF-8 (bytewise `ls` and glob
order, English messages); `rg` gets `--sort path` (its parallel walk has no stable order) and, with
no path named, `./` whose prefix is removed again (our stdin is an empty pipe, which rg would search).
Sorting makes rg walk on one thread, whose errors read `rg: P: IO error for operation on P: …`; where rg
would have walked in parallel (more than one path, or a folder) they are printed as it prints them, `rg: P: …`.
Output is all stdout then all stderr, as Codex aggregates it.
"""

from __future__ import annotations

import glob as globlib
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..base import Sandbox
from ..builtin.ripgrep import rg_path
from ..sandbox import OutsideWorkspace, resolve, run, scrubbed_env
from .shell_words import Command, NotReplayable, Result, Word, parse

# ------------------------------------------------------------------ options of each program

@dataclass(frozen=True)
class Spec:
    """The options a program may take: short letters without/with a value, long names likewise."""

    flags: str = ""
    valued: str = ""
    long: frozenset = frozenset()
    long_valued: frozenset = frozenset()
    numeric: bool = False  # `head -20`: a bare count is an option
    path_options: frozenset = frozenset()  # options whose value names a file to read


def _spec(flags: str = "", valued: str = "", long: str = "", long_valued: str = "", **kw) -> Spec:
    return Spec(flags, valued, frozenset(long.split()), frozenset(long_valued.split()), **kw)


_HEAD = _spec("qvz", "nc", "quiet silent verbose zero-terminated", "lines bytes", numeric=True)
SPECS: dict[str, Spec] = {
    "cat": _spec("AbeEnstTuv", long="show-all number-nonblank number squeeze-blank show-ends show-tabs "
                 "show-nonprinting"),
    "head": _HEAD,
    "tail": _HEAD,
    "nl": _spec("p", "bdfhilnsvw", long="no-renumber", long_valued="body-numbering section-delimiter "
                "footer-numbering header-numbering line-increment join-blank-lines number-format "
                "number-separator starting-line-number number-width"),
    "wc": _spec("clmwL", long="bytes chars lines words max-line-length"),
    "ls": _spec("1aAbBcCdfFgGhHiklmnNopqQrRsStuUvxXZ", "IwT",
                long="all almost-all escape ignore-backups directory classify file-type full-time human-readable "
                "si inode kibibytes literal numeric-uid-gid hide-control-chars show-control-chars quote-name "
                "recursive reverse size context group-directories-first no-group author color",
                long_valued="color block-size format hide ignore indicator-style quoting-style sort time "
                "time-style width tabsize"),
    "grep": _spec("abcEFGhHiIlLnoqrsTuUvVwxyzZ", "ABCdDefm",
                  long="extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case "
                  "word-regexp line-regexp null-data no-messages invert-match version byte-offset "
                  "line-number line-buffered with-filename no-filename initial-tab unix-byte-offsets null "
                  "files-with-matches files-without-match count only-matching quiet silent recursive text "
                  "color colour",
                  long_valued="regexp file max-count label after-context before-context context directories "
                  "devices include exclude exclude-from exclude-dir binary-files color colour",
                  path_options=frozenset({"-f", "--file", "--exclude-from"})),
    "sed": _spec("nErsuz", "el", long="quiet silent regexp-extended separate unbuffered null-data posix debug "
                 "sandbox", long_valued="expression line-length"),
    "rg": _spec("0abcFhHiIlnNoOpqsSuUvVwxz.", "ABCdEefgjmMrtT",
                long="binary block-buffered byte-offset case-sensitive column count count-matches crlf "
                "files files-with-matches files-without-match fixed-strings glob-case-insensitive heading "
                "hidden ignore-case ignore-file-case-insensitive include-zero invert-match json "
                "line-buffered line-number line-regexp multiline multiline-dotall no-column no-filename "
                "no-heading no-ignore no-ignore-dot no-ignore-exclude no-ignore-files no-ignore-global "
                "no-ignore-parent no-ignore-vcs no-line-number no-messages no-pcre2-unicode no-require-git "
                "no-unicode null null-data one-file-system only-matching passthru pcre2 pretty quiet "
                "smart-case sort-files stats text trim type-list unrestricted vimgrep with-filename "
                "word-regexp no-config no-ignore-messages no-follow no-text no-binary",
                long_valued="after-context before-context color colors context context-separator dfa-size-limit "
                "encoding engine field-context-separator field-match-separator file glob iglob ignore-file "
                "max-columns max-count max-depth max-filesize path-separator regex-size-limit regexp replace "
                "sort sortr threads type type-add type-clear type-not",
                path_options=frozenset({"-f", "--file", "--ignore-file"})),
}
# options that would run programs, write files or leave the workspace: refused with a reason
_DANGER = {
    "rg": {"--pre": "runs a preprocessor", "--pre-glob": "runs a preprocessor", "-z": "runs decompressors",
           "--search-zip": "runs decompressors", "-L": "follows symlinks", "--follow": "follows symlinks",
           "--hostname-bin": "runs a program"},
    "sed": {"-i": "edits files in place", "--in-place": "edits files in place", "-f": "reads a script file",
            "--file": "reads a script file"},
    "grep": {"-R": "follows symlinks", "--dereference-recursive": "follows symlinks"},
    "ls": {"-L": "follows symlinks", "--dereference": "follows symlinks"},
    "tail": {"-f": "follows the file", "-F": "follows the file", "--follow": "follows the file"},
}


def scan(name: str, words: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """(options with their values, operands) of `words` by `SPECS[name]`; `--` ends the options."""
    spec, danger = SPECS[name], _DANGER.get(name, {})
    options: list[tuple[str, str | None]] = []
    operands: list[str] = []
    it = iter(words)
    for word in it:
        key = word.split("=", 1)[0]
        if key in danger or word in danger:
            raise NotReplayable(f"{name} {key}: {danger.get(key) or danger[word]}")
        if word == "--":
            operands.extend(it)
        elif word.startswith("--"):
            options.append(_long(name, spec, word, it))
        elif word.startswith("-") and word != "-":
            options.extend(_short(name, spec, word, it, danger))
        else:
            operands.append(word)
    return options, operands


def _long(name: str, spec: Spec, word: str, it) -> tuple[str, str | None]:
    key, eq, value = word[2:].partition("=")
    if key in spec.long_valued and (eq or key not in spec.long):
        return "--" + key, value if eq else _value(name, "--" + key, it)
    if key in spec.long and not eq:
        return "--" + key, None
    raise NotReplayable(f"unsupported {name} option --{key}")


def _short(name: str, spec: Spec, word: str, it, danger: dict) -> list[tuple[str, str | None]]:
    if spec.numeric and word[1:].isdigit():
        return [("-n", word[1:])]
    found = []
    for j, letter in enumerate(word[1:], 1):
        option = "-" + letter
        if option in danger:
            raise NotReplayable(f"{name} {option}: {danger[option]}")
        if letter in spec.valued:
            found.append((option, word[j + 1:] or _value(name, option, it)))
            return found
        if letter not in spec.flags:
            raise NotReplayable(f"unsupported {name} option {option}")
        found.append((option, None))
    return found


def _value(name: str, option: str, it) -> str:
    value = next(it, None)
    if value is None:
        raise NotReplayable(f"{name} {option} without a value")
    return value


class CannotRun(Exception):
    """The replay could not run a command (program missing, timed out): nothing to compare."""


class Workspace:
    """Where commands run: the replay folder, the path the agent knew it by, and the current folder."""

    def __init__(self, root: Path, shown: str | None, cwd: Path | None = None):
        self.root = Path(root).resolve()
        self.shown = (shown or str(self.root)).rstrip("/") or "/"
        self.cwd = cwd or self.root

    def enter(self, folder: str, what: str) -> None:
        """Make the recorded `folder` (the agent's `what`: workdir, the shell's folder) the current one."""
        try:
            target = resolve(self.root, self.root_path(folder))
        except OutsideWorkspace:
            raise NotReplayable(f"{what} outside the workspace: {folder}") from None
        if not target.is_dir():
            raise NotReplayable(f"{what} missing in the replay folder: {folder}")
        self.cwd = target

    def inside(self, text: str) -> str:
        """The operand to pass for path `text` (recorded absolute paths moved into the replay folder)."""
        mapped = self.root_path(text)
        try:
            resolve(self.root, self.cwd / mapped)
        except OutsideWorkspace:
            raise NotReplayable(f"path outside the workspace: {text}") from None
        return mapped

    def root_path(self, text: str) -> str:
        """`text` with the recorded working folder replaced by the replay folder."""
        if text == self.shown or text.startswith(self.shown + "/"):
            return str(self.root) + text[len(self.shown):]
        return text

    def show(self, data: bytes) -> bytes:
        """Program output with the replay folder printed as the recorded working folder."""
        root = str(self.root).encode()
        return data.replace(root, self.shown.encode()) if root != self.shown.encode() else data

    def shown_cwd(self) -> str:
        """The current folder as the agent would have seen it (what `pwd` prints)."""
        rel = self.cwd.relative_to(self.root).as_posix()
        return self.shown if rel == "." else f"{self.shown.rstrip('/')}/{rel}"

    def expand(self, word: Word) -> list[str]:
        """The word after pathname expansion: sorted matches, or the word itself when none match."""
        if not word.glob:
            return [word.text]
        pattern = self.root_path(word.pattern)
        matches = sorted(globlib.glob(pattern, root_dir=self.cwd))
        root = str(self.root)
        return [self.shown + m[len(root):] if m.startswith(root) else m for m in matches] or [word.text]

# a fixed locale and no user or system git config: the same output on every machine
ENV = {"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_CONFIG_NOSYSTEM": "1",
       "GIT_CONFIG_GLOBAL": "/dev/null"}


# ------------------------------------------------------------------ preparing each program's argv

def _argv(ws: Workspace, name: str, options, operands: list[str], paths: list[str]) -> list[str]:
    """Options (path-valued ones checked), then `--`, the operands that are not paths, then the paths."""
    spec, argv = SPECS[name], []
    for option, value in options:
        if value is not None and option in spec.path_options:
            value = ws.inside(value)
        argv += [option] if value is None else ([f"{option}={value}"] if option.startswith("--") else [option, value])
    return [*argv, "--", *operands, *(p if p == "-" else ws.inside(p) for p in paths)]


def _files(name: str):
    def prepare(ws: Workspace, args: list[str], first: bool) -> tuple[list[str], bool]:
        options, operands = scan(name, args)
        return _argv(ws, name, options, [], operands), False
    return prepare


def _search(name: str):
    def prepare(ws: Workspace, args: list[str], first: bool) -> tuple[list[str], bool]:
        options, operands = scan(name, args)
        keys = {option for option, _ in options}
        named = keys & {"-e", "-f", "--regexp", "--file", "--files", "--type-list"}
        pattern, paths = (operands[:0], operands) if named else (operands[:1], operands[1:])
        strip = name == "rg" and not paths and first  # see the module docstring
        if name == "rg" and not keys & {"--sort", "--sortr"}:
            options = [*options, ("--sort", "path")]
        return _argv(ws, name, options, pattern, paths + (["./"] if strip else [])), strip
    return prepare


_SED_COMMAND = re.compile(r"((\d+|\$|\d+~\d+|/[^/;]*/I?)(,(\d+|\$|/[^/;]*/I?|[+~]\d+))?)?\s*!?\s*([pP=ldnNq]|[qQ]\d+)?")


def _sed(ws: Workspace, args: list[str], first: bool) -> tuple[list[str], bool]:
    options, operands = scan("sed", args)
    scripts = [v for o, v in options if o in ("-e", "--expression")]
    if not scripts:
        if not operands:
            raise NotReplayable("sed without a script")
        scripts, operands = [operands[0]], operands[1:]
        options = [*options, ("-e", scripts[0])]
    for part in (p.strip() for script in scripts for p in re.split(r"[;\n]", script)):
        if not _SED_COMMAND.fullmatch(part):
            raise NotReplayable(f"sed script {part!r}: only printing commands are replayed")
    return _argv(ws, "sed", options, [], operands), False


_FIND_FLAG = frozenset({"-print", "-print0", "-prune", "-quit", "-true", "-false", "-empty", "-readable",
                        "-writable", "-executable", "-depth", "-mount", "-xdev", "-ls", "-nouser", "-nogroup",
                        "-o", "-or", "-a", "-and", "-not", "!", "(", ")", ",", "-daystart", "-noleaf",
                        "-ignore_readdir_race", "-noignore_readdir_race"})
_FIND_ARG = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
                       "-regextype", "-type", "-xtype", "-maxdepth", "-mindepth", "-size", "-mtime", "-mmin",
                       "-atime", "-amin", "-ctime", "-cmin", "-perm", "-user", "-group", "-uid", "-gid",
                       "-links", "-printf", "-inum", "-used", "-newermt"})
_FIND_PATH = frozenset({"-newer", "-anewer", "-cnewer", "-samefile"})
_FIND_DANGER = {"-exec": "runs programs", "-execdir": "runs programs", "-ok": "runs programs",
                "-okdir": "runs programs", "-delete": "deletes files", "-fprint": "writes files",
                "-fprint0": "writes files", "-fprintf": "writes files", "-fls": "writes files",
                "-L": "follows symlinks", "-follow": "follows symlinks"}


def _find(ws: Workspace, args: list[str], first: bool) -> tuple[list[str], bool]:
    argv, i = [], 0
    while i < len(args) and args[i] in ("-H", "-P", "-L"):
        if args[i] == "-L":
            raise NotReplayable("find -L: follows symlinks")
        argv.append(args[i])
        i += 1
    while i < len(args) and not args[i].startswith("-") and args[i] not in ("(", ")", "!", ","):
        argv.append(ws.inside(args[i]))
        i += 1
    while i < len(args):
        word = args[i]
        if word in _FIND_DANGER:
            raise NotReplayable(f"find {word}: {_FIND_DANGER[word]}")
        if word in _FIND_FLAG:
            argv.append(word)
        elif word in _FIND_ARG | _FIND_PATH and i + 1 < len(args):
            i += 1
            argv += [word, ws.inside(args[i]) if word in _FIND_PATH else args[i]]
        else:
            raise NotReplayable(f"unsupported find predicate {word}")
        i += 1
    return argv, False


_GIT_READ = {"show", "diff", "log", "status"}
_GIT_DANGER = ("--output", "--ext-diff", "--open-files-in-pager", "-O")


def _git(ws: Workspace, args: list[str], first: bool) -> tuple[list[str], bool]:
    i = 0
    while i < len(args) and args[i] in ("--no-pager", "-P", "--no-optional-locks"):
        i += 1
    if i == len(args) or args[i] not in _GIT_READ:
        raise NotReplayable(f"git {args[i] if i < len(args) else ''}".strip() + ": only show, diff, log, status")
    argv, after_dashes = ["--no-optional-locks", args[i]], False
    for word in args[i + 1:]:
        if word.startswith(_GIT_DANGER):
            raise NotReplayable(f"git {word.split('=')[0]}: writes files or runs programs")
        if after_dashes or not (word.startswith("-") or ":" in word):  # a path, or a revision (checked alike)
            word = ws.inside(word)
        after_dashes = after_dashes or word == "--"
        argv.append(word)
    return argv, False


PREPARE = {"cat": _files("cat"), "head": _files("head"), "tail": _files("tail"), "nl": _files("nl"),
           "wc": _files("wc"), "ls": _files("ls"), "grep": _search("grep"), "rg": _search("rg"), "sed": _sed,
           "find": _find, "git": _git}
PROGRAMS = frozenset(PREPARE) | {"cd", "pwd", "echo", "true", "false"}


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
            self.pipeline(pipeline)
        return self.res

    def pipeline(self, cmds: list[Command]) -> None:
        data, code = b"", 0
        self.piped = len(cmds) > 1  # each part of a pipeline runs in a subshell: `cd` there changes nothing
        for k, cmd in enumerate(cmds):
            words = [text for word in cmd.words for text in self.ws.expand(word)]
            out, err, code = self.command(words, data, k == 0, cmd.words[0].line)
            out, err = (out + err, b"") if cmd.err_to_out else (out, err)
            self.res.err += b"" if cmd.drop_err else err
            data = b"" if cmd.drop_out else out
        self.res.out += data
        self.res.code = code

    def command(self, words: list[str], stdin: bytes, first: bool, line: int) -> tuple[bytes, bytes, int]:
        name = words[0].rsplit("/", 1)[-1]
        if name not in PROGRAMS:
            raise NotReplayable(f"unknown program {words[0]}")
        builtin = _BUILTINS.get(name)
        if builtin is not None:
            return builtin(self, words[1:], line)
        argv, strip = PREPARE[name](self.ws, words[1:], first)
        result = self.execute(name, argv, stdin)
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
        result = run([exe, *argv], cwd=self.ws.cwd, stdin=stdin, timeout=box.timeout,
                     max_output_bytes=box.max_output_bytes, env_names=box.env, env=ENV)
        if result.timed_out:
            raise CannotRun(f"{name} timed out after {box.timeout:g} s")
        if result.capped:
            self.res.note = f"{name} output passed {box.max_output_bytes} bytes: the rest was not read"
        return result


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
        runner.ws.cwd = target
    return b"", b"", 0


def _true(runner: _Runner, args: list[str], line: int) -> tuple[bytes, bytes, int]:
    return b"", b"", 0


def _false(runner: _Runner, args: list[str], line: int) -> tuple[bytes, bytes, int]:
    return b"", b"", 1


_BUILTINS = {"echo": _echo, "pwd": _pwd, "cd": _cd, "true": _true, "false": _false}
