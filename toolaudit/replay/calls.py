"""One recorded call replayed: planned (translated, mapped, refused or kept), then run in its session's state.

`CallRunner` is the half of runner.Runner that handles one call: `_plan` decides what to do with it, `_run` asks the
implementation (and the agent's own tool, the identity replay, where one is emulated), `_probe` runs the identity
replay alone for a call whose recording stands. A call the file system cannot even name (a recorded path component
over 255 bytes) or that raises OSError is answered with its own reason, redacted, and the run goes on.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import replace
from pathlib import Path

from ..errors import UsageError
from ..model import ORPHAN, PAIRED, UNPAIRED, SessionInfo, ToolCall
from .base import FAILED, KEPT, NEVER_RAN, NOT_TRANSLATED, REFUSED, Mapping, Outcome
from .never_ran import never_ran
from .replayed import RECORDED_DEFAULTS, Replayed

NAME_MAX = 255  # bytes in one path component: what Linux and macOS file systems take (ENAMETOOLONG past it)
TOO_LONG = "a recorded path has a component over 255 bytes: no file system can hold it (not replayed)"


class CallRunner:
    """The per-call half of runner.Runner (it holds options, the implementations and the caps)."""

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
        if call.status == UNPAIRED and call.collector != "toolaudit-jsonl":  # a calls file's line asks for its output
            # an agent's transcript that ends before the call's result (a skill copied the rollout while it ran):
            # there is nothing to compare a replay with, nor a size the model saw
            return Replayed(call, None, KEPT, "its result was never recorded (the transcript ends first)",
                            emulated=emulated)
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
                args = freeform(call)
            if not isinstance(args, dict):
                return Replayed(call, None, FAILED, "recorded arguments are not a JSON object", as_tool=tool,
                                mapping=mapping, emulated=emulated)
            if mapping.kind == "builtin":
                args = {**RECORDED_DEFAULTS.get((call.collector, call.tool), {}), **args}
        return Replayed(call, None, "", as_tool=tool, mapping=mapping, args=args, emulated=emulated)

    def _run(self, item: Replayed, state, info: SessionInfo | None) -> Replayed:
        """Run one planned call; a path no file system can name, or an OSError, is its own reason (redacted)."""
        if _too_long(item.before):
            state_record(state, item.before)
            return replace(item, status=REFUSED, reason=TOO_LONG, probe=False)
        try:
            return self._run_call(item, state, info)
        except OSError as exc:  # a name the disk refuses, a file gone: this call only; the text is redacted
            state_record(state, item.before)
            return replace(item, status=FAILED, reason=safe_reason(f"{type(exc).__name__}: {exc.strerror or exc}"),
                           probe=False)

    def _run_call(self, item: Replayed, state, info: SessionInfo | None) -> Replayed:
        from . import workspace as ws

        root = state.root
        recorded = _recorded_args(item.before)
        doubt = _doubt(state, item.before, recorded)
        fresh = state.fresh(_paths(recorded, item.before.tool, state))
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
                       identity=ident, doubt=doubt, identity_reason=safe_reason(why), fresh=fresh,
                       variant=item.mapping.kind != "agent" or item.mapping != identity_mapping(item.before))
        if ident is not None and ident.output == item.before.output:
            state.confirm(_paths(recorded, item.before.tool, state))
        # the agent's own tool re-run (identity, or the mapping itself when it is identity) showed other text
        seen = ident if ident is not None else \
            after if item.mapping.kind == "agent" and item.mapping == identity_mapping(item.before) else None
        if seen is not None and outcome.status == "replayed" and seen.output != item.before.output:
            _first_look(state, fresh and not doubt, seen.output, item.before.output)
            if not state.learn(item.before, recorded):
                state.differs(_paths(recorded, item.before.tool, state), item.before)
        state.record(item.before)
        return done

    def _probe(self, item: Replayed, state, info: SessionInfo | None) -> Replayed:
        """A kept call's identity replay alone: its recording stands, its fidelity is counted."""
        if _too_long(item.before):
            state_record(state, item.before)
            return replace(item, identity_reason=TOO_LONG)
        try:
            return self._probe_call(item, state, info)
        except OSError as exc:
            state_record(state, item.before)
            return replace(item, identity_reason=safe_reason(f"{type(exc).__name__}: {exc.strerror or exc}"))

    def _probe_call(self, item: Replayed, state, info: SessionInfo | None) -> Replayed:
        recorded = _recorded_args(item.before)
        doubt = _doubt(state, item.before, recorded)
        fresh = state.fresh(_paths(recorded, item.before.tool, state))
        identity = self._emulate(identity_mapping(item.before), item.before, recorded, state, info)
        ident, why = None, identity.reason or identity.status
        if identity.status == "replayed":
            ident, why = self._as_call(item.before, item.before.tool, identity, recorded), ""
            if identity.output == item.before.output:
                state.confirm(_paths(recorded, item.before.tool, state))
            else:
                _first_look(state, fresh and not doubt, identity.output, item.before.output)
                if not state.learn(item.before, recorded):
                    state.differs(_paths(recorded, item.before.tool, state), item.before)
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


def _first_look(state, first: bool, got: str, recorded: str) -> None:
    """A first, undoubted look that showed other lines than the recording (their order aside) tells the state."""
    if first and state.recorded_base and sorted(got.splitlines()) != sorted(recorded.splitlines()):
        state.first_look_differs()


def safe_reason(text: str) -> str:
    """A reason as every report shows it: secrets redacted, on one line, at most 300 characters (an
    implementation's failure text or a crash's stderr may quote anything, a PEM block included)."""
    if not text:
        return text
    from ..secrets.redact import redact

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
        return freeform(call) or {}
    return args if isinstance(args, dict) else {}


def freeform(call: ToolCall) -> dict | None:
    """The arguments of a freeform call whose input is not JSON: Codex's code-mode `exec` cell (its JavaScript, as
    `code`); None for any other."""
    return {"code": call.args} if call.collector == "codex" and call.tool == "exec" else None


def _doubt(state, call: ToolCall, recorded: dict) -> str:
    """Why the state may not be what `call` saw: a path it reads uncertain, HEAD moved, or a file only the recording
    machine had: one git ignores, or one a later commit adds (replay.ignored)."""
    from .ignored import local_doubt

    paths = _paths(recorded, call.tool, state)
    return (state.doubt(paths) or state.head_doubt(call)
            or local_doubt(state, paths, call.output, call.is_error, call.ts, _listing(state, call, recorded)) or "")


def _listing(state, call: ToolCall, recorded: dict) -> str | None:
    """The folder a listing or search call's recorded output names paths under (Codex's `workdir`, else the session's
    folder), or None for any other call: only a listing's lines are read as paths (replay.ignored)."""
    from .state import SHELL_TOOLS, shell_text

    if call.tool not in _LISTING_TOOLS and not (call.tool in SHELL_TOOLS and _LISTERS.search(shell_text(call) or "")):
        return None
    workdir = recorded.get("workdir")
    return workdir if isinstance(workdir, str) and workdir.startswith("/") else state.cwd


_LISTING_TOOLS = {"Grep", "Glob", "LS", "glob", "search_file_content", "list_directory"}
_LISTERS = re.compile(r"(?:^|[;&|(]\s*)(?:rg|grep|egrep|ls|find|fd|tree|git\s+ls-files)(?:\s|$)")


def _paths(args: dict, tool: str = "", state=None) -> list[str]:
    """The path arguments of a call (what it reads), for the state's doubts; `.` when none names one (a Codex shell
    command: the paths its programs read, agents.codex_reads)."""
    from .agents.codex_reads import exec_reads, shell_reads
    from .workspace import PATH_KEYS

    if tool in ("exec_command", "shell_command", "shell", "local_shell") and state is not None \
            and state.only_new_uncertain():  # its workdir is where it runs
        read = shell_reads(tool, args, state.cwd)
        return read if read is not None else ["."]
    if tool == "exec" and isinstance(args.get("code"), str) and state is not None and state.only_new_uncertain():
        return exec_reads(args["code"], state.cwd)
    found = [v for k, v in args.items() if k in PATH_KEYS and isinstance(v, str)]
    # a folder above the repository (a session begun above it, replay.nested_repo: its `workdir`) holds all of it
    top = (state.cwd or "").rstrip("/") if state is not None else ""
    return [state.cwd if top and top.startswith(v.rstrip("/") + "/") else v for v in found] or ["."]


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


def state_record(state, call: ToolCall) -> None:
    """The call's effect on the state, as far as it can be read (a path no disk holds changes nothing)."""
    try:
        state.record(call)
    except OSError:
        pass


def _too_long(call: ToolCall) -> bool:
    """A recorded path argument has a component over NAME_MAX bytes (ENAMETOOLONG on every disk); only the
    arguments that name paths (a command, a pattern or a description may be as long as it likes)."""
    from .workspace import PATH_KEYS

    for key, value in _recorded_args(call).items():
        values = value if isinstance(value, list) else [value]
        for text in values:
            if key in PATH_KEYS and isinstance(text, str) and any(
                    len(part.encode("utf-8", "surrogatepass")) > NAME_MAX for part in text.replace("\\", "/").split("/")):
                return True
    return False
