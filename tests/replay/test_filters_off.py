"""No filter a repository configures runs when replay checks out its commits, whatever the filter is named.

Written by us: a filter whose smudge command leaves a marker file, named with a dot (`filter.team.tool.smudge`, a
subsection git allows), assigned by `.gitattributes`."""

from __future__ import annotations

from conftest import committed_repo, run_git

from toolaudit.replay.git import SAFE_GIT, filters_off


def test_a_filter_named_with_a_dot_is_turned_off(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    marker = tmp_path / "smudged"
    committed_repo(repo, {".gitattributes": "*.txt filter=team.tool\n", "a.txt": "a\n"})
    run_git(repo, "config", "filter.team.tool.smudge", f"touch {marker}; cat")
    run_git(repo, "config", "filter.plain.clean", "cat")
    options = filters_off(repo, 30.0)
    assert "filter.team.tool.smudge=" in options and "filter.plain.clean=" in options
    (repo / "a.txt").unlink()
    run_git(repo, *SAFE_GIT, *options, "checkout", "--", "a.txt")
    assert (repo / "a.txt").read_text() == "a\n" and not marker.exists()
