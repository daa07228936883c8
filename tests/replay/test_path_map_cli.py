"""--path-map FROM=TO is checked before anything is read: a mapping replay would silently drop (a relative FROM,
which no recorded absolute path can start with) is a usage error, even when the transcript holds no call."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from toolaudit.cli import cli


def _replay_empty(tmp_path, mapping: str):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    return CliRunner().invoke(cli, ["replay", str(empty), "--identity", "--workspace", str(tmp_path),
                                    "--path-map", mapping], catch_exceptions=False)


@pytest.mark.parametrize("mapping", ["relative/dir=/tmp", " = ", "foo", "=x", "/abs="])
def test_a_malformed_path_map_exits_2_with_one_line_even_on_an_empty_transcript(tmp_path, mapping):
    result = _replay_empty(tmp_path, mapping)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "--path-map" in lines[0] and "FROM=TO" in lines[0], lines
    assert "PATH_MAP" not in lines[0]  # the option's name, not its upper-cased form glued to the metavar


@pytest.mark.parametrize("mapping", ["/srv/app=.", "D:\\repo=sub", "/a=/b=c"])
def test_a_well_formed_path_map_is_taken(tmp_path, mapping):
    assert _replay_empty(tmp_path, mapping).exit_code == 0
