"""A recorded `git diff` output read as git wrote it: its whole file sections by path (the part after a cut
dropped), a quoted path unquoted, and a section applied to a file's text (Entire's `REDACTED` in a context or
removed line taken from the base where the base's line matches it). Split from replay.start_state, which reads
these outputs for the work a session started on."""

from __future__ import annotations

import re

import whatthepatch

from .agents.entire_redaction import MARK, pattern as redacted_pattern

# Claude Code's cut, and Codex's (`[... omitted k of N lines ...]`, `…N tokens truncated…`)
TRUNCATED = re.compile(r"\n\n\.\.\. \[\d+ (?:lines|characters) truncated\] \.\.\.|\[\.\.\. omitted \d+ of \d+ lines"
                        r"|\[\.\.\. output truncated|…\d+ (?:tokens|chars|bytes) truncated…")
_FILE = re.compile(r"^diff --git ", re.MULTILINE)


def sections(output: str) -> dict[str, str]:
    """A recorded `git diff` output's whole file sections, by path (the part after a cut is dropped, and the
    section the cut fell in)."""
    if "<persisted-output>" in output:
        return {}
    cut = TRUNCATED.search(output)
    text = output[:cut.start()] if cut else output
    starts = [m.start() for m in _FILE.finditer(text)]
    if cut and starts:
        text, starts = text[:starts[-1]], starts[:-1]
    out: dict[str, str] = {}
    for i, start in enumerate(starts):
        section = text[start: starts[i + 1] if i + 1 < len(starts) else len(text)]
        header = section.split("\n", 1)[0]
        match = re.match(r'diff --git (a/.+|"a/.+") (b/.+|"b/.+")$', header)
        if match is None or "\nBinary files " in section:
            continue
        old, new = (unquote(name)[2:] for name in match.groups())
        if old == new:
            out[new] = section if section.endswith("\n") else section + "\n"
    return out


def unquote(path: str) -> str:
    """A path as git prints it: in double quotes with C escapes (`"caf\\303\\251.txt"`) when it has unusual
    characters (core.quotepath), else as it is."""
    if len(path) < 2 or path[0] != '"' or path[-1] != '"':
        return path
    raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1", "replace").decode("utf-8", "replace")


def apply(section: str, before: str | None) -> str | None:
    """The file's text with the diff `section` applied to `before` (None: it does not apply, or it deletes)."""
    parsed = next(iter(whatthepatch.parse_patch(section)), None)
    if parsed is None or not parsed.changes or "\ndeleted file mode" in section:
        return None
    if before is None and "\nnew file mode" not in section:
        return None
    if _REDACTED in section:
        parsed = _unredacted(parsed, (before or "").splitlines())
        if parsed is None:
            return None
    try:
        lines = whatthepatch.apply_diff(parsed, before or "")
    except Exception:  # whatthepatch's HunkApplyException, or a malformed hunk: the base is another text
        return None
    newline = "\r\n" if before and "\r\n" in before else "\n"  # the file's own line endings
    ends = _ends_with_newline(section, before)
    return newline.join(lines) + (newline if ends and lines else "")


# what Entire writes in place of a string its secret scan flags, in every transcript it stores (agents.entire_redaction)
_REDACTED = MARK


def _unredacted(parsed, base: list[str]):
    """The parsed diff with each context or removed line that Entire redacted taken from the base when the base's
    line matches it (REDACTED standing for any text); None when one does not, or an added line is redacted (the
    text it stands for is nowhere to read)."""
    changes = []
    for change in parsed.changes:
        if change.line is None or _REDACTED not in change.line:
            changes.append(change)
            continue
        if change.old is None or change.old > len(base):
            return None
        if redacted_pattern(change.line).fullmatch(base[change.old - 1]) is None:
            return None
        changes.append(change._replace(line=base[change.old - 1]))
    return parsed._replace(changes=changes)


def _ends_with_newline(section: str, before: str | None) -> bool:
    """Whether the new text ends with a newline: `\\ No newline at end of file` after a line of the new side
    says it does not; after an old line only, that the diff added one."""
    marks = [i for i, line in enumerate(section.split("\n")) if line.startswith("\\ No newline")]
    lines = section.split("\n")
    if any(i > 0 and lines[i - 1][:1] in ("+", " ") for i in marks):
        return False
    if marks:
        return True  # only the old side lacked it
    return before.endswith("\n") if before else True
