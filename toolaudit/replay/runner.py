"""Run recorded calls through their new implementations: one file at a time, one session at a time.

For each recorded call the runner decides, in this order: translate it (`--translate
shell-search`: a plain search in a shell becomes a grep/glob call), find the mapping whose
glob matches its tool (first match wins; with `--identity`, a known agent tool with no mapping
goes to its own emulation, agent:AGENT/TOOL), map recorded paths into the workspace, and ask
the implementation. Calls no mapping matches keep their recorded output (`kept`). A call
copied into two files (a resumed session, a subagent echo) is replayed once, as scan counts
it once. A call that never ran (never_ran) keeps its recording; an edit tool is never re-run.

Each session is replayed in its own state (replay.state): its base checkout, then its recorded edits
applied in call order, so each call sees the files as they were at that moment. Where an emulation of
the recorded tool exists, the call is also run through it (the identity replay, `Replayed.identity`):
the variant is measured against that, in the same state (`--before identity`, the default).
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Iterator

from ..collectors import discover
from ..errors import UsageError, check_strict
from ..model import MAIN_AGENT, ModelText, OutputCap, SessionEnd, SessionInfo, Skipped, ToolCall, ToolMenu
from .base import REFUSED, Implementation, Mapping, ReplayOptions, implementations
from .branch_listing import doubt_branch
from .calls import CallRunner, _changes, _same_commit, identity_mapping, safe_reason  # noqa: F401  (names others use)
from .replayed import RECORDED_DEFAULTS, ReplayFile, Replayed  # noqa: F401


NO_CHECKOUT = "pass --no-checkout to replay it on the workspace as it is, or --commit REV"
NO_START = f"no commit before the session started (--at-session-start): its files are unknown; {NO_CHECKOUT}"


def load_kinds() -> dict[str, str]:
    """Register the built-in implementations (each registers itself on import); returns the kinds
    that cannot load, with why (the mcp SDK is an extra: said only when a mapping or a listing asks)."""
    from importlib import import_module

    for name in ("builtin", "python", "cmd", "mcp", "agents"):
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
        form = "FROM=TO" if option == "--path-map" else "OLD=NEW"
        raise UsageError(f"{option} {text!r}: the form is {option} {form}", slug="bad-pair")
    return old, new


class Runner(CallRunner):
    """Holds one implementation per mapping (a server is started once) and replays files."""

    def __init__(self, options: ReplayOptions) -> None:
        self.options = options
        self._impls: dict[tuple[str, str], Implementation] = {}
        self._first: dict[tuple[str, str], Mapping] = {}
        self._seen: set[tuple] = set()
        self._caps: dict[tuple, tuple[str, int]] = {}  # (file, session, agent) -> its latest recorded output cap
        self.earlier = None  # replay.chain.Earlier: the sessions before each one in its folder, on its commit
        self.translations = None
        if "shell-search" in options.translate:
            from . import translate

            self.translations = translate

    def implementation(self, mapping: Mapping) -> Implementation:
        """The implementation behind `mapping`, started on first use; two mappings to the same KIND:SPEC share
        one (one server, one menu)."""
        key = (mapping.kind, mapping.spec)
        impl = self._impls.get(key)
        if impl is None:
            cls = implementations.get(mapping.kind)
            kwargs = {"tool_names": self.options.tool_names} if mapping.kind == "mcp" else {}
            impl = self._impls[key] = cls(mapping.spec, self.options.sandbox, **kwargs)
            self._first[key] = mapping
        return impl

    def started(self) -> dict[Mapping, Implementation]:
        """The implementations started so far, each by the first mapping that asked for it."""
        return {self._first[key]: impl for key, impl in self._impls.items()}

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
                elif isinstance(record, OutputCap):  # the latest before the calls (a cap that changes is rare)
                    self._caps[(source, record.session, record.agent)] = (record.unit, record.limit)
        except OSError as exc:
            return ReplayFile(source, cls.key, error=f"cannot read: {exc.strerror or exc}")
        notes: list[str] = []
        self._newer: set[tuple[str, str, str]] = set()
        out = list(self._replay_sessions(calls, infos, notes))
        for impl in self._impls.values():
            notes.extend(impl.take_notes())
        return ReplayFile(source, cls.key, tuple(out), tuple(ends), tuple(menus), tuple(skipped), tuple(notes),
                          stream=tuple(stream), newer=tuple(sorted(self._newer)))

    def _replay_sessions(self, calls: list[ToolCall], infos: dict[str, SessionInfo],
                         notes: list[str]) -> Iterator[Replayed]:
        from . import branch_moves, chain, nested_repo, partial_checkout, recorded_base, start_state
        from .later_commits import LaterCommits, follow
        from . import workspace as ws
        from .git import wait
        from .state import SessionState

        git_wait = wait(self.options.sandbox.timeout)  # replay's own git runs: --timeout, and no less than 120 s

        by_session: dict[str, list[ToolCall]] = {}
        for call in calls:
            by_session.setdefault(call.session, []).append(call)
        for session, group in by_session.items():
            group.sort(key=lambda c: (c.call_index, c.line))  # the order the agent made them: edits before reads
            info = infos.get(session)
            planned = [self._plan(call) for call in group]
            self._newer.update(newer_than_read(planned, info))
            if not any(p.runs for p in planned):  # nothing to run: no state to build
                yield from planned
                continue
            last = max(i for i, p in enumerate(planned) if p.runs)
            # the uncommitted work the session's own `git diff` showed: the start state holds it too
            primed = start_state.read(group, info.cwd if info else None) \
                if not self.options.base.no_checkout else start_state.Start()
            first_ts = min((c.ts for c in group if c.ts), default=None)
            # the work earlier sessions on the same commit left in the folder (replay.chain)
            chained = self.earlier is not None and not self.options.base.no_checkout
            earlier = self.earlier.before(info, first_ts) if chained else []
            # and the sessions running beside it in that folder (an agent team's): their work as it came
            during = self.earlier.during(info, first_ts) if chained else []
            scratch = bool(primed.diffs) or bool(earlier) or bool(during) \
                or any(_changes(p.before) for p in planned[:last])
            with ExitStack() as stack:
                found = stack.enter_context(ws.session_base(
                    self.options.sandbox.workspace, self.options.base, info.commit if info else None, first_ts,
                    # a Codex rollout's recorded commit decides its start when the workspace has it; else its branch
                    scratch, git_wait, branch=info.branch if info else None, cwd=info.cwd if info else None))
                root, note, writable, checked_out = found.folder, found.note, found.writable, found.commit
                if info is not None and not info.commit and (earlier or during) and checked_out:
                    # no commit recorded: the earlier sessions that began after the one it is replayed on was written
                    since = ws.authored(self.options.sandbox.workspace, checked_out, git_wait) or float("inf")
                    earlier = self.earlier.before(info, first_ts, since, checked_out)
                    during = self.earlier.during(info, first_ts, since, checked_out)
                elif not _same_commit(checked_out, info.commit if info else None):
                    earlier = during = []  # their edits were made on their commit: on another tree made twice
                if note:
                    notes.append(f"session {session}: {note}")
                if self.options.base.at_session_start and checked_out is None:
                    # no commit before it: its files are unknown; the workspace as it is is the user's choice to make
                    why = f"{found.failed}: {NO_CHECKOUT}" if found.failed else NO_START  # found, not checked out
                    yield from (replace(p, status=REFUSED, reason=why, probe=False) if p.runs else p
                                for p in planned)
                    continue
                placed = nested_repo.place(group, info.cwd, root, ws.epoch(first_ts), git_wait) \
                    if info is not None else nested_repo.Placed()
                below = placed.below
                began = info.cwd if info is not None else None
                if below:  # started above the repository: its paths are read from where the repository sat
                    notes.append(f"session {session}: its working folder {info.cwd} is above the repository, "
                                 f"which the paths it read place at {below}")
                    info = replace(info, cwd=below)
                state = SessionState(root, info.cwd if info else None, self.options.path_map, writable, git_wait)
                state.started, state.began = first_ts, began
                # no file of the repository's: every read of its folder is another project's; not where other
                # sessions worked in that folder before or beside it (the files it read may be theirs)
                if placed.nowhere and not earlier and not during:
                    notes.append(f"session {session}: {placed.nowhere}")
                    state.everything = placed.nowhere
                on_recorded = bool(info is not None and info.commit and _same_commit(checked_out, info.commit))
                state.recorded_base = on_recorded and recorded_base.holds(group, root, info.cwd)
                state.uncertain.update(dict.fromkeys(found.missing, partial_checkout.MISSING))  # by path, not all
                chain.apply(state, earlier)  # their edits, commands and whole-file Reads, in order
                if info is not None and info.commit and checked_out and not _same_commit(checked_out, info.commit):
                    state.head = state.head or (f"HEAD: the session began on commit {info.commit[:12]}, the replay "
                                                f"runs on {checked_out[:12]}")
                    doubt_branch(state, group, start_state.printed)  # its branch's files (its `git diff BASE...HEAD`)
                # until the main thread's first call: its first model (a subagent may run before it is logged)
                state.main_model = next((c.model for c in group if c.agent == MAIN_AGENT and c.model), None)
                if earlier:
                    notes.append(f"session {session}: started where {len({c.session for c in earlier})} earlier "
                                 f"session(s) on its commit left the folder ({state.applied} of their edits applied)")
                if during:
                    notes.append(f"session {session}: {len({c.session for c in during})} other session(s) worked in "
                                 "its folder while it ran: their edits are applied at the times they made them")
                taken = state.prime(primed)
                if taken:
                    notes.append(f"session {session}: {taken} file(s) started with the uncommitted work its own "
                                 "recorded `git diff` showed")
                own_moves = branch_moves.own(info, group)  # the branch changes its own checkout made
                # the commits its user wrote while it waited (a Codex rollout records HEAD once, at its start)
                later = LaterCommits(root, checked_out, info.branch, group, git_wait) \
                    if writable and on_recorded else None
                for item in planned:
                    at = item.before.ts
                    while during and at and during[0].ts < at:  # what the sessions beside it did before this call
                        chain.apply(state, [during.pop(0)])
                    follow(later, state, item.before)
                    state.everything = state.everything or branch_moves.moved(info, at, own_moves)
                    if item.status == "":
                        yield self._run(item, state, info)
                    elif item.probe:
                        yield self._probe(item, state, info)
                    else:
                        state.record(item.before)
                        yield item
                if later is not None and later.moved:
                    notes.append(f"session {session}: replayed on the commits written on {info.branch} while it "
                                 f"waited, as its own git output showed them: {', '.join(c[:12] for c in later.moved)}")
                if state.unknown_note():
                    notes.append(f"session {session}: {state.unknown_note()}")
                if state.learned:
                    notes.append(f"session {session}: {state.learned} file(s) taken from a whole-file Read that the "
                                 "start state did not reproduce (uncommitted work, or edits outside the transcript)")

def newer_than_read(planned: list[Replayed], info: SessionInfo | None) -> set[tuple[str, str, str]]:
    """(agent, recorded version, newest read) when the session's agent version is newer than every one whose code
    its emulations were read from: replayed as the newest, never refused, and the report says so."""
    from .agents import COLLECTOR_AGENT, emulation_for
    from .agents.base import version_tuple

    version = version_tuple(info.version if info else None)
    found = set()
    for item in planned:
        cls = emulation_for(item.before.collector, item.before.tool) if item.emulated and version else None
        newest = getattr(cls, "newest", None)
        if newest and version > tuple(newest):
            found.add((COLLECTOR_AGENT[item.before.collector], info.version, ".".join(map(str, newest))))
    return found


def replay_files(files: list[Path], runner: Runner, sink, *, forced: str | None = None, strict: bool = False,
                 on_file=None, calls_out=None):
    """Replay `files` one by one into `sink` (its `add`); `calls_out` (a CallsWriter) gets every call.

    Under `strict`, the first non-benign skipped line or unreadable or unrecognised file raises StrictError.
    """
    if not runner.options.base.no_checkout:
        from .chain import read

        # a first pass: which sessions ran before which, on one commit (and those given only for that)
        runner.earlier = read([*files, *(Path(p) for p in runner.options.base.earlier)], forced)
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
