"""Real recordings of the newer Claude Code versions (tests/fixtures/replay-versions/README.md: sources and
licenses), answered by the emulation of their version and compared byte for byte."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from toolaudit.replay.agents import claude_code  # noqa: F401  (registers the emulations)
from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.agents.claude_code.common import MALWARE_REMINDER
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


def test_the_reminder_follows_the_setting_the_recording_shows() -> None:
    """Claude Code 2.1.45 under claude-opus-4-6 appended the malware reminder: its rule reads the main loop's model
    *setting*, which the transcript does not record (the responses' model says Opus 4.6, whose Reads get none).
    Identity takes it from the recorded listing; without it the model's rule leaves the reminder out."""
    folder = FIXTURES / "context-evaluator-reminder"
    calls = _calls(folder / "session.jsonl")
    assert len(calls) == 1
    args, recorded, version, model = calls[0]
    assert (version, model) == ("2.1.45", "claude-opus-4-6")
    read = EMULATIONS[("claude-code", "Read")]()
    call = Call("Read", args, folder / "repo", "/Users/cedricteyton/Code/agents-md-evaluator", version,
                Sandbox(workspace=folder / "repo"), model=model, main_model=model)
    by_model = read.run(call).output
    assert by_model != recorded and by_model + MALWARE_REMINDER == recorded
    seen = read.from_recording(recorded, call)
    assert seen == {"reminder": "on"}
    assert read.run(replace(call, params=seen)).output == recorded
    # a variant's own ?reminder= still wins over the recording's (the agents' seam merges the variant's last)
    assert read.run(replace(call, params={**seen, "reminder": "off"})).output == by_model


@pytest.mark.parametrize(("version", "output", "seen"), [
    ("2.1.45", "     1→a" + MALWARE_REMINDER, "on"),
    ("2.1.45", "     1→a", "off"),
    ("2.1.45", "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>", None),
    ("2.1.45", "File does not exist.", None),
    ("2.1.38", "     1→a", None),  # before 2.1.39 the reminder follows every listing: the version says it
    ("2.1.126", "1\ta", None),  # and from 2.1.126 none does
])
def test_the_recorded_setting_is_read_from_listings_only(version: str, output: str, seen: str | None) -> None:
    from toolaudit.replay.agents.claude_code.read import reminder_seen

    assert reminder_seen(output, version) == seen
