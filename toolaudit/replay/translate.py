"""`--translate shell-search`: a recorded shell call whose command is a plain search becomes
the equivalent call of a dedicated `grep` or `glob` tool. Nothing is ever run.

Translated (after an optional `cd DIR &&` and before an optional `| head -N`):
- `grep` (also `egrep`, `fgrep`) with -r -R -n -H -I -s -i -y -F -E -G, `-e PAT`, `--include GLOB`,
  `-m N` and their long names -> tool "grep" `{pattern, path, include, ignore_case, fixed_strings,
  max_count}` (`max_count`: `-m`, matching lines per file, else None). The pattern is rewritten from grep's basic/extended syntax into ripgrep's
  (posix_regex). Without -r, grep searches the files it names (one path), or stdin (refused).
- `rg` with -n -N -H -i -s -S -F, `-e PAT`, `-g GLOB`, `-m N`, --no-heading, --sort path -> "grep".
- `find DIR [-type f] [-name P | -iname P | -path P] [-print]` -> tool "glob" `{pattern, path}`:
  `-name P` is `**/P`, `-iname` folds letters into `[pP]` classes, `-path` drops the DIR/ prefix
  (a lone `*` first or last component becomes `**`: find's `*` crosses `/`, a glob's does not).
  find also lists folders and glob lists files only: an approximation, accepted.
- `ls -R [DIR]` -> "glob" `{pattern: "**/*", path}`.
- `| head -N` (`-n N`, `--lines=N`, bare `head` = 10) -> `head_limit: N`, at most N output lines,
  as builtin:grep reads it (and Claude Code's Grep records it).
- `2>/dev/null` is dropped: it only silences grep's complaints, which the new tool reports its own way.
- `cd DIR &&` and the call's recorded working folder (`workdir`, `cwd`, `dir_path`, ...) are joined
  to a relative search path; absolute recorded paths are left for the workspace mapping.

Anything else is `NotTranslated(reason)`, the reason short and stable so a report can sum them:
"pipe", "compound command", "redirection", "subshell", "command substitution", "variable
expansion", "unquoted glob", "brace expansion", "tilde expansion", "env assignment", "not a
search", "unsupported grep flag -l", "several paths", ... Unquoted glob characters are accepted
only in words that start with `-` (`--include=*.py`, `-g*.ts`): a shell expands them only when a
file named like the option exists, which we take as never.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass
from typing import Any, Callable

from ..model import ToolCall
from .posix_regex import to_rust

SHELL_TOOLS = frozenset({
    "Bash", "bash", "shell", "shell_command", "exec_command", "run_shell_command",
    "execute_bash", "terminal", "local_shell",
})
_COMMAND_KEYS = ("command", "cmd")
_WORKDIR_KEYS = ("workdir", "working_directory", "cwd", "dir_path", "directory")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
HEAD_DEFAULT = 10


@dataclass(frozen=True)
class Translated:
    """The call the new tool gets: its name and arguments."""

    tool: str
    args: dict


@dataclass(frozen=True)
class NotTranslated:
    """Why the recorded call keeps its recorded output."""

    reason: str


class _No(Exception):
    """Raised inside the parsers: the reason the command is not translated."""


def translate(call: ToolCall) -> Translated | NotTranslated:
    """The grep/glob call equivalent to a recorded shell search, or the reason there is none."""
    try:
        command, workdir = _command(call)
        if isinstance(command, list):  # an argv list runs without a shell: its words are data
            return _search(command, None, workdir)
        return _script(command, workdir)
    except _No as no:
        return NotTranslated(str(no))


def _command(call: ToolCall) -> tuple[str | list[str], str | None]:
    """The shell script (or argv list) of a recorded shell call, and its recorded working folder."""
    if call.tool not in SHELL_TOOLS:
        raise _No("not a shell call")
    try:
        args: Any = json.loads(call.args)
    except ValueError:
        if call.tool != "bash":  # other agents record JSON: this is redacted or cut short
            raise _No("arguments not JSON") from None
        args = call.args  # mini-swe-agent records the bare command
    workdir = None
    if isinstance(args, dict):
        if args.get("is_input") in (True, "true"):  # OpenHands: keystrokes for a running command
            raise _No("input to a running command")
        if args.get("run_in_background") is True:  # Claude Code: the model got a task id, not output
            raise _No("background command")
        workdir = next((args[k] for k in _WORKDIR_KEYS if isinstance(args.get(k), str) and args[k]), None)
        args = next((args[k] for k in _COMMAND_KEYS if k in args), None)
    if isinstance(args, list) and args and all(isinstance(a, str) for a in args):
        if len(args) == 3 and posixpath.basename(args[0]) in _SHELLS and args[1] in ("-c", "-lc", "-cl"):
            return args[2], workdir
        return args, workdir
    if isinstance(args, str) and args.strip():
        return args, workdir
    raise _No("no command")


def _script(script: str, workdir: str | None) -> Translated:
    """A shell script: at most `cd DIR && SEARCH | head -N`, every word free of expansions."""
    segments, operators = _split(script.strip())
    words = []
    for text in segments:
        try:
            words.append(shlex.split(text))
        except ValueError:
            raise _No("unparsable") from None
        if not words[-1]:
            raise _No("empty command")
        if _ENV_ASSIGNMENT.match(words[-1][0]):
            raise _No("env assignment")
    head = None
    if operators and operators[-1] == "|":
        head = _head(words.pop())
        operators.pop()
    if operators == ["&&"] and words[0][0] == "cd":
        if len(words[0]) != 2:
            raise _No("compound command")
        workdir = _join(workdir, words.pop(0)[1])
        operators.pop()
    if operators:
        raise _No("pipe" if "|" in operators else "compound command")
    return _search(words[0], head, workdir)


def _split(script: str) -> tuple[list[str], list[str]]:
    """The script cut at unquoted `|` and `&&`; anything else a shell would interpret is refused."""
    segments, operators, buf = [], [], []
    quote = None
    word: list[str] = []  # the unquoted text of the current word so far, to classify characters
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if quote == "'":
            quote = None if c == "'" else quote
        elif quote == '"':
            if c == "\\" and i + 1 < n:
                buf.append(script[i:i + 2])
                i += 2
                continue
            if c in "$`":
                raise _No(_expansion(script, i))
            quote = None if c == '"' else quote
        elif c == "\\":
            if script[i + 1:i + 2] == "\n":
                raise _No("compound command")
            buf.append(script[i:i + 2])
            word.append("x")
            i += 2
            continue
        elif c in "'\"":
            quote = c
            word.append("x")
        elif c in " \t":
            word = []
        elif c in "\n;&|()<>`$":
            end = _operator(script, i, word, buf)
            if end is None:  # `2>/dev/null`: dropped
                i = _skip_dev_null(script, i)
                word = []
                continue
            segments.append("".join(buf))
            operators.append(end)
            buf, word = [], []
            i += len(end)
            continue
        else:
            _plain(c, word, script, i)
            word.append(c)
        buf.append(c)
        i += 1
    if quote:
        raise _No("unparsable")
    segments.append("".join(buf))
    return segments, operators


def _operator(script: str, i: int, word: list[str], buf: list[str]) -> str | None:
    """`|` or `&&` at `i`; None for a `2>/dev/null` (its `2` removed from `buf`); else refused."""
    c, pair = script[i], script[i:i + 2]
    if pair == "&&":
        return "&&"
    if c == "|" and pair != "||":
        if pair == "|&":
            raise _No("pipe")
        return "|"
    if c in "$`":
        raise _No(_expansion(script, i))
    if c in "()":
        raise _No("subshell")
    if c == ">" and word == ["2"] and _skip_dev_null(script, i) > i:
        buf.pop()
        return None
    if c in "<>" or pair == "&>":
        raise _No("redirection")
    raise _No("compound command")


_DEV_NULL = re.compile(r">[ \t]*/dev/null(?=$|[ \t|&;])")


def _skip_dev_null(script: str, i: int) -> int:
    """The index after `>/dev/null` at `i`, or `i` when it is not that."""
    m = _DEV_NULL.match(script, i)
    return m.end() if m else i


def _expansion(script: str, i: int) -> str:
    if script[i] == "`" or script[i:i + 2] == "$(":
        return "command substitution"
    return "variable expansion"


def _plain(c: str, word: list[str], script: str, i: int) -> None:
    """Refuse an unquoted character the shell would expand (globs allowed in option words)."""
    if not word and c == "#":
        raise _No("comment")
    if not word and c == "~":
        raise _No("tilde expansion")
    if c == "{" and re.match(r"\{[^\s}]*(,|\.\.)[^\s]*\}", script[i:]):  # `{a,b}`, `{1..3}`; not `{}`
        raise _No("brace expansion")  # in option words too: `--include=*.{py,md}` becomes two options
    if c in "*?[" and word[:1] != ["-"]:
        raise _No("unquoted glob")


def _head(words: list[str]) -> int:
    """N of `head -N`, `head -n N`, `head -nN`, `head --lines=N`, `head`; else the pipe is refused."""
    if words[0] != "head" or len(words) > 3:
        raise _No("pipe")
    rest = words[1:]
    if not rest:
        return HEAD_DEFAULT
    if len(rest) == 2 and rest[0] == "-n":
        text = rest[1]
    elif len(rest) == 1 and rest[0].startswith(("-n", "--lines=")):
        text = rest[0].split("=", 1)[1] if rest[0].startswith("--") else rest[0][2:]
    elif len(rest) == 1 and rest[0].startswith("-"):
        text = rest[0][1:]
    else:
        raise _No("pipe")
    if not text.isdigit() or int(text) == 0:
        raise _No("pipe")
    return int(text)


def _join(base: str | None, path: str) -> str:
    """`path` as seen from `base` (a recorded working folder), when it is relative."""
    if not base or posixpath.isabs(path):
        return path
    return posixpath.normpath(posixpath.join(base, path))


def _search(words: list[str], head: int | None, workdir: str | None) -> Translated:
    """The translated call of one simple command."""
    name = posixpath.basename(words[0])
    parse = _PARSERS.get(name)
    if parse is None:
        raise _No("not a search")
    tool, args = parse(name, words[1:])
    args["path"] = _join(workdir, args["path"])
    if head is not None:
        args["head_limit"] = head
    return Translated(tool, args)


# ------------------------------------------------------------------ grep and rg

@dataclass
class _Grep:
    """What a grep or rg command line says, as its options are read."""

    patterns: list[str]
    operands: list[str]
    include: list[str]
    ignore_case: bool | None = False  # None: rg --smart-case, decided by the pattern
    syntax: str = "basic"  # basic, extended, fixed, rust
    recursive: bool = False
    max_count: int | None = None

    def call(self, default_path: str | None) -> tuple[str, dict]:
        """The canonical grep call; `default_path` is searched when no path is named (None: stdin)."""
        patterns, paths = (self.patterns, self.operands) if self.patterns else (self.operands[:1], self.operands[1:])
        if not patterns:
            raise _No("no pattern")
        if len(patterns) > 1 or "\n" in patterns[0]:
            raise _No("several patterns")
        if len(paths) > 1:
            raise _No("several paths")
        if not paths and default_path is None:
            raise _No("reads stdin")
        pattern = patterns[0]
        if self.syntax in ("basic", "extended"):
            try:
                pattern = to_rust(pattern, self.syntax == "basic")
            except ValueError as exc:
                raise _No(f"unsupported regex: {exc}") from None
        return "grep", {
            "pattern": pattern, "path": paths[0] if paths else default_path, "include": self.include,
            "ignore_case": bool(self.ignore_case), "fixed_strings": self.syntax == "fixed",
            "max_count": self.max_count,
        }


def _set(name: str, value: Any) -> Callable[[_Grep], None]:
    return lambda g: setattr(g, name, value)


def _same(g: _Grep) -> None:
    """An option that changes only how results are printed: the new tool prints its own way."""


_RECURSIVE, _IGNORE_CASE = _set("recursive", True), _set("ignore_case", True)
_FIXED = _set("syntax", "fixed")
_GREP_FLAGS: dict[str, Callable[[_Grep], None]] = {
    "-r": _RECURSIVE, "-R": _RECURSIVE, "-i": _IGNORE_CASE, "-y": _IGNORE_CASE, "-F": _FIXED,
    "-E": _set("syntax", "extended"), "-G": _set("syntax", "basic"),
    "-n": _same, "-H": _same, "-I": _same, "-s": _same,
    "--recursive": _RECURSIVE, "--dereference-recursive": _RECURSIVE, "--ignore-case": _IGNORE_CASE,
    "--fixed-strings": _FIXED, "--extended-regexp": _set("syntax", "extended"),
    "--basic-regexp": _set("syntax", "basic"), "--line-number": _same, "--with-filename": _same,
    "--no-messages": _same, "--binary-files=without-match": _same, "--color": _same, "--colour": _same,
}
_RG_FLAGS: dict[str, Callable[[_Grep], None]] = {
    "-i": _IGNORE_CASE, "-s": _set("ignore_case", False), "-S": _set("ignore_case", None), "-F": _FIXED,
    "-n": _same, "-N": _same, "-H": _same,
    "--ignore-case": _IGNORE_CASE, "--case-sensitive": _set("ignore_case", False),
    "--smart-case": _set("ignore_case", None), "--fixed-strings": _FIXED, "--line-number": _same,
    "--no-line-number": _same, "--with-filename": _same, "--no-heading": _same, "--heading": _same,
    "--color": _same, "--colors": _same,
}
# options that take a value (`-e PAT`, `-ePAT`, `--regexp=PAT`, `--regexp PAT`)
_GREP_VALUED = {"-e": "pattern", "--regexp": "pattern", "--include": "glob", "-m": "count", "--max-count": "count"}
_RG_VALUED = {"-e": "pattern", "--regexp": "pattern", "-g": "glob", "--glob": "glob", "--sort": "sort",
              "-m": "count", "--max-count": "count"}
_PRINTING = ("--color=", "--colour=", "--colors=")  # any value: printing only


def _grep_like(name: str, words: list[str]) -> tuple[str, dict]:
    """grep, egrep, fgrep and rg: options in any order, `--` ends them."""
    rg = name == "rg"
    flags, valued = (_RG_FLAGS, _RG_VALUED) if rg else (_GREP_FLAGS, _GREP_VALUED)
    label = "rg" if rg else "grep"
    g = _Grep([], [], [], syntax="rust" if rg else {"egrep": "extended", "fgrep": "fixed"}.get(name, "basic"))
    it = iter(words)
    for word in it:
        if word == "--":
            g.operands.extend(it)
        elif word.startswith("--"):
            key, eq, value = word.partition("=")
            if key in valued:
                _value(g, valued[key], value if eq else _next(it, label, key))
            elif word in flags or word.startswith(_PRINTING):
                flags.get(word, _same)(g)
            else:
                raise _No(f"unsupported {label} flag {key}")
        elif word.startswith("-") and word != "-":
            for j, letter in enumerate(word[1:], 1):
                option = "-" + letter
                if option in valued:
                    _value(g, valued[option], word[j + 1:] or _next(it, label, option))
                    break
                if option not in flags:
                    raise _No(f"unsupported {label} flag {option}")
                flags[option](g)
        else:
            g.operands.append(word)
    if "-" in g.operands:
        raise _No("reads stdin")
    if g.ignore_case is None:  # rg --smart-case: case-insensitive when the pattern has no capital
        pattern = (g.patterns or g.operands or [""])[0]
        g.ignore_case = not any(ch.isupper() for ch in re.sub(r"\\.", "", pattern))
    return g.call("." if rg or g.recursive else None)


def _next(it, label: str, option: str) -> str:
    """The value of an option given as the next word."""
    value = next(it, None)
    if value is None:
        raise _No(f"unsupported {label} flag {option}")
    return value


def _value(g: _Grep, kind: str, value: str) -> None:
    """An option's value: a pattern, an include glob, rg's sort order."""
    if kind == "pattern":
        g.patterns.append(value)
    elif kind == "sort" and value != "path":
        raise _No("unsupported rg flag --sort")
    elif kind == "count":
        if not value.isdigit() or int(value) == 0:
            raise _No("unsupported max count")
        g.max_count = int(value)
    elif kind == "glob":
        if value.startswith("!"):
            raise _No("negated glob")
        g.include.append(value)


# ------------------------------------------------------------------ find and ls -R

def _find(name: str, words: list[str]) -> tuple[str, dict]:
    """`find [DIR] [-type f] [-name P | -iname P | -path P] [-print]`."""
    paths = []
    while words and not words[0].startswith("-") and words[0] not in ("(", "!"):
        paths.append(words.pop(0))
    if len(paths) > 1:
        raise _No("several paths")
    start = paths[0] if paths else "."
    test = None
    it = iter(words)
    for word in it:
        if word == "-print":
            continue
        value = next(it, None) if word in ("-type", "-name", "-iname", "-path", "-wholename") else None
        if word == "-type" and value == "f":
            continue
        if value is None or word == "-type":
            raise _No(f"unsupported find predicate {word}" + (f" {value}" if word == "-type" and value else ""))
        if test is not None:
            raise _No("several patterns")
        test = (word, value)
    return "glob", {"pattern": _find_glob(test, start), "path": start}


def _find_glob(test: tuple[str, str] | None, start: str) -> str:
    """The glob, relative to the start folder, for find's one name or path test."""
    if test is None:
        return "**/*"
    kind, value = test
    if kind in ("-name", "-iname"):
        if "/" in value:
            raise _No("find -name with a slash")
        return "**/" + (_fold(value) if kind == "-iname" else value)
    prefix = start.rstrip("/") + "/"
    if value.startswith(prefix):
        value = value[len(prefix):]
    elif not value.startswith("*"):
        raise _No("find -path outside the start folder")
    parts = value.split("/")
    if parts[0] == "*":
        parts[0] = "**"
    elif parts[0].startswith("*"):
        parts.insert(0, "**")  # `*.py`: find's star matches the folders before it too
    if len(parts) > 1 and parts[-1] == "*":
        parts[-1] = "**"
    return "/".join(parts)


def _fold(glob: str) -> str:
    """A case-insensitive glob: each letter outside brackets becomes `[xX]`."""
    out, in_bracket = [], False
    for c in glob:
        if c == "[":
            in_bracket = True
        elif c == "]":
            in_bracket = False
        out.append(f"[{c.lower()}{c.upper()}]" if c.isalpha() and not in_bracket and c.lower() != c.upper() else c)
    return "".join(out)


def _ls(name: str, words: list[str]) -> tuple[str, dict]:
    """`ls -R [DIR]` (also with -1): every file under DIR."""
    flags = "".join(w[1:] for w in words if w.startswith("-") and w != "-")
    operands = [w for w in words if not w.startswith("-")]
    if "R" not in flags:
        raise _No("not a search")
    for letter in flags:
        if letter not in "R1":
            raise _No(f"unsupported ls flag -{letter}")
    if len(operands) > 1:
        raise _No("several paths")
    return "glob", {"pattern": "**/*", "path": operands[0] if operands else "."}


_PARSERS: dict[str, Callable[[str, list[str]], tuple[str, dict]]] = {
    "grep": _grep_like, "egrep": _grep_like, "fgrep": _grep_like, "rg": _grep_like,
    "find": _find, "ls": _ls,
}
