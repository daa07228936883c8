"""JSON Schemas (draft 2020-12) of the versioned documents, built from the views' own field lists.

Row fields come from the tuples the views declare (TOOL_FIELDS, SIM_FIELDS, REPLAY_FIELDS,
compare's METRICS) and their JSON types from the annotations of the records they are read
from (GroupRow, SimRow, ReplayRow...), so a field added to a view reaches its schema here.
The committed files are `docs/schema/<command>-<version>.json`; rewrite them with
`python -m toolaudit.reports.schema --write` (a test checks they equal this module's output).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from ..model import SCHEMA_VERSION

DIALECT = "https://json-schema.org/draft/2020-12/schema"
COMMANDS = ("scan", "simulate", "compare", "ci", "replay", "advise")
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "docs" / "schema"

STR: dict = {"type": "string"}
INT: dict = {"type": "integer"}
NUM: dict = {"type": "number"}
BOOL: dict = {"type": "boolean"}
ANY_OBJECT: dict = {"type": "object"}  # free-form: the options a run was made with (policy_spec, replay_spec)

# annotation text (the modules use `from __future__ import annotations`) -> JSON type
_TYPES = {"str": STR, "int": INT, "float": NUM, "bool": BOOL}


def nullable(schema: dict) -> dict:
    """The same schema, or null."""
    return {"type": [schema["type"], "null"], **{k: v for k, v in schema.items() if k != "type"}}


def array(items: dict) -> dict:
    """A list of `items`."""
    return {"type": "array", "items": items}


def counts() -> dict:
    """An object of name -> count (collectors, agents' own cuts)."""
    return {"type": "object", "additionalProperties": INT}


def obj(props: dict[str, dict], optional: tuple[str, ...] = ()) -> dict:
    """A closed object: every property required except `optional`, no others."""
    return {"type": "object", "properties": props, "required": [k for k in props if k not in optional],
            "additionalProperties": False}


def keyed(props: dict[str, dict], optional: dict[str, dict] | None = None) -> dict:
    """A row whose first field is named after the grouping (`session`, `model`...): `props` plus one string."""
    optional = optional or {}
    return {"type": "object", "properties": {**props, **optional}, "required": list(props),
            "additionalProperties": STR, "minProperties": len(props) + 1,
            "maxProperties": len(props) + len(optional) + 1}


def json_type(cls: type, name: str) -> dict:
    """The JSON type of attribute `name` of a record class, from its annotation (field or property)."""
    hints = {f.name: f.type for f in dataclasses.fields(cls)}
    text = hints.get(name)
    if text is None:
        prop = getattr(cls, name, None)
        text = prop.fget.__annotations__.get("return") if isinstance(prop, property) else None
    if text is None:
        raise KeyError(f"{cls.__name__} has no annotated field or property {name!r}")
    text = text if isinstance(text, str) else text.__name__
    if text.startswith("tuple[str"):
        return array(STR)
    if text.endswith(" | None"):
        return nullable(_TYPES[text.removesuffix(" | None")])
    return _TYPES[text]


def fields(cls: type, names: tuple[str, ...], rename: dict[str, str] | None = None) -> dict[str, dict]:
    """{field: JSON type} for `names`, typed by `cls` (`rename`: a JSON name read from another attribute)."""
    rename = rename or {}
    return {n: json_type(cls, rename.get(n, n)) for n in names}


def record(cls: type) -> dict:
    """A closed object of every field of a dataclass (the `--explain` entries)."""
    return obj({f.name: json_type(cls, f.name) for f in dataclasses.fields(cls)})


def output_cost() -> dict:
    """`cost`: tool-output dollars before and after a change, estimated as scan prices them (billing.OutputDollars)."""
    return obj({"prices": STR, "currency": {"const": "USD"}, "estimated": {"const": True},
                "before_usd": nullable(NUM), "after_usd": nullable(NUM), "saved_usd": nullable(NUM),
                "priced_calls": INT, "unpriced_calls": INT, "unknown_models": array(STR)})


def _meta(command: str, extra: dict[str, dict], optional: tuple[str, ...] = ()) -> dict:
    """meta: what made the document (tokenizer, version, inputs) plus the command's own keys."""
    return obj({"tool": {"const": "toolaudit"}, "command": {"const": command}, "version": STR,
                "tokenizer": STR, "engine": STR, "estimated": BOOL, "tokenizer_label": STR,
                "created": STR, "inputs": array(STR), **extra}, optional)


def _skipped() -> dict[str, dict]:
    """The keys every measuring document ends with: skipped lines, unrecognised files, errors."""
    return {"skipped": obj({"count": INT, "first": array(STR)}), "unrecognised": array(STR), "errors": array(STR)}


def _document(command: str, title: str, props: dict[str, dict], optional: tuple[str, ...] = ()) -> dict:
    doc = obj({"schema_version": {"const": SCHEMA_VERSION}, **props}, optional)
    return {"$schema": DIALECT, "$id": f"{command}-{SCHEMA_VERSION}.json", "title": title, **doc}


def scan_schema() -> dict:
    """`scan -f json`."""
    from ..scan.summary import DayRow, Definition
    from ..model import GroupRow, ScanResult
    from .scan_data import SCAN_TOTALS, TOOL_FIELDS

    row = fields(GroupRow, TOOL_FIELDS, {"tool": "key"})
    totals = {k: v for k, v in row.items() if k not in ("tool", "share")}
    totals.update(fields(ScanResult, SCAN_TOTALS))
    billing = {k: INT for k in ("requests", "input_uncached", "cache_write", "cache_read", "output", "input_total")}
    hour = {"cache_write_1h": INT}  # only when some request wrote to the 1-hour cache
    priced = {"cost_usd": nullable(NUM), "unpriced_requests": INT}  # only with --cost; null: nothing had a price
    usage = obj({**billing, **hour, **priced, "tool_output_share": nullable(NUM), "tool_output_share_estimated": BOOL,
                 "share_calls": INT, "calls_without_usage": INT, "by": STR,
                 "groups": array(keyed(billing, optional={**hour, **priced}))},
                optional=(*hour, *priced, "by", "groups"))
    cost = obj({"prices": STR, "currency": {"const": "USD"}, "estimated_tool_costs": BOOL, "billed_usd": nullable(NUM),
                "tools": array(obj({"tool": STR, "first_usd": nullable(NUM), "resent_usd": nullable(NUM),
                                    "total_usd": nullable(NUM),
                                    "unpriced_calls": INT})),
                "unknown_models": array(STR)})
    definition = record(Definition)
    menu = obj({"tools": INT, "menus": INT, "sessions": INT, "requests": INT, "tokens_per_request": INT,
                "carried_tokens": INT, "definitions": array(definition)})
    top = obj({"tool": STR, "session": STR, "agent": STR, "file": STR, "line": INT, "tokens": INT, "chars": INT,
               "bytes": INT, "args_preview": STR, "output_preview": STR}, optional=("output_preview",))
    # definitions results loaded (ToolSearch's tool_reference blocks), sized where a menu recorded them
    references = obj({"calls": INT, "loads": INT, "tools": array(obj({"tool": STR, "loads": INT})),
                      "definition_tokens": nullable(INT), "known_definition_tokens": INT, "unknown_definitions": INT})
    return _document("scan", "toolaudit scan -f json", {
        "meta": _meta("scan", {"by": STR, "collectors": counts()}),
        "totals": obj(totals),
        "tools": array(obj(row)),
        "groups": array(_group_row({k: v for k, v in row.items() if k != "tool"})),
        **_skipped(),
        "undated_dropped": INT,
        "window_dropped": obj({"calls_and_requests": INT, "newest": STR}),
        "usage": usage,
        "cost": cost,
        "menu": menu,
        "tool_references": references,
        "notes": array(STR),
        "days": array(record(DayRow)),
        "top": array(top),
    }, optional=("groups", "undated_dropped", "window_dropped", "usage", "cost", "menu", "tool_references", "notes",
                 "top"))


def _group_row(props: dict[str, dict]) -> dict:
    """A scan group's row: its key and `props`; by session, also all of the session's project, agent and
    start (ISO 8601, UTC), each null where unknown."""
    about = {"project": nullable(STR), "agent": nullable(STR), "start": nullable({"type": "string", "format": "date-time"})}
    row = keyed(props, optional=about)
    del row["maxProperties"]
    row["anyOf"] = [{"maxProperties": len(props) + 1},
                    {"required": list(about), "maxProperties": len(props) + len(about) + 1}]
    return row


def simulate_schema() -> dict:
    """`simulate -f json` (a sweep has sweep[] and variants[] where a single run has totals and tools[])."""
    from ..simulate.context.run import RequestRow
    from ..simulate.summary import Explained, SimRow
    from .sim_data import CONTEXT_COUNTS, CONTEXT_TOTALS, KIND_FIELDS, SIM_FIELDS, SIM_TOTALS

    row = fields(SimRow, SIM_FIELDS)
    totals = {k: v for k, v in row.items() if k != "tool"}
    totals.update(fields(SimRow, SIM_TOTALS))
    totals.update({k: INT for k in CONTEXT_TOTALS if not k.endswith("_usd")})
    totals.update({k: nullable(NUM) for k in CONTEXT_TOTALS if k.endswith("_usd")})
    kinds = obj({k: INT for k in KIND_FIELDS})
    request = record(RequestRow)
    fit = obj({f"{k}_error": nullable(NUM) for k in ("reads", "writes", "uncached")})
    ctx = obj({"policy": STR, **{k: INT for k in CONTEXT_COUNTS}, "input_before": kinds, "input_modelled": kinds,
               "input_after": kinds, "cache_model": fit,
               "per_request": array(request)}, optional=("per_request",))
    totals_obj = obj(totals, optional=CONTEXT_TOTALS)
    return _document("simulate", "toolaudit simulate -f json", {
        "meta": _meta("simulate", {"preset": nullable(STR), "policies": array(STR), "sweep": nullable(STR),
                                   "policy_spec": ANY_OBJECT,
                                   "session_caps": obj({"recorded": INT, "default": INT})},
                      optional=("session_caps",)),
        "totals": totals_obj,
        "tools": array(obj(row)),
        "cost": output_cost(),
        "context": ctx,
        "cache_model": fit,
        "sweep": array(obj({"value": STR, **totals, "cost": output_cost()}, optional=(*CONTEXT_TOTALS, "cost"))),
        "variants": array(obj({"value": STR, "policies": array(STR), "totals": totals_obj,
                               "tools": array(obj(row)), "cost": output_cost(), "context": ctx},
                              optional=("context", "cost"))),
        "agent_truncated": counts(),
        "files": INT,
        "duplicates_dropped": INT,
        **_skipped(),
        "explain": array(record(Explained)),
    }, optional=("totals", "tools", "cost", "context", "cache_model", "sweep", "variants", "explain"))


def compare_schema() -> dict:
    """`compare -f json`: medians of A and B per metric, overall, per task, per tool, and every run."""
    from ..compare.engine import METRICS, RUN_KEYS, USD, Stat

    stat = nullable(obj(fields(Stat, ("median", "min", "max", "n"))))
    delta = obj({"a": stat, "b": stat, "change": nullable(NUM), "pct_change": nullable(NUM)})
    # every metric is optional: a tool row has no billed input (TOOL_METRICS)
    metrics = obj({m: delta for m in METRICS}, optional=METRICS)

    def row(key: str | None) -> dict:
        ref = {"$ref": "#/$defs/metrics"}  # defined once: every row has the same metrics
        return obj({key: STR, "metrics": ref} if key else {"metrics": ref})

    side = obj({"path": STR, "input": {"enum": ["records", "transcripts"]}, "runs": INT, "tasks": INT,
                "runs_with_usage": INT, "files": INT, "skipped_lines": INT})
    run = obj({"side": {"enum": ["a", "b"]}, **{k: STR for k in RUN_KEYS}, **{m: nullable(NUM) for m in METRICS},
               USD: nullable(NUM)})
    money = nullable(obj({"median": NUM, "min": NUM, "max": NUM, "n": INT}))
    cost = obj({"prices": STR, "currency": {"const": "USD"}, "estimated": {"const": True}, "a_usd": nullable(NUM),
                "b_usd": nullable(NUM), "a_unpriced_calls": INT, "b_unpriced_calls": INT,
                "per_run": obj({"a": money, "b": money, "change": nullable(NUM), "pct_change": nullable(NUM)}),
                "unknown_models": array(STR), "why_not": nullable(STR)})
    doc = _document("compare", "toolaudit compare -f json", {
        "meta": _meta("compare", {"group_by": STR, "median": STR}),
        "sides": obj({"a": side, "b": side}),
        "overall": row(None),
        "by_task": row(None),
        "tasks": array(row("task")),
        "tools": array(row("tool")),
        "runs": array(run),
        "cost": cost,
    }, optional=("cost",))
    doc["$defs"] = {"metrics": metrics}
    return doc


def ci_schema() -> dict:
    """`ci -f json`: the verdict, each check, tools baseline → now."""
    from ..gate.checks import Outcome

    check = obj({**fields(Outcome, ("check", "scope", "metric", "baseline", "current", "change")),
                 "change_pct": nullable(NUM), "limit": STR, "passed": BOOL,
                 "status": {"enum": ["pass", "fail", "vanished", "too few calls", "not in baseline"]},
                 "message": STR})
    tool = obj({"tool": STR, "baseline_tokens": INT, "current_tokens": INT, "change": INT,
                "change_pct": nullable(NUM), "baseline_calls": INT, "current_calls": INT})
    doc = _document("ci", "toolaudit ci -f json", {
        "meta": obj({"tool": {"const": "toolaudit"}, "command": {"const": "ci"}, "version": STR, "baseline": STR,
                     "measured": nullable(STR), "tokenizer": nullable(STR)}),
        "verdict": {"enum": ["pass", "fail", "not comparable", "nothing measured"]},
        "not_comparable": nullable(STR),
        "nothing_measured": nullable(STR),
        "checks": array(check),
        "summary": obj({"passed": INT, "judged": INT, "not_judged": INT, "text": STR}),
        "tools": array(tool),
        "new_tools": array(STR),
        "vanished_tools": array(STR),
        "errors": array(STR),
        "cost": obj({"prices": nullable(STR), "currency": {"const": "USD"}, "estimated": {"const": True},
                     "baseline_usd": nullable(NUM), "current_usd": nullable(NUM), "change_usd": nullable(NUM),
                     "unpriced_calls": INT, "why_not": nullable(STR)}),
    }, optional=("cost",))
    # the baseline's schema_version, absent from a baseline that is not a toolaudit document
    doc["properties"]["schema_version"] = nullable(INT)
    return doc


def replay_schema() -> dict:
    """`replay -f json`."""
    from ..replay.diffs import DiffEntry
    from ..replay.summary import ErrorChange, ExplainedCall, ReplayRow
    from .replay_view import REPLAY_FIELDS

    row = {**fields(ReplayRow, REPLAY_FIELDS), "as": array(STR)}
    totals = {k: v for k, v in row.items() if k not in ("tool", "as")}
    totals.update(fields(ReplayRow, ("chars_before", "chars_after", "weighted_tokens_before",
                                     "weighted_saved_pct", "unrecorded")))
    tool = obj({"name": STR, "tokens": INT})
    reasons = obj({"reason": STR, "calls": INT})
    fidelity = {"calls": INT, "replayed": INT, "identical": INT, "order_only": INT, "within_1pct": INT,
                "uncertain_reproduced": INT, "reasons": array(reasons)}
    menu = obj({"mapping": STR, "tools": array(tool), "tokens_per_request": INT, "requests": INT,
                "carried_tokens": INT, "before_tokens_per_request": nullable(INT), "before_tools": array(tool)})
    return _document("replay", "toolaudit replay -f json", {
        "meta": _meta("replay", {"replay_spec": ANY_OBJECT}),
        "totals": obj(totals),
        "tools": array(obj(row)),
        "menu": array(menu),
        "reasons": array(obj({"status": STR, "reason": STR, "calls": INT})),
        "new_errors": INT,
        "fixed_errors": INT,
        "error_changes": array(record(ErrorChange)),
        "files": INT,
        "duplicates_dropped": INT,
        **_skipped(),
        "notes": array(STR),
        "before": {"enum": ["identity", "recorded"]},
        "identity": obj({**fidelity, "tools": array(obj({"tool": STR, **fidelity}))}),
        "drifted": array(reasons),
        "explain": array(record(ExplainedCall)),
        "diffs": array(record(DiffEntry)),
        "not_replayed": array(reasons),
        "newer_versions": array(obj({"agent": STR, "version": STR, "emulated_as": STR})),
        "cost": output_cost(),
    }, optional=("identity", "explain", "diffs", "cost"))


def advise_schema() -> dict:
    """`advise -f json`: recommendations ranked by net saving, each with its setting or policy file."""
    setting = obj({"agent": STR, "name": STR, "value": STR, "source": STR, "where": STR, "note": STR})
    point = obj({"value": STR, "net_tokens_saved": INT, "risk": nullable(NUM), "in_budget": BOOL})
    recommendation = obj({
        "kind": {"enum": ["cap", "context", "mcp"]}, "tools": array(STR), "policy": STR, "net_tokens_saved": INT,
        "saved_usd": nullable(NUM), "risk": nullable(NUM), "evidence": obj({"sessions": INT, "events": INT}),
        "setting": {"oneOf": [setting, {"type": "null"}]}, "why": STR, "policy_file": nullable(STR),
        "cost_before_usd": nullable(NUM), "cost_after_usd": nullable(NUM), "curve": array(point),
        "fields": array(obj({"path": STR, "tokens": INT}))})
    return _document("advise", "toolaudit advise -f json", {
        "meta": _meta("advise", {}),
        "budget": obj({"max_later_used": NUM, "max_refetch": NUM, "min_net_tokens": INT}),
        "recommendations": array(recommendation),
        "rejected": array(STR),
        "agents": counts(),
        "calls": INT,
        "files": INT,
        "skipped": obj({"count": INT}),
        "unrecognised": array(STR),
        "errors": array(STR),
    })


BUILDERS = {"scan": scan_schema, "simulate": simulate_schema, "compare": compare_schema, "ci": ci_schema,
            "replay": replay_schema, "advise": advise_schema}


def schema_text(command: str) -> str:
    """The committed file's exact text for one command."""
    return json.dumps(BUILDERS[command](), indent=2, ensure_ascii=False) + "\n"


def schema_path(command: str) -> Path:
    """docs/schema/<command>-<schema version>.json."""
    return SCHEMA_DIR / f"{command}-{SCHEMA_VERSION}.json"


def main(argv: list[str]) -> int:
    """`--write` rewrites docs/schema/*.json; without it, exit 1 when a file differs."""
    stale = []
    for command in COMMANDS:
        path, text = schema_path(command), schema_text(command)
        if "--write" in argv:
            from ..files import atomic_write

            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, text)
        elif not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(str(path))
    for path in stale:
        print(f"stale: {path} (run python -m toolaudit.reports.schema --write)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
