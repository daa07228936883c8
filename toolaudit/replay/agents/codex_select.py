"""PowerShell's `Select-String`, as Codex on Windows records it: the model's grep there (KongJin/JG, Codex 0.118;
LAF-US/IDAHO-VAULT, Codex 0.116 – 0.121; Real-s/mini-simclr-assignment, Codex 0.142).

`Select-String [-Path] FILE[,FILE…] [-Pattern] REGEX[,REGEX…]` searches each file (a wildcard in its name: the
folder's files in NTFS's order) and `Get-Content FILE … | Select-String REGEX` the lines piped to it. A line
matches when any pattern does: .NET's regex, case aside unless `-CaseSensitive`; `-SimpleMatch` a plain text,
`-NotMatch` the lines none matches, `-List` the first match of each file, `-Context B[,A]` the lines before and
after (each shown once: a match's lines after stop at the next match, and the next one's lines before start after
them). Each match prints as `path:N:line`, its path relative to the working folder (a line piped in: the line
alone); with -Context the match's own line starts `> ` and the others `  `, as MatchInfo.ToString writes them.

Read from the recordings: the host writes an empty line, each line with `\\r\\n`, then two empty lines, and nothing
at all when nothing matched; a line longer than 119 display cells (the console's 120 columns, less the one the
host keeps) is wrapped at spaces and tabs as PowerShell's word wrap does (StringManipulationHelper), a word longer
than a line cut where the line ends; an East Asian wide character takes two cells. A file is read as Get-Content
reads it (agents.codex_powershell: a byte order mark, `-Encoding UTF8`, else the recording machine's code page).
Any other form (a variable, `-Quiet`, `-Raw`, a stage after it, a program's output piped in) is not emulated.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import unicodedata
from dataclasses import dataclass

from .codex_powershell import UTF8_NAMES, content_lines, file_text, full_name, get_content, ntfs_order, text_lines
from .shell_words import NotReplayable, Result

_NAMES = {"select-string", "sls"}
_SWITCHES = {"-simplematch", "-casesensitive", "-notmatch", "-list", "-allmatches"}
_VALUED = {"-path", "-literalpath", "-pattern", "-context", "-encoding"}
_TOKEN = re.compile(r"(?:'[^']*'|\"[^\"$`]*\"|[^\s'\"$`|;(){}@]+)+")  # a word: quoted and bare parts, no script
_PART = re.compile(r"'([^']*)'|\"([^\"]*)\"|([^,'\"]+)|(,)")
_WIDTH = 119  # the display cells a line is wrapped at (module docstring)


@dataclass(frozen=True)
class Search:
    """One `Select-String` form emulated: what it searches for, and in what."""

    patterns: tuple[str, ...]
    paths: tuple[str, ...] = ()  # as written; () when the lines are piped in
    literal: bool = False  # -LiteralPath: no wildcard
    piped: tuple | None = None  # the Get-Content before it (agents.codex_powershell.get_content)
    simple: bool = False
    case: bool = False
    negate: bool = False
    first: bool = False  # -List
    context: tuple[int, int] | None = None
    utf8: bool = False


@functools.lru_cache(maxsize=256)  # asked by the recording's noise, the reads and the run of one call
def select_string(command: str) -> Search | None:
    """The Select-String a PowerShell command line runs, in the forms emulated, else None."""
    stages = _stages(command)
    piped = get_content("|".join(stages[:-1])) if stages and len(stages) > 1 else None
    if not stages or len(stages) > 1 and (piped is None or piped[2]):  # only Get-Content's lines (not -Raw's)
        return None
    words = _words(stages[-1])
    if not words or not words[0][0] or words[0][0][0].lower() not in _NAMES:  # (a bare `,` holds no value)
        return None
    found: dict[str, list[str]] = {}
    switches, loose = set(), []
    rest = iter(words[1:])
    for values, option in rest:
        name = values[0].lower() if option else ""
        if name in _SWITCHES:
            switches.add(name)
        elif name in _VALUED and name not in found:
            value = next(rest, None)
            if value is None or value[1]:
                return None
            found[name] = value[0]
        elif name:
            return None
        else:
            loose.append(values)
    for key in ("-pattern", "-path"):  # the positions: the pattern, then the path
        if key not in found and loose:
            found[key] = loose.pop(0)
    paths = found.get("-path", []) + found.get("-literalpath", [])
    context = _context(found.get("-context"))
    encoding = found.get("-encoding", ["utf8"])[0].lower()
    if loose or not found.get("-pattern") or bool(paths) == bool(piped) or context is False \
            or encoding not in UTF8_NAMES or "-path" in found and "-literalpath" in found:
        return None
    return Search(tuple(found["-pattern"]), tuple(paths), "-literalpath" in found, piped, "-simplematch" in switches,
                  "-casesensitive" in switches, "-notmatch" in switches, "-list" in switches, context or None,
                  "-encoding" in found)


def shows_text(command: str) -> bool:
    """Whether a PowerShell line prints a file's text, in a form emulated (Get-Content, Select-String): its recorded
    output tells the recording machine's code page."""
    return get_content(command) is not None or select_string(command) is not None


def _stages(command: str) -> list[str]:
    """A line's pipeline stages, cut at each `|` outside quotes."""
    stages, current = [], ""
    for part in re.findall(r"'[^']*'?|\"[^\"]*\"?|[^'\"|]+|\|", command):
        if part == "|":
            stages.append(current)
            current = ""
        else:
            current += part
    return stages + [current]


def _words(text: str) -> list[tuple[list[str], bool]] | None:
    """A stage's words: each its comma-separated values, unquoted, and whether it is an option (a bare `-Name`);
    None when the stage holds a script (a variable, a block, a subexpression)."""
    words, text, at = [], text.strip(), 0
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None:
            return None
        token = found.group(0)
        values = [a or b or c for a, b, c, comma in _PART.findall(token) if not comma]
        if words and (token.startswith(",") or words[-1][2]):  # `'a', 'b'`: one list, written apart
            words[-1] = (words[-1][0] + values, False, token.endswith(","))
        else:
            words.append((values, bool(re.fullmatch(r"-[A-Za-z]+", token)), token.endswith(",")))
        at = found.end()
        while at < len(text) and text[at].isspace():
            at += 1
    return [(values, option) for values, option, _ in words]


def _context(value: list[str] | None) -> tuple[int, int] | None | bool:
    """-Context B[,A]'s lines before and after (one number: both); None without it, False when not numbers."""
    if value is None:
        return None
    if not 1 <= len(value) <= 2 or not all(re.fullmatch(r"[0-9]{1,4}", v) for v in value):
        return False
    return int(value[0]), int(value[-1])


def run_select_string(ws, search: Search, ansi: str | None = None) -> Result:
    """What PowerShell printed for `search` in workspace `ws` (agents.shell_readonly.Workspace)."""
    matches = _matcher(search)
    shown: list[str] = []
    if search.piped is not None:
        path, kept, _, utf8, numbered = search.piped
        shown += _search(content_lines(ws, path, kept, utf8, numbered, ansi), matches, search, None)
    for target in _files(ws, search):
        lines = text_lines(file_text(target, search.utf8, ansi))
        shown += _search(lines, matches, search, _display(ws, target))
    if not shown:
        return Result(out=b"")
    wrapped = [part for line in shown for part in wrap(line)]
    return Result(out=("\r\n" + "".join(line + "\r\n" for line in wrapped) + "\r\n\r\n").encode())


def _matcher(search: Search):
    """A line's test: any pattern found in it (.NET's regex as Python's; `(?<name>` as `(?P<name>`)."""
    if search.simple:
        needles = [p if search.case else p.casefold() for p in search.patterns]
        return lambda line: any(n in (line if search.case else line.casefold()) for n in needles)
    try:
        compiled = [re.compile(re.sub(r"\(\?<(?=[A-Za-z_])", "(?P<", p), 0 if search.case else re.IGNORECASE)
                    for p in search.patterns]
    except re.error as exc:
        raise NotReplayable(f"Select-String's pattern is not read as .NET reads it ({exc})") from None
    return lambda line: any(c.search(line) for c in compiled)


def _search(lines: list[str], matches, search: Search, path: str | None) -> list[str]:
    """The lines Select-String prints for one file's (or the pipeline's) lines."""
    hits = [at for at, line in enumerate(lines) if bool(matches(line)) != search.negate]
    hits = hits[:1] if search.first and path is not None else hits
    before, after = search.context or (0, 0)
    out, shown_to = [], -1
    for k, at in enumerate(hits):
        upto = min(at + after, (hits[k + 1] - 1) if k + 1 < len(hits) else len(lines) - 1)
        mark = "" if search.context is None else "> "
        for j in range(max(at - before, shown_to + 1), upto + 1):
            prefix = mark if j == at else ("" if search.context is None else "  ")
            out.append(f"{prefix}{path}:{j + 1}:{lines[j]}" if path is not None else f"{prefix}{lines[j]}")
        shown_to = upto
    return out


def _files(ws, search: Search):
    """The files `-Path` names, in order: a wildcard in a name as the folder's matching files in NTFS's order."""
    for written in search.paths:
        relative = re.sub(r"/+", "/", written.replace("\\", "/"))
        folder, _, name = relative.rpartition("/")
        if search.literal or not any(ch in name for ch in "*?["):
            if any(ch in folder for ch in "*?["):
                raise NotReplayable(f"Select-String's path {written} has a wildcard in a folder")
            target = ws.cwd / ws.inside(relative)
            if not target.is_file():
                raise NotReplayable(f"Select-String of {written}, which the replay folder lacks (PowerShell's error "
                                    "text)")
            yield target
            continue
        if any(ch in folder for ch in "*?["):
            raise NotReplayable(f"Select-String's path {written} has a wildcard in a folder")
        where = ws.cwd / ws.inside(folder or ".")
        if not where.is_dir():  # the recording machine's folder, no commit holds: what it held is not known
            raise NotReplayable(f"Select-String of {written}, whose folder the replay folder lacks")
        found = [e for e in os.scandir(where) if fnmatch.fnmatchcase(e.name.lower(), name.lower())]
        if any(e.is_dir() for e in found):
            raise NotReplayable(f"Select-String's {written} names a folder (PowerShell's error text)")
        yield from (where / e.name for e in sorted(found, key=lambda e: ntfs_order(e.name)))


def _display(ws, target) -> str:
    """A file's path as MatchInfo prints it: below the working folder, relative to it; else whole (Windows')."""
    inside = os.path.relpath(target, ws.cwd)
    if not inside.startswith(".."):
        return inside.replace("/", "\\")
    return full_name(ws.shown).rstrip("\\") + "\\" + os.path.relpath(target, ws.root).replace("/", "\\")


def wrap(line: str, width: int = _WIDTH) -> list[str]:
    """A line as PowerShell's host word-wraps it at `width` display cells (a word keeps the space after it)."""
    if _cells(line) <= width:
        return [line]
    out, current, left = [], "", width
    for word in re.findall(r"[^ \t]*[ \t]|[^ \t]+$", line):
        size = _cells(word)
        if size > width:  # longer than a line: cut where each line ends
            for ch in word:
                if _cells(ch) > left:
                    out.append(current)
                    current, left = "", width
                current, left = current + ch, left - _cells(ch)
        elif size > left:
            out.append(current)
            current, left = word, width - size
        else:
            current, left = current + word, left - size
    return out + [current]


def _cells(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
