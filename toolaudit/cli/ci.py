"""`toolaudit ci`: measure again, compare with a baseline, fail the build when outputs grew."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import click

from ..errors import EXIT_ERROR, EXIT_GATE, UsageError
from ..reports import render_report, reporters
from ..reports.files import atomic_write
from ..tokenizers import ENGINES, TOKENIZERS
from . import INPUT_PATHS, cli, gather, meta_for, scheduler_option


@dataclass(frozen=True)
class Measure:
    """How `ci` measures the paths again: what the baseline's options were, read from its JSON."""

    paths: tuple[Path, ...]
    baseline: dict
    source_format: str | None
    tokenizer: str
    engine: str
    calibration: str | None
    strict: bool
    debug: bool
    quiet: bool
    jobs: int
    workspace: Path | None = None  # a replay baseline: where to replay (default: the one it names)
    scheduler: str | None = None  # --scheduler: a Dask cluster for the per-file work (not replay's)

    def options(self):
        from ..pipeline import ScanOptions

        return ScanOptions(self.tokenizer, self.engine, self.source_format, False, self.debug, self.calibration,
                           previews=False)

    def meta(self):
        from ..tokenizers import get_tokenizer

        tok = get_tokenizer(self.tokenizer, self.engine, calibration=self.calibration)
        return meta_for(self.tokenizer, self.engine, self.paths, tok=tok)

    def gather(self, sink, **kwargs):
        return gather(self.paths, self.options(), sink, jobs=self.jobs, strict=self.strict, quiet=self.quiet,
                      scheduler=self.scheduler, **kwargs)


def _scan(m: Measure):
    from ..scan.summary import Collected, Plan

    meta = m.meta()
    # per tool, no --top: calls are folded as files come
    return m.gather(Collected(plan=Plan())).result(meta)


def _simulate(m: Measure):
    from ..simulate import summary as simsummary
    from ..simulate.policymap import maps_from_spec
    from ..pipeline import simulate_file

    spec = m.baseline["meta"].get("policy_spec")
    if not isinstance(spec, dict) or m.baseline["meta"].get("sweep"):
        raise UsageError("this simulate baseline has no single policy to run again (a sweep, or written "
                         "by an older toolaudit); write it again with simulate -f json -o", slug="baseline")
    maps, _ = maps_from_spec(spec)
    meta = m.meta()
    sink = m.gather(simsummary.SimCollected([""], [tuple(maps[0].describe())]), worker=simulate_file,
                    extra=(maps, False))
    return simsummary.result(sink, meta, preset=spec.get("preset"), spec=spec)


def _replay(m: Measure):
    """A replay baseline: replay the paths again with the mappings, translation and limits it stored."""
    from .replay import build_options, run_replay, spec_of

    spec = m.baseline["meta"].get("replay_spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("tools"), list) or not spec["tools"]:
        raise UsageError("this replay baseline names no --tool mapping to run again; write it again with "
                         "replay ... -f json -o FILE", slug="baseline")
    workspace = m.workspace or Path(spec.get("workspace") or ".")
    if not workspace.is_dir():
        raise UsageError(f"the replay baseline's workspace {workspace} is not a folder here: give --workspace DIR",
                         slug="workspace")
    options = build_options(workspace, spec["tools"], spec.get("translate") or (), spec.get("tool_names") or (),
                            spec.get("path_map") or (), float(spec.get("timeout") or 10.0),
                            int(spec.get("max_output_bytes") or 10_000_000), spec.get("env") or ())
    return run_replay(m.paths, options, spec_of(options, workspace), tokenizer=m.tokenizer, engine=m.engine,
                      calibration=m.calibration, source_format=m.source_format, strict=m.strict, quiet=m.quiet)


# meta.command of a baseline -> how to measure the same thing again; a new kind is one entry
MEASURES = {"scan": _scan, "simulate": _simulate, "replay": _replay}


def _measure(m: Measure) -> dict:
    """The same measurement the baseline holds (its meta.command, see MEASURES), as JSON."""
    from ..reports.view import view_of

    result = MEASURES[m.baseline["meta"]["command"]](m)
    return view_of(result).doc(result)


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string"}.get(type(value), type(value).__name__)


def _problem(doc) -> str | None:
    """What makes a parsed baseline unusable, in a few words, or None."""
    from ..model import SCHEMA_VERSION

    *first, last = MEASURES
    accepted = f"{', '.join(first)} or {last}"
    if not isinstance(doc, dict):
        return f"is a JSON {'list' if isinstance(doc, list) else type(doc).__name__}, not a toolaudit {accepted} result"
    meta = doc.get("meta")
    if not isinstance(meta, dict):
        return f"its meta is {_kind(meta)}, not an object" if meta is not None else f"has no meta: not a toolaudit {accepted} result"
    version = doc.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        return (f"was written by a newer toolaudit (schema_version {version}; this one reads up to "
                f"{SCHEMA_VERSION}): upgrade toolaudit")
    if meta.get("command") not in MEASURES:
        return f"is a `{meta.get('command')}` result; ci takes a {accepted} result"
    if not isinstance(doc.get("totals", {}), dict):
        return f"its totals is {_kind(doc['totals'])}, not an object"
    tools = doc.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(t, dict) and isinstance(t.get("tool"), str) for t in tools):
        return "its tools[] are not rows with a tool name"
    for where, row in (("totals", doc.get("totals", {})), *((f"tools[{t['tool']}]", t) for t in tools)):
        # `as`: the tools a replayed tool's calls went to (names, not a metric)
        bad = next((k for k, v in row.items() if k not in ("tool", "as") and isinstance(v, (str, list, dict))), None)
        if bad is not None:
            return f"has {where}.{bad} that is not a number ({row[bad]!r})"
    return None


def _read_baseline(path: Path, create: bool) -> dict:
    """The baseline document, or a one-line UsageError that names what is wrong with it."""
    if not path.exists():
        if create:
            return {"meta": {"command": "scan"}}
        raise UsageError(f"no baseline at {path}: write one with `toolaudit scan PATH -f json -o {path}` "
                         "or `toolaudit ci PATH --baseline FILE --update-baseline`", slug="baseline")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read the baseline {path}: {exc.strerror or exc}", slug="baseline") from None
    except ValueError as exc:  # a truncated or hand-broken file
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise UsageError(f"the baseline {path} is not valid JSON{where}: truncated or edited by hand?",
                         slug="baseline") from None
    problem = _problem(doc)
    if problem is not None:
        raise UsageError(f"the baseline {path} {problem}", slug="baseline")
    return doc


class Percent(click.ParamType):
    """A share in percent, 0 to 100, written `50` or `50%`."""

    name = "percent"

    def convert(self, value, param, ctx):
        try:
            number = float(str(value).strip().removesuffix("%"))
        except ValueError:
            number = -1.0
        if not 0 <= number <= 100:
            self.fail(f"{value!r} is not a percentage from 0 to 100", param, ctx)
        return number


@cli.command(name="ci")
@click.argument("paths", nargs=-1, required=True, type=INPUT_PATHS)
@click.option("--baseline", required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="A JSON result of `scan`, `simulate` or `replay` (-f json -o FILE).")
@click.option("--workspace", type=click.Path(exists=True, file_okay=False, path_type=Path), metavar="DIR",
              help="A replay baseline: the repository to replay in (default: the workspace it names).")
@click.option("--fail-on", "fail_on", multiple=True, metavar="CHECK",
              help="[TOOL:]METRIC:+LIMIT[%], repeatable: tokens.total:+5%, tokens_per_run.median:+10%, "
                   "'*:tokens.p95:+10%', Grep:tokens.mean:+500, calls:+20%, later_used:+0. Default: "
                   "tokens.total:+20% and tokens_per_run.median:+20% (simulate: tokens.total:+5% and later_used:+0).")
@click.option("--min-calls", type=click.IntRange(min=0), default=None, show_default="5; 0 for a replay baseline",
              metavar="N", help="A per-tool check on a tool with fewer calls (baseline or now) says `too few calls` "
                   "instead of judging.")
@click.option("--max-vanished", type=Percent(), default=50.0, show_default="50%", metavar="PCT",
              help="Exit 1 (nothing measured) when more than PCT of the baseline's calls are gone.")
@click.option("--update-baseline", is_flag=True, help="Write the new measurement to the baseline file, on purpose.")
@click.option("--from", "source_format", metavar="KEY", help="Force one input format.")
@click.option("--tokenizer", type=click.Choice(TOKENIZERS), help="Default: the baseline's. Another one is not comparable.")
@click.option("--engine", type=click.Choice(ENGINES), help="Default: the baseline's.")
@click.option("--calibration", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="With a `--tokenizer claude` baseline: the calibration file it was measured with.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on the first malformed line or unreadable file or folder.")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, no notes on stderr.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes; 0 = all cores.")
@scheduler_option
@click.option("-f", "--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "markdown", "json", "csv", "junit", "html"]),
              help="markdown: a PR comment; junit: one test case per check; csv: one row per check.")
@click.option("-o", "--output", default="-", metavar="PATH|-", help="Write the report here; `-` is stdout.")
@click.pass_context
def ci(ctx, paths, baseline, workspace, fail_on, min_calls, max_vanished, update_baseline, source_format, tokenizer, engine,
       calibration, strict, debug, quiet, jobs, scheduler, fmt, output):
    """Fail the build when tool outputs grew against a baseline.

    Measures PATH... again the way the baseline was measured (the same tokenizer,
    for a `simulate` baseline the same policies, for a `replay` baseline the same
    tools: the calls are replayed again) and applies the checks. A replay is
    deterministic, so its default checks fail on any growth (tokens.total:+0 and
    *:tokens.total:+0, no minimum sample).
    Exit 0: every check passed; 3: a check failed; 1: the comparison is not
    meaningful (tokenizer, schema version or policy differ) or nothing was
    measured (no file, no call, or more than --max-vanished of the baseline's
    calls gone). New and vanished tools and unreadable files are reported. With
    $GITHUB_STEP_SUMMARY set, the Markdown report is appended there too. Checks,
    --min-calls and --max-vanished also come from [tool.toolaudit.ci] of
    pyproject.toml (fail_on = [...], min_calls, max_vanished).

    \b
    Examples:
      toolaudit scan evals/transcripts -f json -o toolaudit-baseline.json
      toolaudit ci evals/transcripts --baseline toolaudit-baseline.json -f markdown
      toolaudit ci evals/transcripts --baseline toolaudit-baseline.json --update-baseline
      toolaudit ci recorded/ --baseline replay-baseline.json   # written by replay -f json -o
    """
    from ..gate.checks import DEFAULT_CHECKS, Check, gate

    base = _read_baseline(baseline, update_baseline)
    meta = base["meta"]
    checks = [Check.parse(text) for text in (fail_on or DEFAULT_CHECKS[meta["command"]])]
    current = _measure(Measure(tuple(paths), base, source_format, tokenizer or meta.get("tokenizer") or "o200k_base",
                               engine or meta.get("engine") or "toktok", calibration, strict, debug, quiet, jobs,
                               workspace, scheduler))
    if update_baseline:
        atomic_write(baseline, json.dumps(current, indent=2, ensure_ascii=False) + "\n")
        totals = current.get("totals", {})
        click.echo(f"baseline updated on purpose: {baseline} ({len(current.get('tools', []))} tools, "
                   f"{totals.get('tokens', totals.get('tokens_after', 0)):,} tokens)", err=True)
        return
    result = gate(str(baseline), base, current, checks, min_calls=min_calls, max_vanished=max_vanished)
    render_report(result, fmt, output)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:  # appended, not replaced: earlier steps wrote there too
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write(reporters.get("markdown")().render(result))
    if result.blocked is not None:
        ctx.exit(EXIT_ERROR)
    if not result.passed:
        ctx.exit(EXIT_GATE)
