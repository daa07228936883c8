"""replay's entry point: the options of a replay from what a user writes, and the one function `toolaudit
replay`, `toolaudit ci` (a replay baseline) and the API call."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable

from ..errors import UsageError
from ..options import SILENT, Hooks, InputOptions, split_options
from ..storage import input_path
from .base import DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, Base, ReplayOptions, Sandbox
from .summary import ReplayResult


def replay_options(spec: dict[str, Any], *, read: InputOptions | None = None, explain: int = 0,
                   calls_out: Path | None = None) -> ReplayOptions:
    """The ReplayOptions of a spec: the texts a user writes, as `replay`'s flags or a baseline's
    `replay_spec` hold them (`workspace`, `tools` ["GLOB=IMPL"], `translate`, `tool_names` ["OLD=NEW"],
    `path_map` ["FROM=TO"], `timeout`, `max_output_bytes`, `env`), checked: no mapping, or a workspace
    that is no folder, is a UsageError."""
    from .runner import parse_mapping, parse_pair

    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        from ..registry import did_you_mean

        raise UsageError(f"replay takes no option {unknown[0]!r}{did_you_mean(unknown[0], SPEC_KEYS)}", slug="option")
    mappings = tuple(parse_mapping(text) for text in _texts(spec.get("tools")))
    for mapping in mappings:  # a parameter the tool does not use is an error before any call, not at the first
        if mapping.kind == "agent":
            from .agents import parse_spec

            parse_spec(mapping.spec)
    identity = spec.get("identity") is True
    if not mappings and not identity:
        raise UsageError("nothing to replay: give at least one --tool GLOB=IMPL (e.g. --tool 'Grep=builtin:grep'), "
                         "--identity (the agents' own tools), or [tool.toolaudit.replay.tools] in pyproject.toml; "
                         "replay never re-runs anything by default", slug="no-mapping")
    before = spec.get("before") or "identity"
    if before not in ("identity", "recorded"):
        raise UsageError(f"before={before!r}: identity or recorded", slug="before")
    base = Base(spec.get("commit") or None, spec.get("at_session_start") is True, spec.get("no_checkout") is True,
                tuple(str(p) for p in spec.get("earlier") or ()))
    if base.no_checkout and (base.commit or base.at_session_start):
        raise UsageError("--no-checkout starts from the folder as it is: it takes no --commit or --at-session-start",
                         slug="base")
    workspace = spec.get("workspace") or "."
    root = Path(workspace).resolve()
    if not root.is_dir():
        raise UsageError(f"--workspace {workspace}: not a folder", slug="workspace")
    sandbox = Sandbox(root, timeout=float(spec.get("timeout") or DEFAULT_TIMEOUT),
                      max_output_bytes=int(spec.get("max_output_bytes") or DEFAULT_MAX_OUTPUT_BYTES),
                      env=tuple(_texts(spec.get("env"))))
    return ReplayOptions(
        mappings=mappings, sandbox=sandbox, translate=tuple(_texts(spec.get("translate"))),
        tool_names=tuple(parse_pair(t, "--tool-name") for t in _texts(spec.get("tool_names"))),
        path_map=tuple(_path_pair(p) for p in _texts(spec.get("path_map"))), explain=explain,
        read=read or InputOptions(), calls_out=calls_out, workspace=str(workspace), identity=identity,
        before=before, keep_drifted=spec.get("keep_drifted") is True, base=base, diff=int(spec.get("diff") or 0),
    )


SPEC_KEYS = {"workspace", "tools", "translate", "tool_names", "path_map", "timeout", "max_output_bytes", "env",
             "identity", "before", "keep_drifted", "commit", "at_session_start", "no_checkout", "diff", "earlier"}


def _path_pair(text: str) -> tuple[str, str]:
    """A --path-map FROM=TO, checked: FROM is an absolute path (recorded paths are; a relative one would never
    match, and the mapping would be dropped without a word)."""
    from .runner import parse_pair
    from .winpath import is_windows

    frm, to = parse_pair(text, "--path-map")
    if not (frm.startswith("/") or is_windows(frm)):
        raise UsageError(f"--path-map {text!r}: FROM must be an absolute recorded path (/home/me/app, D:\\app), "
                         "the form is --path-map FROM=TO", slug="bad-pair")
    return frm, to


def _texts(value) -> list[str]:
    """A list of texts as given (one text alone is a list of one)."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]


def replay(paths: Iterable[Path | str], options: ReplayOptions | None = None, *, hooks: Hooks = SILENT,
           **given: Any) -> ReplayResult:
    """Re-run the recorded calls under `paths` through the implementations `options` maps them to, and
    measure the new outputs beside the recorded ones (what `toolaudit replay -f json` prints).

    Keywords build the options as replay_options does (`workspace`, `tools=["Grep=builtin:grep"]`, `translate`…,
    and InputOptions' fields such as `tokenizer`; `explain`, `calls_out`).
    """
    from ..pipeline import check_format, input_files, meta_for, tokenizer_of
    from .calls_out import CallsWriter
    from .runner import Runner, replay_files
    from .summary import ReplayCollected, menu_of, result

    if options is None:
        read, spec = split_options(InputOptions, given)
        options = replay_options({k: v for k, v in spec.items() if k not in ("explain", "calls_out")},
                                 read=InputOptions(**read), explain=spec.get("explain", 0),
                                 calls_out=spec.get("calls_out"))
    paths = [input_path(p) for p in paths]
    read = options.read
    check_format(read)
    tok = tokenizer_of(read)
    files, problems = input_files(paths, read.strict, hooks)  # as gather's: an unreadable folder fails --strict
    sink = ReplayCollected(tok, explain=options.explain, keep_drifted=options.keep_drifted, diff=options.diff)
    writer = CallsWriter(options.calls_out) if options.calls_out is not None else None
    progress, advance = hooks.progress(len(files)) if hooks.progress else (None, None)
    try:
        with Runner(options) as runner:
            with progress or nullcontext():
                replay_files(files, runner, sink, forced=read.source_format, strict=read.strict, on_file=advance,
                             calls_out=writer)
            renames = dict(options.tool_names)
            menus = []
            for mapping, impl in runner.started().items():
                defs = impl.menu()
                if defs is not None:
                    menus.append(menu_of(mapping.text, defs, tok.count, sink.requests, sink.recorded_menus, renames))
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    if writer is not None:
        writer.commit()
    sink.errors.extend(problems)
    hooks.problems(sink.unrecognised, sink.errors, sink.skipped, sink.skipped_count)
    return replace(result(sink, meta_for(read, paths, tok=tok), tuple(menus), options.spec()), before=options.before)
