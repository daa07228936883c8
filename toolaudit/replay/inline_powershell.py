"""What a PowerShell command line may write, judged by the commands it runs (Codex on Windows runs its shell
commands in PowerShell: `$i=1; Get-Content x | ForEach-Object { … }`, a script fed to `powershell -Command -`).

Comments are dropped and strings blanked first, in one pass as PowerShell reads them, so a word in a string is
never a command (the code of a double-quoted string's `$( … )` is). Each statement's
first word is then looked at: a keyword, a variable, an expression or a function the code defines runs nothing;
a cmdlet whose verb only reads (`Get-`, `Test-`, `Select-`… replay.shell_programs.powershell_reads) or that only
shapes the pipeline (`ForEach-Object`, `Where-Object`, `Out-Null`) writes nothing; a cmdlet that writes
(`Set-Content`, `Out-File`, `Remove-Item`, `New-Item`…) writes the path it names in quotes or bare, else what it
writes cannot be read; any other word is a program, judged as a shell line (`git status` reads, `npm install`
does not). A redirection `> f` writes f; a .NET call that writes (`[IO.File]::WriteAllText`, `.Save(`), `&`,
`Invoke-Expression`, dot-sourcing, `Start-Process` and a command after a `Set-Location` cannot be read: the code is
then an unknown program (what it changed is what the session later shows changed).
"""

from __future__ import annotations

import posixpath
import re

from .inline_code import Verdict
from .shell_programs import powershell_reads

# `Set-Location -Path 'C:\\…\\repo'; Get-Content -Path 'src/x.ts'`: the model moves PowerShell to a folder first and
# runs the rest there (devangshupandey2025-stack/DevSage, Codex 0.104: 101 of its 299 calls). Windows PowerShell 5.1
# has no `&&`: `;` or a new line ends the cmdlet.
_LOCATED = re.compile(r"\s*(?:Set-Location|sl|Push-Location)\s+(?:-(?:Literal)?Path\s+)?"
                      r"('[^']*'|\"[^\"$`]*\"|[^\s;|&'\"$`(){}]+)\s*(?:;|\r?\n)\s*(?=\S)", re.IGNORECASE)
# PowerShell's own syntax, which a POSIX shell line does not have: a cmdlet (Verb-Noun, as models write them) where a
# command starts, a here-string, a variable assigned, the pipeline's `$_`
_POWERSHELL = re.compile(r"(?:^|[;|{(\n]\s*)[A-Z][a-z]+-[A-Z][A-Za-z]+\b|^\s*@['\"]\r?\n|(?:^|[;\n])\s*\$\w+\s*=|"
                         r"\$_\b")
_KEYWORDS = {"if", "elseif", "else", "foreach", "for", "while", "do", "until", "switch", "function", "filter",
             "param", "return", "break", "continue", "try", "catch", "finally", "throw", "trap", "begin", "process",
             "end", "exit", "in"}
# cmdlets (and their aliases) that write nothing in the workspace whatever their verb
_HARMLESS = {"foreach-object", "where-object", "out-null", "out-string", "out-host", "out-default", "write-output",
             "write-host", "write-verbose", "write-warning", "write-error", "write-information", "write-debug",
             "import-csv", "import-clixml", "start-sleep", "set-strictmode", "set-variable", "new-variable",
             "clear-variable", "remove-variable", "add-member", "new-object", "pop-location",
             "%", "?", "foreach", "where", "select", "sort", "measure", "group", "gci", "ls", "dir", "gc", "cat",
             "type", "echo", "write", "fl", "ft", "fw", "sls", "gi", "gp", "gl", "pwd", "gcm", "rvpa", "popd"}
_LOCATION = {"set-location", "sl", "cd", "chdir", "push-location", "pushd"}
# cmdlets that write the path they are given (first operand, or -Path/-LiteralPath/-FilePath/-Destination)
_WRITERS = {"set-content", "add-content", "clear-content", "out-file", "new-item", "remove-item", "copy-item",
            "move-item", "rename-item", "export-csv", "export-clixml", "set-item", "sc", "ac", "ni", "ri", "rm",
            "del", "erase", "rd", "rmdir", "cp", "copy", "cpi", "mv", "move", "mi", "ren", "rni", "md", "mkdir",
            "tee-object", "tee"}
_RENAMES = {"rename-item", "ren", "rni"}
_TWO_ENDS = {"copy-item", "cp", "copy", "cpi", "move-item", "mv", "move", "mi"} | _RENAMES  # both ends written
_PATH_OPTIONS = {"-path", "-literalpath", "-filepath", "-destination"}
_VALUED = {"-encoding", "-value", "-itemtype", "-type", "-delimiter", "-stream", "-filter", "-include", "-exclude",
           "-width", "-credential", "-erroraction", "-ea", "-warningaction", "-wa", "-inputobject", "-newname",
           "-outvariable", "-errorvariable"}  # the options that take a value: their value is no path
# a script fed to another PowerShell: a here-string piped to `powershell -Command -`, or its `-Command "…"`
_SHELL = (r"(?:[\w:\\/. -]*[\\/])?(?:powershell|pwsh)(?:\.exe)?\"?"
          r"(?:\s+-(?:NoProfile|NonInteractive|NoLogo|ExecutionPolicy\s+\w+))*")
_FED = re.compile(r"\s*@'\r?\n(.*?)\r?\n'@\s*\|\s*\"?" + _SHELL + r"\s+-(?:Command|c|File)\s+-\s*", re.S | re.I)
_NESTED = re.compile(r"\s*\"?" + _SHELL + r"\s+-(?:Command|c)\s+(?:'((?:[^']|'')*)'|\"([^\"`$]*)\")\s*", re.S | re.I)
_STATIC = re.compile(r"\[((?:[\w.`]|\[[\w.`, \[\]]*\])+)\]::(\w+)")  # [Type]::Member, [List[string]]::new
_TYPES_READ = {"regex", "string", "math", "char", "int", "long", "double", "convert", "datetime", "timespan", "guid",
               "text.encoding", "io.path", "environment", "stringcomparer", "bitconverter", "uri", "version", "array",
               "linq.enumerable", "console"}
_FILE_READS = re.compile(r"(?:Read\w*|Exists|Get\w*|Enumerate\w*|OpenRead|OpenText)", re.IGNORECASE)
_WRITES_METHOD = re.compile(r"\.(?:Save|Delete|MoveTo|CopyTo|Create|CreateText|AppendText|Write\w*|"
                            r"AppendAll\w*|SetContent|Encrypt|Decrypt)\s*\(", re.IGNORECASE)
# a comment (`<# … #>`, or `#` where a word starts, to the line's end), a here-string, a quoted string (`''` and
# a backquote escape inside); read in one pass, so a quote in a comment and a `#` in a string are what they are
_TOKEN = re.compile(r"<#.*?#>|(?<![^\s;|{(])#[^\n]*|@'\r?\n.*?\r?\n'@|@\"\r?\n.*?\r?\n\"@|'(?:[^']|'')*'|"
                    r"\"(?:[^\"`]|`.|\"\")*\"", re.S)
_ASSIGNED = re.compile(r"(\$[\w:]+)\s*[-+*/]?=(?!=)")  # `$x=`, `$x +=`: what follows is a statement of its own
_SPLIT = re.compile(r"[;\n|{}()]|&&|\|\||(?<![-\w$])=(?!=)")
_REDIRECT = re.compile(r"(\d|\*)?>>?\s*(&\d|\$null|\S+)?")


def located(command: str) -> tuple[str, str] | None:
    """(the folder, the rest) of a command line that first moves PowerShell to a folder (`Set-Location X; …`, `sl`,
    `Push-Location`), else None."""
    found = _LOCATED.match(command)
    if found is None:
        return None
    folder = found.group(1)
    return (folder[1:-1] if folder[:1] in "'\"" else folder), command[found.end():]


def is_powershell(command: str) -> bool:
    """Whether a command line uses PowerShell's own syntax (a cmdlet, a here-string, `$x = …`, `$_`)."""
    return bool(_POWERSHELL.search(command) or _FED.fullmatch(command) or _NESTED.fullmatch(command))


def judge_powershell(code: str) -> Verdict:
    """What PowerShell `code` may write, from the commands it runs (module docstring)."""
    fed, nested = _FED.fullmatch(code), _NESTED.fullmatch(code)
    if fed is not None:  # `@'…'@ | powershell -Command -`: the here-string is the script PowerShell runs
        return judge_powershell(fed.group(1))
    if nested is not None:  # `powershell -Command '…'` (a quote doubled inside), or "…" with nothing to expand
        return judge_powershell(nested.group(2) if nested.group(1) is None else nested.group(1).replace("''", "'"))
    text, literals = _blanked(code)
    if _WRITES_METHOD.search(text):
        return Verdict(unknown="a .NET method that writes")
    statics = list(_STATIC.finditer(text))
    if text.count("::") != len(statics) or any(not _static_reads(m.group(1), m.group(2)) for m in statics):
        return Verdict(unknown="a .NET call that may write")
    functions = {m.group(1).lower() for m in re.finditer(r"\bfunction\s+([\w-]+)", text, re.IGNORECASE)}
    paths: list[str] = []
    commands: list[str] = []
    moved = False
    for statement in _SPLIT.split(text):
        words = statement.split()
        target = _redirected(statement, literals)
        if target:
            if target == "?":
                return Verdict(unknown="a redirection to a path it builds")
            paths.append(target)
            words = statement[:_REDIRECT.search(statement).start()].split()
        while words and words[0].lower() in _KEYWORDS:
            words = words[1:]
        if not words or words[0][0] in "$'[@-0123456789,.!+*/\"" and words[0] not in (".", "&") \
                or re.match(r"[\w-]+=", words[0]):
            continue  # an expression, a value, an operator's operand, a hashtable's `key=`: nothing runs
        name = words[0].lower()
        if name in (".", "&") or name in ("invoke-expression", "iex", "invoke-command", "icm", "start-process",
                                          "saps", "start", "start-job", "add-type"):
            return Verdict(unknown=f"{words[0]} runs code it builds")
        if name in _LOCATION:
            moved = True
            continue
        if name in functions or name in _HARMLESS or powershell_reads(words[0]):
            continue
        if moved:
            return Verdict(unknown=f"{words[0]} after a Set-Location")
        if name in _WRITERS:
            named = _operands(name, words[1:], literals)
            if named is None:
                return Verdict(unknown=f"{words[0]} of a path it builds")
            paths += named
        elif re.fullmatch(r"[A-Za-z]+-[A-Za-z]+", words[0]):
            return Verdict(unknown=f"{words[0]}, a cmdlet that may write")
        else:
            commands.append(_restored(statement, literals).strip())  # a program: judged as a shell line
    return Verdict(tuple(dict.fromkeys(paths)), "", tuple(commands))


def _blanked(code: str) -> tuple[str, list[str]]:
    """`code` read left to right as PowerShell reads it: comments dropped, each string (quoted, or a here-string)
    replaced by `'N'`, its text kept as literals[N]; the subexpressions `$( … )` of a double-quoted string are
    code, added after it on their own lines; `$x=cmd` cut after its `=`, so that cmd starts a statement."""
    out: list[str] = []
    literals: list[str] = []
    inner: list[str] = []
    at = 0
    while at < len(code):
        found = _TOKEN.match(code, at)
        if found is None:
            out.append(code[at])
            at += 1
            continue
        token = found.group(0)
        if token.startswith(("<#", "#")):
            out.append(" ")
        else:
            literals.append(token)
            out.append(f"'{len(literals) - 1}'")
            if token.startswith(("\"", "@\"")):
                inner += _subexpressions(token)
        at = found.end()
    text = "".join(out) + "".join(f"\n{code}" for code in inner)
    return _ASSIGNED.sub(r"\1 ;", text), literals


def _subexpressions(literal: str) -> list[str]:
    """The code of each `$( … )` in a double-quoted string (its parentheses balanced)."""
    found, at = [], literal.find("$(")
    while at >= 0:
        depth, end = 0, at + 1
        while end < len(literal):
            depth += {"(": 1, ")": -1}.get(literal[end], 0)
            if depth == 0:
                break
            end += 1
        found.append(literal[at + 2:end])
        at = literal.find("$(", end)
    return found


def _static_reads(kind: str, member: str) -> bool:
    """Whether `[kind]::member` only reads: a value type's or a text helper's member, a generic collection's `new`,
    File's and Directory's reading members."""
    name = kind.lower().removeprefix("system.")
    if name in _TYPES_READ or name.startswith("collections.generic.") and member.lower() == "new":
        return True
    return name in ("io.file", "io.directory") and bool(_FILE_READS.fullmatch(member))


def _redirected(statement: str, literals: list[str]) -> str | None:
    """The file a `> f` / `>> f` in `statement` writes ('?' for one it builds), None for none or `>$null`, `2>&1`."""
    for found in _REDIRECT.finditer(statement):
        where = found.group(2) or ""
        if where.startswith("&") or where.lower() == "$null":
            continue
        literal = _literal(where, literals)
        return literal if literal else "?"
    return None


def _operands(name: str, words: list[str], literals: list[str]) -> list[str] | None:
    """The paths a writer cmdlet writes: its -Path/-LiteralPath/-FilePath/-Destination values, else its first
    operand; a copy's, a move's and a rename's both ends (a rename's new name in its source's folder). None when it
    builds one (`$p`, `(Join-Path …)`, New-Item's -Name)."""
    if any(word.lower() == "-name" for word in words):
        return None
    named, operands, at = [], [], 0
    while at < len(words):
        option = words[at].lower()
        if option in _PATH_OPTIONS or option == "-newname":
            named.append(words[at + 1] if at + 1 < len(words) else "")
            at += 2
        elif option.startswith("-"):
            at += 2 if option in _VALUED else 1
        else:
            operands.append(words[at])
            at += 1
    ends = name in _TWO_ENDS
    found = [_literal(word, literals) for word in (operands + named if ends else named or operands[:1])]
    if not found or None in found:
        return None
    if name in _RENAMES and len(found) == 2 and "/" not in found[1]:
        found[1] = posixpath.join(posixpath.dirname(found[0]), found[1])
    return found


def _literal(word: str, literals: list[str]) -> str | None:
    """A word's path when it is written out (quoted or bare, no variable), its backslashes made slashes."""
    found = re.fullmatch(r"'(\d+)'", word)
    if found:
        value = literals[int(found.group(1))]
        if value.startswith('"') and ("$" in value or "`" in value):
            return None
        word = value[1:-1]
    elif not word or any(ch in word for ch in "$(){}@`"):
        return None
    return word.replace("\\", "/")


def _restored(statement: str, literals: list[str]) -> str:
    """A statement with its strings put back (for the shell-line judge)."""
    return re.sub(r"'(\d+)'", lambda m: literals[int(m.group(1))], statement)
