"""The workspace as Gemini CLI saw it: its folder, .gitignore and .geminiignore rules."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from ...sandbox import OutsideWorkspace, resolve
from ..base import Call, version_tuple
from .common import NEWEST
from .text import glob_body

# ------------------------------------------------------------------ the folder as the agent saw it

class Folder:
    """The replay folder shown under the recorded working folder, with the session's ignore rules."""

    def __init__(self, call: Call):
        self.root = call.root.resolve()
        self.cwd = posixpath.normpath(call.cwd or str(self.root))
        self.v = version_tuple(call.params.get("version") or call.version) or NEWEST
        git = call.params.get("git", "")
        self.git = (self.root / ".git").exists() if git == "" else git.lower() in ("1", "true", "yes")
        self.rules: dict[str, list] = {}

    def locate(self, arg: str) -> tuple[str, Path]:
        """(the absolute path Gemini printed, the real path in the replay folder) for a path argument."""
        shown = posixpath.normpath(posixpath.join(self.cwd, arg))
        if shown != self.cwd and not shown.startswith(self.cwd.rstrip("/") + "/"):
            raise OutsideWorkspace(arg)
        return shown, resolve(self.root, posixpath.relpath(shown, self.cwd))

    def show(self, real: Path) -> str:
        """A real path as Gemini printed it: under the recorded working folder."""
        rel = real.relative_to(self.root).as_posix()
        return self.cwd if rel == "." else posixpath.join(self.cwd, rel)

    def ignored(self, rel: str, is_dir: bool = False, git: bool = True, gemini: bool = True) -> bool:
        """FileDiscoveryService: the .gitignore files (in a git repository) and .geminiignore (gitIgnoreParser.ts)."""
        rules = self._git_rules(rel) if git and self.git else []
        rules += self._rules(".geminiignore", "") if gemini else []
        return _ignores(rules, rel + ("/" if is_dir else ""))

    def _git_rules(self, rel: str) -> list:
        rules = [_rule(".git")] + self._rules(".git/info/exclude", "")
        parts = rel.split("/")
        for depth in range(len(parts)):
            base = "/".join(parts[:depth])
            rules += self._rules(posixpath.join(base, ".gitignore"), base)
        return rules

    def _rules(self, name: str, base: str) -> list:
        if name not in self.rules:
            try:
                text = (self.root / name).read_text("utf-8", "replace") if (self.root / name).is_file() else ""
            except OSError:
                text = ""
            lines = [p.lstrip() for p in re.split(r"\r\n|\n|\r", text)]
            self.rules[name] = [r for p in lines if p and not p.startswith("#") and (r := _rule(_nest(p, base)))]
        return self.rules[name]


def _nest(pattern: str, base: str) -> str:
    """A nested .gitignore's pattern made relative to the root, as gitIgnoreParser.processPatterns does."""
    neg = pattern.startswith("!")
    p = pattern[1:] if neg else pattern
    anchored = p.startswith("/")
    p = p[1:] if anchored else p
    if base and p:
        p = "/" + base + "/" + (p if anchored or "/" in p else "**/" + p)
    elif anchored and p:
        p = "/" + p
    return ("!" if neg else "") + p if p else ""


def _rule(pattern: str) -> tuple[bool, re.Pattern] | None:
    """One gitignore line as the `ignore` package reads it: (negated, regex over `a/b` or `a/b/` paths)."""
    if not pattern or pattern in ("!", "/"):
        return None
    neg = pattern.startswith("!")
    p = re.sub(r"(?<!\\) +$", "", pattern[1:] if neg else pattern)
    p = p[1:] if p[:2] in ("\\!", "\\#") else p
    dir_only, p = p.endswith("/"), p.rstrip("/")
    anchored = p.startswith("/") or "/" in p
    body = glob_body(p.lstrip("/"))
    head = "^" if anchored else "(?:^|/)"
    return neg, re.compile(head + body + ("/$" if dir_only else "(?=$|/$)"))


def _ignores(rules: list, path: str) -> bool:
    """node-ignore's `ignores`: a path is ignored when a parent folder is, else by the last rule that matches."""
    parts = path.rstrip("/").split("/")
    for depth in range(1, len(parts)):
        if _test(rules, "/".join(parts[:depth]) + "/"):
            return True
    return _test(rules, path)


def _test(rules: list, path: str) -> bool:
    ignored = False
    for neg, rx in rules:
        if neg == ignored and rx.search(path):
            ignored = not neg
    return ignored
