"""Run recorded calls through their new implementations: one file at a time, one session at a time.

For each recorded call the runner decides, in this order: translate it (`--translate
shell-search`: a plain search in a shell becomes a grep/glob call), find the mapping whose
glob matches its tool (first match wins), map recorded paths into the workspace, and ask
the implementation. Calls no mapping matches keep their recorded output (`kept`). A call
copied into two files (a resumed session, a subagent echo) is replayed once, as scan counts
it once.
"""

from __future__ import annotations

import fnmatch
import json
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator

from ..collectors import discover
from ..errors import UsageError, check_strict
from ..model import ORPHAN, PAIRED, ModelText, SessionEnd, SessionInfo, Skipped, ToolCall, ToolMenu
from .base import (FAILED, KEPT, NOT_TRANSLATED, Implementation, Mapping, Outcome, ReplayOptions,
                   implementations)


# What the recording harness assumed for an argument the model left out, where a builtin's default
# differs: Claude Code's Grep lists the matching files unless `output_mode` says otherwise (builtin:grep,
# like `grep -rn`, prints the matching lines). Only builtins get them: a user's own tool (python:, cmd:,
# mcp:) gets the arguments as the model wrote them, and its schema may refuse extra ones.
RECORDED_DEFAULTS: dict[tuple[str, str], dict] = {("claude-code", "Grep"): {"output_mode": "files_with_matches"}}


@dataclass(frozen=True)
class Replayed:
    """One recorded call and what replay made of it; `after` is None when nothing was re-run."""

    before: ToolCall
    after: ToolCall | None
    status: str
    reason: str = ""
    as_tool: str = ""  # the tool the call went to (after translation)
    mapping: Mapping | None = None  # the --tool mapping that answers it
    args: dict | None = None  # the arguments sent (after translation and path mapping)


@dataclass(frozen=True)
class ReplayFile:
    """What replaying one file produced."""

    source: str
    collector: str | None
    calls: tuple[Replayed, ...] = ()
    ends: tuple[SessionEnd, ...] = ()
    menus: tuple[ToolMenu, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()
    error: str | None = None
    stream: tuple = ()  # the file's ToolCalls and ModelTexts in order: what the model later wrote


def load_kinds() -> dict[str, str]:
    """Register the built-in implementations (each registers itself on import); returns the kinds
    that cannot load, with why (the mcp SDK is an extra: said only when a mapping or a listing asks)."""
    from importlib import import_module

    for name in ("builtin", "python", "cmd", "mcp"):
        try:
            import_module(f"{__package__}.{name}")
        except ImportError as exc:
            _MISSING[name] = str(exc)
    return dict(_MISSING)


_MISSING: dict[str, str] = {}


def parse_mapping(text: str) -> Mapping:
    """`GLOB=KIND:SPEC` (e.g. `Grep=builtin:grep?max_matches=100`) as a Mapping, or a UsageError."""
    glob, sep, impl = text.partition("=")
    kind, colon, spec = impl.partition(":")
    if not sep or not glob.strip() or not colon or not spec.strip():
        raise UsageError(f"cannot read the mapping {text!r}: the form is GLOB=KIND:SPEC, e.g. "
                         "'Grep=builtin:grep?max_matches=100' or 'mcp__kanban__*=mcp:python server.py'",
                         slug="bad-mapping")
    missing = load_kinds()
    if kind not in implementations.all() and kind in missing:
        raise UsageError(f"--tool {text!r}: the {kind} implementation cannot load ({missing[kind]}); "
                         "install it with: pip install 'agent-toolaudit[mcp]'", slug="missing-extra")
    implementations.get(kind)  # unknown kinds: a usage error with "did you mean"
    return Mapping(glob.strip(), kind, spec.strip())


def parse_pair(text: str, option: str) -> tuple[str, str]:
    """`OLD=NEW` of --tool-name and --path-map."""
    old, sep, new = text.partition("=")
    if not sep or not old or not new:
        raise UsageError(f"{option} {text!r}: the form is {option[2:].upper().replace('-', '_')}=FROM=TO",
                         slug="bad-pair")
    return old, new


class Runner:
    """Holds one implementation per mapping (a server is started once) and replays files."""

    def __init__(self, options: ReplayOptions) -> None:
        self.options = options
        self._impls: dict[Mapping, Implementation] = {}
        self._seen: set[tuple] = set()
        self.translations = None
        if "shell-search" in options.translate:
            from . import translate

            self.translations = translate

    def implementation(self, mapping: Mapping) -> Implementation:
        """The implementation behind `mapping`, started on first use."""
        impl = self._impls.get(mapping)
        if impl is None:
            cls = implementations.get(mapping.kind)
            kwargs = {"tool_names": self.options.tool_names} if mapping.kind == "mcp" else {}
            impl = self._impls[mapping] = cls(mapping.spec, self.options.sandbox, **kwargs)
        return impl

    def started(self) -> dict[Mapping, Implementation]:
        """The implementations started so far, by mapping."""
        return dict(self._impls)

    def close(self) -> None:
        """Stop every implementation (servers included), whatever happened."""
        for impl in self._impls.values():
            try:
                impl.close()
            except Exception:  # closing one must not keep the others running
                pass

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- one file -------------------------------------------------------------------------

    def replay_file(self, path: Path, forced: str | None = None) -> ReplayFile:
        """Every call of one file, replayed or accounted for; unreadable files become `error`."""
        source = str(path)
        try:
            cls, doc = discover.detect(path, forced)
        except OSError as exc:
            return ReplayFile(source, None, error=f"cannot read: {exc.strerror or exc}")
        if cls is None:
            return ReplayFile(source, None, error="no collector recognises this file")
        calls, ends, menus, skipped, infos, stream = [], [], [], [], {}, []
        try:
            for record in cls().records(path, doc):
                if isinstance(record, ToolCall):
                    calls.append(record)
                    stream.append(record)
                elif isinstance(record, ModelText):
                    stream.append(record)
                elif isinstance(record, SessionEnd):
                    ends.append(record)
                elif isinstance(record, ToolMenu):
                    menus.append(record)
                elif isinstance(record, Skipped):
                    skipped.append(record)
                elif isinstance(record, SessionInfo):
                    infos.setdefault(record.session, record)
        except OSError as exc:
            return ReplayFile(source, cls.key, error=f"cannot read: {exc.strerror or exc}")
        notes: list[str] = []
        out = list(self._replay_sessions(calls, infos, notes))
        return ReplayFile(source, cls.key, tuple(out), tuple(ends), tuple(menus), tuple(skipped), tuple(notes),
                          stream=tuple(stream))

    def _replay_sessions(self, calls: list[ToolCall], infos: dict[str, SessionInfo],
                         notes: list[str]) -> Iterator[Replayed]:
        from . import workspace as ws

        by_session: dict[str, list[ToolCall]] = {}
        for call in calls:
            by_session.setdefault(call.session, []).append(call)
        for session, group in by_session.items():
            info = infos.get(session)
            planned = [self._plan(call) for call in group]
            if not any(p.status == "" for p in planned):  # nothing to run: no worktree to make
                yield from planned
                continue
            with ExitStack() as stack:
                root, note = stack.enter_context(
                    ws.session_workspace(self.options.sandbox.workspace, info.commit if info else None))
                if note:
                    notes.append(f"session {session}: {note}")
                for item in planned:
                    yield self._run(item, root, info) if item.status == "" else item

    def _plan(self, call: ToolCall) -> Replayed:
        """What to do with one call: a Replayed with status "" (to run), or its final status."""
        key = call.dedupe_key
        if key is not None:
            if key in self._seen:
                return Replayed(call, None, "duplicate", "the same call id was replayed in another copy")
            self._seen.add(key)
        if call.status == ORPHAN:
            return Replayed(call, None, KEPT, "no recorded call (a result without its call)")
        tool, args = call.tool, None
        if self.translations is not None and call.tool in self.translations.SHELL_TOOLS:
            done = self.translations.translate(call)
            if isinstance(done, self.translations.NotTranslated):
                return Replayed(call, None, NOT_TRANSLATED, done.reason)
            tool, args = done.tool, done.args
        mapping = next((m for m in self.options.mappings if fnmatch.fnmatchcase(tool, m.glob)), None)
        if mapping is None:
            reason = f"translated to {tool}, which no --tool maps" if args is not None else "no --tool mapping"
            return Replayed(call, None, KEPT, reason, as_tool=tool)
        if args is None:
            try:
                args = json.loads(call.args) if call.args.strip() else {}
            except ValueError:
                args = None
            if not isinstance(args, dict):
                return Replayed(call, None, FAILED, "recorded arguments are not a JSON object", as_tool=tool,
                                mapping=mapping)
            if mapping.kind == "builtin":
                args = {**RECORDED_DEFAULTS.get((call.collector, call.tool), {}), **args}
        return Replayed(call, None, "", as_tool=tool, mapping=mapping, args=args)

    def _run(self, item: Replayed, root: Path, info: SessionInfo | None) -> Replayed:
        from . import workspace as ws

        args = ws.map_paths(item.args, info.cwd if info else None, self.options.path_map, root)
        try:
            outcome = self.implementation(item.mapping).call(item.as_tool, args, root)
        except UsageError:
            raise  # a bad spec (unknown builtin, missing module): the whole run is wrong
        except Exception as exc:  # an implementation bug must not end the run: this call failed
            outcome = Outcome(f"error: {type(exc).__name__}: {exc}", is_error=True, status=FAILED,
                              reason=f"{type(exc).__name__}: {exc}")
        after = replace(item.before, tool=item.as_tool, output=outcome.output, is_error=outcome.is_error,
                        images=outcome.images, image_bytes=outcome.image_bytes, status=PAIRED,
                        args=json.dumps(args, ensure_ascii=False, separators=(",", ":")))
        return replace(item, after=after, status=outcome.status, reason=outcome.reason, args=args)


def replay_files(files: list[Path], runner: Runner, sink, *, forced: str | None = None, strict: bool = False,
                 on_file=None, calls_out=None):
    """Replay `files` one by one into `sink` (its `add`); `calls_out` (a CallsWriter) gets every call.

    Under `strict`, the first non-benign skipped line or unreadable or unrecognised file raises StrictError.
    """
    for path in files:
        done = runner.replay_file(path, forced)
        if strict:
            check_strict(done)
        sink.add(done)
        if calls_out is not None:
            calls_out.write(done)
        if on_file is not None:
            on_file(done)
    return sink
