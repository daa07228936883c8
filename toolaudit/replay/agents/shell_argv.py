"""Each allow-listed program's argument list, prepared from the words a recorded command gave it: options checked
(replay.agents.shell_options), paths moved into the replay folder and refused outside it, `rg` sorted, sed limited to
printing scripts, find to predicates that neither run nor write, git to show/diff/log/status."""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING

from .shell_options import SPECS, scan
from .shell_words import NotReplayable

if TYPE_CHECKING:
    from .shell_readonly import Workspace


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


_LONG = {"-l", "-g", "-o", "-n"}  # ls's long formats


def long_listing(args: list[str]) -> bool:
    """Whether `ls args` prints the long format: each line the machine's owner, group, sizes and times."""
    try:
        options = scan("ls", args)[0]
    except NotReplayable:
        return False
    return any(o in _LONG or o == "--format" and v in ("long", "verbose") for o, v in options)


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
# options whose output is the refs themselves: where the recording machine's branches, tags and remotes pointed
_GIT_REFS = {"--decorate", "--all", "--branches", "--remotes", "--tags", "--glob", "--exclude", "--source",
             "--first-parent-of"}
_GIT_VALUED = {"-n", "--max-count", "--skip", "-S", "-G", "--grep", "--author", "--committer", "--since", "--until",
               "--after", "--before", "--format", "--pretty", "--date", "-U", "--unified", "--diff-filter", "-L",
               "--stat-width", "--abbrev", "--encoding", "--word-diff-regex", "--find-object"}
_HEX = re.compile(r"[0-9a-fA-F]{4,64}")


def _names_ref(ws: Workspace, word: str) -> bool:
    """Whether a git operand is a revision naming a ref (`main`, `origin/main...HEAD`, `v1.2^`), not HEAD, a commit
    id or an existing path: the replay worktree is detached at the session's commit, and where the recording
    machine's branches pointed then no commit keeps (a clone's `main` has moved on; a mirror has no `origin/`)."""
    if (ws.cwd / ws.root_path(word.split(":", 1)[0] if ":" in word else word)).exists() and ":" not in word:
        return False
    for part in re.split(r"\.{2,3}", word.split(":", 1)[0]):
        base = re.sub(r"(\^\{[^}]*\}|@\{[^}]*\}|[~^]\d*)+$", "", part)
        if base and base != "HEAD" and base != "@" and not _HEX.fullmatch(base):
            return True
    return False
_GIT_DANGER = ("--output", "--ext-diff", "--open-files-in-pager", "-O")


def _git(ws: Workspace, args: list[str], first: bool) -> tuple[list[str], bool]:
    if args[:1] == ["-C"] and len(args) > 2:  # `git -C DIR …`: a folder of the replay folder, its paths from there
        folder = ws.inside(args[1])
        there = copy.copy(ws)
        there.cwd, there.above = (ws.cwd / folder).resolve(), None
        if not there.cwd.is_dir():
            raise NotReplayable(f"git -C {args[1]}: not a folder of the replay folder")
        argv, strip = _git(there, args[2:], first)
        return ["-C", folder, *argv], strip
    i = 0
    while i < len(args) and args[i] in ("--no-pager", "-P", "--no-optional-locks"):
        i += 1
    if i < len(args) and args[i] == "rev-parse":
        return _rev_parse(ws, args[i + 1:])
    if i == len(args) or args[i] not in _GIT_READ:
        raise NotReplayable(f"git {args[i] if i < len(args) else ''}".strip() + ": only show, diff, log, status")
    # the recording machine's abbreviation length: git's default grows with the repository's object count
    argv = [*(["-c", f"core.abbrev={ws.abbrev}"] if ws.abbrev else []), "--no-optional-locks", args[i]]
    after_dashes, value = False, False
    for word in args[i + 1:]:
        if word.startswith(_GIT_DANGER):
            raise NotReplayable(f"git {word.split('=')[0]}: writes files or runs programs")
        if not after_dashes and not value and (word.split("=")[0] in _GIT_REFS
                                               or (not word.startswith("-") and _names_ref(ws, word))):
            raise NotReplayable(f"git {args[i]} {word}: reads refs (where branches pointed then, no commit keeps)")
        value = not after_dashes and word in _GIT_VALUED  # the next word is this option's value
        if after_dashes or not (word.startswith("-") or ":" in word):  # a path, or a revision (checked alike)
            word = ws.inside(word)
        after_dashes = after_dashes or word == "--"
        argv.append(word)
    return argv, False


_REV_PARSE_FLAGS = {"--short", "--verify", "-q", "--quiet"}


def _rev_parse(ws: Workspace, args: list[str]) -> tuple[list[str], bool]:
    """`git rev-parse [--short] [--verify] HEAD|ID…`: the commit ids of HEAD or of ids, which any clone answers alike
    (a ref's would be the recording machine's; a path option prints the replay folder's layout)."""
    words = [w for w in args if w not in _REV_PARSE_FLAGS and not w.startswith("--short=")]
    if not words or any(w.startswith("-") or "@{" in w or _names_ref(ws, w) for w in words):
        raise NotReplayable(f"git rev-parse {' '.join(args)}: only commit ids of HEAD or of ids")
    abbrev = ["-c", f"core.abbrev={ws.abbrev}"] if ws.abbrev else []
    return [*abbrev, "--no-optional-locks", "rev-parse", *args], False


# an abbreviated commit id git printed: `--oneline`, `%h`, `--left-right`'s `< 1a2b3c4d`, a diff's `index a..b`, or a
# line of its own (`git rev-parse --short HEAD`)
_ABBREVIATED = re.compile(r"^(?:[<>] |index )?([0-9a-f]{7,16})(?= |\.\.|$)", re.MULTILINE)


def abbrev(printed: str) -> int | None:
    """The length of the abbreviated commit ids a recorded git output shows (the most common one), or None."""
    found = _ABBREVIATED.findall(printed)
    # ids holding a letter first: a line of digits (`20240101 …`, another command's output) is seldom an id
    lengths = [len(m) for m in found if re.search("[a-f]", m)] or [len(m) for m in found]
    return max(set(lengths), key=lengths.count) if lengths else None


PREPARE = {"cat": _files("cat"), "head": _files("head"), "tail": _files("tail"), "nl": _files("nl"),
           "wc": _files("wc"), "sort": _files("sort"), "ls": _files("ls"), "grep": _search("grep"), "rg": _search("rg"), "sed": _sed,
           "find": _find, "git": _git}
PROGRAMS = frozenset(PREPARE) | {"cd", "pwd", "echo", "printf", "true", "false"}
