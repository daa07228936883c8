"""PowerShell's `Get-Content FILE`, as Codex on Windows records it: Codex runs its shell commands in the user's
PowerShell there, and Get-Content is how the model reads a file (Real-s/mini-simclr-assignment, Codex 0.142;
LAF-US/IDAHO-VAULT, Codex 0.116 – 0.121).

Get-Content reads the file as lines (split at `\\r\\n`, `\\n` or `\\r`; a final line break ends the last line, it
starts no empty one) and PowerShell's host writes each line with Windows' `\\r\\n`. `-Raw` reads the whole file as one
string, written as it is and followed by the host's `\\r\\n`. `-Encoding UTF8` (or utf8, utf8NoBOM) reads UTF-8, a
byte order mark dropped; `-Path` or `-LiteralPath` may name the file; `-TotalCount N` (`-Head`,
`-First`) or `| Select-Object -First N` keeps the first N lines, `-Tail N` or `-Last N` the last, `-Skip N` all but
the first N, `-Index 49..66` (0-based, both ends in) those; `| ForEach-Object … '{0,4}: {1}' -f $i++, $_` numbers
them, as does `$i=1; … | ForEach-Object { '{0,4}: {1}' -f $i, $_; $i++ }`. A first `Set-Location X;` is the folder the
rest runs in (agents.codex's command_of, replay.inline_powershell). Any other form (a wildcard, another cmdlet, a
variable, another script block) is not emulated.

Without `-Encoding`, Windows PowerShell 5.1 (the `powershell` Codex runs) reads a file that has no byte order mark in
the machine's ANSI code page: a UTF-8 file's `—` comes out `â€”` under cp1252 (IDAHO-VAULT, every `Get-Content -Raw`
of a note), its `图` as `鍥` under cp936 (mini-simclr-assignment). No transcript records that code page, nor whether
the machine's git checked files out with `\\r\\n` (core.autocrlf, Git for Windows' default: IDAHO-VAULT's notes are
committed with `\\n` and read with `\\r\\n`): both are the recording machine's settings, read from the recorded output
as its wall time is (`ansi`, `crlf`: agents.codex's from_recording), and the file's text is what the replay compares;
an output beyond ASCII that no ANSI page explains was read as UTF-8 (PowerShell 7, or a UTF-8 code page).
cp1252's five undefined bytes come out as the code points of the same number, as Windows maps them.
"""

from __future__ import annotations

import functools
import re

from ..winpath import posix_form, windows_form
from .shell_words import NotReplayable, Result

_WORD = re.compile(r"\s*('[^']*'|\"[^\"$`]*\"|[^\s|;'\"$`(){}]+)")  # a quoted or bare word: no variable, no script
# `| Select-Object -First N` (-Last N, -Skip N, -Index 49..66 or (49..66) or 3,5): the lines it keeps
_NUMBERS = r"\(\s*\d{1,9}\s*\.\.\s*\d{1,9}\s*\)|\d{1,9}\s*\.\.\s*\d{1,9}|\d{1,9}(?:\s*,\s*\d{1,9})*"
_PICK = re.compile(rf"\s+-(First|Last|Skip|Index)\s+({_NUMBERS})", re.IGNORECASE)
_PIPE = re.compile(rf"\s*Select-Object((?:{_PICK.pattern})+)\s*", re.IGNORECASE)
# `| ForEach-Object -Begin {$i=1} -Process { '{0,4}: {1}' -f $i++, $_ }`: each line after its number (.NET's {0,4}:
# right-aligned in 4 columns, {0,-4} left), LAF-US/IDAHO-VAULT's way to read a note with line numbers
_NUMBERED = re.compile(r"\s*ForEach-Object\s+-Begin\s*\{\s*\$i\s*=\s*(\d+)\s*\}\s+-Process\s*\{\s*"
                       r"'\{0,(-?\d+)\}([^'{}]*)\{1\}'\s+-f\s+\$i\+\+\s*,\s*\$_\s*\}\s*", re.IGNORECASE)
# `$i=1; Get-Content x | ForEach-Object { '{0,4}: {1}' -f $i, $_; $i++ }`: the same numbering, its counter set first
_COUNTER = re.compile(r"\s*\$i\s*=\s*(\d+)\s*;(.*)", re.S)
_COUNTED = re.compile(r"\s*ForEach-Object\s*\{\s*'\{0,(-?\d+)\}([^'{}]*)\{1\}'\s+-f\s+\$i\s*,\s*\$_\s*;\s*"
                      r"\$i\+\+\s*;?\s*\}\s*", re.IGNORECASE)
CONTENT_NAMES = {"get-content", "gc", "cat", "type"}  # the cmdlet and its aliases (`cat` is no GNU cat there)
UTF8_NAMES = {"utf8", "utf8nobom", "utf-8"}
_LINES = re.compile(r"\r\n|\n|\r")
ANSI = ("cp1252", "cp936")  # the ANSI code pages told apart (Western European, Simplified Chinese)
_UNDEFINED = {0x81, 0x8D, 0x8F, 0x90, 0x9D}  # cp1252's bytes with no character: Windows maps each to its own number
# cp1252 over latin-1: 0x80 - 0x9F are cp1252's characters there (a table: a file is read at C speed)
_CP1252 = {b: bytes([b]).decode("cp1252") for b in range(0x80, 0xA0) if b not in _UNDEFINED}


@functools.lru_cache(maxsize=256)  # asked by the recording's noise, the reads and the run of one call
def get_content(command: str) -> tuple[str, tuple | None, bool, bool, tuple[int, int, str] | None] | None:
    """(the file a `Get-Content` command line reads, as written; the lines it keeps, in order (`-TotalCount`/
    `-Head`/`-First` N, `-Tail` N, `| Select-Object -First/-Last/-Skip/-Index`: (how, N or the indexes) each); -Raw;
    -Encoding UTF8; the numbering a `ForEach-Object` adds (first number, width, separator)) for the forms emulated,
    else None."""
    counter = _COUNTER.fullmatch(command)
    head, *stages = (counter.group(2) if counter else command).split("|")
    kept: list[tuple] = []
    numbered = None
    for stage in stages:
        first, number = _PIPE.fullmatch(stage), _NUMBERED.fullmatch(stage)
        counted = _COUNTED.fullmatch(stage) if counter else None
        picks = _picks(first.group(1)) if first and numbered is None else None
        if picks is not None:
            kept += picks
        elif number and numbered is None and not counter:
            numbered = (int(number.group(1)), int(number.group(2)), number.group(3))
        elif counted and numbered is None:
            numbered = (int(counter.group(1)), int(counted.group(1)), counted.group(2))
        else:
            return None
    if counter and numbered is None:
        return None
    words = ps_words(head)
    if not words or words[0].lower() not in CONTENT_NAMES:
        return None
    path, literal, raw, utf8, read = None, False, False, False, []
    rest = iter(words[1:])
    for word in rest:
        option = word.lower()
        if option in ("-path", "-literalpath"):
            literal, word = option == "-literalpath", next(rest, None)
            if word is None or path is not None:
                return None
            path = word
        elif option == "-raw":
            raw = True
        elif option == "-encoding":
            utf8 = (next(rest, None) or "").lower() in UTF8_NAMES
            if not utf8:
                return None
        elif option in ("-totalcount", "-head", "-first", "-tail", "-last"):
            count = next(rest, None) or ""
            if not re.fullmatch(r"[0-9]{1,9}", count) or read:  # not isdigit: '²' is a digit int() refuses
                return None
            read.append(("last" if option in ("-tail", "-last") else "first", int(count)))
        elif word.startswith("-") or path is not None:
            return None
        else:
            path = word
    kept = read + kept  # Get-Content's own count, then each stage of the pipeline
    if path is None or (raw and (kept or numbered)):  # -Raw is one string: lines are not emulated with it
        return None
    path = path[1:-1] if path[:1] in "'\"" else path
    if not literal and any(ch in path for ch in "*?["):  # -Path's wildcards
        return None
    return path, tuple(kept) or None, raw, utf8, numbered


def _picks(options: str) -> list[tuple] | None:
    """What one `Select-Object` keeps, in the order it applies them (-Skip before -First), or None for a mix not
    emulated (-Last or -Index with another)."""
    found = {how.lower(): value for how, value in _PICK.findall(options)}
    if len(found) != len(_PICK.findall(options)) or len(found) > 1 and set(found) != {"skip", "first"}:
        return None
    picks = []
    for how in ("skip", "first", "last", "index"):
        if how not in found:
            continue
        value = found[how].strip("() ")
        if how != "index":
            if not re.fullmatch(r"[0-9]{1,9}", value):  # `-First 1..3`: a count is one number
                return None
            picks.append((how, int(value)))
        elif ".." in value:  # a range, both ends in it, either way round (kept as its ends: `0..999999999`)
            low, high = sorted(int(n) for n in value.split(".."))
            picks.append((how, ((low, high),)))
        else:
            picks.append((how, tuple((int(n), int(n)) for n in value.split(","))))
    return picks


def _keep(lines: list[str], kept: tuple | None) -> list[str]:
    """The lines `kept` (get_content's) leaves, as Get-Content and each Select-Object pass them on."""
    for how, value in kept or ():
        if how == "first":
            lines = lines[:value]
        elif how == "last":
            lines = lines[len(lines) - value:] if value else []
        elif how == "skip":
            lines = lines[value:]
        else:  # -Index: those lines, in the file's order, each once
            lines = [line for at, line in enumerate(lines) if any(low <= at <= high for low, high in value)]
    return lines


def full_name(folder: str) -> str:
    """A recorded working folder as PowerShell prints a path under it (FullName, MatchInfo's Path): `\\` between its
    parts and the drive's letter upper case, however Codex was given it (KongJin/JG's `C:/Users/SOL/Documents/JG`,
    LAF-US/IDAHO-VAULT's `c:\\Users\\loganf\\…` print `C:\\Users\\…`): replay.winpath's forms there and back."""
    return windows_form(posix_form(folder))


def ntfs_order(name: str) -> str:
    """The key a folder's names come out of NTFS in: its upcase table's order (`bmm` before `_memory`)."""
    return name.upper()


def ps_words(text: str) -> list[str] | None:
    """`text` split into PowerShell words (quoted or bare), or None when anything else is in it."""
    words, at = [], 0
    while at < len(text.rstrip()):
        found = _WORD.match(text, at)
        if found is None:
            return None
        words.append(found.group(1))
        at = found.end()
    return words


def recorded_ansi(body: str) -> str | None:
    """The code page a recorded Get-Content output was read in: the first of ANSI whose bytes of the recorded text
    are UTF-8 (the file's UTF-8 read byte by byte); else, for text beyond ASCII, UTF-8 itself (PowerShell 7, or a
    machine whose code page is UTF-8: KongJin/JG's Korean notes come out whole); None when the text is ASCII."""
    if body.isascii():
        return None
    for page in ANSI:
        try:
            _encode(body, page).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
        return page
    return "utf-8"


def run_get_content(ws, path: str, kept: tuple | None, raw: bool = False, utf8: bool = True,
                    numbered: tuple[int, int, str] | None = None, ansi: str | None = None,
                    crlf: bool = False) -> Result:
    """What PowerShell printed for `Get-Content path` in workspace `ws` (agents.shell_readonly.Workspace); `ansi`
    and `crlf`: the recording machine's code page and checkout (module docstring)."""
    if raw:
        return Result(out=(file_text(_target(ws, path), utf8, ansi, crlf) + "\r\n").encode())
    lines = content_lines(ws, path, kept, utf8, numbered, ansi, crlf)
    return Result(out="".join(line + "\r\n" for line in lines).encode())


def content_lines(ws, path: str, kept: tuple | None, utf8: bool = True, numbered: tuple[int, int, str] | None = None,
                  ansi: str | None = None, crlf: bool = False) -> list[str]:
    """The lines `Get-Content path` passes on (to the host, or down a pipeline), kept and numbered."""
    lines = _keep(text_lines(file_text(_target(ws, path), utf8, ansi, crlf)), kept)
    if numbered is not None:
        start, width, between = numbered
        align = ">" if width >= 0 else "<"
        lines = [f"{start + i:{align}{abs(width)}}{between}{line}" for i, line in enumerate(lines)]
    return lines


def _target(ws, path: str):
    target = ws.cwd / ws.inside(re.sub(r"/+", "/", path.replace("\\", "/")))
    if not target.is_file():
        raise NotReplayable(f"Get-Content of {path}, which the replay folder lacks (PowerShell's error text)")
    return target


def file_text(target, utf8: bool, ansi: str | None, crlf: bool = False) -> str:
    """A file's text as PowerShell reads it (module docstring: the code page, the checkout's line breaks)."""
    data = target.read_bytes()
    if crlf and b"\r\n" not in data:  # the recording machine's git checked it out with Windows' line breaks
        data = data.replace(b"\n", b"\r\n")
    return _decode(data, utf8, ansi or ANSI[0])


def text_lines(text: str) -> list[str]:
    """A text's lines as PowerShell reads them: split at any line break, a final one starting no empty line."""
    lines = _LINES.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _decode(data: bytes, utf8: bool, ansi: str) -> str:
    """A file's text as Get-Content reads it: a byte order mark decides, else -Encoding UTF8, else the code page."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    if utf8:
        return data.decode("utf-8", "replace")
    if ansi == "cp1252":
        return data.decode("latin-1").translate(_CP1252)
    return data.decode(ansi, "replace")  # cp936, or utf-8


def _encode(text: str, page: str) -> bytes:
    if page == "cp1252":
        return b"".join(bytes([ord(ch)]) if ord(ch) in _UNDEFINED else ch.encode("cp1252") for ch in text)
    return text.encode(page)
