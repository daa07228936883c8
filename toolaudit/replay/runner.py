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

import fnmatch
import json
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator

from ..collectors import discover
from ..errors import UsageError, check_strict
from ..model import (MAIN_AGENT, ORPHAN, PAIRED, ModelText, OutputCap, SessionEnd, SessionInfo, Skipped, ToolCall,
                     ToolMenu)
from .never_ran import never_ran
from .base import (FAILED, KEPT, NEVER_RAN, NOT_TRANSLATED, REFUSED, Implementation, Mapping, Outcome,
                   ReplayOptions, implementations)


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
    identity: ToolCall | None = None  # the agent's own tool re-run now, in the same state (its emulation)
    emulated: bool = False  # the recorded tool has an emulation: the call counts for fidelity
    doubt: str = ""  # why the session's state may not be what the call saw (an unreplayable command before it)
    identity_reason: str = ""  # why the emulation gave no identity replay (refused, failed)
    probe: bool = False  # kept (not translated) but --identity: its identity replay still counts for fidelity
    fresh: bool = False  # the session's first look at what it reads (a difference is in the start state)

    @property
    def runs(self) -> bool:
        """Whether anything is re-run for it: the variant, or (a probe) its identity replay alone."""
        return self.status == "" or self.probe


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
        raise UsageError(f"{option} {text!r}: the form is {option[2:].upper().replace('-', '_')}=FROM=TO",
                         slug="bad-pair")
    return old, new


class Runner:
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
        out = list(self._replay_sessions(calls, infos, notes))
        for impl in self._impls.values():
            notes.extend(impl.take_notes())
        return ReplayFile(source, cls.key, tuple(out), tuple(ends), tuple(menus), tuple(skipped), tuple(notes),
                          stream=tuple(stream))

    def _replay_sessions(self, calls: list[ToolCall], infos: dict[str, SessionInfo],
                         notes: list[str]) -> Iterator[Replayed]:
        from . import start_state
        from . import workspace as ws
        from .state import SessionState

        by_session: dict[str, list[ToolCall]] = {}
        for call in calls:
            by_session.setdefault(call.session, []).append(call)
        for session, group in by_session.items():
            group.sort(key=lambda c: (c.call_index, c.line))  # the order the agent made them: edits before reads
            info = infos.get(session)
            planned = [self._plan(call) for call in group]
            if not any(p.runs for p in planned):  # nothing to run: no state to build
                yield from planned
                continue
            last = max(i for i, p in enumerate(planned) if p.runs)
            # the uncommitted work the session's own `git diff` showed: the start state holds it too
            primed = start_state.read(group, info.cwd if info else None) \
                if not self.options.base.no_checkout else start_state.Start()
            first_ts = min((c.ts for c in group if c.ts), default=None)
            # the work earlier sessions on the same commit left in the folder (replay.chain)
            earlier = self.earlier.before(info, first_ts) if self.earlier is not None \
                and not self.options.base.no_checkout else []
            scratch = bool(primed.diffs) or bool(earlier) or any(_changes(p.before) for p in planned[:last])
            with ExitStack() as stack:
                root, note, writable, checked_out = stack.enter_context(ws.session_base(
                    self.options.sandbox.workspace, self.options.base, info.commit if info else None, first_ts,
                    scratch, branch=info.branch if info else None))
                if not _same_commit(checked_out, info.commit if info else None):
                    earlier = []  # their edits were made on their commit: on another tree they would be made twice
                if note:
                    notes.append(f"session {session}: {note}")
                state = SessionState(root, info.cwd if info else None, self.options.path_map, writable)
                for call in earlier:
                    state.record(call)
                # until the main thread's first call: its first model (a subagent may run before it is logged)
                state.main_model = next((c.model for c in group if c.agent == MAIN_AGENT and c.model), None)
                if earlier:
                    notes.append(f"session {session}: started where {len({c.session for c in earlier})} earlier "
                                 f"session(s) on its commit left the folder ({state.applied} of their edits applied)")
                taken = state.prime(primed)
                if taken:
                    notes.append(f"session {session}: {taken} file(s) started with the uncommitted work its own "
                                 "recorded `git diff` showed")
                for item in planned:
                    if item.status == "":
                        yield self._run(item, state, info)
                    elif item.probe:
                        yield self._probe(item, state, info)
                    else:
                        state.record(item.before)
                        yield item
                if state.learned:
                    notes.append(f"session {session}: {state.learned} file(s) taken from a whole-file Read that the "
                                 "start state did not reproduce (uncommitted work, or edits outside the transcript)")

    def _plan(self, call: ToolCall) -> Replayed:
        """What to do with one call: a Replayed with status "" (to run), or its final status."""
        from .agents import emulation_for
        from .edits import is_mutating

        key = call.dedupe_key
        if key is not None:
            if key in self._seen:
                return Replayed(call, None, "duplicate", "the same call id was replayed in another copy")
            self._seen.add(key)
        if call.status == ORPHAN:
            return Replayed(call, None, KEPT, "no recorded call (a result without its call)")
        emulated = self.options.before != "recorded" and emulation_for(call.collector, call.tool) is not None
        tool, args = call.tool, None
        if self.translations is not None and call.tool in self.translations.SHELL_TOOLS:
            done = self.translations.translate(call)
            if isinstance(done, self.translations.NotTranslated):
                probe = emulated and self.options.identity and never_ran(call) is None and not is_mutating(call)
                return Replayed(call, None, NOT_TRANSLATED, done.reason, emulated=emulated, probe=probe)
            tool, args = done.tool, done.args
        mapping = next((m for m in self.options.mappings if fnmatch.fnmatchcase(tool, m.glob)), None)
        if mapping is None and self.options.identity and emulation_for(call.collector, call.tool) is not None:
            mapping = identity_mapping(call)
        if mapping is not None and is_mutating(call):
            return Replayed(call, None, REFUSED, "an edit tool is never re-run: its recorded edit is applied to "
                            "the session's state instead", as_tool=tool, mapping=mapping)
        if mapping is None:
            reason = f"translated to {tool}, which no --tool maps" if args is not None else "no --tool mapping"
            return Replayed(call, None, KEPT, reason, as_tool=tool)
        why = never_ran(call)
        if why is not None:
            return Replayed(call, None, NEVER_RAN, why, as_tool=tool, mapping=mapping, emulated=emulated)
        if args is None:
            try:
                args = json.loads(call.args) if call.args.strip() else {}
            except ValueError:
                args = None
            if not isinstance(args, dict):
                return Replayed(call, None, FAILED, "recorded arguments are not a JSON object", as_tool=tool,
                                mapping=mapping, emulated=emulated)
            if mapping.kind == "builtin":
                args = {**RECORDED_DEFAULTS.get((call.collector, call.tool), {}), **args}
        return Replayed(call, None, "", as_tool=tool, mapping=mapping, args=args, emulated=emulated)

    def _run(self, item: Replayed, state, info: SessionInfo | None) -> Replayed:
        from . import workspace as ws

        root = state.root
        recorded = _recorded_args(item.before)
        doubt = state.doubt(_paths(recorded)) or ""
        fresh = state.fresh(_paths(recorded))
        identity = None
        if item.emulated:
            identity = self._emulate(identity_mapping(item.before), item.before, recorded, state, info)
        if item.mapping.kind == "agent":
            outcome = identity if identity is not None and item.mapping == identity_mapping(item.before) else \
                self._emulate(item.mapping, item.before, recorded, state, info)
            args = recorded
        else:
            args = ws.map_paths(item.args, info.cwd if info else None, self.options.path_map, root)
            outcome = self._answer(item.mapping, item.as_tool, args, root)
            if identity is not None and outcome.status == "replayed" and _agent_cut(item.before):
                outcome = replace(outcome, output=self._cut(item.before, outcome.output, recorded, state, info))
        after = self._as_call(item.before, item.as_tool, outcome, args)
        ident = self._as_call(item.before, item.before.tool, identity, recorded) if identity is not None else None
        why = ""
        if ident is not None and identity.status != "replayed":
            ident, why = None, identity.reason or identity.status  # no identity to compare with
        done = replace(item, after=after, status=outcome.status, reason=safe_reason(outcome.reason), args=args,
                       identity=ident, doubt=doubt, identity_reason=safe_reason(why), fresh=fresh)
        if ident is not None and ident.output == item.before.output:
            state.confirm(_paths(recorded))
        # the agent's own tool re-run (identity, or the mapping itself when it is identity) showed other text
        seen = ident if ident is not None else \
            after if item.mapping.kind == "agent" and item.mapping == identity_mapping(item.before) else None
        if seen is not None and outcome.status == "replayed" and seen.output != item.before.output:
            state.learn(item.before, recorded)
        state.record(item.before)
        return done

    def _probe(self, item: Replayed, state, info: SessionInfo | None) -> Replayed:
        """A kept call's identity replay alone: its recording stands, its fidelity is counted."""
        recorded = _recorded_args(item.before)
        doubt = state.doubt(_paths(recorded)) or ""
        fresh = state.fresh(_paths(recorded))
        identity = self._emulate(identity_mapping(item.before), item.before, recorded, state, info)
        ident, why = None, identity.reason or identity.status
        if identity.status == "replayed":
            ident, why = self._as_call(item.before, item.before.tool, identity, recorded), ""
            if identity.output == item.before.output:
                state.confirm(_paths(recorded))
            else:
                state.learn(item.before, recorded)
        state.record(item.before)
        return replace(item, identity=ident, doubt=doubt, identity_reason=safe_reason(why), fresh=fresh)

    def _answer(self, mapping: Mapping, tool: str, args: dict, root: Path) -> Outcome:
        try:
            return self.implementation(mapping).call(tool, args, root)
        except UsageError:
            raise  # a bad spec (unknown builtin, missing module): the whole run is wrong
        except Exception as exc:  # an implementation bug must not end the run: this call failed
            return Outcome(f"error: {type(exc).__name__}: {exc}", is_error=True, status=FAILED,
                           reason=f"{type(exc).__name__}: {exc}")

    def _context(self, call: ToolCall, args: dict, state, info: SessionInfo | None):
        from .agents.base import Call

        cap = self._caps.get((call.source, call.session, call.agent))
        return Call(call.tool, args, state.root, (info.cwd if info else None) or str(state.root),
                    info.version if info else None, self.options.sandbox, session=call.session, call_id=call.call_id,
                    model=call.model, main_model=state.main_model or call.model, output_cap=cap, here=call.cwd,
                    ts=call.ts)

    def _emulate(self, mapping: Mapping, call: ToolCall, args: dict, state, info: SessionInfo | None) -> Outcome:
        impl = self.implementation(mapping)
        context = self._context(call, args, state, info)
        noise = impl.emulation.from_recording(call.output, context) if call.status == PAIRED else {}
        return impl.emulate(replace(context, params=noise))

    def _cut(self, call: ToolCall, output: str, args: dict, state, info: SessionInfo | None) -> str:
        """`output` cut as the agent cuts its own tool's (the recording shows it did)."""
        impl = self.implementation(identity_mapping(call))
        context = self._context(call, args, state, info)
        noise = impl.emulation.from_recording(call.output, context)  # the recorded saved path, for one
        return impl.emulation.cut(output, replace(context, params=noise))

    @staticmethod
    def _as_call(before: ToolCall, tool: str, outcome: Outcome, args: dict) -> ToolCall:
        return replace(before, tool=tool, output=outcome.output, is_error=outcome.is_error, images=outcome.images,
                       image_bytes=outcome.image_bytes, status=PAIRED,
                       args=json.dumps(args, ensure_ascii=False, separators=(",", ":")))


def safe_reason(text: str) -> str:
    """A reason as every report shows it: secrets redacted, on one line, at most 300 characters (an
    implementation's failure text or a crash's stderr may quote anything, a PEM block included)."""
    if not text:
        return text
    from ..scan.redact import redact

    flat = " ".join(redact(text).split())
    return flat if len(flat) <= 300 else flat[:299] + "…"


def identity_mapping(call: ToolCall) -> Mapping:
    """The mapping of a recorded call to its agent's own tool (agent:AGENT/TOOL), as recorded."""
    from .agents import COLLECTOR_AGENT

    return Mapping(call.tool, "agent", f"{COLLECTOR_AGENT[call.collector]}/{call.tool}")


def _recorded_args(call: ToolCall) -> dict:
    try:
        args = json.loads(call.args) if call.args.strip() else {}
    except ValueError:
        return {}
    return args if isinstance(args, dict) else {}


def _paths(args: dict) -> list[str]:
    """The path arguments of a call (what it reads), for the state's doubts; `.` when none names one."""
    from .workspace import PATH_KEYS

    found = [v for k, v in args.items() if k in PATH_KEYS and isinstance(v, str)]
    return found or ["."]


def _same_commit(a: str | None, b: str | None) -> bool:
    """Whether two commit ids (either may be abbreviated) name the same commit."""
    return bool(a and b) and (a.startswith(b) or b.startswith(a))


def _changes(call: ToolCall) -> bool:
    """The recorded call changed files (an edit tool, or a Codex apply_patch)."""
    from .edits import is_mutating, is_patch_call

    return is_mutating(call) or is_patch_call(call)


def _agent_cut(call: ToolCall) -> bool:
    """The recording shows the agent cut this output (a persisted preview, a truncation marker)."""
    from ..scan.markers import truncated_by

    return truncated_by(call.output) is not None


def replay_files(files: list[Path], runner: Runner, sink, *, forced: str | None = None, strict: bool = False,
                 on_file=None, calls_out=None):
    """Replay `files` one by one into `sink` (its `add`); `calls_out` (a CallsWriter) gets every call.

    Under `strict`, the first non-benign skipped line or unreadable or unrecognised file raises StrictError.
    """
    if not runner.options.base.no_checkout:
        from .chain import read

        runner.earlier = read(files, forced)  # a first pass: which sessions ran before which, on one commit
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
