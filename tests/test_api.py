"""The Python API: the commands' own entry points, their options objects, results' JSON and frames."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import toolaudit
from conftest import ROOT, SAMPLES
from toolaudit.errors import UsageError
from toolaudit.options import InputOptions
from toolaudit.scan import ScanOptions
from toolaudit.simulate import Caps, SimulateOptions

FIXTURES = ROOT / "tests" / "fixtures"
REPLAY = dict(workspace=str(FIXTURES / "search_repo"), translate=["shell-search"],
              tools=["grep=builtin:grep?max_matches=100&max_bytes=10000", "glob=builtin:glob"])


def _same(doc: dict) -> dict:
    """A document without what differs between two runs: the time it was made."""
    meta = dict(doc.get("meta", {}))
    meta.pop("created", None)
    return {**doc, "meta": meta, **({"created": None} if "created" in doc else {})}


def _cli_json(run, *args) -> dict:
    result = run(*args, "-f", "json", "-q")
    assert result.exit_code in (0, 3), result.output
    return json.loads(result.stdout)


def test_each_job_is_a_callable_package_and_its_options_come_with_it():
    for name in ("scan", "simulate", "replay", "compare", "gate", "calibrate"):
        assert callable(getattr(toolaudit, name)), name
    assert toolaudit.scan.ScanOptions is ScanOptions
    import toolaudit.scan.summary as summary  # the package stays a package

    assert summary.__name__ == "toolaudit.scan.summary"
    with pytest.raises(AttributeError):
        toolaudit.scan.no_such_thing  # noqa: B018


def test_scan_gives_what_the_command_prints(run):
    assert _same(toolaudit.scan([SAMPLES], by="family", top=3).to_dict()) == _same(
        _cli_json(run, "scan", SAMPLES, "--by", "family", "--top", "3", "-j", "1"))
    text = toolaudit.scan([str(SAMPLES / "codex")]).to_json()
    assert json.loads(text)["totals"]["calls"] == 12 and text.endswith("}\n")


def test_scan_frames_per_tool_and_per_call():
    result = toolaudit.scan([SAMPLES], calls=True)
    tools = result.to_pandas()
    assert list(tools.columns[:3]) == ["tool", "calls", "tokens"]
    assert tools["tokens"].sum() == result.totals.tokens and tools["calls"].sum() == result.totals.calls
    calls = result.to_pandas("calls")
    answered = calls[calls["status"] != "unpaired"]
    assert len(answered) == result.totals.calls and answered["tokens"].sum() == result.totals.tokens
    assert set(calls["tool"]) >= set(tools["tool"])
    with pytest.raises(UsageError, match="calls=True"):
        toolaudit.scan([SAMPLES / "codex"]).to_pandas("calls")
    with pytest.raises(UsageError, match="one of tools, groups, days, calls"):
        result.to_pandas("nope")


def test_keywords_build_the_options_objects_the_commands_build():
    options = ScanOptions.of(by="session", top=5, tokenizer="cl100k_base", jobs=2)
    assert options == ScanOptions(InputOptions(tokenizer="cl100k_base", jobs=2), by="session", top=5)
    with pytest.raises(UsageError, match=r"scan takes no option 'tpo' \(did you mean 'top'\?\)"):
        ScanOptions.of(tpo=5)
    sim = SimulateOptions.of(max_chars=5000, tools="Grep", preset="codex")
    assert sim.caps == Caps(max_chars=5000) and sim.tools == ("Grep",)
    assert sim.spec()["flags"] == {"max_chars": 5000}  # the flag reaches the policies through Caps, by name


def test_simulate_gives_what_the_command_prints(run):
    doc = toolaudit.simulate([SAMPLES], preset="codex").to_dict()
    assert _same(doc) == _same(_cli_json(run, "simulate", SAMPLES, "--preset", "codex", "-j", "1"))
    sweep = toolaudit.simulate([SAMPLES], sweep="max_chars=2000,5000")
    frame = sweep.to_pandas()
    assert set(frame["variant"]) == {"2000", "5000"}
    assert list(sweep.to_pandas("totals")["tokens_after"]) == [v.totals.tokens_after for v in sweep.variants]


def test_replay_compare_gate_and_calibrate_give_what_their_commands_print(run, tmp_path):
    replayed = toolaudit.replay([FIXTURES / "search_session.jsonl"], **REPLAY)
    args = [a for t in REPLAY["tools"] for a in ("--tool", t)]
    assert _same(replayed.to_dict()) == _same(_cli_json(
        run, "replay", FIXTURES / "search_session.jsonl", "--workspace", REPLAY["workspace"],
        "--translate", "shell-search", *args))
    assert replayed.to_pandas().set_index("tool").loc["Bash", "tokens_after"] < 10_770

    compared = toolaudit.compare(SAMPLES / "claude-code", SAMPLES / "codex")
    assert _same(compared.to_dict()) == _same(_cli_json(run, "compare", SAMPLES / "claude-code", SAMPLES / "codex",
                                                        "-j", "1"))
    assert set(compared.to_pandas()["side"]) == {"a", "b"}

    baseline = tmp_path / "base.json"
    baseline.write_text(toolaudit.scan([SAMPLES / "codex"]).to_json())
    verdict = toolaudit.gate([SAMPLES / "codex"], baseline=baseline, fail_on="tokens.total:+0")
    assert verdict.passed and list(verdict.to_pandas()["check"]) == ["tokens.total:+0"]
    assert _same(verdict.to_dict()) == _same(_cli_json(run, "ci", SAMPLES / "codex", "--baseline", baseline,
                                                       "--fail-on", "tokens.total:+0"))

    fit = toolaudit.calibrate([SAMPLES])
    assert _same(fit.to_dict()) == _same(_cli_json(run, "calibrate", SAMPLES))
    assert len(fit.to_pandas()) == len(fit.fits)


COMMANDS = {"scan": "scan", "simulate": "simulate", "replay": "replay", "ci": "gate", "compare": "compare",
            "calibrate": "calibrate"}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_is_a_thin_shell_over_its_entry_point(command):
    # the command builds options and calls its job's entry point: it never gathers, folds or measures itself
    tree = ast.parse((ROOT / "toolaudit" / "cli" / f"{command}.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert f"{COMMANDS[command]}.job" in imported, imported
    assert not imported & {"pipeline", "scan.summary", "simulate.summary", "replay.summary", "replay.runner",
                           "simulate.policymap", "gate.checks", "compare.engine", "calibrate.engine"}, imported
    calls = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not calls & {"gather", "run", "Collected", "summarize"}, calls


def test_no_core_function_takes_more_than_about_eight_parameters():
    # flags travel as one options object, not as long parameter lists (the CLI's click callbacks and the MCP
    # server's @tool functions excepted: their parameters are the command's flags and the tool's schema);
    # nine is the most: Pairing.result takes the nine fields a collector knows of one result
    long = []
    for path in sorted((ROOT / "toolaudit").rglob("*.py")):
        if "cli" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(isinstance(d, ast.Name) and d.id == "tool" for d in node.decorator_list):
                    continue
                args = node.args
                bound = 1 if args.args and args.args[0].arg in ("self", "cls") else 0
                count = len(args.posonlyargs + args.args + args.kwonlyargs) - bound
                if count > 9:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({count})")
    assert long == [], long
