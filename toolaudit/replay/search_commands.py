"""The search commands `--translate shell-search` understands, read from their words (never run):
grep, egrep, fgrep and rg become a `grep` call, find and `ls -R` a `glob` call (see translate.py
for the forms accepted). Anything else raises `Refused` with a short, stable reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from .posix_regex import to_rust

HEAD_DEFAULT = 10


class Refused(Exception):
    """The command is not a search we translate; the message is the reason."""


def parse(words: list[str]) -> tuple[str, dict]:
    """(tool, arguments) for a search command's words (its name first); raises Refused."""
    name = words[0].rsplit("/", 1)[-1]
    parser = _PARSERS.get(name)
    if parser is None:
        raise Refused("not a search")
    return parser(name, words[1:])


def searches() -> set[str]:
    """The program names translated."""
    return set(_PARSERS)


def head_count(words: list[str]) -> int:
    """N of `head -N`, `head -n N`, `head -nN`, `head --lines=N`, `head`; else the pipe is refused."""
    if words[0] != "head" or len(words) > 3:
        raise Refused("pipe")
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
        raise Refused("pipe")
    if not text.isdigit() or int(text) == 0:
        raise Refused("pipe")
    return int(text)


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
            raise Refused("no pattern")
        if len(patterns) > 1 or "\n" in patterns[0]:
            raise Refused("several patterns")
        include = self.include
        if len(paths) > 1 or any(_GLOB_CHARS.search(p) for p in paths):
            # `grep PAT dir/*.go a.py`: the shell expanded the operands in the workspace; a glob per operand,
            # relative to the workspace, selects the same files (`*` stops at `/`, hidden files stay out)
            if include:
                raise Refused("several paths")
            include, paths = [_operand_glob(p) for p in paths], ["."]
        if not paths and default_path is None:
            raise Refused("reads stdin")
        pattern = patterns[0]
        if self.syntax in ("basic", "extended"):
            try:
                pattern = to_rust(pattern, self.syntax == "basic")
            except ValueError as exc:
                raise Refused(f"unsupported regex: {exc}") from None
        return "grep", {
            "pattern": pattern, "path": paths[0] if paths else default_path, "include": include,
            "ignore_case": bool(self.ignore_case), "fixed_strings": self.syntax == "fixed",
            "max_count": self.max_count,
        }


_GLOB_CHARS = re.compile(r"[*?\[]")


def _operand_glob(path: str) -> str:
    """A glob anchored at the workspace (ripgrep: a leading `/`) for one operand as the shell gave it: a glob
    as it is, a folder (a trailing `/`, or no extension) with everything under it, a file by its name."""
    path = path[2:] if path.startswith("./") else path
    if not _GLOB_CHARS.search(path) and (path.endswith("/") or "." not in path.rsplit("/", 1)[-1]):
        path = path.rstrip("/") + "/**"
    return "/" + path.lstrip("/")


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
    if rg and "--files" in words:
        return _rg_files([w for w in words if w != "--files"])
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
                raise Refused(f"unsupported {label} flag {key}")
        elif word.startswith("-") and word != "-":
            for j, letter in enumerate(word[1:], 1):
                option = "-" + letter
                if option in valued:
                    _value(g, valued[option], word[j + 1:] or _next(it, label, option))
                    break
                if option not in flags:
                    raise Refused(f"unsupported {label} flag {option}")
                flags[option](g)
        else:
            g.operands.append(word)
    if "-" in g.operands:
        raise Refused("reads stdin")
    if g.ignore_case is None:  # rg --smart-case: case-insensitive when the pattern has no capital
        pattern = (g.patterns or g.operands or [""])[0]
        g.ignore_case = not any(ch.isupper() for ch in re.sub(r"\\.", "", pattern))
    return g.call("." if rg or g.recursive else None)


def _rg_files(words: list[str]) -> tuple[str, dict]:
    """`rg --files [-g GLOB]... [DIR]`: the files under DIR, those matching one of the globs."""
    globs, operands = [], []
    it = iter(words)
    for word in it:
        if word in ("-g", "--glob"):
            globs.append(_next(it, "rg", word))
        elif word.startswith(("--glob=", "-g")) and len(word) > 2:
            globs.append(word.split("=", 1)[1] if word.startswith("--glob=") else word[2:])
        elif word.startswith("-"):
            raise Refused(f"unsupported rg flag {word.split('=')[0]}")
        else:
            operands.append(word)
    if any(g.startswith("!") for g in globs):
        raise Refused("negated glob")
    if len(operands) > 1:
        raise Refused("several paths")
    patterns = [g if "/" in g else "**/" + g for g in globs] or ["**/*"]
    return "glob", {"pattern": patterns if len(patterns) > 1 else patterns[0],
                    "path": operands[0] if operands else "."}


def _next(it, label: str, option: str) -> str:
    """The value of an option given as the next word."""
    value = next(it, None)
    if value is None:
        raise Refused(f"unsupported {label} flag {option}")
    return value


def _value(g: _Grep, kind: str, value: str) -> None:
    """An option's value: a pattern, an include glob, rg's sort order."""
    if kind == "pattern":
        g.patterns.append(value)
    elif kind == "sort" and value != "path":
        raise Refused("unsupported rg flag --sort")
    elif kind == "count":
        if not value.isdigit() or int(value) == 0:
            raise Refused("unsupported max count")
        g.max_count = int(value)
    elif kind == "glob":
        if value.startswith("!"):
            raise Refused("negated glob")
        g.include.append(value)


# ------------------------------------------------------------------ find and ls -R

def _find(name: str, words: list[str]) -> tuple[str, dict]:
    """`find [DIR] [-maxdepth N] [-type f] [-name P | -iname P | -path P] [-o -name Q ...] [-print]`; a
    parenthesised alternative `\\( -name A -o -name B \\)` too."""
    paths = []
    while words and not words[0].startswith("-") and words[0] not in ("(", "!"):
        paths.append(words.pop(0))
    if len(paths) > 1:
        raise Refused("several paths")
    start = paths[0] if paths else "."
    tests: list[tuple[str, str]] = []
    depth, alternative = None, False
    it = iter(words)
    for word in it:
        if word in ("-print", "(", ")"):
            continue
        if word == "-o":
            alternative = True
            continue
        value = next(it, None) if word in ("-type", "-name", "-iname", "-path", "-wholename", "-maxdepth") else None
        if word == "-type" and value == "f":
            continue
        if word == "-maxdepth" and value is not None and value.isdigit():
            depth = int(value)
            continue
        if value is None or word in ("-type", "-maxdepth"):
            raise Refused(f"unsupported find predicate {word}" + (f" {value}" if value else ""))
        if tests and not alternative:
            raise Refused("several patterns")
        tests.append((word, value))
        alternative = False
    globs = [_find_glob(test, start) for test in tests] or [_find_glob(None, start)]
    args: dict[str, Any] = {"pattern": globs if len(globs) > 1 else globs[0], "path": start}
    if depth is not None:
        args["max_depth"] = depth
    return "glob", args


def _find_glob(test: tuple[str, str] | None, start: str) -> str:
    """The glob, relative to the start folder, for find's one name or path test."""
    if test is None:
        return "**/*"
    kind, value = test
    if kind in ("-name", "-iname"):
        if "/" in value:
            raise Refused("find -name with a slash")
        return "**/" + (_fold(value) if kind == "-iname" else value)
    prefix = start.rstrip("/") + "/"
    if value.startswith(prefix):
        value = value[len(prefix):]
    elif not value.startswith("*"):
        raise Refused("find -path outside the start folder")
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
        raise Refused("not a search")
    for letter in flags:
        if letter not in "R1":
            raise Refused(f"unsupported ls flag -{letter}")
    if len(operands) > 1:
        raise Refused("several paths")
    return "glob", {"pattern": "**/*", "path": operands[0] if operands else "."}


_PARSERS: dict[str, Callable[[str, list[str]], tuple[str, dict]]] = {
    "grep": _grep_like, "egrep": _grep_like, "fgrep": _grep_like, "rg": _grep_like,
    "find": _find, "ls": _ls,
}
