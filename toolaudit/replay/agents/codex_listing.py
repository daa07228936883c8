"""PowerShell's `Get-ChildItem` where it prints names, as Codex on Windows records it: `-Name`,
`| Select-Object -ExpandProperty FullName` (or `Name`, with `-First N`/`-Last N`), `| ForEach-Object { $_.Name }`,
`| Sort-Object Name [-Descending]`, `| Measure-Object | Select-Object -ExpandProperty Count`, over `-Path`/
`-LiteralPath` (or operands, a comma list), `-Recurse`, `-Depth N`, `-File`, `-Directory`, `-Force`, `-Filter`,
`-Include`/`-Exclude` with `-Recurse`. Its default table of one folder is agents.codex_table's; no other stage
(`Where-Object`, `Format-Table`) is emulated.

Read from the recordings (devangshupandey2025-stack/DevSage, Codex 0.104; KongJin/JG, Codex 0.118): each name is
written with `\\r\\n`; a folder's folders come before its files, each in the order of a listing
(`_config`, `_memory`, `bmm`: case aside, `_` before the letters); with `-Recurse` a folder's own items come before
those of its subfolders, which are walked in NTFS's order (upper-cased, code by code: `bmm`, `core`, `tea`,
`_memory`). A name differing only in order is counted as reordered. `.git` is hidden on Windows (Git for
Windows' core.hideDotFiles): only `-Force` shows it, and a `-Recurse -Force` into it lists the recording machine's
repository, which is not replayed. FullName is the recorded working folder's, with Windows' backslashes.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .codex_powershell import (CONTENT_NAMES, full_name, get_content, ntfs_order, ps_words, recorded_ansi,
                               run_get_content)
from .codex_select import run_select_string, select_string, shows_text
from .codex_table import LOCATION, location, settings as table_settings, table
from .shell_words import NotReplayable, Result

_ALIASES = {"get-childitem", "gci", "ls", "dir"}  # PowerShell's own names for it (`ls` is no GNU ls there)
_SWITCHES = {"-recurse", "-file", "-directory", "-force", "-name"}
_VALUED = {"-path", "-literalpath", "-filter", "-include", "-exclude", "-erroraction", "-ea", "-depth"}
_SHOWN = {"fullname": "fullname", "name": "name"}
_EACH = re.compile(r"\s*(?:ForEach-Object|%)\s*(?:\{\s*\$_\.(FullName|Name)\s*\}|(FullName|Name))\s*", re.I)
_COUNT = re.compile(r"\s*Select-Object\s+-ExpandProperty\s+Count\s*", re.I)


@dataclass(frozen=True)
class Listing:
    """One `Get-ChildItem` form emulated: what it lists, and how the names are printed."""

    paths: tuple[str, ...] = (".",)
    literal: bool = False
    recurse: bool = False
    depth: int | None = None
    files: bool = False
    dirs: bool = False
    force: bool = False
    pattern: str | None = None  # -Filter
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    show: str = ""  # name, fullname, relative (`-Name` with -Recurse) or count
    first: int | None = None
    last: int | None = None
    order: str = ""  # Sort-Object's property (name, fullname), "" for the walk's order
    descending: bool = False


@functools.lru_cache(maxsize=256)  # asked by the reads and the run of one call
def listing(command: str) -> Listing | None:
    """The form a `Get-ChildItem` command line has, when it is emulated (module docstring), else None."""
    head, *stages = command.split("|")
    words = ps_words(head)
    if not words or words[0].lower() not in _ALIASES:
        return None
    found = _options(words[1:])
    if found is None:
        return None
    options, paths = found
    recurse = "-recurse" in options or "-depth" in options
    if (options.get("-include") or options.get("-exclude")) and not recurse:
        return None  # without -Recurse, Windows PowerShell applies them to the folder itself: nothing listed
    depth = options.get("-depth")
    if depth is not None and not depth.isdigit():
        return None
    base = Listing(tuple(paths) or (".",), "-literalpath" in options, recurse, int(depth) if depth else None,
                   "-file" in options, "-directory" in options, "-force" in options, options.get("-filter"),
                   _list(options.get("-include")), _list(options.get("-exclude")),
                   ("relative" if recurse else "name") if "-name" in options else "")
    if not stages and not base.show and not recurse and len(base.paths) == 1:  # the default table of one folder
        return Listing(**{**base.__dict__, "show": "table"})
    return _stages(base, stages)


def _options(words: list[str]) -> tuple[dict[str, str], list[str]] | None:
    options: dict[str, str] = {}
    paths: list[str] = []
    at = 0
    while at < len(words):
        word, low = words[at], words[at].lower()
        if low in _SWITCHES:
            options[low] = ""
        elif low in _VALUED and at + 1 < len(words):
            at += 1
            value = _unquoted(words[at])
            if low in ("-path", "-literalpath"):
                paths += _list(value)
            options[low] = value
        elif word.startswith("-"):
            return None
        elif not paths and "-path" not in options and "-literalpath" not in options:
            paths += _list(_unquoted(word))
        elif "-filter" not in options:  # the second operand is -Filter's
            options["-filter"] = _unquoted(word)
        else:
            return None
        at += 1
    if any(any(ch in p for ch in "*?[") for p in paths) and "-literalpath" not in options:
        return None  # a wildcard path: what it matches is listed otherwise
    return options, paths


def _stages(base: Listing, stages: list[str]) -> Listing | None:
    """The pipeline's stages applied to `base`, or None for a stage not emulated."""
    fields: dict = {}
    counting = False
    for stage in stages:
        words = ps_words(stage)
        name = words[0].lower() if words else ""
        each = _EACH.fullmatch(stage)
        if counting:
            if not _COUNT.fullmatch(stage) or "show" in fields:
                return None
            fields["show"] = "count"
        elif each and not (base.show or fields.get("show")):
            fields["show"] = (each.group(1) or each.group(2)).lower()
        elif name == "measure-object" and len(words) == 1:
            counting = True
        elif name == "sort-object" and not fields.get("show") and not base.show:
            rest = [w.lower() for w in words[1:]]
            fields["descending"] = "-descending" in rest
            keys = [w for w in rest if w != "-descending"]
            if len(keys) > 1 or keys and keys[0] not in ("name", "fullname"):
                return None
            fields["order"] = keys[0] if keys else "name"
        elif name == "select-object":
            if not _select(words[1:], fields, shown=bool(base.show)):
                return None
        else:
            return None
    listed = Listing(**{**base.__dict__, **fields})
    return listed if listed.show and not counting or listed.show == "count" else None


def _select(words: list[str], fields: dict, shown: bool) -> bool:
    """`Select-Object -ExpandProperty P -First N -Last N` into `fields`; False for any other form."""
    at = 0
    while at + 1 < len(words):
        option, value = words[at].lower(), words[at + 1]
        if option == "-expandproperty" and value.lower() in _SHOWN and not shown and "show" not in fields:
            fields["show"] = _SHOWN[value.lower()]
        elif option in ("-first", "-last") and value.isdigit() and "first" not in fields and "last" not in fields:
            fields[option[1:]] = int(value)
        else:
            return False
        at += 2
    return at == len(words)


def _unquoted(word: str) -> str:
    return word[1:-1] if word[:1] in "'\"" and word[-1:] == word[:1] else word


def _list(value: str | None) -> tuple[str, ...]:
    return tuple(_unquoted(v.strip()) for v in value.split(",") if v.strip()) if value else ()


def run_listing(ws, listed: Listing, params: dict | None = None) -> Result:
    """What PowerShell printed for `listed` in workspace `ws` (agents.shell_readonly.Workspace); `params`: the
    recording machine's settings a table is printed in (agents.codex_table)."""
    items: list[tuple[Path, Path]] = []  # (the item, the folder listed), in PowerShell's order
    for path in listed.paths:
        target = ws.cwd / ws.inside(re.sub(r"/+", "/", path.replace("\\", "/")))
        if not target.exists():
            raise NotReplayable(f"Get-ChildItem of {path}, which the replay folder lacks (PowerShell's error text)")
        if target.is_file():
            items.append((target, target.parent))
            continue
        items += [(item, target) for item in _walk(target, listed, 0)]
    if listed.show == "table":
        folder = items[0][1] if items else ws.cwd  # nothing listed prints nothing: no header to name it in
        return table([item for item, _ in items], _shown(ws, folder, folder, "fullname"), params or {})
    if listed.order:
        items.sort(key=lambda pair: _key(pair[0].name if listed.order == "name" else str(pair[0])),
                   reverse=listed.descending)
    if listed.show == "count":
        return Result(out=f"{len(items)}\r\n".encode())
    names = [_shown(ws, item, folder, listed.show) for item, folder in items]
    if listed.first is not None:
        names = names[:listed.first]
    if listed.last is not None:
        names = names[len(names) - listed.last:] if listed.last else []
    return Result(out="".join(name + "\r\n" for name in names).encode(), walked="Get-ChildItem" if listed.recurse
                  else "")


def _walk(folder: Path, listed: Listing, level: int):
    """The items of `folder` as Get-ChildItem lists them: its folders, then its files, then (-Recurse) each
    folder's own items in the same order."""
    entries = [e for e in os.scandir(folder) if listed.force or e.name != ".git"]
    if listed.force and listed.recurse and any(e.name == ".git" for e in entries):
        raise NotReplayable("Get-ChildItem -Recurse -Force lists the recording machine's .git folder")
    folders = sorted((Path(e.path) for e in entries if e.name == ".git" or e.is_dir()), key=lambda p: _key(p.name))
    files = sorted((Path(e.path) for e in entries if e.name != ".git" and not e.is_dir()), key=lambda p: _key(p.name))
    for item in (folders if not listed.files else []) + (files if not listed.dirs else []):
        if _matches(item.name, listed):
            yield item
    if listed.recurse and (listed.depth is None or level < listed.depth):
        for sub in sorted(folders, key=lambda p: ntfs_order(p.name)):  # the walk goes in the disk's order
            if sub.name != ".git":
                yield from _walk(sub, listed, level + 1)


def _matches(name: str, listed: Listing) -> bool:
    """Whether -Filter, -Include and -Exclude keep `name` (Windows' wildcards, case aside)."""
    low = name.lower()
    if listed.pattern and not fnmatch.fnmatchcase(low, listed.pattern.lower()):
        return False
    if listed.include and not any(fnmatch.fnmatchcase(low, p.lower()) for p in listed.include):
        return False
    return not any(fnmatch.fnmatchcase(low, p.lower()) for p in listed.exclude)


def _key(name: str) -> str:
    return name.casefold()


def _shown(ws, item: Path, folder: Path, show: str) -> str:
    """An item as printed: its name, its path below the folder listed (`-Name -Recurse`), or its full Windows path
    under the recorded working folder."""
    if show == "name":
        return item.name
    if show == "relative":
        return os.path.relpath(item, folder).replace("/", "\\")
    inside = os.path.relpath(item, ws.root).replace("/", "\\")
    return full_name(ws.shown).rstrip("\\") + ("" if inside == "." else "\\" + inside)


def run_powershell(ws, command: str, params: dict) -> Result | None:
    """What PowerShell printed for the `Get-Content`, `Get-ChildItem`, `Select-String` and `Get-Location` forms
    emulated (params: the recording machine's settings, agents.codex_powershell and agents.codex_table), None for any
    other command line."""
    read = get_content(command)
    if read is not None:
        return run_get_content(ws, *read, ansi=params.get("ansi"), crlf=bool(params.get("crlf")))
    listed = listing(command)
    if listed is not None:
        return run_listing(ws, listed, params)
    search = select_string(command)
    if search is not None:  # agents.codex_select
        return run_select_string(ws, search, params.get("ansi"))
    if LOCATION.fullmatch(command):  # PowerShell's pwd (agents.codex_table)
        if params.get("pwsh"):
            raise NotReplayable("PowerShell 7's Get-Location table (its header coloured) is not emulated")
        return location(_shown(ws, ws.cwd, ws.cwd, "fullname"))
    first = (ps_words(command.split("|")[0]) or [""])[0].lower()
    if first in _ALIASES:
        raise NotReplayable(f"PowerShell's Get-ChildItem ({first}) in a form not emulated")
    if first in CONTENT_NAMES:
        raise NotReplayable(f"PowerShell's Get-Content ({first}) in a form not emulated")
    return None


def recorded_settings(script: str, body: str) -> dict[str, str]:
    """The recording machine's settings a Windows command line's recorded output shows: the code page and checkout a
    text was read in (agents.codex_powershell), the culture and console width of a table (agents.codex_table)."""
    found: dict[str, str] = {}
    if shows_text(script):
        page = recorded_ansi(body)
        found.update({"ansi": page} if page else {})
        shown = body.removesuffix("\r\n")  # the host's own line break after -Raw's text says nothing
        found.update({"crlf": "1"} if "\r\n" in shown and get_content(script) else {})
    listed = listing(script)
    if listed is not None and listed.show == "table":
        found.update(table_settings(body))
    if LOCATION.fullmatch(script) and "\x1b[" in body:  # PowerShell 7 colours a table's header (Windows' 5.1 does not)
        found["pwsh"] = "1"
    return found
