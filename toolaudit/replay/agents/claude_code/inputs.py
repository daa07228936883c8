"""What a Claude Code tool takes: its input schema as each version checked it, and the caps of a variant."""

from __future__ import annotations

import json
import re
from typing import Any

from .common import READ_PAGES, GREP_CONTEXT, Answer, Context, failed_answer, invalid_answer, refuse
from .js import MISSING
from .versions import GREP_ONLY_MATCHING, SEMANTIC_INPUTS


def param_value(text: str) -> Any:
    """A `?k=v` value as the model would have sent it: a JSON number, boolean or null, else the string."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, (int, float, bool)) or value is None else text


# the tools' zod input schemas (strict objects): parameter -> type; the first name is required
_GREP_SCHEMA = {"pattern": "string", "path": "string", "glob": "string", "output_mode": "enum", "-B": "number",
                "-A": "number", "-C": "number", "context": "number", "-n": "boolean", "-i": "boolean",
                "type": "string", "head_limit": "number", "offset": "number", "multiline": "boolean"}
_OUTPUT_MODES = ("content", "files_with_matches", "count")


def schema_of(tool: str, version: tuple[int, ...]) -> dict[str, str]:
    """The input schema of `tool` in `version`."""
    if tool == "Read":
        pages = {"pages": "string"} if version >= READ_PAGES else {}
        return {"file_path": "string", "offset": "number", "limit": "number", **pages}
    if tool == "Grep":
        schema = {key: kind for key, kind in _GREP_SCHEMA.items() if key != "context" or version >= GREP_CONTEXT}
        return {**schema, "-o": "boolean"} if version >= GREP_ONLY_MATCHING else schema
    return {"pattern": "string", "path": "string"}


def coerce(schema: dict[str, str], args: dict[str, Any]) -> None:
    """From SEMANTIC_INPUTS the schemas' preprocessors: a number written as a string ("5", " -2.5 ") is the number,
    "true"/"false" the boolean (zod's preprocess before the type check); changes `args` in place."""
    for key, kind in schema.items():
        value = args.get(key)
        if kind == "number" and isinstance(value, str) and re.fullmatch(r"[-+]?\d+(\.\d+)?", value.strip()):
            number = float(value.strip())
            args[key] = int(number) if number.is_integer() else number
        elif kind == "boolean" and value in ("true", "false"):
            args[key] = value == "true"


def check_input(tool: str, schema: dict[str, str], args: dict[str, Any], version: tuple[int, ...] = ()) -> None:
    """Claude Code's InputValidationError for missing, unexpected and mistyped parameters (its own wording)."""
    if version >= SEMANTIC_INPUTS:
        coerce(schema, args)
    required = next(iter(schema))
    missing = [f"The required parameter `{required}` is missing"] if required not in args else []
    unexpected = [f"An unexpected parameter `{key}` was provided" for key in args if key not in schema]
    mistyped = [f"The parameter `{key}` type is expected as `{kind}` but provided as `{_zod_type(args[key])}`"
                for key, kind in schema.items() if key in args and kind != "enum" and _zod_type(args[key]) != kind]
    issues = missing + unexpected + mistyped
    if not issues and args.get("output_mode", _OUTPUT_MODES[0]) not in _OUTPUT_MODES:
        raise Answer(refuse("an output_mode Claude Code's schema refused, with zod's own message: not emulated"))
    if issues:
        plural = "issues" if len(issues) > 1 else "issue"
        raise Answer(invalid_answer(f"InputValidationError: {tool} failed due to the following {plural}:\n"
                               + "\n".join(issues)))


def _zod_type(value: Any) -> str:
    """The type name zod reported for a JSON value."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", type(None): "null", list: "array", dict: "object"}.get(type(value), "unknown")


CEILINGS = {"Read": ("limit", None), "Grep": ("head_limit", "default_head")}  # tool -> (its cap argument, ...)


def ceilings(ctx: Context, tool: str) -> dict[str, int]:
    """The cap parameters of `agent:claude-code/TOOL?limit=N` as the lower of the cap and the model's own
    argument (the version's default when the model gave none; 0 is no limit); empty when the cap is not lower."""
    name = CEILINGS.get(tool, ("", None))[0]
    text = ctx.call.params.get(name) if name else None
    if text is None:
        return {}
    cap = param_value(text)
    if not isinstance(cap, (int, float)) or isinstance(cap, bool) or cap <= 0:
        raise Answer(failed_answer(f"parameter {name} must be a whole number above 0, not {text!r}"))
    own = ctx.arg(name)
    if own is MISSING and tool == "Grep":
        from .grep import default_head

        own = default_head(ctx)
    if isinstance(own, (int, float)) and not isinstance(own, bool) and 0 < own <= cap:
        return {}
    return {name: int(cap)}
