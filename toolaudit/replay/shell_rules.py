"""The programs whose effect on the workspace needs their arguments read: git, sed, find, xargs, the runners of
other programs (`uv run`, `npx`), downloads, in-place editors, the interpreters, spec-kit's scripts, and the
programs replay does not know. RULES is their table, one entry a program (replay.shell_programs holds the table of
the programs whose effect their name and flags say)."""

from __future__ import annotations

import itertools
import posixpath
import shlex
from typing import Callable

from .inline_code import NOT_PYTHON, Verdict, judge_js, judge_python
from .shell_programs import AGENT_FILES, EVERYTHING, SPEC_KIT, Effect, named_paths, read_only_form
from .shell_syntax import after_options, not_found

Judge = Callable[[str], "Effect | None"]  # one simple command's effect (replay.shell_effects.part)

GIT_VALUED = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"}
GIT_READERS = {"status", "log", "diff", "show", "blame", "branch", "rev-parse", "ls-files", "grep", "remote",
               "config", "describe", "shortlog", "reflog", "tag", "fetch", "cat-file", "ls-tree", "rev-list",
               "name-rev", "merge-base", "worktree", "add", "commit", "push", "notes", "check-ignore", "check-attr",
               "for-each-ref", "show-ref", "symbolic-ref", "var", "help", "version", "count-objects", "fsck",
               "ls-remote", "--version", "--help",
               # plumbing that compares trees: merge-tree writes objects at most (--write-tree), never a file
               "merge-tree", "diff-tree", "diff-index", "diff-files", "whatchanged", "range-diff", "cherry",
               "show-branch"}
GIT_MOVERS = {"checkout", "switch", "reset", "restore", "stash", "merge", "rebase", "pull", "cherry-pick",
              "revert", "apply", "am", "clean", "mv", "rm"}
XARGS_VALUED = {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter",
                "--max-lines", "--arg-file", "--replace", "--eof"}
FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}
FIND_WRITES = {"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
INTERPRETERS = {"python", "python3", "node", "deno", "bun"}
BUN_COMMANDS = {"run", "test", "install", "i", "add", "remove", "update", "build", "x", "pm", "outdated", "link",
                "create", "init", "upgrade"}  # bun's own commands (else it runs a script: an interpreter)
_PY_MODULES_READ = {"pytest", "unittest", "json.tool", "py_compile", "compileall", "doctest", "pydoc", "timeit",
                    "mypy", "pyflakes", "pylint", "flake8", "site", "platform", "sysconfig", "this", "tokenize"}


def git(args: list[str]) -> Effect | None:
    """git reads, moves the working tree (EVERYTHING), or writes only the paths it names."""
    rest = after_options(args, GIT_VALUED)
    sub = next(iter(rest), "")  # `git -C DIR log`: log, not DIR
    if _git_keeps_files(sub, rest[1:]):
        return None
    named = _git_paths(sub, rest[1:]) if "-C" not in args[:len(args) - len(rest)] else []
    if named:
        return Effect(tuple(named), f"git {sub} writes the paths it names")
    if sub in GIT_MOVERS:
        return Effect((EVERYTHING,), f"git {sub} changes the working tree")
    return None if sub in GIT_READERS or not sub else Effect((EVERYTHING,), f"git {sub}")


def _git_paths(sub: str, args: list[str]) -> list[str]:
    """The paths a git command that writes only what it names was given ([]: it names none, or may write more):
    `checkout [REV] -- PATH…`, `restore [--source REV] PATH…`, `rm PATH…`, `mv A B`."""
    if sub == "checkout" and "--" in args:
        return list(args[args.index("--") + 1:])
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


def sed(args: list[str]) -> Effect | None:
    """sed writes only with its in-place flag, alone or in a cluster (`-i`, `-i.bak`, `-Ei`, `--in-place=.bak`)."""
    if not any(a.startswith("--in-place") or a.startswith("-") and not a.startswith("--") and "i" in a[1:]
               for a in args):
        return None
    # the script, then the files (BSD sed's `-i ''` gives an empty suffix word: not an operand)
    operands = [a for a in args if a and not a.startswith("-")]
    return Effect(tuple(operands[1:]) or (EVERYTHING,), "sed -i")


def find(args: list[str], judge: Judge) -> Effect | None:
    """find reads, unless it deletes or writes a list, or `-exec`s a program that writes. What it finds lies under
    its start folders: a `-delete`, or an `-exec` whose program writes only the files it is given (`rm {} +`,
    `sed -i … {}`), changes only under them, in the workspace or out of it (gstack's preamble:
    `find ~/.gstack/sessions -mmin +120 -type f -delete`, later `… -exec rm {} +`; yyopc/yyork's Codex 0.140
    `find cmd/yyork/dashboard -mindepth 1 -maxdepth 1 ! -name .gitkeep -exec rm -rf {} +`). With no start folder
    named (or the working folder itself), or a program that writes elsewhere, anything may have changed."""
    starts = tuple(itertools.takewhile(lambda a: not a.startswith(("-", "(", "!")), args))
    # the working folder or above, or a folder a variable names: anything
    starts = () if any(posixpath.normpath(a) in (".", "..") or a.startswith("../") or "$" in a or "`" in a
                       for a in starts) else starts
    if set(args) & (FIND_WRITES - {"-delete"}):
        return Effect((EVERYTHING,), "find deletes or writes files")
    why = "find deletes files" if "-delete" in args else ""
    for i, arg in enumerate(args):  # every -exec: one that writes elsewhere makes it anything
        if arg in FIND_EXEC:
            rest = args[i + 1:]
            end = next((j for j, a in enumerate(rest) if a in (";", "+")), len(rest))
            inner = judge(shlex.join(rest[:end])) if rest[:end] else None
            if inner is not None and not inner.none:
                if not (inner.paths and all(p == "{}" for p in inner.paths) and not inner.unknown):
                    return Effect((EVERYTHING,), f"find -exec {rest[0]} writes the files it finds")
                why = why or f"find -exec {rest[0]} writes the files it finds"
    if not why:
        return None
    if not starts:
        return Effect((EVERYTHING,), "find deletes or writes files" if "-delete" in args else why)
    return Effect(starts, why, starts=True)


def xargs(args: list[str], judge: Judge) -> Effect | None:
    """What xargs runs decides: `xargs grep -l x` reads, `xargs rm` writes the files it is given."""
    rest = after_options(args, XARGS_VALUED)
    inner = judge(shlex.join(rest)) if rest else None
    if inner is None:
        return None
    if inner.paths and all(p == "<changed>" for p in inner.paths) or inner.unknown and not inner.paths:
        return inner  # a formatter over the files found: as over the tree; a program replay does not know
    # a writer's operands come from its input: which files it wrote cannot be read from the text
    return Effect((EVERYTHING,), f"xargs {rest[0]} writes the files it is given")


# Node's corepack runs the package manager it is named (`corepack pnpm exec vitest run`, nodejs/corepack's README:
# "corepack <binary name>[@<version>] [... args]"); its own commands write outside the workspace (enable, disable:
# shims in Node's bin folder; install, prepare, pack: its cache), but `use` and `up` set package.json's
# `packageManager` and install
_MANAGERS = {"npm", "pnpm", "yarn", "npx", "pnpx", "yarnpkg"}
_COREPACK_SETS = ("package.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "node_modules")


def runner(program: str, args: list[str], judge: Judge) -> Effect | None | bool:
    """`uv run`, `poetry run`, `pnpm exec`, `npx`, `corepack pnpm`: what they run decides; False when `program` runs
    nothing."""
    if program == "corepack":
        rest = after_options(args, set())
        if rest and rest[0].split("@")[0] in _MANAGERS:
            return judge(shlex.join([rest[0].split("@")[0], *rest[1:]]))
        return Effect(_COREPACK_SETS, f"corepack {rest[0]} sets package.json's packageManager") \
            if rest[:1] in (["use"], ["up"]) else None
    if not (program in ("uv", "poetry", "pipenv") and args[:1] == ["run"] or program == "pnpm" and args[:1] == ["exec"]
            or program in ("npx", "bunx", "pnpx")):
        return False
    rest = after_options(args if program in ("npx", "bunx", "pnpx") else args[1:], set())
    # `uv run black .`, `npx prettier --write`, `npx prisma@5 generate`
    return judge(shlex.join([rest[0].split("@")[0] or rest[0], *rest[1:]])) if rest else None


def download(program: str, args: list[str]) -> Effect | None:
    """curl/wget write the file `-o`/`-O FILE` names, or one named by the download; else they print."""
    for i, a in enumerate(args):
        if a in ("-o", "--output", "-O", "--output-document") and i + 1 < len(args) \
                and not (program == "curl" and a == "-O"):
            return Effect((args[i + 1],), f"{program} writes its output file")
        if a in ("-O", "--remote-name", "-J", "-P") or program == "wget" and not a.startswith("-") \
                and not any(x in ("-O", "--output-document", "-qO-", "-O-") for x in args):
            return Effect((EVERYTHING,), f"{program} saves a file named by the download")
    return None


def gh(args: list[str]) -> Effect | None:
    """gh reads (its API, issues, runs) but for `gh pr checkout` and `gh repo clone`."""
    if args[:2] in (["pr", "checkout"], ["repo", "clone"]):
        return Effect((EVERYTHING,), f"gh {' '.join(args[:2])} changes the working tree")
    return None


def in_place(program: str, args: list[str]) -> Effect | None | bool:
    """yq/awk (`-i`, `-i inplace`) and perl/ruby (`-i`, `-pi`) edit files in place; else yq/awk print, and a
    perl/ruby script is the table's (False)."""
    if program in ("yq", "awk", "gawk"):
        edits = any(a == "inplace" or a.startswith("-i") for a in args)
    else:
        edits = any(a.startswith("-") and not a.startswith("--") and "i" in a[1:] for a in args)
    if edits:
        return Effect((EVERYTHING,), f"{program} edits files in place")
    return None if program in ("yq", "awk", "gawk") else False


def tar(args: list[str]) -> Effect | None | bool:
    """tar's mode first (`tar -tzf a.tgz`, `tar tf a.tar`): -t lists; the others create or extract (False: the
    table's entry for tar decides)."""
    if args and (args[0].startswith("-") and not args[0].startswith("--") or not args[0].startswith("-")):
        return None if "t" in args[0].lstrip("-") else False
    return False


def ssh_keygen(args: list[str]) -> Effect | None:
    """ssh-keygen -l fingerprints, -y prints a public key, -F finds a host: it reads; else it writes -f's files."""
    if any(a.startswith("-") and not a.startswith("--") and set(a[1:2]) & set("lyFB") for a in args):
        return None
    named = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "-f"), None)
    return Effect((named, f"{named}.pub"), "ssh-keygen writes its key files") if named else None


def sort(args: list[str]) -> Effect | None:
    """sort prints, but for `-o FILE`."""
    if any(a == "-o" or a.startswith("--output") for a in args):
        return Effect((EVERYTHING,), "sort -o writes its output file")
    return None


def manager(program: str, args: list[str], judge: Judge) -> Effect | None | bool:
    """npm/pnpm/yarn: `pnpm exec X` as X; a global install writes outside the workspace; else the table's entry."""
    ran = runner(program, args, judge) if program == "pnpm" else False
    if ran is not False:
        return ran
    if any(a in ("-g", "--global") for a in args) or args[:1] == ["global"]:
        return None
    return False


def interpreter(program: str, args: list[str], judge: Judge, printed: str = "") -> Effect | None:
    """python/node: a test runner, a version or inline code judged by its calls reads or writes as it says; a
    script is an unknown program (its name, and the paths given to it)."""
    if not args or args[0] in ("--version", "-V", "--help", "-h", "-v") or args == ["-VV"]:
        return None if args else unknown(program, [], "")  # no arguments: a script from its input
    if args[0] == "-m" and len(args) > 1:
        if args[1] in _PY_MODULES_READ or args[1] == "pip" and args[2:3] in (["list"], ["show"], ["freeze"]):
            return None
        if args[1] == "pip":
            return judge(shlex.join(["pip", *args[2:]]))
        return unknown(f"{program} -m {args[1]}", args[2:], "")
    code_flags = ("-c",) if program.startswith("python") else ("-e", "--eval", "-p", "--print")
    for i, arg in enumerate(args):
        if arg in code_flags and i + 1 < len(args):
            verdict = judge_python(args[i + 1]) if program.startswith("python") else judge_js(args[i + 1])
            return inline(program, verdict, judge, printed)
        if not arg.startswith("-"):
            return unknown(f"{program} {arg}", args[i + 1:], "")
    return unknown(program, [], "")


def inline(program: str, verdict: Verdict, judge: Judge, printed: str = "") -> Effect | None:
    """The effect of inline code judged by its calls: the paths it writes, the programs it runs, and an unknown
    program when some of what it does cannot be read (code that does not parse, and that the recorded output
    shows Python refused, ran nothing)."""
    if verdict.unknown == NOT_PYTHON and "SyntaxError" in printed:
        return None
    inner = [judge(command) for command in verdict.commands]
    paths = [*verdict.paths, *(p for e in inner if e is not None for p in e.paths)]
    unknowns = [*(u for e in inner if e is not None for u in e.unknown)]
    if verdict.unknown:
        unknowns.append(f"{program} inline code ({verdict.unknown})")
    if not paths and not unknowns:
        return None
    if EVERYTHING in paths:
        return Effect((EVERYTHING,), f"{program} inline code runs a command that may write anything")
    return Effect(tuple(dict.fromkeys(paths)), f"{program} inline code writes the files it names",
                  tuple(dict.fromkeys(unknowns)))


def spec_kit(path: str, args: list[str]) -> Effect | None | bool:
    """A spec-kit script's effect (None: it reads), or False when `path` is not one of them."""
    if ".specify/scripts/" not in path:
        return False
    name = path.rsplit("/", 1)[-1].removesuffix(".sh").removesuffix(".ps1")
    if name == "update-agent-context":  # the named agent's file, or every agent's
        named = [AGENT_FILES[a] for a in args if a in AGENT_FILES]
        files = tuple(dict.fromkeys(named or AGENT_FILES.values()))
        return Effect(files, "spec-kit's update-agent-context writes the agents' files")
    if name not in SPEC_KIT:
        return False
    folders = SPEC_KIT[name]
    return Effect(folders, f"spec-kit's {name} writes under specs/") if folders else None


# The apply-grant skill's export script (the grant skill sessions read it from ~/.codex/skills/apply-grant/ or
# ~/.claude/skills/…; its SKILL.md, as recorded in kunalcode12/openclaw_agent's Codex 0.118 session: "Finds the latest
# Claude Code session `.jsonl` … → copies as `./claude-session.jsonl`; Finds the latest Codex session from
# `~/.codex/sessions/` → copies as `./codex-session.jsonl`", and its output `Exported Claude Code session:
# ./claude-session.jsonl`): those two files in the folder it is given, nothing else there
_EXPORTED = ("claude-session.jsonl", "codex-session.jsonl")


def export_session(path: str, args: list[str]) -> Effect | bool:
    """The apply-grant skill's `export-session.sh [.]`: the two session files it copies into the folder; False when
    `path` is not that script, or names a folder its SKILL.md does not document."""
    if not path.replace("\\", "/").endswith("/apply-grant/export-session.sh"):
        return False
    folder = next((a for a in args if not a.startswith("-")), ".").replace("\\", "/").rstrip("/")
    if folder not in ("", "."):  # its SKILL.md documents `./` only: another folder is judged as any unknown program
        return False
    return Effect(_EXPORTED, "the apply-grant skill's export-session.sh copies the session files there")


def unknown(name: str, args: list[str], printed: str) -> Effect | None:
    """A program replay does not know: nothing in a read-only form (`--version`, `show`, `list`…); else the paths
    it names, and its name, so that what the session later shows changed is taken as its doing."""
    if read_only_form(args):
        return None
    return Effect(tuple(named_paths(args)), f"{name}: not known to leave files as they were", (name,))


def _interpreter(program: str, args: list[str], judge: Judge, printed: str) -> Effect | None | bool:
    """python/node/deno/bun; bun's own commands (`bun install`) are the table's entry for bun, not a script."""
    if program == "bun" and args[:1] and args[0] in BUN_COMMANDS:
        return False
    return None if not_found(program, printed) else interpreter(program, args, judge, printed)


def _go(program: str, args: list[str], judge: Judge, printed: str) -> Effect | None | bool:
    """`go run X` runs a program replay does not know; go's other commands are the table's entry for go."""
    if args[:1] != ["run"]:
        return False
    return unknown(f"go run {args[1] if len(args) > 1 else ''}".strip(), args[2:], printed)


# A rule: (program, its arguments, the judge of a command it runs, the recorded output) -> its effect; None: it
# changes nothing; False: the rule has nothing to say, and replay.shell_programs' table decides
Rule = Callable[[str, list[str], Judge, str], "Effect | None | bool"]

# The programs whose effect needs their arguments read, and the rule that reads them: one entry a program
RULES: dict[str, Rule] = {
    "git": lambda program, args, judge, printed: git(args),
    "sed": lambda program, args, judge, printed: sed(args),
    "find": lambda program, args, judge, printed: find(args, judge),
    "xargs": lambda program, args, judge, printed: xargs(args, judge),
    **dict.fromkeys(INTERPRETERS, _interpreter),
    "go": _go,
    **dict.fromkeys(("corepack", "uv", "poetry", "pipenv", "npx", "bunx", "pnpx"),
                    lambda program, args, judge, printed: runner(program, args, judge)),
    **dict.fromkeys(("npm", "pnpm", "yarn"), lambda program, args, judge, printed: manager(program, args, judge)),
    **dict.fromkeys(("curl", "wget"), lambda program, args, judge, printed: download(program, args)),
    "gh": lambda program, args, judge, printed: gh(args),
    **dict.fromkeys(("yq", "awk", "gawk", "perl", "ruby"),
                    lambda program, args, judge, printed: in_place(program, args)),
    **dict.fromkeys(("tar", "bsdtar", "gtar"), lambda program, args, judge, printed: tar(args)),
    "ssh-keygen": lambda program, args, judge, printed: ssh_keygen(args),
    "sort": lambda program, args, judge, printed: sort(args),
}
