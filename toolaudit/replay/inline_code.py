"""What inline Python or JavaScript run from a shell line may write, judged by the calls its code makes.

`python - <<'PY' … PY`, `python -c CODE`, `node -e CODE`, `node - <<'JS'`: the code is in the recording.
Python is parsed (ast) and each call is looked at: a file opened for writing (`open(p, 'w')`, a `w:gz` tar),
a path written, moved or deleted (`Path.write_text`, `os.remove`, `shutil.*`), a frame or figure saved, an
archive unpacked, a download saved, or another program run (`subprocess.run([...])`, judged as a shell line
when its words are written out). Words in comments and strings are never calls: "extract" in a comment
writes nothing. A path the code writes is named when it is written out (`open('out.md', 'w')`); a write to a
path it builds, a program it builds, or a call into a module that is neither the standard library's nor a
known reader's cannot be read: the code is then an *unknown program* (what it changed is what the session
later shows changed). JavaScript has no parser here: its comments are dropped and its strings blanked
before its calls are looked for.
"""

from __future__ import annotations

import ast
import re
import shlex
import sys
from dataclasses import dataclass

# a mode string that writes: 'w', "ab", 'r+', 'x', tarfile's 'w:gz'
_MODE = re.compile(r"^(?:[rbtU]*[wax+][rbt+]*|[wax]:\w*)$")
_WRITES_METHODS = {
    "write_text", "write_bytes", "unlink", "rmdir", "touch", "symlink_to", "hardlink_to", "mkdir", "chmod",
    "lchmod", "savefig", "savez", "savez_compressed", "savetxt", "tofile", "extractall", "urlretrieve",
    "to_csv", "to_parquet", "to_excel", "to_pickle", "to_feather", "to_hdf", "to_sql", "to_stata", "to_orc",
}
# os's and shutil's functions that write (called on the module, or imported from it)
_OS_WRITES = {"remove", "unlink", "rename", "renames", "replace", "rmdir", "removedirs", "mkdir", "makedirs",
              "symlink", "link", "chmod", "chown", "lchown", "truncate", "utime", "mkfifo", "mknod"}
_SHUTIL_READS = {"which", "disk_usage", "get_terminal_size", "get_archive_formats", "get_unpack_formats"}
_RUNS = {"run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput"}
_OS_RUNS = {"system", "popen", "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe",
            "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe", "startfile"}
_OPEN_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
_TEMP = {"NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile", "mkstemp", "mkdtemp",
         "TemporaryDirectory"}  # they write in the temp folder, not the workspace
# libraries whose calls read unless they are one of the calls above (a frame's to_csv, an image's save)
KNOWN_READERS = {"yaml", "toml", "tomli", "tomlkit", "numpy", "pandas", "requests", "httpx", "bs4", "lxml",
                 "jsonschema", "dateutil", "pydantic", "rich", "tabulate", "chardet", "packaging", "markdown",
                 "PIL", "matplotlib", "scipy", "networkx", "jinja2", "click", "tiktoken", "openpyxl"}


NOT_PYTHON = "Python code that does not parse"


@dataclass(frozen=True)
class Verdict:
    """What a piece of inline code may write: the paths it names, and why it cannot be read further
    (`unknown`: empty when every write it makes is named, or it makes none)."""

    paths: tuple[str, ...] = ()
    unknown: str = ""
    commands: tuple[str, ...] = ()  # the shell lines it runs, written out (judged as shell lines)


def judge_python(code: str) -> Verdict:
    """What Python `code` may write, from the calls it makes."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return Verdict(unknown=NOT_PYTHON)
    modules, names = _imports(tree)
    env = _assigned(tree)
    paths: list[str] = []
    commands: list[str] = []
    unknown = ""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        found = _call(node, modules, names, env)
        if found is None:
            continue
        kind, value = found
        if kind == "path":
            paths.append(value)
        elif kind == "command":
            commands.append(value)
        else:
            unknown = unknown or value
    foreign = sorted(m for m in modules.values() if m.split(".")[0] not in _KNOWN)
    if not unknown and foreign:
        unknown = f"it imports {foreign[0]}, whose calls cannot be read"
    return Verdict(tuple(dict.fromkeys(paths)), unknown, tuple(commands))


_KNOWN = set(getattr(sys, "stdlib_module_names", ())) | KNOWN_READERS | {"__future__"}


def _imports(tree: ast.AST) -> tuple[dict[str, str], dict[str, str]]:
    """(alias -> module) for `import m as a`, and (name -> module.name) for `from m import name`."""
    modules: dict[str, str] = {}
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if node.module.split(".")[0] not in _KNOWN:
                    modules.setdefault(f"<from {node.module}>", node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            modules.setdefault("<relative>", "." * node.level + (node.module or ""))
    return modules, names


def _dotted(node: ast.AST, modules: dict[str, str], names: dict[str, str]) -> str:
    """`os.path.join` for a call's function, its first name resolved through the imports ('' when not a name)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    head = names.get(node.id) or modules.get(node.id) or node.id
    return ".".join([head, *reversed(parts)])


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _assigned(tree: ast.AST) -> dict[str, str]:
    """The names bound once to a path written out (`path = Path('specs/tasks.md')`, `out = 'a.csv'`); a name
    bound otherwise too (a loop, a `with … as`, another value) names none."""
    seen: dict[str, str | None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value if len(node.targets) == 1 else None
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
            targets, value = [node.target], None
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets, value = [node.optional_vars], None
        else:
            continue
        for target in targets:
            bound = _path(value, {}) if isinstance(target, ast.Name) and value is not None else None
            for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                seen[name] = bound if name not in seen or seen[name] == bound else None
    return {name: value for name, value in seen.items() if value is not None}


def _path(node: ast.AST | None, env: dict[str, str]) -> str | None:
    """The path an expression names when it is written out: 'a.md', a name bound to one, `Path('a.md')`,
    `Path('a') / 'b.md'`."""
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.Call) and node.args and isinstance(node.func, (ast.Name, ast.Attribute)):
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        return _path(node.args[0], env) if name in ("Path", "PurePath", "PosixPath") else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left, right = _path(node.left, env), _path(node.right, env)
        return f"{left}/{right}" if left is not None and right is not None else None
    return _literal(node)


def _receiver_path(node: ast.AST, env: dict[str, str]) -> str | None:
    """The path a method is called on (`Path('a.md').write_text`, `path.write_text`), when it is written out."""
    return None if isinstance(node, ast.Constant) else _path(node, env)


def _written(path: str | None, what: str) -> tuple[str, str]:
    return ("path", path) if path else ("unknown", f"it {what} a path it builds")


def _call(node: ast.Call, modules: dict[str, str], names: dict[str, str],
          env: dict[str, str]) -> tuple[str, str] | None:
    """("path", P) for a write of a named path, ("command", LINE) for a program run as written out,
    ("unknown", why) for a write or run that cannot be read, None for a call that writes nothing."""
    func = node.func
    dotted = _dotted(func, modules, names)
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    module = dotted.rsplit(".", 1)[0] if "." in dotted else ""
    first = _path(node.args[0], env) if node.args else None
    if name in _TEMP or module.startswith("tempfile"):
        return None
    if module in ("subprocess", "asyncio") and (name in _RUNS or name.startswith("create_subprocess")) \
            or module == "os" and name in _OS_RUNS or dotted == "pty.spawn":
        return _command(node)
    if name in ("exec", "eval") and isinstance(func, ast.Name):
        return ("unknown", "it runs code it builds") if first is None else _nested(first)
    if module == "os" and name in _OS_WRITES or module == "shutil" and name not in _SHUTIL_READS:
        return _written(first, f"calls {module}.{name} on")
    if name == "open" or module in ("os",) and name == "fdopen" or name in ("ZipFile", "TarFile"):
        return _open(node, func, first, env)
    if any(isinstance(n, ast.Attribute) and n.attr in _OPEN_FLAGS for a in node.args for n in ast.walk(a)):
        return _written(first, "opens for writing")
    if name in _WRITES_METHODS or name in ("rename", "replace") and isinstance(func, ast.Attribute) \
            and len(node.args) == 1 and not node.keywords or name == "save" and node.args \
            or name == "extract" and not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)
                                          and func.value.attr == "str"):  # pandas' .str.extract reads
        target = _receiver_path(func.value, env) if isinstance(func, ast.Attribute) else None
        if name in ("savefig", "save", "savetxt", "savez", "savez_compressed", "tofile", "urlretrieve") \
                or name.startswith("to_"):
            target = first if name != "urlretrieve" else _path(node.args[1], env) if len(node.args) > 1 else None
        return _written(target, f"calls {name} on")
    return None


def _open(node: ast.Call, func: ast.AST, first: str | None, env: dict[str, str]) -> tuple[str, str] | None:
    """open(P, MODE), Path(P).open(MODE), tarfile.open(P, 'w:gz'): a write when the mode writes (or is not
    written out)."""
    method = isinstance(func, ast.Attribute) and not isinstance(func.value, ast.Name) or \
        isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id not in \
        ("io", "os", "codecs", "gzip", "bz2", "lzma", "tarfile", "zipfile", "builtins")
    modes = [k.value for k in node.keywords if k.arg == "mode"]
    positional = node.args[0:1] if method else node.args[1:2]
    modes += positional
    if not modes:
        return None
    mode = _literal(modes[0])
    if mode is not None and not _MODE.match(mode):
        return None
    target = _receiver_path(func.value, env) if method else first  # type: ignore[union-attr]
    return _written(target, "opens for writing")


def _command(node: ast.Call) -> tuple[str, str]:
    """subprocess.run(['git', 'status']) or os.system('ls'): the shell line it runs, when written out."""
    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "args"), None)
    text = _literal(arg)
    if text is not None:
        return "command", text
    if isinstance(arg, (ast.List, ast.Tuple)):
        words = [_literal(e) for e in arg.elts]
        if words and all(w is not None for w in words):
            return "command", shlex.join(words)  # type: ignore[arg-type]
    return "unknown", "it runs a program it builds"


def _nested(code: str) -> tuple[str, str] | None:
    inner = judge_python(code)
    if inner.unknown or inner.commands:
        return "unknown", inner.unknown or "it runs code that runs a program"
    return ("path", inner.paths[0]) if inner.paths else None


# ------------------------------------------------------------------ JavaScript (node -e, node - <<'JS')

_JS_STRING = re.compile(r"'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"|`(?:\\.|[^`\\])*`", re.S)
_JS_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_JS_WRITES = re.compile(
    r"\b(?:writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|unlink|unlinkSync|rm|rmSync|rmdir|"
    r"rmdirSync|rename|renameSync|copyFile|copyFileSync|cp|cpSync|mkdir|mkdirSync|symlink|symlinkSync|truncate|"
    r"truncateSync|chmod|chmodSync|exec|execSync|execFile|execFileSync|spawn|spawnSync|fork|outputFile|"
    r"outputFileSync|remove|removeSync|emptyDir|move|moveSync|copy|copySync)\s*\(")
_JS_TARGET = re.compile(r"\b(?:writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|outputFile|"
                        r"outputFileSync)\s*\(\s*(['\"])([^'\"\n]+)\1\s*[,)]")


def judge_js(code: str) -> Verdict:
    """What JavaScript `code` may write: the files it writes when they are written out; any other call that
    writes, moves, deletes or runs a program makes it unknown."""
    bare = _blank_strings(code)
    for comment in _JS_COMMENT.finditer(bare):  # blanked in both texts alike: offsets stay the same
        blank = " " * (comment.end() - comment.start())
        bare = bare[:comment.start()] + blank + bare[comment.end():]
        code = code[:comment.start()] + blank + code[comment.end():]
    calls = list(_JS_WRITES.finditer(bare))
    if not calls:
        return Verdict()
    named = {m.start(): m.group(2) for m in _JS_TARGET.finditer(code)}
    paths = [named[m.start()] for m in calls if m.start() in named]
    unknown = "" if len(paths) == len(calls) else f"it calls {calls[0].group(0).rstrip('( ')} on a path it builds"
    return Verdict(tuple(dict.fromkeys(paths)), unknown)


def _blank_strings(code: str) -> str:
    """Each string's inside replaced by spaces (same length: offsets stay), so words in strings are no calls."""
    return _JS_STRING.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1], code)
