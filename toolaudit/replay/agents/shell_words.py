"""Shell scripts cut into words, commands, pipelines and lists by POSIX quoting rules, done by hand with no shell."""


from __future__ import annotations

import glob as globlib
import re
from dataclasses import dataclass, field



class NotReplayable(Exception):
    """The command cannot be replayed faithfully and safely; the message is the reason."""


@dataclass
class Word:
    """One shell word: its text, and a glob pattern when it had unquoted `*`, `?` or `[`."""

    text: str = ""
    pattern: str = ""
    glob: bool = False
    quoted: bool = False
    line: int = 1  # the script line it is on (bash names it in error messages)
    bare: str = ""  # the text with each quoted character as NUL: what the shell itself interprets


@dataclass
class Command:
    """One simple command: its words and what happens to its stdout/stderr."""

    words: list[Word] = field(default_factory=list)
    drop_out: bool = False
    drop_err: bool = False
    err_to_out: bool = False


@dataclass
class Result:
    """What a script printed (stdout and stderr kept apart) and its exit code."""

    out: bytes = b""
    err: bytes = b""
    code: int = 0
    note: str = ""  # why the output is incomplete (a cap), empty when it is not
    walked: str = ""  # a program whose lines the output keeps in its walk's order (rg, `grep -r`, find), unsorted after


# ------------------------------------------------------------------ lexer

class _Lexer:
    """Cuts a script into words and operators; refuses what a shell would expand or redirect."""

    def __init__(self, script: str):
        self.s, self.i, self.line = script, 0, 1
        self.items: list = []  # Word | str (operator) | ("redir", kind)
        self.word: Word | None = None

    def run(self) -> list:
        while self.i < len(self.s):
            self._step()
        self._end_word()
        return self.items

    def _step(self) -> None:
        c, pair = self.s[self.i], self.s[self.i:self.i + 2]
        if c in " \t":
            self._end_word()
        elif c == "\n":
            self._end_word()
            self.items.append(";")
            self.line += 1
        elif c == "#" and self.word is None:
            while self.i + 1 < len(self.s) and self.s[self.i + 1] != "\n":
                self.i += 1
        elif c == "\\":
            self._backslash()
            return
        elif c in "'\"":
            self._quoted(c)
        elif c in ">&" and self._redirect():
            return
        elif pair in ("&&", "||"):
            self._end_word()
            self.items.append(pair)
            self.i += 2
            return
        elif c in "|;":
            self._end_word()
            self.items.append(c)
        else:
            self._plain(c)
        self.i += 1

    def _cur(self) -> Word:
        if self.word is None:
            self.word = Word(line=self.line)
        return self.word

    def _end_word(self) -> None:
        if self.word is not None:
            if re.search(r"\{[^{}\0]*(,|\.\.)[^{}\0]*\}", self.word.bare):
                raise NotReplayable("brace expansion")
            self.items.append(self.word)
            self.word = None

    def _add(self, ch: str, quoted: bool) -> None:
        w = self._cur()
        w.text += ch
        w.pattern += globlib.escape(ch) if quoted else ch
        w.bare += "\0" if quoted else ch
        w.quoted = w.quoted or quoted

    def _plain(self, c: str) -> None:
        if c in "<()`":
            raise NotReplayable({"<": "redirection", "`": "command substitution"}.get(c, "subshell"))
        if c == "$":
            raise NotReplayable("variable expansion")
        if c == "&":
            raise NotReplayable("background job")
        if c == "~" and self.word is None:
            raise NotReplayable("tilde expansion")
        if c in "*?[":
            self._cur().glob = True
        self._add(c, False)

    def _backslash(self) -> None:
        nxt = self.s[self.i + 1:self.i + 2]
        if nxt == "\n":  # line continuation
            self.line += 1
        elif nxt:
            self._add(nxt, True)
        self.i += 2

    def _quoted(self, q: str) -> None:
        self._cur().quoted = True
        end = self.s.find(q, self.i + 1) if q == "'" else self._dquote_end()
        if end < 0:
            raise NotReplayable("unparsable")
        body = self.s[self.i + 1:end]
        if q == '"':
            if "$" in body.replace("\\$", "") or "`" in body.replace("\\`", ""):
                raise NotReplayable("variable expansion" if "$" in body else "command substitution")
            body = re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), body)
        for ch in body:
            self._add(ch, True)
        self.line += body.count("\n")
        self.i = end

    def _dquote_end(self) -> int:
        j = self.i + 1
        while j < len(self.s):
            if self.s[j] == "\\":
                j += 2
                continue
            if self.s[j] == '"':
                return j
            j += 1
        return -1

    def _redirect(self) -> bool:
        """`[1|2]>/dev/null`, `&>/dev/null`, `2>&1`: recorded as a redirection item; else refused."""
        w = self.word
        fd = w.text if w is not None and not w.quoted and w.text in ("1", "2") else ""
        m = re.match(r"(&>|>)[ \t]*(/dev/null|&1)(?=$|[\s;|&])", self.s[self.i:])
        if self.s[self.i] == "&" and not (m and m.group(1) == "&>"):
            return False  # `&&` or a lone `&`: not a redirection
        if m is None or (m.group(2) == "&1" and fd != "2"):
            raise NotReplayable("redirection")
        if fd:
            self.word = None  # the `2` of `2>` names the stream, it is no word
        else:
            self._end_word()
        kind = "all" if m.group(1) == "&>" else ("err_to_out" if m.group(2) == "&1" else f"null{fd or '1'}")
        self.items.append(("redir", kind))
        self.i += m.end()
        return True


def parse(script: str) -> list[tuple[str, list[Command]]]:
    """The script as (connector, pipeline) pairs: connector `;`, `&&` or `||` (the first is `;`)."""
    lists: list[tuple[str, list[Command]]] = []
    connector, pipeline, cmd = ";", [], Command()
    for item in _Lexer(script).run() + [";"]:
        if isinstance(item, Word):
            if not cmd.words and not item.quoted and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", item.text):
                raise NotReplayable("env assignment")
            cmd.words.append(item)
        elif isinstance(item, tuple):
            _redirect(cmd, item[1])
        elif not cmd.words:
            if item != ";":  # `;` alone: a blank line, or a newline after `&&` or `|`
                raise NotReplayable("unparsable")
        else:
            pipeline.append(cmd)
            cmd = Command()
            if item != "|":
                lists.append((connector, pipeline))
                connector, pipeline = item, []
    if pipeline:
        raise NotReplayable("unparsable")
    if not lists:
        raise NotReplayable("empty command")
    return lists


def _redirect(cmd: Command, kind: str) -> None:
    cmd.drop_out = cmd.drop_out or kind in ("null1", "all")
    cmd.drop_err = cmd.drop_err or kind in ("null2", "all")
    cmd.err_to_out = cmd.err_to_out or kind == "err_to_out"
