"""A recorded call's arguments, read once the same way everywhere."""

from __future__ import annotations

import json
from typing import Any

from ..model import ToolCall


def call_args(call: ToolCall) -> dict[str, Any]:
    """A call's arguments as the model wrote them (a JSON object), or {} (none, not JSON, or not an object)."""
    try:
        args = json.loads(call.args) if call.args.strip() else {}
    except ValueError:
        return {}
    return args if isinstance(args, dict) else {}
