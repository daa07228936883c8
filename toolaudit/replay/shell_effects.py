"""What a recorded shell command may have changed in the workspace, read from its text (never run).

Replay applies recorded edits to the session's state, but a shell command is never re-run: a command that
may have written files leaves them uncertain from there on, so later calls that read them are flagged.
`effect(command)` gives NONE (it reads, or writes only outside the sources: test runs, builds into
their caches), the paths it names as targets (`rm a`, `mv a b`, `sed -i … f`, `> f`), CHANGED (a formatter
over the tree: it rewrites only files not already formatted, and the committed tree is taken as formatted,
so what it may have touched is what the session itself changed), or EVERYTHING (a command we cannot read, a
fixer or generator, a git command that moves the working tree).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass

EVERYTHING = "*"
CHANGED = "<changed>"  # the files the session changed (edited, or found not as committed)


@dataclass(frozen=True)
class Effect:
    """The paths a command may have changed (EVERYTHING: the whole workspace); why, in a few words."""

    paths: tuple[str, ...] = ()
    why: str = ""

    @property
    def none(self) -> bool:
        """It changed nothing replay tracks."""
        return not self.paths


NONE = Effect()
# read the files, or write only outside them (caches, build outputs, temp files): nothing to track
READERS = {"mkdir", "cat", "head", "tail", "less", "more", "nl", "wc", "ls", "tree", "grep", "egrep", "fgrep", "rg", "ag",
           "find", "fd", "stat", "file", "du", "df", "pwd", "echo", "printf", "which", "type", "env", "date", "true",
           "false", "test", "[", "diff", "cmp", "sort", "uniq", "cut", "tr", "awk", "jq", "yq", "basename",
           "dirname", "realpath", "readlink", "sleep", "whoami", "uname", "id", "hostname", "ps", "curl", "wget",
           "gh", "sha256sum", "md5sum", "xxd", "od", "hexdump", "strings", "column", "seq", "yes", "read", "cd", "export", "source",
           "go", "cargo", "npm", "npx", "pnpm", "yarn", "pytest", "make", "mise",
           "golangci-lint", "ruff", "mypy", "tsc", "eslint", "jest", "vitest", "docker", "kubectl", "uv", "pip"}
# subcommands / flags of the readers above that do write sources
WRITERS = {
    "go": {"fmt", "mod", "get", "generate", "fix", "work"},
    "cargo": {"fmt", "fix", "add", "remove", "update", "new", "init"},
    "npm": {"install", "i", "ci", "uninstall", "update", "init", "version", "pkg"},
    "pnpm": {"install", "i", "add", "remove", "update"},
    "yarn": {"install", "add", "remove", "upgrade"},
    "uv": {"add", "remove", "sync", "lock", "init"},
    "pip": {"install", "uninstall"},
    "make": {"fmt", "format", "generate", "gen", "fix", "clean", "install"},
    "mise": {"fmt", "format", "fix", "generate", "install"},
    "ruff": {"format"},
    "npx": {"prettier"},
}
FORMATTERS = {"gofmt", "goimports", "prettier", "black", "isort", "rustfmt", "clang-format"}
WRITING_FLAGS = {"--fix", "--write", "--in-place"}  # linters' and formatters' own (`-i`, `-w` mean other things)
FORMATTER_FLAGS = {"-w", "-i", "--write", "--in-place", "--fix"}
FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}
FIND_WRITES = {"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
GIT_READERS = {"status", "log", "diff", "show", "blame", "branch", "rev-parse", "ls-files", "grep", "remote",
               "config", "describe", "shortlog", "reflog", "tag", "fetch", "cat-file", "ls-tree", "rev-list",
               "name-rev", "merge-base", "worktree", "add", "commit", "push", "notes", "check-ignore", "check-attr",
               "for-each-ref", "show-ref", "symbolic-ref", "var", "help", "version", "count-objects", "fsck",
               "ls-remote"}
# shell words that open or close a compound command: the command after them is what runs
KEYWORDS = {"while", "until", "if", "elif", "then", "do", "else", "!", "{", "(", "time"}
CLOSERS = {"done", "fi", "}", ")", "esac"}
GIT_VALUED = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"}  # take a value
XARGS_VALUED = {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter",
                "--max-lines", "--arg-file", "--replace", "--eof"}
TARGETED = {"rm", "rmdir", "touch", "tee", "truncate", "chmod", "chown", "unlink"}  # mkdir: changes no file
_SEPARATORS = ("&&", "||", ";", "|", "\n", "&")
_REDIRECT = re.compile(r"(\d*|&)(>>?|>\|)(&?)")


def effect(command: str, cwd: str | None = None, printed: str = "") -> Effect:
    """What `command` (one shell command line, as recorded) may have changed; `cwd`: the folder it ran in
    (a `cd` out of it moves what follows elsewhere); `printed`: its recorded output, where the shell's own
    `command not found` or syntax error shows that a part never ran."""
    if command.lstrip().startswith("*** Begin Patch") and _shell_refused(printed):
        # an apply_patch text sent to a shell: its lines are no programs, only a redirection in one may write
        named = [path for _, written in split(_without_heredocs(command)) for path in written]
        return Effect(tuple(named), "an apply_patch text run as a shell script") if named else NONE
    if _inline_script_reads(command):
        return NONE
    command, inner = _substituted(_without_heredocs(command))
    if any(not effect(sub, cwd, printed).none for sub in inner):
        return Effect((EVERYTHING,), "a command substitution that writes")
    targets: list[str] = []
    why = "names the files it writes"
    outside = False  # after `cd` out of the working folder: what follows writes elsewhere
    here = ""  # the folder a `cd` moved to, relative to the working folder: a relative path written is under it
    for part, written in split(command):
        where = _cd(part, cwd)
        if where is not None:
            outside = outside if where == "down" else where  # a relative cd stays on whichever side it was
            here = _moved(here, part, cwd) if not outside else here
            continue
        if outside:
            continue
        named = [path for path in written if path not in ("/dev/null", "/dev/stderr", "/dev/stdout")]
        found = _part(part, printed) if part.strip() else None
        if found is not None and EVERYTHING in found.paths:
            return found
        if found is not None and (CHANGED in found.paths or found.paths and not targets and not named):
            why = found.why  # the command's own reason (a formatter's, a manifest's) says more than "names"
        for path in named + list(found.paths if found is not None else ()):
            path = path if path == CHANGED or path.startswith(("/", "~")) or not here else \
                posixpath.normpath(posixpath.join(here, path))
            if path not in targets:
                targets.append(path)
    return Effect(tuple(targets), why) if targets else NONE


def _moved(here: str, part: str, cwd: str | None) -> str:
    """The folder (relative to the working folder) after the `cd` in `part`, from `here`."""
    try:
        target = next((w for w in shlex.split(part)[1:] if not w.startswith("-")), "")
    except ValueError:
        return here
    if target.startswith("/"):
        return posixpath.relpath(target, cwd) if cwd else here
    return posixpath.normpath(posixpath.join(here, target)) if here else target


# what inline Python or JavaScript calls to write, move or delete a file, fetch or unpack one, or run another
# program (`os.remove` and a list's `remove` alike: the test errs towards "may write"; a mode string such as
# 'w', "ab" or 'r+' anywhere counts; a one-argument `.replace(x)` is Path.replace, a string's takes two)
_WRITES_CODE = re.compile(
    r"write|['\"][rbt]*[wax+][rbt+]*['\"]|unlink|remove|rename|\.replace\([^,()]*\)|os\.replace|rmtree|rmsync|"
    r"rmdir|\brm\(|copy|move|mkdir|touch|subprocess|os\.system|popen|spawn|exec|chmod|dump\(|truncate|symlink|"
    r"appendfile|urlretrieve|extract|download|createwritestream|save|makedirs|\.to_\w+\(|"
    r"O_(?:WRONLY|RDWR|CREAT|APPEND|TRUNC)|['\"][wax]:", re.I)  # pandas' to_csv/to_parquet, os.open, tarfile 'w:gz'
_INLINE = re.compile(r"^(?:cd [^;&|\n]+&& *)?(?:python3?|node)(?: +-)? *<<-? *(['\"]?)([A-Za-z_]\w*)\1 *\n(.*)\n\2\s*$", re.S)


def _inline_script_reads(command: str) -> bool:
    """`command` is one `python - <<'PY' … PY` (or node) whose code calls nothing that writes."""
    found = _INLINE.match(command.strip())
    if found is None:
        return False
    quoted, tag, body = found.groups()
    if re.search(rf"^{re.escape(tag)}\s*$", body, re.M):
        return False  # two documents with a command between them: not one script
    if not quoted and ("$(" in body or "`" in body):
        return False  # an unquoted document's substitutions run in the shell
    return not _WRITES_CODE.search(body)


_HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


def _without_heredocs(command: str) -> str:
    """`command` with each here-document's lines removed (they are data; the `<<WORD` stays, for split)."""
    start = 0
    while (found := _HEREDOC.search(command, start)) is not None:
        body = command.find("\n", found.end())
        if body < 0:
            break
        lines = command[body + 1:].split("\n")
        end = next((i for i, line in enumerate(lines)
                    if (line.lstrip("\t") if found.group(1) else line) == found.group(3)), None)
        if end is None:
            return command[:body]  # no terminator: the rest is the document
        command = command[:body + 1] + "\n".join(lines[end + 1:])
        start = body + 1
    return command


def _substituted(command: str) -> tuple[str, list[str]]:
    """`command` with each `$(...)` and backquoted command made one word, and the commands they held."""
    out: list[str] = []
    inner: list[str] = []
    i, quote = 0, ""
    while i < len(command):
        ch = command[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\":
            out.append(command[i:i + 2])
            i += 2
            continue
        elif ch in "'\"" and (not quote or quote == ch):
            quote = "" if quote else ch
        elif command.startswith("$(", i) or ch == "`":
            end = _closing(command, i)
            inner.append(command[i + 2:end] if ch == "$" else command[i + 1:end])
            out.append("SUBST")
            i = end + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out), inner


def _closing(command: str, i: int) -> int:
    """Where the substitution opened at `i` closes (the end of the text when it never does)."""
    if command[i] == "`":
        end = command.find("`", i + 1)
        return end if end >= 0 else len(command)
    depth, quote, j = 0, "", i + 1
    while j < len(command):
        ch = command[j]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(command)


def split(command: str) -> list[tuple[str, list[str]]]:
    """The simple commands of a command line, each without its output redirections, and the files those name.

    Quotes are respected (`grep -E "a|b"` is one command); `2>&1` and `< file` are dropped, `> file` and
    `>> file` name a file written."""
    parts: list[tuple[str, list[str]]] = []
    text, written, quote, i = [], [], "", 0
    while i < len(command):
        ch = command[i]
        if quote:
            text.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < len(command):
                text.append(command[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
            i += 1
            continue
        if ch == "\\" and i + 1 < len(command):
            text += [ch, command[i + 1]]
            i += 2
            continue
        if ch in "'\"":
            quote = ch
            text.append(ch)
            i += 1
            continue
        redirect = _REDIRECT.match(command, i) if ch == ">" or ch in "&0123456789" and _word_start(text) else None
        if redirect:
            word, i = _word(command, redirect.end())
            if not redirect.group(3) or not word.isdigit() and word != "-":  # `>&2` duplicates, `>&file` writes
                written.append(word)
            continue
        sep = next((s for s in _SEPARATORS if command.startswith(s, i)), None)
        if sep is not None:
            parts.append(("".join(text), written))
            text, written = [], []
            i += len(sep)
            continue
        if ch == "<" and _word_start(text):
            _, i = _word(command, i + 1 + (command.startswith("<<", i)))
            continue
        text.append(ch)
        i += 1
    parts.append(("".join(text), written))
    return parts


def _word_start(text: list[str]) -> bool:
    return not text or text[-1] in " \t"


def _word(command: str, i: int) -> tuple[str, int]:
    """The word starting at `i` (after blanks), its quotes removed, and where it ends."""
    while i < len(command) and command[i] in " \t":
        i += 1
    word, quote = [], ""
    while i < len(command):
        ch = command[i]
        if quote:
            if ch == quote:
                quote = ""
            else:
                word.append(ch)
        elif ch in "'\"":
            quote = ch
        elif ch in " \t\n;&|<>":
            break
        else:
            word.append(ch)
        i += 1
    return "".join(word), i


def _cd(part: str, cwd: str | None) -> bool | str | None:
    """For a `cd DIR` command: whether DIR is outside the working folder, or "down" (a folder below where it is);
    None: not a cd."""
    try:
        words = shlex.split(part)
    except ValueError:
        return None
    if not words or words[0] not in ("cd", "pushd"):
        return None
    target = next((w for w in words[1:] if not w.startswith("-")), "~")
    if target.startswith("/"):
        return cwd is None or not (target == cwd or target.startswith(cwd.rstrip("/") + "/"))
    return True if target.startswith(("~", "..")) or target == "-" else "down"


def _after_options(args: list[str], valued: set[str]) -> list[str]:
    """The words after a program's leading options (an option in `valued` takes the next word)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in valued else 1
    return args[i:]


def _sed_in_place(args: list[str]) -> bool:
    """sed's in-place flag, alone or in a cluster (`-i`, `-i.bak`, `-Ei`, `-ri`, `--in-place=.bak`)."""
    return any(a.startswith("--in-place") or a.startswith("-") and not a.startswith("--") and "i" in a[1:]
               for a in args)


def _git_paths(sub: str, args: list[str]) -> list[str]:
    """The paths a git command that writes only what it names was given ([]: it names none, or may write more):
    `checkout [REV] -- PATH…`, `restore [--source REV] PATH…`, `rm PATH…`, `mv A B`."""
    if sub == "checkout" and "--" in args:
        return [a for a in args[args.index("--") + 1:]]
    if sub == "restore":
        words, i = [], 0
        while i < len(args):
            if args[i] in ("-s", "--source"):
                i += 2
                continue
            if not args[i].startswith("-"):
                words.append(args[i])
            i += 1
        return words
    if sub in ("rm", "mv"):
        return [a for a in args if not a.startswith("-")]
    return []


def _git_keeps_files(sub: str, args: list[str]) -> bool:
    """git commands that move refs or the index but leave the working tree's files as they are."""
    words = [a for a in args if a != "--"]
    if sub == "reset":  # without --hard (or --merge/--keep) a reset only unstages
        return not any(a in ("--hard", "--merge", "--keep") for a in words)
    if sub in ("checkout", "switch"):  # a new branch at HEAD: `checkout -b NEW`, `switch -c NEW`
        flags = [a for a in words if a.startswith("-")]
        names = [a for a in words if not a.startswith("-")]
        return bool(flags) and set(flags) <= {"-b", "-B", "-c", "-C", "--create", "--force-create"} and len(names) == 1
    if sub == "restore":  # --staged alone: the index
        return "--staged" in words and "--worktree" not in words and "-W" not in words
    if sub == "stash":
        return bool(words) and words[0] in ("list", "show")
    return False


def _formatting(task: str) -> bool:
    """A task (`fmt`, `format`, `fmt:go`, `prettier`) that formats, and does not also fix or generate."""
    return (any(w in task for w in ("fmt", "format")) or task == "prettier") \
        and not any(w in task for w in ("fix", "generate", "gen"))


def _reformats(what: str) -> Effect:
    return Effect((CHANGED,), f"{what} may have reformatted the files the session changed")


def _find(args: list[str]) -> Effect | None:
    """find reads, unless it deletes or writes a list, or `-exec`s a program that writes."""
    if any(a in FIND_WRITES for a in args):
        return Effect((EVERYTHING,), "find deletes or writes files")
    for i, arg in enumerate(args):
        if arg in FIND_EXEC:
            rest = args[i + 1:]
            end = next((j for j, a in enumerate(rest) if a in (";", "+")), len(rest))
            inner = _part(shlex.join(rest[:end])) if rest[:end] else None
            if inner is not None and inner.paths:
                return Effect((EVERYTHING,), f"find -exec {rest[0]} writes the files it finds")
    return None


def _shell_refused(printed: str) -> bool:
    """The recorded output shows the shell refused a line (a syntax error, or a word that is no program)."""
    return _REFUSED.search(printed) is not None


# the shell's own messages, at the start of a line (`bash: -c: line 1: syntax error …`, `zsh:1: parse error …`,
# `sh: 1: Syntax error: …`, `bash: foo: command not found`): the same words printed by a program it ran (jq's
# "parse error") say nothing of the shell
_SHELL = r"^(?:\S*/)?(?:ba|z|da|k)?sh\b[^\n]*?"
_SYNTAX = re.compile(_SHELL + r"(?:syntax error|unexpected EOF while looking for matching|parse error|unmatched )",
                     re.M | re.I)
_REFUSED = re.compile(_SYNTAX.pattern + r"|" + _SHELL + r"command not found", re.M | re.I)


# GitHub spec-kit's scripts (`.specify/scripts/bash/*.sh`, `powershell/*.ps1`), as its repository has them:
# the prerequisites check only reads; the others copy a template into the feature's folder under specs/
# (and create-new-feature makes a branch at HEAD, which keeps the files); update-agent-context rewrites the
# agents' own files anywhere, so it stays unknown
SPEC_KIT = {"check-prerequisites": (), "create-new-feature": ("specs",), "setup-plan": ("specs",),
            "setup-tasks": ("specs",)}
# update-agent-context AGENT rewrites that agent's file (with no agent: every one of them)
AGENT_FILES = {"claude": "CLAUDE.md", "gemini": "GEMINI.md", "qwen": "QWEN.md", "codex": "AGENTS.md",
               "opencode": "AGENTS.md", "amp": "AGENTS.md", "q": "AGENTS.md", "bob": "AGENTS.md",
               "copilot": ".github", "cursor-agent": ".cursor", "windsurf": ".windsurf", "kilocode": ".kilocode",
               "auggie": ".augment", "roo": ".roo", "codebuddy": "CODEBUDDY.md", "qoder": "QODER.md",
               "shai": "SHAI.md"}
# what a dependency manager's command writes in the project (its manifest, lock file and install folder)
DEPENDENCIES = {
    ("go", "mod"): ("go.mod", "go.sum", "vendor"), ("go", "get"): ("go.mod", "go.sum"),
    ("cargo", "add"): ("Cargo.toml", "Cargo.lock"), ("cargo", "remove"): ("Cargo.toml", "Cargo.lock"),
    ("cargo", "update"): ("Cargo.lock",),
    ("npm", "install"): ("package.json", "package-lock.json", "node_modules"),
    ("npm", "i"): ("package.json", "package-lock.json", "node_modules"),
    ("npm", "ci"): ("node_modules",), ("npm", "uninstall"): ("package.json", "package-lock.json", "node_modules"),
    ("pnpm", "install"): ("package.json", "pnpm-lock.yaml", "node_modules"),
    ("pnpm", "add"): ("package.json", "pnpm-lock.yaml", "node_modules"),
    ("yarn", "install"): ("package.json", "yarn.lock", "node_modules"),
    ("yarn", "add"): ("package.json", "yarn.lock", "node_modules"),
    ("uv", "add"): ("pyproject.toml", "uv.lock", ".venv"), ("uv", "remove"): ("pyproject.toml", "uv.lock", ".venv"),
    ("uv", "sync"): ("uv.lock", ".venv"), ("uv", "lock"): ("uv.lock",),
    ("pip", "install"): (".venv", "venv"),
}


def _spec_kit(path: str) -> Effect | None | bool:
    """A spec-kit script's effect (None: it reads), True for update-agent-context (its arguments say), or False
    when `path` is not one of them."""
    if ".specify/scripts/" not in path:
        return False
    name = path.rsplit("/", 1)[-1].removesuffix(".sh").removesuffix(".ps1")
    if name == "update-agent-context":
        return True
    if name not in SPEC_KIT:
        return False
    folders = SPEC_KIT[name]
    return Effect(folders, f"spec-kit's {name} writes under specs/") if folders else None


def _agent_context(args: list[str]) -> Effect:
    """spec-kit's update-agent-context: the named agent's file, or every agent's."""
    named = [AGENT_FILES[a] for a in args if a in AGENT_FILES]
    files = tuple(dict.fromkeys(named or AGENT_FILES.values()))
    return Effect(files, "spec-kit's update-agent-context writes the agents' files")


def _other_writer(program: str, args: list[str], printed: str) -> Effect | None | bool:
    """The effect of a program that runs another (`uv run`, `npx`, `pnpm exec`) or writes through an option
    (`curl -o`, `jest -u`, `yq -i`, `sort -o`, `gh pr checkout`, `go run`); False when `program` is none of them."""
    if program in ("uv", "poetry", "pipenv") and args[:1] == ["run"] or program == "pnpm" and args[:1] == ["exec"] \
            or program in ("npx", "bunx", "pnpx"):
        rest = _after_options(args if program in ("npx", "bunx", "pnpx") else args[1:], set())
        # what it runs decides (`uv run black .`, `npx prettier --write`, `npx prisma@5 generate`)
        return _part(shlex.join([rest[0].split("@")[0] or rest[0], *rest[1:]]), printed) if rest else None
    if program in ("jest", "vitest") and any(a in ("-u", "--update", "--updateSnapshot") for a in args) \
            or program == "pytest" and any(a.startswith(("--snapshot-update", "--update-snapshots")) for a in args):
        return Effect((EVERYTHING,), f"{program} updates its snapshots")
    if program in ("curl", "wget"):
        for i, a in enumerate(args):
            if a in ("-o", "--output", "-O", "--output-document") and i + 1 < len(args) \
                    and not (program == "curl" and a == "-O"):
                return Effect((args[i + 1],), f"{program} writes its output file")
            if a in ("-O", "--remote-name", "-J", "-P") or program == "wget" and not a.startswith("-") \
                    and not any(x in ("-O", "--output-document", "-qO-", "-O-") for x in args):
                return Effect((EVERYTHING,), f"{program} saves a file named by the download")
        return None
    if program == "gh" and args[:2] in (["pr", "checkout"], ["repo", "clone"]):
        return Effect((EVERYTHING,), f"gh {' '.join(args[:2])} changes the working tree")
    if program in ("yq", "awk", "gawk", "perl", "ruby") and any(a == "inplace" or a.startswith("-i") for a in args):
        return Effect((EVERYTHING,), f"{program} edits files in place")
    if program == "sort" and any(a == "-o" or a.startswith("--output") for a in args):
        return Effect((EVERYTHING,), "sort -o writes its output file")
    if program == "go" and args[:1] == ["run"]:
        return Effect((EVERYTHING,), "go run runs a program")
    return False


def _part(part: str, printed: str = "") -> Effect | None:
    """One simple command's effect (None: nothing); `printed`: the whole command's recorded output."""
    try:
        words = shlex.split(part, comments=True)
    except ValueError:
        if _SYNTAX.search(printed):
            return None  # an unclosed quote: the shell stopped at its syntax error, this part never ran
        return Effect((EVERYTHING,), "cannot be read as words")
    while words and ("=" in words[0] and not words[0].startswith("=") or words[0] in ("sudo", "time", "env", "nice")
                     or words[0] in KEYWORDS):
        words = words[1:]  # VAR=value prefixes, wrappers and the keywords of `while …; do …; done`
    if not words or words[0] in CLOSERS or words[0] == "for":  # `for x in …` reads nothing
        return None
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    runs_script = program in ("bash", "sh", "pwsh") and bool(args)
    script = _spec_kit(args[0] if runs_script else words[0])
    if script is True:
        return _agent_context(args[1:] if runs_script else args)
    if script is not False:
        return script
    if program == "xargs":  # what it runs decides: `xargs grep -l x` reads, `xargs rm` writes
        rest = _after_options(args, XARGS_VALUED)
        inner = _part(shlex.join(rest)) if rest else None
        if inner is not None and CHANGED in inner.paths:
            return inner  # a formatter over the files found: as over the tree
        # a writer's operands come from its input: which files it wrote cannot be read from the text (a writer
        # named without them, `rm`, has an effect that names no path: it still writes)
        return Effect((EVERYTHING,), f"xargs {rest[0]} writes the files it is given") if inner is not None else None
    if program == "git":
        rest = _after_options(args, GIT_VALUED)
        sub = next(iter(rest), "")  # `git -C DIR log`: log, not DIR
        if _git_keeps_files(sub, rest[1:]):
            return None
        named = _git_paths(sub, rest[1:]) if "-C" not in args[:len(args) - len(rest)] else []
        if named:
            return Effect(tuple(named), f"git {sub} writes the paths it names")
        if sub in ("checkout", "switch", "reset", "restore", "stash", "merge", "rebase", "pull", "cherry-pick",
                   "revert", "apply", "am", "clean", "mv", "rm"):
            return Effect((EVERYTHING,), f"git {sub} changes the working tree")
        return None if sub in GIT_READERS or not sub else Effect((EVERYTHING,), f"git {sub}")
    if program in ("mv", "cp", "ln", "install", "rsync"):
        operands = [a for a in args if not a.startswith("-")]
        return Effect(tuple(operands[-1:] if program != "mv" else operands), f"{program} writes its target")
    if program in TARGETED:
        return Effect(tuple(a for a in args if not a.startswith("-") and not a.isdigit()), f"{program} writes")
    if program == "sed":
        if _sed_in_place(args):
            # the script, then the files (BSD sed's `-i ''` gives an empty suffix word: not an operand)
            operands = [a for a in args if a and not a.startswith("-")]
            return Effect(tuple(operands[1:]) or (EVERYTHING,), "sed -i")
        return None
    if program in ("python", "python3", "node", "deno", "bun"):
        # a test runner or inline code reads; a script may write anything
        if args[:2] in (["-m", "pytest"], ["-m", "unittest"], ["-m", "json.tool"]):
            return None
        if args[:1] in (["-c"], ["-e"]) and len(args) > 1 and not _WRITES_CODE.search(args[1]):
            return None  # inline code that calls no API that writes
        return Effect((EVERYTHING,), f"{program} runs a script")
    if program in FORMATTERS:
        if any(a in FORMATTER_FLAGS for a in args) or program in ("black", "isort"):
            return _reformats(program)
        return None
    if program == "find":
        return _find(args)
    other = _other_writer(program, args, printed)
    if other is not False:
        return other
    if program in ("npm", "pnpm", "yarn") and (any(a in ("-g", "--global") for a in args) or args[:1] == ["global"]):
        return None  # a global install writes outside the workspace
    if program in READERS:
        operands = [a for a in args if not a.startswith("-")]
        sub = operands[0] if operands else ""
        if sub in ("run", "run-script", "exec") and len(operands) > 1:  # a task runner: the task says
            sub = operands[1]
        if (program, sub) in DEPENDENCIES and not any(a in WRITING_FLAGS for a in args):
            return Effect(DEPENDENCIES[(program, sub)], f"{program} {sub} writes its manifest and lock file")
        writes = sub in WRITERS.get(program, ()) or any(w in sub for w in ("fmt", "format", "fix", "gen"))
        if "--fix" not in args and (writes and program in WRITERS and _formatting(sub) or sub in FORMATTERS
                                    and any(a in FORMATTER_FLAGS for a in args)):
            return _reformats(f"{program} {sub}")
        if writes and program in WRITERS or any(a in WRITING_FLAGS for a in args):
            return Effect((EVERYTHING,), f"{program} {sub} may rewrite files".replace("  ", " "))
        return None
    if f"{program}: command not found" in printed or f"command not found: {program}" in printed:
        return None  # the recording shows there was no such program to run
    return Effect((EVERYTHING,), f"{program}: not known to leave files as they were")
