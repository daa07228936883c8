"""Get-ChildItem's default table, as Windows PowerShell 5.1 prints it for Codex on Windows (`Get-ChildItem`, `ls`,
`dir` of one folder or file, no stage after it): the folder's group header, then a row per item of its Mode, its
LastWriteTime, its Length and its Name.

Read from the recordings of the tuning set (LAF-US/IDAHO-VAULT and obitoo2005/Solit in en-US, Real-s/
mini-simclr-assignment in zh-CN, KongJin/JG in ko-KR) and FileSystem.format.ps1xml's `children` view: two empty
lines, `    Directory: C:\\…` (the label in the machine's language), two more, the header and its dashes, the rows,
then two empty lines, every line ended with `\\r\\n`. The columns are Mode (7, left), LastWriteTime (26, right:
`[String]::Format("{0,10}  {1,8}", $_.LastWriteTime.ToString("d"), $_.LastWriteTime.ToString("t"))`), Length (14,
right; empty for a folder) and Name, one space apart; each line is padded with spaces to the console's width less
one, counted in characters (JG's `오후` rows are 119 characters, 121 cells). Mode is `d-----` for a folder (`d--h--`
for `.git`, which Git for Windows hides) and `-a----` for a file, whose archive bit a checkout sets.

The culture (the label and the date and time formats) and the console's width are the recording machine's settings:
read from the recorded table (`settings`), as the code page is (agents.codex_powershell). The times are the replay
folder's own (a checkout's), in this machine's time zone: the recorded ones are the recording machine's, which no
commit keeps, so such a call is at best within ±1%, never byte-identical. PowerShell 7's coloured table, a culture
not listed here, several folders (a comma list) and `-Recurse` (one group per folder) are not emulated.

`Get-Location` (`pwd`, `gl`: PowerShell's names for it, never POSIX's pwd) prints its PathInfo as a table of one
column: an empty line, `Path` and `----` each padded to the path's width, the path, then two empty lines (IDAHO-VAULT's
`pwd` and `Get-Location`). The path is the working folder's, as PowerShell writes it (agents.codex_powershell's
full_name); nothing in it is the machine's, so it needs no setting. PowerShell 7 colours the header (as its tables,
devangshupandey2025-stack/DevSage's): a recorded output with colours says that it ran, and is not emulated.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from .shell_words import NotReplayable, Result


def _en_us(when: datetime) -> tuple[str, str]:
    return f"{when.month}/{when.day}/{when.year}", f"{when.hour % 12 or 12}:{when.minute:02} " + \
        ("AM" if when.hour < 12 else "PM")


def _zh_cn(when: datetime) -> tuple[str, str]:
    return f"{when.year}/{when.month}/{when.day}", f"{when.hour}:{when.minute:02}"


def _ko_kr(when: datetime) -> tuple[str, str]:
    return f"{when.year}-{when.month:02}-{when.day:02}", \
        ("오전" if when.hour < 12 else "오후") + f" {when.hour % 12 or 12}:{when.minute:02}"


# culture: (the group header's label, the dates and times it writes, a recorded row's time in it)
CULTURES = {
    "en-US": ("Directory", _en_us, r"\d{1,2}/\d{1,2}/\d{4} +\d{1,2}:\d\d [AP]M"),
    "zh-CN": ("目录", _zh_cn, r"\d{4}/\d{1,2}/\d{1,2} +\d{1,2}:\d\d"),
    "ko-KR": ("디렉터리", _ko_kr, r"\d{4}-\d\d-\d\d +(?:오전|오후) \d{1,2}:\d\d"),
}
_WIDEST = 32766  # a Windows console's widest buffer: a wider "console" is no recording's setting
_HEADER = f"{'Mode':<7} {'LastWriteTime':>26} {'Length':>14} Name"
_DASHES = f"{'----':<7} {'-------------':>26} {'------':>14} ----"


def settings(body: str) -> dict[str, str]:
    """The culture and console width a recorded 5.1 table was printed in ({} when the output holds none)."""
    lines = body.split("\r\n")
    for at, line in enumerate(lines[:-2]):
        if line.rstrip(" ") != _HEADER or lines[at + 1].rstrip(" ") != _DASHES:
            continue
        label = next((lines[j] for j in range(at - 1, max(at - 5, -1), -1) if lines[j].startswith("    ")), "")
        row = lines[at + 2]
        for culture, (name, _, shown) in CULTURES.items():
            if label.startswith(f"    {name}: ") and re.match(rf"[-dahrsl]{{6}} +{shown} ", row):
                return {"culture": culture, "width": str(len(line) + 1)}
    return {}


def table(items: list[Path], folder: str, params: dict) -> Result:
    """The table of `items` (in Get-ChildItem's order) of the folder shown as `folder` (its full Windows path),
    in the culture and width `params` read from the recording (settings)."""
    culture, width = params.get("culture"), params.get("width", "")
    if culture not in CULTURES or not re.fullmatch(r"[0-9]{1,5}", width) or not 60 <= int(width) <= _WIDEST:
        raise NotReplayable("PowerShell's Get-ChildItem table: the recording shows no Windows PowerShell 5.1 table "
                            "to read the machine's culture and console width from")
    label, formats, _ = CULTURES[culture]
    if not items:
        return Result(out=b"")
    rows = [_HEADER, _DASHES]
    for item in items:
        if item.is_symlink():
            raise NotReplayable(f"Get-ChildItem's table of a link ({item.name}): its Mode is the recording machine's")
        date, time = formats(datetime.fromtimestamp(item.lstat().st_mtime))
        folder_like = item.name == ".git" or item.is_dir()
        mode = ("d--h--" if item.name == ".git" else "d-----") if folder_like else "-a----"
        length = "" if folder_like else str(item.stat().st_size)
        rows.append(f"{mode:<7} {f'{date:>10}  {time:>8}':>26} {length:>14} {item.name}")
    if any(len(row) > int(width) - 1 for row in rows):  # the console cuts or wraps such a row: not emulated
        raise NotReplayable("Get-ChildItem's table of a name wider than the recording's console")
    text = f"\r\n\r\n    {label}: {folder}\r\n\r\n\r\n" + "".join(row.ljust(int(width) - 1) + "\r\n" for row in rows)
    return Result(out=(text + "\r\n\r\n").encode())


LOCATION = re.compile(r"\s*(?:Get-Location|gl|pwd)\s*;?\s*", re.IGNORECASE)  # alone on its line, no option


def location(folder: str) -> Result:
    """What `Get-Location` prints in the folder shown as `folder` (its full Windows path)."""
    if len(folder) > 119:  # wider than a console's 120 columns: cut there, as no recording shows
        raise NotReplayable("Get-Location of a folder wider than the console")
    width = max(len(folder), 4)
    return Result(out=f"\r\n{'Path':<{width}}\r\n{'----':<{width}}\r\n{folder}\r\n\r\n\r\n".encode())
