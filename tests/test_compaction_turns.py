"""Where simulate's compaction fires: the turns the transcripts record (the user spoke) and the model's own window,
carried from the collectors into simulate's timeline; fixtures cut from real Codex compactions
(tests/fixtures/compaction/README.md)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from toolaudit.collectors.claude_code import ClaudeCodeCollector
from toolaudit.collectors.codex import CodexCollector
from toolaudit.model import Usage
from toolaudit.simulate import context
from toolaudit.simulate.context.compact import Compact
from toolaudit.simulate.context.timeline import Output, build, turn_starts, user_turns

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "compaction"
MID_TURN = FIXTURES / "codex-0.142.5.jsonl"  # fired at 240,512; simulate's guessed turns fired at 229,484
SPARK = FIXTURES / "codex-0.142.2-spark.jsonl"  # gpt-5.3-codex-spark, 128k window: fired at 87,590


def _bench():
    spec = importlib.util.spec_from_file_location("compaction_fit", HERE.parent / "benchmarks" / "compaction_fit.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _usage(path: Path, collector) -> list[Usage]:
    return sorted((r for r in collector.collect(path) if isinstance(r, Usage) and r.request_index is not None),
                  key=lambda u: u.request_index)


def test_codex_requests_start_a_turn_where_a_user_message_came_before_them():
    usage = _usage(MID_TURN, CodexCollector())
    # read apart: the lines of response_item user messages, and of the token_count events the requests are
    lines = [json.loads(line) for line in MID_TURN.read_text(encoding="utf-8").splitlines()]
    spoke = [n + 1 for n, o in enumerate(lines) if o.get("type") == "response_item"
             and o["payload"].get("type") == "message" and o["payload"].get("role") == "user"]
    previous, expected = 0, []
    for u in usage:
        expected.append(any(previous < n < u.line for n in spoke) or not expected)
        previous = u.line
    assert [u.turn_start for u in usage] == expected
    assert 1 < sum(expected) < len(usage) - 10  # a few turns, most requests inside one
    assert {u.context_window for u in usage} == {272_000}  # the rollout's 258,400 is 95% of it


def test_a_recorded_turn_start_wins_over_the_guess():
    # request 2 carries a tool output but the user spoke while it ran; request 3 carries none, the agent went on
    usage = [Usage("r", n + 1, "codex", "r", f"r#{n}", "gpt-5.5", 1_000, 0, 0, 10, request_index=n, turn_start=t)
             for n, t in enumerate([True, False, True, False])]
    outputs = [Output(1, 4, 10, 10, "exec_command"), Output(2, 4, 10, 10, "exec_command")]
    timeline = build(usage, outputs)
    assert turn_starts(timeline) == [True, False, False, True]
    assert user_turns(timeline) == [True, False, True, False]
    unknown = build([Usage("r", 1, "x", "r", "a", None, 5, 0, 0, 1, request_index=0)], [])
    assert user_turns(unknown) == turn_starts(unknown) == [True]  # a format that does not say: the guess


def test_simulate_fires_where_codex_did_with_the_recorded_turns():
    (compaction, _), = _bench().collect([MID_TURN])
    assert (compaction.trigger, compaction.fired) == ("auto", 240_512)
    # the collector's turns, simulate's timeline and the preset's Compact.apply, Codex's own count last
    assert compaction.simulated == 240_512


def test_simulate_does_not_compact_before_codex_would_have(run, tmp_path):
    # the rollout cut right before its compaction: at its last request Codex had not reached its limit yet (it
    # fired after that request's answer), and neither does simulate: 240,512 in and 125% of the 3,260 reasoning
    # tokens of the turns before this one make 244,587, under 244,800
    lines = MID_TURN.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = next(n for n, line in enumerate(lines) if json.loads(line).get("type") == "compacted")
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(lines[:cut]), encoding="utf-8")
    result = run("simulate", path, "--context", "codex", "-f", "json", "-q")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)["context"]
    assert doc["requests"] == 42 and doc["compactions"] == 0


def test_codex_takes_the_models_own_window_where_the_rollout_names_it():
    usage = _usage(SPARK, CodexCollector())
    assert {u.context_window for u in usage} == {128_000}  # gpt-5.3-codex-spark: 121,600 recorded (95%)
    policy = context.parse("codex")
    assert (policy.window, policy.limit(128_000), policy.limit(272_000), policy.limit(0)) == (90, 115_200, 244_800,
                                                                                              244_800)
    assert Compact(at=1_000).limit(128_000) == 1_000  # no window share: `at` alone
    assert "90% of the model's window" in policy.describe()
    (compaction, _), = _bench().collect([SPARK])
    assert compaction.fired == 87_590 and compaction.simulated == 87_590


_CLAUDE = [
    {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "fix the bug"}},
    {"type": "assistant", "sessionId": "s", "message": {"id": "m1", "model": "claude-opus-4-5", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
        "usage": {"input_tokens": 10, "output_tokens": 5}}},
    {"type": "user", "sessionId": "s", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "a b"}]}},
    {"type": "assistant", "sessionId": "s", "message": {"id": "m2", "model": "claude-opus-4-5", "content": [
        {"type": "text", "text": "done"}], "usage": {"input_tokens": 20, "output_tokens": 5}}},
    {"type": "user", "sessionId": "s", "isMeta": True, "message": {"role": "user", "content": [
        {"type": "text", "text": "Caveat: the messages below were generated by the user while running commands"}]}},
    {"type": "assistant", "sessionId": "s", "message": {"id": "m3", "model": "claude-opus-4-5", "content": [
        {"type": "text", "text": "ok"}], "usage": {"input_tokens": 30, "output_tokens": 5}}},
    {"type": "user", "sessionId": "s", "message": {"role": "user", "content": [{"type": "text", "text": "tests"}]}},
    {"type": "assistant", "sessionId": "s", "message": {"id": "m4", "model": "claude-opus-4-5", "content": [
        {"type": "thinking", "thinking": "hm"}], "usage": {"input_tokens": 40, "output_tokens": 5}}},
    {"type": "assistant", "sessionId": "s", "message": {"id": "m4", "model": "claude-opus-4-5", "content": [
        {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pytest"}}],
        "usage": {"input_tokens": 40, "output_tokens": 9}}},
]
_CLAUDE_TURNS = {"m1": True, "m2": False, "m3": False, "m4": True}  # a prompt; tool results; a caveat; a prompt


def test_claude_code_requests_start_a_turn_after_a_prompt_not_after_tool_results(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in _CLAUDE), encoding="utf-8")
    assert {u.request_id: u.turn_start for u in _usage(path, ClaudeCodeCollector())} == _CLAUDE_TURNS


def test_a_resumed_claude_code_read_keeps_whether_the_user_spoke(tmp_path):
    # read up to m2 (the user has not spoken since), grown, read on from the checkpoint: m3 starts no turn
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in _CLAUDE[:4]), encoding="utf-8")
    first = ClaudeCodeCollector()
    list(first.collect(path))
    with path.open("a", encoding="utf-8") as f:
        f.write("".join(json.dumps(o) + "\n" for o in _CLAUDE[4:]))
    resumed = _usage(path, _Resumed(first.checkpoint))
    assert {u.request_id: u.turn_start for u in resumed} == _CLAUDE_TURNS


class _Resumed(ClaudeCodeCollector):
    """A Claude Code collector that reads on from a checkpoint."""

    def __init__(self, checkpoint) -> None:
        super().__init__()
        self.start = checkpoint

    def collect(self, path, doc=None, resume=None):
        return super().collect(path, doc, resume=self.start)
