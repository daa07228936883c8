"""What every builtin shares: recorded arguments read by their many names, typed parameters, paths, outcomes.

Recorded arguments come from different agents under different names (`path`, `dir`,
`file_path`, `absolute_path` …); `pick` takes the first one present. Values are read
leniently (`"true"`, `"5"`), because some agents record every argument as a string.
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any, Mapping

from ...simulate.policies import Chain, MatchLimit, Policy
from ...errors import UsageError
from ...registry import did_you_mean
from ..base import FAILED, REFUSED, Outcome
from ..sandbox import OutsideWorkspace, resolve

PATH_NAMES = ("path", "dir", "directory", "dir_path", "file_path", "absolute_path", "target_directory")


class BadArgument(Exception):
    """A recorded argument the tool cannot use: the model would see this message as an error result."""


class CallFailed(Exception):
    """The tool could not answer (a timeout, a file too large to read): a FAILED outcome with this reason."""


def pick(args: Mapping[str, Any], names: tuple[str, ...], default: Any = None) -> Any:
    """The value of the first of `names` present (and not None) in `args`, else `default`."""
    for name in names:
        if args.get(name) is not None:
            return args[name]
    return default


def as_text(value: Any, name: str) -> str:
    """A string argument; numbers are written out, anything else is a BadArgument."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise BadArgument(f"argument {name!r} must be a string, not {value!r}")


def as_bool(value: Any, name: str) -> bool:
    """A boolean argument: true/false, 1/0, yes/no, on/off."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _BOOLS:
        return _BOOLS[value.strip().lower()]
    raise BadArgument(f"argument {name!r} must be true or false, not {value!r}")


_BOOLS = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False, "no": False, "off": False}


def as_count(value: Any, name: str) -> int | None:
    """A non-negative integer argument (None stays None)."""
    if value is None:
        return None
    try:
        number = int(value) if not isinstance(value, bool) else None
    except (TypeError, ValueError):
        number = None
    if number is None or number < 0 or (isinstance(value, float) and value != number):
        raise BadArgument(f"argument {name!r} must be a whole number >= 0, not {value!r}")
    return number


def as_globs(value: Any, name: str) -> list[str]:
    """One glob or a list of globs (a string is one glob: `*.{ts,tsx}` holds commas of its own)."""
    if value is None:
        return []
    items = value if isinstance(value, (list, tuple)) else [value]
    return [as_text(item, name) for item in items if item != ""]


def required(args: Mapping[str, Any], names: tuple[str, ...]) -> str:
    """The string argument under the first of `names`; a BadArgument when none is there."""
    value = pick(args, names)
    if value is None:
        raise BadArgument(f"missing required argument {names[0]!r}")
    return as_text(value, names[0])


def target(workspace: Path, args: Mapping[str, Any], names: tuple[str, ...] = PATH_NAMES,
           default: str = ".", must_exist: bool = False) -> tuple[Path, str]:
    """The path argument resolved inside `workspace` and as given; raises OutsideWorkspace.

    `must_exist`: a path that does not exist is a BadArgument.
    """
    raw = as_text(pick(args, names, default), names[0]) or default
    path = resolve(workspace, raw)
    if must_exist and not path.exists():
        raise BadArgument(f"path does not exist: {raw}")
    return path, raw


def window(args: Mapping[str, Any], entries: list[str]) -> list[str]:
    """`entries` after the recorded `offset` (lines skipped first) and `head_limit` (alias limit: lines kept)."""
    offset = as_count(pick(args, ("offset",), 0), "offset")
    head = as_count(pick(args, ("head_limit", "limit")), "head_limit")
    return entries[offset:] if head is None else entries[offset : offset + head]


def error(message: str) -> Outcome:
    """An error result the new tool returns to the model (it ran: REPLAYED)."""
    return Outcome(output=message, is_error=True)


def refused(exc: OutsideWorkspace) -> Outcome:
    """Nothing ran: the call named a path outside the workspace."""
    return Outcome(output=f"Error: path {exc.path!r} is {exc.reason}; access refused", is_error=True,
                   status=REFUSED, reason=f"path {exc.reason}: {exc.path}")


def failed(reason: str) -> Outcome:
    """The tool could not answer."""
    return Outcome(output=f"Error: {reason}", is_error=True, status=FAILED, reason=reason)


def search_caps(max_matches: int | None, max_bytes: int | None, *before: Policy) -> Chain:
    """`before` (a per-match preview), then simulate's match and byte limit when either is set.

    Built from the policy classes, not from simulate's flag mapping: there `max_bytes` alone
    means a head/tail cap, while a search tool's byte budget is always the match limit's.
    """
    limit = () if max_matches is None and max_bytes is None else (MatchLimit(max_matches=max_matches, max_bytes=max_bytes),)
    return Chain.of(*before, *limit)


# --- spec parameters: `builtin:NAME?key=value&...` ---------------------------------------


def parse_params(cls: type, pairs: list[tuple[str, str]], builtin: str) -> Any:
    """An instance of the frozen dataclass `cls` from query pairs, each value typed by its field."""
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for key, text in pairs:
        name = key.replace("-", "_")
        if name not in known:
            choices = ", ".join(sorted(known)) or "none"
            raise UsageError(f"builtin:{builtin} has no parameter {key!r}{did_you_mean(name, known)}; "
                             f"it takes: {choices}", slug="builtin-param")
        if name in values:
            raise UsageError(f"builtin:{builtin}: parameter {key!r} given twice", slug="builtin-param")
        values[name] = _typed(hints[name], text, f"builtin:{builtin} {name}")
    try:
        return cls(**values)
    except UsageError as exc:  # a value the policy refuses (a negative limit, a ratio over 1)
        raise UsageError(f"builtin:{builtin}: {exc.message}", slug="builtin-param") from None


def _typed(hint: Any, text: str, where: str) -> Any:
    kinds = typing.get_args(hint) or (hint,)
    if type(None) in kinds and text.strip().lower() in ("", "none"):
        return None
    kind = next(k for k in kinds if k is not type(None))
    try:
        if kind is bool:
            return as_bool(text, where)
        value = kind(text)
    except (ValueError, BadArgument):
        raise UsageError(f"{where} takes a {kind.__name__}, not {text!r}", slug="builtin-param") from None
    if kind in (int, float) and value < 0:
        raise UsageError(f"{where} must not be negative", slug="builtin-param")
    return value
