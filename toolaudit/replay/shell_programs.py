"""The programs a recorded shell command may run, and what each may change in the workspace: a table.

Each known program has a kind (it reads; it writes the operands it names; it writes its last operand; it
reformats; it may rewrite anything), refined by its subcommand (`go fmt`, `npm install`, a task a runner's
`run` names) and its flags (`--fix`, `jest -u`). The few programs whose effect needs their arguments read
(git, sed, find, xargs, curl, the interpreters, the runners of other programs) are judged in
replay.shell_rules. A program not in the table is an *unknown program*: it names what it may have changed
on its command line, and what else it changed is what the session's own later `git status` and `git diff`
show (replay.start_state), unless it is run in a form that only reads (`--version`, `--help`, `show`…).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

EVERYTHING = "*"
CHANGED = "<changed>"  # the files the session changed (edited, or found not as committed)


@dataclass(frozen=True)
class Effect:
    """The paths a command may have changed (EVERYTHING: the whole workspace); why, in a few words; and the
    programs it ran that replay cannot read (`unknown`: what they changed is what the session later shows);
    `starts`: the paths are folders it changed only under (find's start folders), so one naming the working folder
    or a folder above it is everything."""

    paths: tuple[str, ...] = ()
    why: str = ""
    unknown: tuple[str, ...] = ()
    starts: bool = False

    @property
    def none(self) -> bool:
        """It changed nothing replay tracks, and ran no program replay cannot read."""
        return not self.paths and not self.unknown


NONE = Effect()

# the kinds of the table
READS = "reads"  # reads, or writes only outside the sources (caches, build outputs, temp files)
NAMES = "names"  # writes the operands it names (`rm a b`, `touch f`)
TARGET = "target"  # writes its last operand (`cp a b`)
MOVES = "moves"  # writes every operand (`mv a b`: both change)
FORMATS = "formats"  # reformats: only files not already formatted, and the committed tree is taken as formatted
FORMATS_WITH_FLAG = "formats-with-flag"  # reformats only with -w/--write (`gofmt -l` lists)
WRITES = "writes"  # may rewrite anything


@dataclass(frozen=True)
class Program:
    """What a program does to the workspace, refined by its subcommand and its flags."""

    kind: str = READS
    writers: frozenset[str] = frozenset()  # subcommands that rewrite files
    tasks: bool = False  # a task runner: a subcommand or task named with fmt/format/fix/gen rewrites files too
    manifests: dict[str, tuple[str, ...]] = field(default_factory=dict)  # subcommand -> what it installs into
    flags: dict[str, str] = field(default_factory=dict)  # a flag (or a flag's start) -> why it writes anything


def _p(kind: str = READS, writers: str = "", tasks: bool = False, manifests=None, flags=None) -> Program:
    return Program(kind, frozenset(writers.split()), tasks, manifests or {}, flags or {})


_NPM = ("package.json", "package-lock.json", "node_modules")
_PNPM = ("package.json", "pnpm-lock.yaml", "node_modules")
_YARN = ("package.json", "yarn.lock", "node_modules")
_UV = ("pyproject.toml", "uv.lock", ".venv")
_SNAPSHOTS = {"-u": "updates its snapshots", "--update": "updates its snapshots",
              "--updateSnapshot": "updates its snapshots"}

PROGRAMS: dict[str, Program] = {
    **{name: _p() for name in (
        "mkdir cat head tail less more nl wc ls tree grep egrep fgrep rg ag fd stat file du df pwd echo printf "
        "which type env date true false test [ : diff cmp uniq cut tr jq basename dirname realpath readlink "
        "sleep whoami uname id hostname ps sha256sum md5sum shasum xxd od hexdump strings column seq yes read cd "
        "export source printenv set unset wait clear exit tput pytest mypy tsc eslint docker kubectl "
        "golangci-lint rev base64 uuidgen pgrep pidof md5 tac paste join comm fold expand unexpand iconv bc expr "
        "nproc lsof continue break return local declare typeset shift trap alias history staticcheck shellcheck "
        "actionlint pyright flake8 pylint hadolint sw_vers sysctl getconf locale dig nslookup ping ssh ssh-add").split()},
    **{name: _p(NAMES) for name in "rm rmdir touch tee truncate chmod chown unlink".split()},  # mkdir: no file
    **{name: _p(TARGET) for name in "cp ln install rsync".split()},
    "mv": _p(MOVES),
    **{name: _p(FORMATS_WITH_FLAG) for name in "gofmt goimports prettier rustfmt clang-format".split()},
    **{name: _p(FORMATS) for name in "black isort".split()},
    "go": _p(writers="fmt mod get generate fix work", tasks=True,
             manifests={"mod": ("go.mod", "go.sum", "vendor"), "get": ("go.mod", "go.sum")}),
    "cargo": _p(writers="fmt fix add remove update new init", tasks=True,
                manifests={"add": ("Cargo.toml", "Cargo.lock"), "remove": ("Cargo.toml", "Cargo.lock"),
                           "update": ("Cargo.lock",)}),
    "npm": _p(writers="install i ci uninstall update init version pkg", tasks=True,
              manifests={"install": _NPM, "i": _NPM, "ci": ("node_modules",), "uninstall": _NPM}),
    "pnpm": _p(writers="install i add remove update", tasks=True, manifests={"install": _PNPM, "add": _PNPM}),
    "yarn": _p(writers="install add remove upgrade", tasks=True, manifests={"install": _YARN, "add": _YARN}),
    "uv": _p(writers="add remove sync lock init", tasks=True,
             manifests={"add": _UV, "remove": _UV, "sync": ("uv.lock", ".venv"), "lock": ("uv.lock",)}),
    "pip": _p(writers="install uninstall", tasks=True, manifests={"install": (".venv", "venv")}),
    "pip3": _p(writers="install uninstall", tasks=True, manifests={"install": (".venv", "venv")}),
    "make": _p(writers="fmt format generate gen fix clean install", tasks=True),
    "mise": _p(writers="fmt format fix generate install", tasks=True),
    "ruff": _p(writers="format", tasks=True),
    "npx": _p(writers="prettier", tasks=True),
    "bun": _p(writers="install i add remove update", tasks=True,
              manifests={"install": ("package.json", "bun.lock", "bun.lockb", "node_modules"),
                         "add": ("package.json", "bun.lock", "bun.lockb", "node_modules")}),
    "jest": _p(flags=_SNAPSHOTS),
    "vitest": _p(flags=_SNAPSHOTS),
}
PROGRAMS["pytest"] = _p(flags={"--snapshot-update": "updates its snapshots",
                               "--update-snapshots": "updates its snapshots"})
WRITING_FLAGS = {"--fix", "--write", "--in-place"}  # linters' and formatters' own (`-i`, `-w` mean other things)
FORMATTER_FLAGS = {"-w", "-i", "--write", "--in-place", "--fix"}

# shell words that open or close a compound command, and wrappers: the command after them is what runs
KEYWORDS = {"while", "until", "if", "elif", "then", "do", "else", "!", "{", "(", "time", "sudo", "env", "nice",
            "nohup", "command", "exec", "timeout"}
CLOSERS = {"done", "fi", "}", ")", "esac"}

# an unknown program run in a form that only reads: its version, its help, a listing or a record shown
READ_ONLY_FLAGS = {"--version", "--help"}
READ_ONLY_ALONE = {"-h", "-V", "-v", "-help", "-version"}  # short forms, read-only when they are all it is given
# `analyze`: a static analyser's report (`dart analyze`, `flutter analyze`: caches only, under ~/.dartServer)
READ_ONLY_SUBCOMMANDS = {"show", "list", "ls", "status", "log", "help", "version", "view", "info", "search",
                         "describe", "get", "whoami", "doctor", "analyze"}
_PATHLIKE = re.compile(r"^(?:\.{1,2}|[^\s=:@]*/[^\s]*|[^\s/=:@]+\.[A-Za-z0-9]{1,8})$")


# PowerShell's cmdlets are named Verb-Noun, and the verb says what the cmdlet does (Microsoft's "Approved Verbs for
# PowerShell Commands": Get "retrieves a resource", Test "verifies the operation or consistency of a resource",
# Select/Sort/Group/Measure/Compare/Where shape what the pipeline carries, Format/ConvertTo/ConvertFrom/Out-String
# render it, Resolve-Path/Join-Path/Split-Path compute paths). Codex on Windows runs its shell commands in
# PowerShell (Real-s/mini-simclr-assignment 0.142: `Get-Content -Encoding UTF8 weekly-plan.md`). Set, New, Remove,
# Copy, Move, Add, Clear, Out-File, Export… write: they stay programs replay does not know.
_POWERSHELL_READS = re.compile(r"^(?:Get|Test|Select|Sort|Group|Measure|Compare|Where|Format|ConvertTo|ConvertFrom|"
                               r"Resolve|Join|Split)-[A-Za-z]+$|^(?:Out-String|Out-Host|Write-Output|Write-Host)$",
                               re.IGNORECASE)


def powershell_reads(program: str) -> bool:
    """A PowerShell cmdlet whose verb only reads (`Get-Content`, `Test-Path`, `Select-String`)."""
    return bool(_POWERSHELL_READS.match(program))


def read_only_form(args: list[str]) -> bool:
    """An unknown program's arguments in a form that only reads (`--version`, `-h` alone, `show ID`, `list`)."""
    if any(a in READ_ONLY_FLAGS for a in args) or len(args) == 1 and args[0] in READ_ONLY_ALONE:
        return True
    operands = [a for a in args if not a.startswith("-")]
    # `bd show 12`, and a command's own subcommand: `entire plugin list`, `gh issue view 3`
    return any(word in READ_ONLY_SUBCOMMANDS for word in operands[:2])


def named_paths(args: list[str]) -> list[str]:
    """The words of a command line that name files or folders (`src/app.ex`, `notes.md`, `.`, `--out=dist/x`),
    not subcommands, identifiers or URLs."""
    named = []
    for arg in args:
        value = arg.partition("=")[2] if arg.startswith("--") else arg
        if value and not value.startswith("-") and "://" not in value and _PATHLIKE.match(value):
            named.append(value)
    return named


def formatting(task: str) -> bool:
    """A task (`fmt`, `format`, `fmt:go`, `prettier`) that formats, and does not also fix or generate."""
    return (any(w in task for w in ("fmt", "format")) or task == "prettier") \
        and not any(w in task for w in ("fix", "generate", "gen"))


def reformats(what: str) -> Effect:
    """A formatter's effect: the files the session changed."""
    return Effect((CHANGED,), f"{what} may have reformatted the files the session changed")


def judge(program: str, entry: Program, args: list[str]) -> Effect | None:
    """A table program's effect on its arguments (None: nothing)."""
    operands = [a for a in args if not a.startswith("-")]
    if entry.kind == NAMES:  # chmod's and chown's first operand is the mode or the owner
        named = operands[1:] if program in ("chmod", "chown") else operands
        return Effect(tuple(a for a in named if not a.isdigit()), f"{program} writes")
    if entry.kind in (TARGET, MOVES):
        return Effect(tuple(operands[-1:] if entry.kind == TARGET else operands), f"{program} writes its target")
    if entry.kind == FORMATS or entry.kind == FORMATS_WITH_FLAG and any(a in FORMATTER_FLAGS for a in args):
        return reformats(program)
    if entry.kind == FORMATS_WITH_FLAG:
        return None
    for flag, why in entry.flags.items():
        if any(a == flag or a.startswith(flag + "=") for a in args):
            return Effect((EVERYTHING,), f"{program} {why}")
    sub = operands[0] if operands else ""
    if sub in ("run", "run-script", "exec") and len(operands) > 1 and entry.tasks:  # a task runner: the task says
        sub = operands[1]
    if sub in entry.manifests and not any(a in WRITING_FLAGS for a in args):
        return Effect(entry.manifests[sub], f"{program} {sub} writes its manifest and lock file")
    writes = entry.tasks and (sub in entry.writers or any(w in sub for w in ("fmt", "format", "fix", "gen")))
    if "--fix" not in args and (writes and formatting(sub) or sub in PROGRAMS
                                and PROGRAMS[sub].kind == FORMATS_WITH_FLAG and any(a in FORMATTER_FLAGS for a in args)):
        return reformats(f"{program} {sub}")
    if writes or any(a in WRITING_FLAGS for a in args):
        return Effect((EVERYTHING,), f"{program} {sub} may rewrite files".replace("  ", " "))
    return None


# GitHub spec-kit's scripts (`.specify/scripts/bash/*.sh`, `powershell/*.ps1`), as its repository has them:
# the prerequisites check only reads; the others copy a template into the feature's folder under specs/
# (and create-new-feature makes a branch at HEAD, which keeps the files); update-agent-context rewrites the
# agents' own files (AGENT_FILES)
SPEC_KIT = {"check-prerequisites": (), "create-new-feature": ("specs",), "setup-plan": ("specs",),
            "setup-tasks": ("specs",)}
# update-agent-context AGENT rewrites that agent's file (with no agent: every one of them)
AGENT_FILES = {"claude": "CLAUDE.md", "gemini": "GEMINI.md", "qwen": "QWEN.md", "codex": "AGENTS.md",
               "opencode": "AGENTS.md", "amp": "AGENTS.md", "q": "AGENTS.md", "bob": "AGENTS.md",
               "copilot": ".github", "cursor-agent": ".cursor", "windsurf": ".windsurf", "kilocode": ".kilocode",
               "auggie": ".augment", "roo": ".roo", "codebuddy": "CODEBUDDY.md", "qoder": "QODER.md",
               "shai": "SHAI.md"}
