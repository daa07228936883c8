"""The gate's entry point: measure the paths again the way a baseline was measured, and apply the checks."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable

from ..errors import UsageError
from ..options import SILENT, Hooks, InputOptions, build, split_options
from ..storage import input_path
from .checks import GateResult


@dataclass(frozen=True)
class GateOptions:
    """A gate: the baseline, the checks and how to measure again (the flags of `toolaudit ci`).

    `read`'s tokenizer and engine stand for the baseline's unless `tokenizer`/`engine` name others.
    """

    baseline: Path
    read: InputOptions = field(default_factory=InputOptions)
    tokenizer: str | None = None  # default: the baseline's (another one is not comparable)
    engine: str | None = None  # default: the baseline's
    workspace: Path | None = None  # a replay baseline: where to replay (default: the one it names)
    fail_on: tuple[str, ...] = ()  # [TOOL:]METRIC:+LIMIT[%] checks; default: the baseline kind's
    min_calls: int | None = None  # a per-tool check on fewer calls says `too few calls`
    max_vanished: float = 50.0  # percent of the baseline's calls that may be gone
    # replay mappings that may run programs (cmd:, python:, mcp:): only these, named on the command line or in the
    # checked-out config, never the baseline's own (a baseline is data)
    allowed: tuple[str, ...] = ()
    allow_vanished: tuple[str, ...] = ()  # baseline tools that may be gone ("all": any)
    allow_unjudged: bool = False  # a check that judged nothing passes

    @classmethod
    def of(cls, baseline: Path | str, **given: Any) -> "GateOptions":
        """The options of API keywords: InputOptions' fields (but tokenizer and engine) and the gate's, flat."""
        read, rest = split_options(InputOptions, given)
        for own in ("tokenizer", "engine"):
            if own in read:
                rest[own] = read.pop(own)
        if isinstance(rest.get("fail_on"), str):
            rest["fail_on"] = (rest["fail_on"],)
        return build(cls, {**rest, "baseline": Path(baseline), "read": InputOptions(**read)}, "gate")

    def read_as(self, meta: dict) -> InputOptions:
        """How to read the paths again: the baseline's tokenizer and engine unless given."""
        return replace(self.read, tokenizer=self.tokenizer or meta.get("tokenizer") or "o200k_base",
                       engine=self.engine or meta.get("engine") or "toktok")


def _scan(paths, doc: dict, options: GateOptions, hooks: Hooks):
    from ..scan.job import ScanOptions, scan

    # priced (--cost), so that the verdict carries the tool outputs' dollars and an updated baseline keeps them
    return scan(paths, ScanOptions(options.read_as(doc["meta"]), cost=True), hooks=hooks)


def _simulate(paths, doc: dict, options: GateOptions, hooks: Hooks):
    from ..simulate.job import run_spec

    spec = doc["meta"].get("policy_spec")
    if not isinstance(spec, dict) or doc["meta"].get("sweep"):
        raise UsageError("this simulate baseline has no single policy to run again (a sweep, or written "
                         "by an older toolaudit); write it again with simulate -f json -o", slug="baseline")
    return run_spec(paths, options.read_as(doc["meta"]), spec, hooks=hooks)


def _replay(paths, doc: dict, options: GateOptions, hooks: Hooks):
    """A replay baseline: replay the paths again with the mappings, translation and limits it stored."""
    from ..replay.job import SPEC_KEYS, replay, replay_options

    spec = doc["meta"].get("replay_spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("tools"), list) or not spec["tools"]:
        raise UsageError("this replay baseline names no --tool mapping to run again; write it again with "
                         "replay ... -f json -o FILE", slug="baseline")
    workspace = options.workspace or Path(spec.get("workspace") or ".")
    if not workspace.is_dir():
        raise UsageError(f"the replay baseline's workspace {workspace} is not a folder here: give --workspace DIR",
                         slug="workspace")
    if options.workspace is None and not workspace.resolve().is_relative_to(Path.cwd().resolve()):
        raise UsageError(f"the replay baseline names the workspace {spec.get('workspace')!r}, outside this checkout: "
                         "a baseline is data; give --workspace DIR to replay there", slug="baseline-workspace")
    _only_data(spec["tools"], options.allowed)
    known = {k: v for k, v in spec.items() if k in SPEC_KEYS}
    replayed = replay_options({**known, "workspace": str(workspace)}, read=options.read_as(doc["meta"]))
    return replay(paths, replayed, hooks=hooks)


SAFE_KINDS = ("builtin", "agent")  # implementations that run no program of anyone's choosing


def _only_data(tools: list, allowed: tuple[str, ...]) -> None:
    """A UsageError when the baseline maps a tool to a program (cmd:, python:, mcp:) that the command line or
    the checked-out config does not name: editing a baseline in a pull request must not run a shell in CI."""
    for text in tools:
        kind = str(text).partition("=")[2].partition(":")[0]
        if kind not in SAFE_KINDS and str(text) not in allowed:
            raise UsageError(f"the baseline asks ci to run {text!r}: a baseline is data, never a program to run; "
                             "to allow it, name the same mapping with --tool or in [tool.toolaudit.replay.tools]",
                             slug="baseline-runs-code")


# meta.command of a baseline -> how to measure the same thing again; a new kind is one entry (and baseline.KINDS)
MEASURES: dict[str, Callable] = {"scan": _scan, "simulate": _simulate, "replay": _replay}


def measure(paths: Iterable[Path], doc: dict, options: GateOptions, hooks: Hooks = SILENT) -> dict:
    """The same measurement the baseline `doc` holds (its meta.command), as its JSON document."""
    return MEASURES[doc["meta"]["command"]](list(paths), doc, options, hooks).to_dict()


def gate(paths: Iterable[Path | str], options: GateOptions | None = None, *, hooks: Hooks = SILENT,
         **given: Any) -> GateResult:
    """Measure `paths` again as the baseline was measured and apply the checks: a GateResult whose `passed`
    says whether the build may go on (what `toolaudit ci -f json` prints). Keywords: `baseline=`, `fail_on=`…"""
    from .baseline import read_baseline
    from .checks import DEFAULT_CHECKS, Allowances, Check, gate as decide
    from .cost import gate_cost

    options = options or GateOptions.of(**given)
    doc = read_baseline(options.baseline)
    checks = [Check.parse(text) for text in (options.fail_on or DEFAULT_CHECKS[doc["meta"]["command"]])]
    current = measure([input_path(p) for p in paths], doc, options, hooks)
    decided = decide(str(options.baseline), doc, current, checks, min_calls=options.min_calls,
                     max_vanished=options.max_vanished, allow=Allowances(options.allow_vanished, options.allow_unjudged))
    return replace(decided, cost=gate_cost(doc, current))
