"""The transcript an MCP tool reads when it is given no path: the current session of the agent that started
the server (its newest transcript of the working folder's project), else the newest under the working folder.

Agents start their MCP servers in the project's folder and, today, tell them nothing else: Claude Code gives
CLAUDE_PROJECT_DIR to a plugin's servers, and names its session (CLAUDE_CODE_SESSION_ID) and Codex its thread
(CODEX_THREAD_ID) to shell commands only; each is honoured when present. Only names and the first line of a
file are read here, and every candidate must still pass the server's containment check.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping

# How much is looked at: the newest rollouts of Codex (a first line each), a bounded walk of the working folder.
_CODEX_FILES = 400
_WALK_ENTRIES = 5000
_WALK_DEPTH = 4
_FIRST_LINE = 256 * 1024
_CLAUDE_NAME_MAX = 200  # Claude Code cuts a longer project folder name and adds a hash of the path
_SKIP_FOLDERS = {"node_modules", ".git", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", "site-packages"}


@dataclass(frozen=True)
class Found:
    """A transcript chosen for a call without a path, and how it was chosen."""

    path: Path
    agent: str
    how: str  # told to the client: which rule picked this file

    def paths(self) -> list[Path]:
        """The transcript and, first, its subagents' folder (Claude Code's `<session>/`), when it has one: a
        subagent's own file before its parent's, as a folder walk orders them."""
        folder = self.path.with_suffix("")
        return [folder, self.path] if self.agent == "claude-code" and folder.is_dir() else [self.path]


def working_folder(env: Mapping[str, str] | None = None) -> Path:
    """The folder whose session is meant: CLAUDE_PROJECT_DIR when the agent sets it, else the server's cwd."""
    env = os.environ if env is None else env
    given = env.get("CLAUDE_PROJECT_DIR")
    return Path(given).expanduser().resolve() if given else Path.cwd().resolve()


def claude_folder_names(folder: Path) -> list[str]:
    """The names Claude Code gives a working folder's project under ~/.claude/projects: every character
    but a letter or digit as '-' (current versions), or only the separators (older ones)."""
    text = str(folder)
    names = [re.sub(r"[^A-Za-z0-9]", "-", text), re.sub(r"[\\/:]", "-", text)]
    return list(dict.fromkeys(names))


def current(allowed: Callable[[Path], bool], env: Mapping[str, str] | None = None,
            reaches: Callable[[Path], bool] = lambda folder: True) -> tuple[Found | None, str]:
    """The transcript of the current session (see the module's docstring) among those `allowed` lets through,
    and where it was looked for (said when nothing is found). The working folder itself is walked only when
    `reaches` says the server may read something in it."""
    from .collectors import discover

    env = os.environ if env is None else env
    folder = working_folder(env)
    places = [p for p in discover.default_locations() if p.is_dir()]
    claude = [p for p in places if p.name == "projects"]
    codex = [p for p in places if p.name == "sessions"]
    gemini = [p for p in places if p.name == "tmp" and p.parent.name == ".gemini"]

    named = list(_named(env, claude, codex))
    for found in named:
        if allowed(found.path):
            return found, ""
    own = [f for f in (*_claude_newest(claude, folder), *_codex_newest(codex, folder, exact=True),
                       *_gemini_newest(gemini, folder)) if allowed(f.path)]
    if own:
        hint = _agent_hint(env)
        hinted = [f for f in own if f.agent == hint]
        return max(hinted or own, key=_mtime), ""
    below = [f for f in (*_claude_below(claude, folder), *_codex_newest(codex, folder, exact=False),
                         *(_walk_newest(folder) if reaches(folder) else ())) if allowed(f.path)]
    if below:
        return max(below, key=_mtime), ""
    looked = ", ".join(str(p) for p in places) or "no agent folder exists"
    return None, f"no transcript of a session in {folder} (looked in {looked} and under {folder})"


def _mtime(found: Found) -> float:
    try:
        return found.path.stat().st_mtime
    except OSError:
        return 0.0


def _agent_hint(env: Mapping[str, str]) -> str | None:
    """The agent that started this process, when its environment says so."""
    if env.get("CLAUDECODE") or env.get("CLAUDE_CODE_SESSION_ID") or env.get("CLAUDE_PROJECT_DIR"):
        return "claude-code"
    if env.get("CODEX_THREAD_ID"):
        return "codex"
    if env.get("GEMINI_CLI"):
        return "gemini-cli"
    return None


def _named(env: Mapping[str, str], claude: list[Path], codex: list[Path]) -> Iterator[Found]:
    """The session an agent names in the environment (CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID)."""
    session = env.get("CLAUDE_CODE_SESSION_ID", "")
    if re.fullmatch(r"[A-Za-z0-9-]{8,64}", session):  # a name, never a path
        for root in claude:
            for path in sorted(root.glob(f"*/{session}.jsonl")):
                yield Found(path, "claude-code", f"the session CLAUDE_CODE_SESSION_ID names ({session})")
    thread = env.get("CODEX_THREAD_ID", "")
    if re.fullmatch(r"[A-Za-z0-9-]{8,64}", thread):
        for root in codex:
            for path in sorted(root.glob(f"*/*/*/rollout-*-{thread}.jsonl")):
                yield Found(path, "codex", f"the thread CODEX_THREAD_ID names ({thread})")


def _newest_jsonl(folder: Path) -> Path | None:
    """The newest *.jsonl directly in `folder` (a session's subagents live in folders below: not these)."""
    try:
        files = [Path(e.path) for e in os.scandir(folder) if e.name.endswith(".jsonl") and e.is_file()]
    except OSError:
        return None
    return max(files, key=_stamp) if files else None


def _claude_newest(roots: list[Path], folder: Path) -> Iterator[Found]:
    for root in roots:
        for name in claude_folder_names(folder):
            newest = _newest_jsonl(root / name)
            if newest:
                yield Found(newest, "claude-code", f"the newest Claude Code transcript of {folder}")
            elif len(name) > _CLAUDE_NAME_MAX:  # a long name is cut and given a hash: the cut part, then the cwd
                yield from _claude_long(root, name[:_CLAUDE_NAME_MAX], folder)


def _claude_long(root: Path, head: str, folder: Path) -> Iterator[Found]:
    """The newest transcript of a project whose folder name starts with `head` and records `folder` as its cwd."""
    try:
        projects = [Path(e.path) for e in os.scandir(root) if e.name.startswith(head) and e.is_dir()]
    except OSError:
        return
    for project in projects:
        newest = _newest_jsonl(project)
        if newest and _claude_cwd(newest) == folder:
            yield Found(newest, "claude-code", f"the newest Claude Code transcript of {folder}")


def _claude_below(roots: list[Path], folder: Path) -> Iterator[Found]:
    """The newest transcript of each Claude Code project started in a folder below `folder`."""
    for root in roots:
        prefixes = tuple(name + "-" for name in claude_folder_names(folder))
        try:
            projects = [e.path for e in os.scandir(root) if e.name.startswith(prefixes) and e.is_dir()]
        except OSError:
            continue
        for project in projects:
            newest = _newest_jsonl(Path(project))
            cwd = _claude_cwd(newest) if newest else None
            if cwd is not None and cwd != folder and cwd.is_relative_to(folder):  # the name alone is lossy
                yield Found(newest, "claude-code", f"the newest Claude Code transcript under {folder} ({cwd})")


def _first_line(path: Path) -> dict:
    """The first line of `path` as JSON (a dict), or {} (unreadable, too long, not JSON)."""
    try:
        with open(path, "rb") as fh:
            line = fh.readline(_FIRST_LINE)
        record = json.loads(line)
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _claude_cwd(path: Path) -> Path | None:
    """The `cwd` a Claude Code transcript records in its first lines (summaries and snapshots come first)."""
    try:
        with open(path, "rb") as fh:
            for _ in range(50):
                line = fh.readline(_FIRST_LINE)
                if not line:
                    break
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and isinstance(record.get("cwd"), str):
                    return Path(record["cwd"])
    except OSError:
        return None
    return None


def _codex_newest(roots: list[Path], folder: Path, exact: bool) -> Iterator[Found]:
    """The newest Codex rollout whose session_meta names `folder` as its cwd (or, not `exact`, a folder
    below it), among the newest _CODEX_FILES rollouts."""
    for root in roots:
        rollouts = sorted(root.glob("*/*/*/rollout-*.jsonl"), reverse=True)[:_CODEX_FILES]  # names sort by time
        for path in rollouts:
            record = _first_line(path)
            payload = record.get("payload") if record.get("type") == "session_meta" else None
            cwd = payload.get("cwd") if isinstance(payload, dict) else None
            if not isinstance(cwd, str):
                continue
            there = Path(cwd)
            if there == folder if exact else (there != folder and there.is_relative_to(folder)):
                yield Found(path, "codex", f"the newest Codex rollout {'of' if exact else 'under'} {folder}")
                break


def _gemini_newest(roots: list[Path], folder: Path) -> Iterator[Found]:
    """The newest Gemini CLI session of `folder`: its project's folder is named by the sha256 of the folder's
    path, or its sessions carry that hash (projectHash)."""
    digest = hashlib.sha256(str(folder).encode("utf-8", "surrogatepass")).hexdigest()
    for root in roots:
        try:
            projects = [Path(e.path) for e in os.scandir(root) if e.is_dir()]
        except OSError:
            continue
        for project in projects:
            chats = project / "chats"
            try:
                files = [Path(e.path) for e in os.scandir(chats) if e.name.startswith("session-")
                         and e.name.endswith((".json", ".jsonl")) and e.is_file()]
            except OSError:
                continue
            if not files:
                continue
            newest = max(files, key=_stamp)
            if project.name == digest or _first_line(newest).get("projectHash") == digest:
                yield Found(newest, "gemini-cli", f"the newest Gemini CLI session of {folder}")


def _walk_newest(folder: Path) -> Iterator[Found]:
    """The newest transcript in a bounded walk of `folder` itself (*.jsonl a collector recognises)."""
    from .collectors import discover

    seen, found = 0, []
    for top, folders, files in os.walk(folder):
        depth = len(Path(top).relative_to(folder).parts)
        folders[:] = sorted(f for f in folders if f not in _SKIP_FOLDERS) if depth < _WALK_DEPTH else []
        seen += len(folders) + len(files)
        found += [Path(top) / name for name in files if name.endswith(".jsonl")]
        if seen > _WALK_ENTRIES:
            break
    for path in sorted(found, key=_stamp, reverse=True)[:20]:
        try:
            cls, _ = discover.detect(path)
        except Exception:  # noqa: BLE001 -- an unreadable or odd file is not the session
            continue
        if cls is not None and cls is not discover.EmptyFile and not os.path.islink(path):
            yield Found(path, cls.key, f"the newest transcript under {folder}")
            return


def _stamp(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
