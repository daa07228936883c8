"""The options each read-only program replay runs may take, read by hand (no shell, no program run): which it
knows, which take a value, which name a file, and which are refused because they would run programs, write files or
leave the workspace (a NotReplayable naming them)."""

from __future__ import annotations

from dataclasses import dataclass

from .shell_words import NotReplayable

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
    # plain, reversed or unique lines: no keys, no numbers (their fields and decimal point are the locale's), no -o
    "sort": _spec("ru", long="reverse unique"),
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
