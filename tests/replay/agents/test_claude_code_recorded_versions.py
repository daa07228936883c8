"""Real recordings of the newer Claude Code versions (tests/fixtures/replay-versions/README.md: sources and
licenses), answered by the emulation of their version and compared byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.replay.agents import claude_code  # noqa: F401  (registers the emulations)
from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.base import Sandbox

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "replay-versions"


def _calls(session: Path) -> list[tuple[dict, str, str, str]]:
    """(Read arguments, recorded output, version, model) of each call of a cut session."""
    uses, found = {}, []
    for line in session.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for part in row["message"]["content"] if isinstance(row["message"]["content"], list) else []:
            if part.get("type") == "tool_use":
                uses[part["id"]] = (part["input"], row["version"], row["message"]["model"])
            elif part.get("type") == "tool_result":
                content = part["content"]
                text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
                args, version, model = uses[part["tool_use_id"]]
                found.append((args, text, version, model))
    return found


@pytest.mark.parametrize(("case", "cwd"), [("auth-go-whole", "/tmp/auth-go-check"), ("auth-go-range", "/tmp/auth-go-check")])
def test_each_recorded_read_is_reproduced_byte_for_byte(case: str, cwd: str) -> None:
    folder = FIXTURES / case
    calls = _calls(folder / "session.jsonl")
    assert len(calls) == 1
    for args, recorded, version, model in calls:
        call = Call("Read", args, folder / "repo", cwd, version, Sandbox(workspace=folder / "repo"), model=model,
                    main_model=model)
        out = EMULATIONS[("claude-code", "Read")]().run(call)
        assert out.output == recorded, args
