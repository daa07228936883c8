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
from typing import Any

from ..scan.families import SHELL, is_shell
from ..model import ToolCall
from .search_commands import Refused, head_count, parse



class _ShellTools(frozenset):
    """The shell family's plain names; `in` asks the family table itself (any case, globs such as local_shell*)."""

    def __contains__(self, tool: object) -> bool:
        return isinstance(tool, str) and is_shell(tool)


SHELL_TOOLS = _ShellTools(g for g in SHELL if not any(c in g for c in "*?["))  # scan.families: one table
_COMMAND_KEYS = ("command", "cmd")
_WORKDIR_KEYS = ("workdir", "working_directory", "cwd", "dir_path", "directory")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Translated:
    """The call the new tool gets: its name and arguments."""

    tool: str
    args: dict


@dataclass(frozen=True)
class NotTranslated:
    """Why the recorded call keeps its recorded output."""

    reason: str


def translate(call: ToolCall) -> Translated | NotTranslated:
    """The grep/glob call equivalent to a recorded shell search, or the reason there is none."""
    try:
        command, workdir = _command(call)
        if isinstance(command, list):  # an argv list runs without a shell: its words are data
            return _search(command, None, workdir)
        return _script(command, workdir)
    except Refused as no:
        return NotTranslated(str(no))


def _command(call: ToolCall) -> tuple[str | list[str], str | None]:
    """The shell script (or argv list) of a recorded shell call, and its recorded working folder."""
    if call.tool not in SHELL_TOOLS:
        raise Refused("not a shell call")
    try:
        args: Any = json.loads(call.args)
    except ValueError:
        if call.tool != "bash":  # other agents record JSON: this is redacted or cut short
            raise Refused("arguments not JSON") from None
        args = call.args  # mini-swe-agent records the bare command
    workdir = None
    if isinstance(args, dict):
        if args.get("is_input") in (True, "true"):  # OpenHands: keystrokes for a running command
            raise Refused("input to a running command")
        if args.get("run_in_background") is True:  # Claude Code: the model got a task id, not output
            raise Refused("background command")
        workdir = next((args[k] for k in _WORKDIR_KEYS if isinstance(args.get(k), str) and args[k]), None)
        args = next((args[k] for k in _COMMAND_KEYS if k in args), None)
    if isinstance(args, list) and args and all(isinstance(a, str) for a in args):
        if len(args) == 3 and posixpath.basename(args[0]) in _SHELLS and args[1] in ("-c", "-lc", "-cl"):
            return args[2], workdir
        return args, workdir
    if isinstance(args, str) and args.strip():
        return args, workdir
    raise Refused("no command")


def _script(script: str, workdir: str | None) -> Translated:
    """A shell script: at most `cd DIR && SEARCH | head -N`, every word free of expansions."""
    try:
        return _script_words(script, workdir)
    except Refused as refused:
        if str(refused) != "not a search" and not _starts_a_search(script):
            raise Refused("not a search") from None  # what it is matters more than how it is written
        raise


def _script_words(script: str, workdir: str | None) -> Translated:
    """_script's reading of the words (refused with how the script is written)."""
    segments, operators = _split(script.strip())
    words = []
    for text in segments:
        try:
            words.append(shlex.split(text))
        except ValueError:
            raise Refused("unparsable") from None
        if not words[-1]:
            raise Refused("empty command")
        if _ENV_ASSIGNMENT.match(words[-1][0]):
            raise Refused("env assignment")
    head = None
    if operators and operators[-1] == "|":
        head = head_count(words.pop())
        operators.pop()
    if operators == ["&&"] and words[0][0] == "cd":
        if len(words[0]) != 2:
            raise Refused("compound command")
        workdir = _join(workdir, words.pop(0)[1])
        operators.pop()
    if operators:
        raise Refused("pipe" if "|" in operators else "compound command")
    return _search(words[0], head, workdir)


def _starts_a_search(script: str) -> bool:
    """Whether the script's first program (past `cd DIR &&` and `VAR=value` prefixes) is one we translate."""
    from .search_commands import searches

    for part in re.split(r"&&|\|\||[;|\n&]", script):
        words = [w for w in re.split(r"[\s()<>]+", part.strip()) if w]
        while words and _ENV_ASSIGNMENT.match(words[0]):
            words.pop(0)
        if not words or words[0] == "cd":
            continue
        return words[0].strip("'\"").rsplit("/", 1)[-1] in searches()
    return False


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
                raise Refused(_expansion(script, i))
            quote = None if c == '"' else quote
        elif c == "\\":
            if script[i + 1:i + 2] == "\n":
                raise Refused("compound command")
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
        raise Refused("unparsable")
    segments.append("".join(buf))
    return segments, operators


def _operator(script: str, i: int, word: list[str], buf: list[str]) -> str | None:
    """`|` or `&&` at `i`; None for a `2>/dev/null` (its `2` removed from `buf`); else refused."""
    c, pair = script[i], script[i:i + 2]
    if pair == "&&":
        return "&&"
    if c == "|" and pair != "||":
        if pair == "|&":
            raise Refused("pipe")
        return "|"
    if c in "$`":
        raise Refused(_expansion(script, i))
    if c in "()":
        raise Refused("subshell")
    if c == ">" and word == ["2"] and _skip_dev_null(script, i) > i:
        buf.pop()
        return None
    if c in "<>" or pair == "&>":
        raise Refused("redirection")
    raise Refused("compound command")


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
        raise Refused("comment")
    if not word and c == "~":
        raise Refused("tilde expansion")
    if c == "{" and re.match(r"\{[^\s}]*(,|\.\.)[^\s]*\}", script[i:]):  # `{a,b}`, `{1..3}`; not `{}`
        raise Refused("brace expansion")  # in option words too: `--include=*.{py,md}` becomes two options
    if c in "*?[" and word[:1] != ["-"] and "/" not in _word_at(script, i, len(word)):
        raise Refused("unquoted glob")  # `dir/*.go` is a path the shell expanded (search_commands reads it so)


def _word_at(script: str, i: int, before: int) -> str:
    """The unquoted word around position `i` (`before` characters of it already read)."""
    end = re.search(r"[\s;&|()<>]|$", script[i:]).start() + i
    return script[i - before:end]


def _join(base: str | None, path: str) -> str:
    """`path` as seen from `base` (a recorded working folder), when it is relative."""
    if not base or posixpath.isabs(path):
        return path
    return posixpath.normpath(posixpath.join(base, path))


def _search(words: list[str], head: int | None, workdir: str | None) -> Translated:
    """The translated call of one simple command."""
    tool, args = parse(words)
    args["path"] = _join(workdir, args["path"])
    if head is not None:
        args["head_limit"] = head
    return Translated(tool, args)
