"""A baseline is data, never a program: read it, and say in one line what makes it unusable."""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..errors import UsageError
from ..model import SCHEMA_VERSION

# meta.command of the results a baseline may be (the gate measures each again its own way: gate.job)
KINDS = ("scan", "simulate", "replay")


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string"}.get(type(value), type(value).__name__)


def _problem(doc) -> str | None:
    """What makes a parsed baseline unusable, in a few words, or None."""
    *first, last = KINDS
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
    if meta.get("command") not in KINDS:
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
        negative = next((k for k, v in row.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                         and v < 0 and k not in ("change", "saved_pct", "tokens_saved", "weighted_tokens_saved",
                                                 "weighted_saved_pct", "change_pct")), None)
        if negative is not None:
            return f"has {where}.{negative} below zero ({row[negative]!r})"
    names = [t["tool"] for t in tools]
    if any(not name.strip() for name in names):
        return "has a tools[] row with an empty tool name"
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        return f"has tools[] rows for {doubled[0]!r} twice"
    return None


def _non_finite(doc) -> str | None:
    """Where the document holds NaN or ±Infinity (JSON's NaN, Infinity, or a number too big for a float, 1e999),
    as `totals.tokens`, or None: every comparison with such a number passes or fails whatever was measured."""
    stack: list[tuple[str, object]] = [("", doc)]
    while stack:  # a loop, not recursion: a deeply nested baseline is no crash
        where, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return f"{where or 'the document'} = {value}"
        if isinstance(value, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in value.items())
        elif isinstance(value, list):  # a row is named by its tool, as the other refusals name it
            stack.extend((f"{where}[{v['tool'] if isinstance(v, dict) and isinstance(v.get('tool'), str) else i}]", v)
                         for i, v in enumerate(value))
    return None


def _no_calls(doc: dict) -> bool:
    """A baseline that measured no call: nothing the gate could compare with."""
    calls = doc.get("totals", {}).get("calls")
    return isinstance(calls, (int, float)) and not isinstance(calls, bool) and calls == 0 and not doc.get("tools")


def read_baseline(path: Path, create: bool = False) -> dict:
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
    if problem is None and (where := _non_finite(doc)) is not None:
        problem = f"has {where}: not a finite number (NaN and Infinity are refused)"
    if problem is None and not create and _no_calls(doc):
        problem = "measured no call: a baseline with nothing in it passes any run; write it from real transcripts"
    if problem is not None:
        raise UsageError(f"the baseline {path} {problem}", slug="baseline")
    return doc
