"""exec_command's own output cap: `resolve_max_tokens(max_output_tokens).min(truncation_policy.token_budget())`,
the policy being the model's in Codex's catalog when the rollout records none (turn_context's truncation_policy is
null from 0.133 on). EntityProcess/agentv's Codex 0.140.0 session (entire/checkpoints/v1:79/6eaddfe2f9/0, gpt-5.5)
ran `rg -n "prepare|…" apps/cli/src …` with `max_output_tokens: 70000`: `Original token count: 39049`, and Codex
kept 40,144 bytes under `Total output lines: 1088` (10,000 tokens). A cut of a walk's output keeps the lines the
recording machine's walk gave first and last: not replayable."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolaudit.replay.agents.base import Call
from toolaudit.replay.agents.codex import ExecCommand
from toolaudit.replay.base import Sandbox

CWD = "/home/entity/projects/EntityProcess/agentv"


def _run(root: Path, command: str, model: str, cap: int = 70000):
    args = {"cmd": command, "workdir": CWD, "yield_time_ms": 10000, "max_output_tokens": cap}
    return ExecCommand().run(Call(tool="exec_command", args=args, root=root, cwd=CWD, version="0.140.0",
                                  sandbox=Sandbox(root), params={"duration": "0"}, session="s", call_id="c1",
                                  model=model))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for k in range(6):
        (root / f"src/m{k}").mkdir(parents=True)
        (root / f"src/m{k}/trace.ts").write_text("".join(f"export const trace{i} = prepare({i});\n" for i in range(400)))
    return root


def _kept(output: str) -> str:
    return output.partition("\nOutput:\n")[2]


@pytest.mark.parametrize(("model", "budget"), [("gpt-5.5", 40_000), ("gpt-5.3-codex-spark", 40_000),
                                               ("gpt-5.2", 10_000)])
def test_the_models_policy_caps_max_output_tokens(tree: Path, model: str, budget: int) -> None:
    got = _run(tree, "cat src/m0/trace.ts src/m1/trace.ts src/m2/trace.ts src/m3/trace.ts src/m4/trace.ts", model)
    kept = _kept(got.output)
    assert got.status == "replayed" and kept.startswith("Total output lines: 2000\n\n")
    assert budget - 100 < len(kept.encode()) < budget + 200


def test_a_model_the_catalog_does_not_list_keeps_the_models_own_cap(tree: Path) -> None:
    got = _run(tree, "cat src/m0/trace.ts src/m1/trace.ts src/m2/trace.ts", "o3")
    assert got.status == "replayed" and not _kept(got.output).startswith("Total output lines")


def test_a_cut_walk_is_not_replayable_and_a_sorted_or_whole_one_is(tree: Path) -> None:
    got = _run(tree, "rg -n prepare src", "gpt-5.5")
    assert got.status == "refused" and "Codex's output cap cut rg's output" in got.reason
    assert _run(tree, "rg --sort path -n prepare src", "gpt-5.5").status == "replayed"  # the recording sorted
    assert _run(tree, "rg -n 'prepare\\(1\\)' src", "gpt-5.5").status == "replayed"  # not cut
    assert _run(tree, "rg -n prepare src", "gpt-5.5", cap=200_000).status == "refused"  # the policy still cuts


def test_before_the_rollouts_stopped_recording_the_policy_none_recorded_means_the_models_own_cap(tree: Path) -> None:
    args = {"cmd": "cat src/m0/trace.ts src/m1/trace.ts src/m2/trace.ts src/m3/trace.ts src/m4/trace.ts",
            "workdir": CWD, "max_output_tokens": 70000}
    got = ExecCommand().run(Call(tool="exec_command", args=args, root=tree, cwd=CWD, version="0.120.0",
                                 sandbox=Sandbox(tree), params={"duration": "0"}, session="s", call_id="c1",
                                 model="gpt-5.5"))
    assert not _kept(got.output).startswith("Total output lines")  # no evidence of the catalog's clamp there
