"""simulate's entry point: the options of a simulation and the one function `toolaudit simulate` and the API call."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Iterable

from ..errors import UsageError
from ..options import SILENT, Hooks, InputOptions, build, split_options
from ..registry import did_you_mean
from ..storage import input_path
from .summary import SimResult


@dataclass(frozen=True)
class Caps:
    """The size flags of one policy: what --preview-chars, --max-chars… set (None: not given)."""

    preview_chars: int | None = None  # search outputs: each match's content cut to N chars
    include_content: bool | None = None  # search outputs: the preview's off switch
    max_chars: int | None = None  # head + tail cap in chars
    max_bytes: int | None = None  # in UTF-8 bytes (the whole response with max_matches)
    head_ratio: float | None = None  # the head's share of a head/tail cap
    max_lines: int | None = None  # head + tail cap in lines
    tail_lines: int | None = None  # only the last N lines
    head_lines: int | None = None  # only the first N lines
    max_matches: int | None = None  # search outputs: at most N results, with a notice
    no_body: bool | None = None  # JSON outputs: drop the body fields
    body_chars: int | None = None  # JSON outputs: body fields cut to N chars
    body_fields: str | None = None  # which JSON fields are bodies (A,B)

    def given(self) -> dict[str, Any]:
        """The flags set, by name (as a policy spec stores them)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None and getattr(self, f.name) is not False}


@dataclass(frozen=True)
class SimulateOptions:
    """Everything a simulation needs besides its paths (the flags of `toolaudit simulate`)."""

    read: InputOptions = field(default_factory=InputOptions)
    caps: Caps = field(default_factory=Caps)
    tools: tuple[str, ...] = ()  # the flags apply to these tool globs or @families only
    preset: str | None = None  # an agent's real caps
    rules: dict | None = None  # a policy table (--policy-file or [tool.toolaudit.simulate.policies])
    rules_from: str = "policy file"  # where the table came from, for its errors
    families: dict | None = None  # [tool.toolaudit.families], when a selector names a family
    sweep: str | None = None  # PARAM=VALUES: one row per value (mask.keep=1:20 sweeps the context policy)
    explain: int = 0  # the N largest affected calls, explained
    context: str | None = None  # a context policy: mask:keep=N, clear:trigger=T,keep=K, compact:at=T, none
    per_request: bool = False  # with a context policy: each request's counterfactual context
    model: str | None = None  # prices requests whose transcript names no model

    @classmethod
    def of(cls, **given: Any) -> "SimulateOptions":
        """The options of API keywords: InputOptions' and Caps' fields and simulate's own, flat
        (`max_chars=5000, tools=("Grep",)`); `policy_file` reads a TOML policy table."""
        read, rest = split_options(InputOptions, given)
        caps, rest = split_options(Caps, rest)
        policy_file = rest.pop("policy_file", None)
        if policy_file is not None:
            from .policymap import read_policy_file

            rest.setdefault("rules", read_policy_file(Path(policy_file)))
            rest.setdefault("rules_from", str(policy_file))
        if isinstance(rest.get("tools"), str):
            rest["tools"] = (rest["tools"],)
        return build(cls, {**rest, "read": InputOptions(**read), "caps": Caps(**caps)}, "simulate")

    def spec(self) -> dict[str, Any]:
        """Everything that decides the policies, as plain data (stored in the JSON; ci runs it again)."""
        from .policymap import spec_of

        spec = spec_of(self.caps.given(), self.preset, self.tools, self.rules, self.rules_from, self.families)
        return {**spec, "context": self.context} if self.context else spec


def policy_table(policy_file: Path | None, config: dict | None, config_path: str | None) -> tuple[dict | None, str]:
    """The policy table of `policy_file`, else `[tool.toolaudit.simulate.policies]` of the config; and where it
    came from (for its errors)."""
    from .policymap import read_policy_file

    if policy_file:
        return read_policy_file(policy_file), str(policy_file)
    policies = (config or {}).get("simulate", {}).get("policies")
    return policies, f"{config_path} [tool.toolaudit.simulate.policies]"


def simulate(paths: Iterable[Path | str] = (), options: SimulateOptions | None = None, *, hooks: Hooks = SILENT,
             **given: Any) -> SimResult:
    """What caps would have saved on the tool outputs under `paths`, and what they would have hidden.

    `options` (or keywords: `preset="codex"`, `max_chars=5000, tools=("Grep",)`, `sweep="max_chars=2000,5000"`)
    say which policies; the result is what `toolaudit simulate -f json` prints.
    """
    options = options or SimulateOptions.of(**given)
    if options.sweep and options.explain:
        raise UsageError("--explain shows the cuts of one policy: run it without --sweep, for the value you pick",
                         slug="sweep")
    if options.per_request and not options.context:
        raise UsageError("--per-request shows what a context policy leaves in each request: give --context",
                         slug="context")
    result = run_spec(paths, options.read, options.spec(), sweep=options.sweep, explain=options.explain, hooks=hooks,
                      per_request=options.per_request, model=options.model)
    _check_tools_matched(options.tools, result)
    return result


def _check_tools_matched(globs: tuple[str, ...], result: SimResult) -> None:
    """A UsageError naming the tools that exist when no `--tool` glob selected any call (a typo saves nothing,
    silently, otherwise)."""
    from .policymap import PolicyMap

    seen = sorted({row.tool for variant in result.variants for row in variant.tools})
    if not globs or not seen:
        return
    chooser = PolicyMap()
    if any(chooser.takes(glob, tool) for glob in globs for tool in seen):
        return
    shown = ", ".join(seen[:12]) + (f" and {len(seen) - 12} more" if len(seen) > 12 else "")
    hint = did_you_mean(globs[0], seen)
    raise UsageError(f"--tool {', '.join(globs)} matched no call{hint}; the tools in these transcripts: {shown}",
                     slug="no-such-tool")


def run_spec(paths: Iterable[Path | str], read: InputOptions, spec: dict[str, Any], *, sweep: str | None = None,
             explain: int = 0, hooks: Hooks = SILENT, per_request: bool = False, model: str | None = None) -> SimResult:
    """A simulation of the policies `spec` describes (SimulateOptions.spec, or a baseline's `policy_spec`)."""
    from ..pipeline import FileOptions, check_format, gather, meta_for, simulate_file, tokenizer_of
    from . import context as ctx, summary
    from .policymap import maps_from_spec

    paths = [input_path(p) for p in paths]
    check_format(read)
    tok = tokenizer_of(read)
    swept_context = ctx.sweep_of(sweep)
    maps, swept = maps_from_spec(spec, None if swept_context else sweep,
                                 bare=spec.get("context") is not None or bool(swept_context))
    sink = summary.SimCollected([m.label for m in maps], [tuple(m.describe()) for m in maps], explain,
                                follows_session=any(m.follows_session for m in maps), model=model)
    described = None
    if spec.get("context") is not None or swept_context:
        sink.context, described = _context_runs(spec.get("context"), sweep, len(maps), tok.count, model, per_request)
        if swept_context:
            sink.context_swept, swept = True, f"{swept_context[0]}.{swept_context[1]}"
    gather(paths, read, FileOptions.of(read), sink, hooks=hooks, worker=simulate_file,
           extra=(maps, explain > 0, bool(sink.context), False,
                  any(getattr(run.policy, "inputs", False) for _, run in sink.context)))
    return summary.result(sink, meta_for(read, paths, tok=tok), preset=spec.get("preset"), sweep=swept, spec=spec,
                          context=described)


def _context_runs(given: str | None, sweep: str | None, maps: int, count, model: str | None, per_request: bool
                  ) -> tuple[list, str]:
    """The context policy runs of a simulation, as (policy map index, ContextRun), and their description: the
    policy `given` (`--context`) on each map, or each value of a context policy's sweep on the one map."""
    from . import context as ctx
    from .context.run import ContextRun, Pricer

    policy = ctx.parse(given) if given else None
    swept = ctx.sweep_of(sweep)
    pricer = Pricer(model)  # one for all the runs: each distinct split is priced once
    if not swept:
        return ([(m, ContextRun(policy, count, pricer=pricer, per_request=per_request)) for m in range(maps)],
                ctx.describe(policy))
    name, param, values = swept
    policy = policy if given is not None else ctx.POLICIES[name]()
    if policy is None or policy.name != name:
        raise UsageError(f"--sweep {sweep} sweeps a {name} policy, but --context is {given}", slug="sweep")
    runs = [(0, ContextRun(ctx.with_values(policy, {param: v}, f"--sweep {sweep}"), count, pricer=pricer,
                           per_request=per_request, label=str(v))) for v in values]
    return runs, f"{name}.{param} = {', '.join(map(str, values))}, one row each"
