"""A baseline's numbers must be finite: NaN, Infinity or an overflowing 1e999 anywhere is a one-line usage error
(`totals.tokens: Infinity` passed every check, NaN failed every one)."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLES

SESSION = SAMPLES / "claude-code" / "-home-dev-kanban"


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> dict:
    """A real scan result of one sample folder, to spoil one number of."""
    from click.testing import CliRunner

    from toolaudit.cli import cli

    out = tmp_path_factory.mktemp("base") / "base.json"
    result = CliRunner().invoke(cli, ["scan", str(SESSION), "-f", "json", "-o", str(out), "-q", "-j", "1"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def _with(doc: dict, where: str, literal: str) -> str:
    """`doc` as JSON text with the number at `where` (totals.tokens, tools.0.tokens, meta.x) written as `literal`."""
    doc = json.loads(json.dumps(doc))
    parts = where.split(".")
    target = doc
    for part in parts[:-1]:
        target = target[int(part)] if part.isdigit() else target[part]
    target[parts[-1]] = "@@"
    return json.dumps(doc).replace('"@@"', literal)


@pytest.mark.parametrize("literal", ["Infinity", "-Infinity", "NaN", "1e999"])
@pytest.mark.parametrize("where, named", [("totals.tokens", "totals.tokens"), ("tools.0.tokens", "tools[{tool}].tokens"),
                                          ("meta.threshold", "meta.threshold")])
def test_a_non_finite_number_anywhere_is_refused_in_one_line(run, good, tmp_path, literal, where, named):
    baseline = tmp_path / "baseline.json"
    baseline.write_text(_with(good, where, literal))
    result = run("ci", SESSION, "--baseline", baseline, "-q", "-j", "1")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "the baseline" in lines[0], result.stderr
    if literal != "-Infinity" or where == "meta.threshold":  # a negative count is refused as below zero first
        assert named.format(tool=good["tools"][0]["tool"]) in lines[0] and "not a finite number" in lines[0]


def test_the_same_baseline_with_finite_numbers_passes(run, good, tmp_path):
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(good))
    assert run("ci", SESSION, "--baseline", baseline, "-q", "-j", "1").exit_code == 0
